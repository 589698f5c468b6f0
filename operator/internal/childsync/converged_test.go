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

package childsync

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestConvergedChildrenHoldOnlyForTheSameContentAndWant(t *testing.T) {
	applied := metav1.ManagedFieldsEntry{Manager: "grove-podcliqueset-controller", Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:a":{}}}}`)}
	statusEntry := func(at int64) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: "grove-podclique-controller", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status",
			Time: &metav1.Time{Time: time.Unix(at, 0)}, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:readyReplicas":{}}}`)}
	}
	child := func(uid types.UID, rv string, change func(*grovecorev1alpha1.PodClique)) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{
			ObjectMeta: metav1.ObjectMeta{UID: uid, ResourceVersion: rv, Labels: map[string]string{"a": "1"},
				ManagedFields: []metav1.ManagedFieldsEntry{applied, statusEntry(100)}},
			Spec:   grovecorev1alpha1.PodCliqueSpec{Replicas: 2},
			Status: grovecorev1alpha1.PodCliqueStatus{ReadyReplicas: 1},
		}
		if change != nil {
			change(p)
		}
		return p
	}
	want := []byte(`{"metadata":{"labels":{"a":"1"}}}`)
	tests := []struct {
		name   string
		record bool
		forget bool
		live   *grovecorev1alpha1.PodClique
		want   []byte
		holds  bool
	}{
		{name: "never recorded", live: child("u1", "10", nil), want: want},
		{name: "recorded at this version and want", record: true, live: child("u1", "10", nil), want: want, holds: true},
		{name: "only its status was written since", record: true, want: want, holds: true, live: child("u1", "11", func(p *grovecorev1alpha1.PodClique) {
			p.Status.ReadyReplicas = 2
			p.ManagedFields[1] = statusEntry(200)
		})},
		{name: "a label changed since", record: true, want: want, live: child("u1", "11", func(p *grovecorev1alpha1.PodClique) { p.Labels["a"] = "2" })},
		{name: "the spec changed since", record: true, want: want, live: child("u1", "11", func(p *grovecorev1alpha1.PodClique) { p.Spec.Replicas = 3 })},
		{name: "another manager now owns fields of the main resource", record: true, want: want, live: child("u1", "11", func(p *grovecorev1alpha1.PodClique) {
			p.ManagedFields = append(p.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:a":{}}}}`)})
		})},
		{name: "the controller wants something else", record: true, live: child("u1", "10", nil), want: []byte(`{"metadata":{"labels":{"a":"2"}}}`)},
		{name: "another child at the same version", record: true, live: child("u2", "10", nil), want: want},
		{name: "the child was deleted", record: true, forget: true, live: child("u1", "10", nil), want: want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConvergedChildren()
			recorded := child("u1", "10", nil)
			if tt.record {
				c.record(viewOf(recorded), want, "")
			}
			if tt.forget {
				c.forget("u1")
			}
			live := tt.live.DeepCopy()
			if got := c.holds(viewOf(live), tt.want, ""); got != tt.holds {
				t.Errorf("holds() = %v, want %v", got, tt.holds)
			}
			if !equality.Semantic.DeepEqual(live, tt.live) {
				t.Errorf("holds() changed the child: %+v", live)
			}
			if tt.holds && c.entries["u1"].resourceVersion != tt.live.ResourceVersion {
				t.Errorf("remembered version %q, want %q (a later sync should not digest again)", c.entries["u1"].resourceVersion, tt.live.ResourceVersion)
			}
		})
	}
}

func TestNilConvergedChildrenRemembersNothing(t *testing.T) {
	var c *ConvergedChildren
	live := &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: "u1", ResourceVersion: "1"}}
	c.record(viewOf(live), []byte("{}"), "u/1")
	c.forget("u1")
	if c.holds(viewOf(live), []byte("{}"), "u/1") || c.holdsInputs(viewOf(live), "u/1") {
		t.Error("a nil memory holds a child")
	}
}

func TestConvergedChildrenIgnoreObjectsWithoutUID(t *testing.T) {
	c := NewConvergedChildren()
	c.record(viewOf(&corev1.Service{}), []byte("{}"), "")
	if n := c.len(); n != 0 {
		t.Errorf("remembered %d children without a UID", n)
	}
}

