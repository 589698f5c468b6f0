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

package desired

import (
	"testing"

	apicommon "github.com/grove-project/grove/api/common"
)

func TestReplicas(t *testing.T) {
	recorded := func(v string) map[string]string { return map[string]string{apicommon.AnnotationTemplateReplicas: v} }
	tests := []struct {
		name       string
		live       int32
		annots     map[string]string
		template   int32
		autoscaled bool
		want       int32
	}{
		{name: "kubectl scale persists while the template is unchanged", live: 4, annots: recorded("2"), template: 2, want: 4},
		{name: "a changed template value wins", live: 4, annots: recorded("2"), template: 3, want: 3},
		{name: "no record yet: the template applies", live: 4, annots: nil, template: 2, want: 2},
		{name: "autoscaled children keep their live value", live: 7, annots: recorded("2"), template: 3, autoscaled: true, want: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Replicas(tt.live, tt.annots, tt.template, tt.autoscaled); got != tt.want {
				t.Errorf("Replicas() = %d, want %d", got, tt.want)
			}
		})
	}
}
