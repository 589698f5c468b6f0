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

package podgang

import (
	"testing"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/topology"
)

// A PodGang's inputs change with everything its build reads, and only with
// that: a PodGang whose inputs stay is not built again, so an input left
// out would leave a PodGang behind its set.
func TestPodGangInputsFollowWhatTheBuildReads(t *testing.T) {
	base := func() (*grovecorev1alpha1.PodCliqueSet, *state, string) {
		pcs := testPCS(1, 2, 1)
		pcs.UID, pcs.Generation = "uid-1", 3
		pcs.Labels = map[string]string{"team": "a"}
		pcs.Annotations = map[string]string{"note": "x"}
		return pcs, &state{pclqs: map[string]*grovecorev1alpha1.PodClique{}, pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{}}, "grove-scheduler"
	}
	inputsOf := func(pcs *grovecorev1alpha1.PodCliqueSet, st *state, scheduler string) []string {
		var out []string
		for _, g := range expectedGangs(pcs, st) {
			out = append(out, setInputs(pcs, topology.Resolution{}, scheduler)+"/"+g.inputs())
		}
		return out
	}
	pcs, st, scheduler := base()
	want := inputsOf(pcs, st, scheduler)
	tests := []struct {
		name    string
		change  func(*grovecorev1alpha1.PodCliqueSet, *state, *string)
		changed bool
	}{
		{name: "nothing", change: func(*grovecorev1alpha1.PodCliqueSet, *state, *string) {}},
		{name: "the status", change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.Status.AvailableReplicas = 1 }},
		{name: "the resourceVersion", change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.ResourceVersion = "99" }},
		{name: "the generation", changed: true, change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.Generation++ }},
		{name: "the UID", changed: true, change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.UID = "uid-2" }},
		{name: "a label", changed: true, change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.Labels["team"] = "b" }},
		{name: "an annotation", changed: true, change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) { p.Annotations["other"] = "" }},
		{name: "a label becoming an annotation", changed: true, change: func(p *grovecorev1alpha1.PodCliqueSet, _ *state, _ *string) {
			delete(p.Labels, "team")
			p.Annotations["team"] = "a"
		}},
		{name: "the scheduler backend", changed: true, change: func(_ *grovecorev1alpha1.PodCliqueSet, _ *state, s *string) { *s = "kai-scheduler" }},
		{name: "a clique scaled to zero", changed: true, change: func(_ *grovecorev1alpha1.PodCliqueSet, st *state, _ *string) {
			p := &grovecorev1alpha1.PodClique{}
			p.Name = "demo-0-fe"
			st.pclqs[p.Name] = p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs, st, scheduler := base()
			tt.change(pcs, st, &scheduler)
			got := inputsOf(pcs, st, scheduler)
			if changed := got[0] != want[0]; changed != tt.changed {
				t.Errorf("base PodGang inputs changed = %v, want %v:\n%s\n%s", changed, tt.changed, want[0], got[0])
			}
		})
	}
	if want[0] == want[1] {
		t.Errorf("two gangs of the set have the same inputs %q", want[0])
	}
}
