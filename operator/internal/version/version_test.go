/*
Copyright 2026 The Grove Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package version

import "testing"

func TestKubernetesRelease(t *testing.T) {
	tests := []struct {
		name, module, want string
	}{
		{"a staging module version names its Kubernetes release", "v0.37.2", "v1.37.2"},
		{"a pre-release keeps its suffix", "v0.38.0-alpha.1", "v1.38.0-alpha.1"},
		{"a version outside the v0 scheme is kept", "v1.37.2", "v1.37.2"},
		{"a version that is not semver is kept", "(devel)", "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kubernetesRelease(tt.module); got != tt.want {
				t.Errorf("kubernetesRelease(%q) = %q, want %q", tt.module, got, tt.want)
			}
		})
	}
}
