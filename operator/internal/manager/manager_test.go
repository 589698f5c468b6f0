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

package manager

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/grove-project/grove/operator/internal/config"
)

func TestPprofAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   config.Debugging
		want string
	}{
		{"profiling unset serves nothing", config.Debugging{PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, ""},
		{"profiling disabled serves nothing", config.Debugging{EnableProfiling: ptr.To(false), PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, ""},
		{"profiling enabled serves on host:port", config.Debugging{EnableProfiling: ptr.To(true), PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, "127.0.0.1:2753"},
		{"an IPv6 host is bracketed", config.Debugging{EnableProfiling: ptr.To(true), PprofBindHost: "::1", PprofBindPort: 6060}, "[::1]:6060"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pprofAddress(tc.in); got != tc.want {
				t.Fatalf("pprofAddress = %q, want %q", got, tc.want)
			}
		})
	}
}
