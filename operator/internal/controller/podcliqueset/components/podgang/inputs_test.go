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

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
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

// What the PodCliques write into a PodGang (their groups' references, under
// their own field manager) is left out of what convergence is decided on;
// everything else stays in.
func TestWithoutPodReferencesKeepsWhatConvergenceReads(t *testing.T) {
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	gang := func(change func(*groveschedulerv1alpha1.PodGang)) *groveschedulerv1alpha1.PodGang {
		pg := &groveschedulerv1alpha1.PodGang{
			ObjectMeta: metav1.ObjectMeta{Name: "demo-0", Labels: map[string]string{"a": "1"}, ManagedFields: []metav1.ManagedFieldsEntry{
				entry(childsync.PodCliqueSetFieldManager, `{"f:spec":{"f:podgroups":{}}}`),
			}},
			Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{
				{Name: "demo-0-fe", MinReplicas: 2, PodReferences: []groveschedulerv1alpha1.NamespacedName{}},
			}},
		}
		if change != nil {
			change(pg)
		}
		return pg
	}
	referenced := func(pg *groveschedulerv1alpha1.PodGang) {
		pg.Spec.PodGroups[0].PodReferences = []groveschedulerv1alpha1.NamespacedName{{Namespace: "ns", Name: "demo-0-fe-0"}, {Namespace: "ns", Name: "demo-0-fe-1"}}
		pg.ManagedFields = append(pg.ManagedFields, entry(childsync.PodCliqueFieldManager, `{"f:spec":{"f:podgroups":{"k:{\"name\":\"demo-0-fe\"}":{"f:podReferences":{}}}}}`))
	}
	tests := []struct {
		name   string
		change func(*groveschedulerv1alpha1.PodGang)
		same   bool
	}{
		{name: "references written by the PodClique", change: referenced, same: true},
		{name: "a group's minReplicas", change: func(pg *groveschedulerv1alpha1.PodGang) { pg.Spec.PodGroups[0].MinReplicas = 1 }},
		{name: "a label", change: func(pg *groveschedulerv1alpha1.PodGang) { pg.Labels["a"] = "2" }},
		{name: "a group added", change: func(pg *groveschedulerv1alpha1.PodGang) {
			pg.Spec.PodGroups = append(pg.Spec.PodGroups, groveschedulerv1alpha1.PodGroup{Name: "demo-0-be", MinReplicas: 1})
		}},
		{name: "another writer's entry", change: func(pg *groveschedulerv1alpha1.PodGang) {
			pg.ManagedFields = append(pg.ManagedFields, entry("kubectl", `{"f:metadata":{"f:labels":{"f:a":{}}}}`))
		}},
	}
	base := withoutPodReferences(gang(nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := gang(tt.change)
			before := live.DeepCopy()
			got := withoutPodReferences(live)
			if same := equality.Semantic.DeepEqual(got, base); same != tt.same {
				t.Errorf("same as the unchanged PodGang = %v, want %v: %+v", same, tt.same, got)
			}
			if !equality.Semantic.DeepEqual(live, before) {
				t.Errorf("withoutPodReferences changed the live PodGang")
			}
		})
	}
}
