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

package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestHeldByForeignGate(t *testing.T) {
	tests := []struct {
		name  string
		gates []string
		want  bool
	}{
		{name: "no gate", want: false},
		{name: "only Grove's gate", gates: []string{apicommon.PodGangSchedulingGate}, want: false},
		{name: "a foreign gate", gates: []string{"example.com/hold"}, want: true},
		{name: "Grove's and a foreign gate", gates: []string{apicommon.PodGangSchedulingGate, "example.com/hold"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{}
			for _, g := range tt.gates {
				pod.Spec.SchedulingGates = append(pod.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
			}
			if got := heldByForeignGate(pod); got != tt.want {
				t.Errorf("heldByForeignGate(%v) = %v, want %v", tt.gates, got, tt.want)
			}
		})
	}
}

func TestOnNodeChangeOpensSettleWindowOnlyForCapacityChanges(t *testing.T) {
	base := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"zone": "a"}},
			Spec:       corev1.NodeSpec{Unschedulable: true},
			Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		}
	}
	tests := []struct {
		name   string
		old    *corev1.Node
		change func(*corev1.Node)
		want   bool
	}{
		{name: "node added", old: nil, change: func(*corev1.Node) {}, want: true},
		{name: "uncordoned", old: base(), change: func(n *corev1.Node) { n.Spec.Unschedulable = false }, want: true},
		{name: "taint removed", old: func() *corev1.Node {
			n := base()
			n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
			return n
		}(), change: func(*corev1.Node) {}, want: true},
		{name: "allocatable grew", old: base(), change: func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("2") }, want: true},
		{name: "label changed", old: base(), change: func(n *corev1.Node) { n.Labels["zone"] = "b" }, want: true},
		{name: "heartbeat only", old: base(), change: func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Manager{}
			updated := base()
			tt.change(updated)
			if tt.old == nil {
				m.onNodeChange(nil, updated)
			} else {
				m.onNodeChange(tt.old, updated)
			}
			if got := m.settling() > 0; got != tt.want {
				t.Errorf("settle window open = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFamilyIndexFollowsPartOfLabel(t *testing.T) {
	pg := func(name, pcs string) *groveschedulerv1alpha1.PodGang {
		p := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if pcs != "" {
			p.Labels = map[string]string{apicommon.LabelPartOfKey: pcs}
		}
		return p
	}
	m := &Manager{families: map[string]map[string]struct{}{}}
	base, scaled, other, loose := newGangSpec(pg("a-0", "a")), newGangSpec(pg("a-0-sg-0", "a")), newGangSpec(pg("b-0", "b")), newGangSpec(pg("c", ""))
	for _, s := range []*gangSpec{base, scaled, other, loose} {
		m.addToFamilyLocked(s)
	}
	if got := len(m.families["ns/a"]); got != 2 {
		t.Fatalf("family ns/a has %d gangs, want 2", got)
	}
	if got := len(m.families); got != 2 {
		t.Fatalf("%d families indexed, want 2 (a PodGang without part-of has none)", got)
	}
	m.removeFromFamilyLocked(scaled)
	m.removeFromFamilyLocked(base)
	if _, ok := m.families["ns/a"]; ok {
		t.Errorf("family ns/a still indexed after its gangs were removed")
	}
}
