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

package pod

import (
	"testing"

	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// TestBuildPriorityClassName: pods run at the PodCliqueSet template's
// priorityClassName unless their clique's pod spec names its own class.
func TestBuildPriorityClassName(t *testing.T) {
	for _, tc := range []struct {
		name, template, podSpec, want string
	}{
		{name: "template class reaches the pod", template: "inference-high", want: "inference-high"},
		{name: "the clique's own class wins", template: "inference-high", podSpec: "batch-low", want: "batch-low"},
		{name: "the clique's class without a template class", podSpec: "batch-low", want: "batch-low"},
		{name: "no class anywhere", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pcs := leaderWorkers()
			pcs.Spec.Template.PriorityClassName = tc.template
			pclq := memberPodClique(pcs, "leader", 0)
			pclq.Spec.PodSpec.PriorityClassName = tc.podSpec
			id, err := IdentityOf(pclq)
			if err != nil {
				t.Fatal(err)
			}
			reg, err := backend.NewRegistry(config.Default())
			if err != nil {
				t.Fatal(err)
			}
			be, err := reg.ForSchedulerName("")
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewBuilder(pclq, pcs, id, be, startuporder.Image{Ref: "grove-initc:v1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Build(0).Spec.PriorityClassName; got != tc.want {
				t.Errorf("priorityClassName = %q, want %q", got, tc.want)
			}
			if pclq.Spec.PodSpec.PriorityClassName != tc.podSpec {
				t.Errorf("building a pod changed the PodClique's pod spec to %q", pclq.Spec.PodSpec.PriorityClassName)
			}
		})
	}
}