// A child recorded with the inputs of its wanted configuration holds for the
// same inputs without the configuration; a child that matched a
// configuration built from other inputs takes those inputs on.
func TestConvergedChildrenHoldByInputs(t *testing.T) {
	child := func(rv string, change func(*grovecorev1alpha1.PodClique)) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{UID: "u1", ResourceVersion: rv, Labels: map[string]string{"a": "1"}}}
		if change != nil {
			change(p)
		}
		return p
	}
	want := []byte(`{"metadata":{"labels":{"a":"1"}}}`)
	tests := []struct {
		name     string
		recorded string
		// matched, when set, are inputs under which holds found want again
		// before holdsInputs is asked.
		matched string
		live    *grovecorev1alpha1.PodClique
		ask     string
		holds   bool
	}{
		{name: "same inputs, same version", recorded: "pcs/1", live: child("10", nil), ask: "pcs/1", holds: true},
		{name: "same inputs, only the status written since", recorded: "pcs/1", ask: "pcs/1", holds: true,
			live: child("11", func(p *grovecorev1alpha1.PodClique) { p.Status.ReadyReplicas = 2 })},
		{name: "same inputs, a label changed since", recorded: "pcs/1", ask: "pcs/1",
			live: child("11", func(p *grovecorev1alpha1.PodClique) { p.Labels["a"] = "2" })},
		{name: "a new generation", recorded: "pcs/1", live: child("10", nil), ask: "pcs/2"},
		{name: "a new generation that wants the same", recorded: "pcs/1", matched: "pcs/2", live: child("10", nil), ask: "pcs/2", holds: true},
		{name: "recorded without inputs", recorded: "", live: child("10", nil), ask: "pcs/1"},
		{name: "unknown inputs never hold", recorded: "", live: child("10", nil), ask: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConvergedChildren()
			c.record(viewOf(child("10", nil)), want, tt.recorded)
			if tt.matched != "" && !c.holds(viewOf(tt.live), want, tt.matched) {
				t.Fatalf("holds(want, %q) = false", tt.matched)
			}
			if got := c.holdsInputs(viewOf(tt.live), tt.ask); got != tt.holds {
				t.Errorf("holdsInputs(%q) = %v, want %v", tt.ask, got, tt.holds)
			}
			if tt.holds && c.entries["u1"].resourceVersion != tt.live.ResourceVersion {
				t.Errorf("remembered version %q, want %q", c.entries["u1"].resourceVersion, tt.live.ResourceVersion)
			}
		})
	}
}

// The compared copy of a child (Shared.Unshared) is made only when its
// content is digested: when the child is recorded and when it is found at a
// version other than the remembered one, never at the remembered version.
func TestConvergedChildrenCopyOnlyWhatTheyDigest(t *testing.T) {
	pg := func(rv string, refs ...string) *groveschedulerv1alpha1.PodGang {
		return &groveschedulerv1alpha1.PodGang{
			ObjectMeta: metav1.ObjectMeta{UID: "u1", ResourceVersion: rv},
			Spec:       groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: "g", MinReplicas: 2, PodReferences: podRefs(refs...)}}},
		}
	}
	copies := 0
	unshared := func(live *groveschedulerv1alpha1.PodGang) view {
		return view{child: live, unshared: func() client.Object {
			copies++
			out := live.DeepCopy()
			out.Spec.PodGroups[0].PodReferences = nil
			return out
		}}
	}
	c := NewConvergedChildren()
	c.record(unshared(pg("10")), nil, "pcs/1")
	if copies != 1 {
		t.Fatalf("record made %d copies, want 1", copies)
	}
	tests := []struct {
		name   string
		live   *groveschedulerv1alpha1.PodGang
		holds  bool
		copies int
	}{
		{name: "at the remembered version", live: pg("10"), holds: true, copies: 0},
		{name: "after a write of its pod references", live: pg("11", "p-a", "p-b"), holds: true, copies: 1},
		{name: "at that version again", live: pg("11", "p-a", "p-b"), holds: true, copies: 0},
		{name: "after a change of what is compared", live: func() *groveschedulerv1alpha1.PodGang {
			p := pg("12", "p-a", "p-b")
			p.Spec.PodGroups[0].MinReplicas = 1
			return p
		}(), copies: 1},
	}
	for _, tt := range tests {
		copies = 0
		if got := c.holdsInputs(unshared(tt.live), "pcs/1"); got != tt.holds {
			t.Errorf("%s: holdsInputs = %v, want %v", tt.name, got, tt.holds)
		}
		if copies != tt.copies {
			t.Errorf("%s: %d copies made, want %d", tt.name, copies, tt.copies)
		}
	}
}

func podRefs(names ...string) []groveschedulerv1alpha1.NamespacedName {
	var out []groveschedulerv1alpha1.NamespacedName
	for _, n := range names {
		out = append(out, groveschedulerv1alpha1.NamespacedName{Namespace: "ns", Name: n})
	}
	return out
}
