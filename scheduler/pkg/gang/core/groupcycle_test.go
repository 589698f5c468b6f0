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
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The group-level cycle: the first pod's search plans the whole minimum set,
// and the set's other pods are pinned to their planned nodes without a search
// of their own, as long as the plan holds.
func TestGroupCycle(t *testing.T) {
	rack := func(r string) map[string]string { return map[string]string{"rack": r} }
	// Rack a: one node with 1 GPU. Rack b: three nodes with 1 GPU each.
	nodes := []*corev1.Node{newTestNode("a0", 1, rack("a")), newTestNode("b0", 1, rack("b")), newTestNode("b1", 1, rack("b")), newTestNode("b2", 1, rack("b"))}
	workers := testGroup{name: "w", pods: 3, min: 3, gpus: 1}
	type step struct {
		// pod runs PreFilter; reserve reserves it on the node it got; bind
		// puts a pod of another owner on a node first ("node<-pod").
		pod string
		// mutate changes the pod before its PreFilter.
		mutate  func(*corev1.Pod)
		bind    string
		reserve bool
	}
	spread := func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: corev1.ScheduleAnyway}}
	}
	preferNode := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}},
		}}}}
	}
	preferApart := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "w"}}},
		}}}}
	}
	tests := []struct {
		name   string
		steps  []step
		misfit bool
		// want is each step's "node/required rack" or the status message.
		want []string
	}{
		{
			name:  "the set's pods get the nodes the first pod's search planned, one each",
			steps: []step{{pod: "g-w-0", reserve: true}, {pod: "g-w-1", reserve: true}, {pod: "g-w-2", reserve: true}},
			want:  []string{"b0/b", "b1/b", "b2/b"},
		},
		{
			name:  "a planned node another pod took since is not handed out: the search runs again",
			steps: []step{{pod: "g-w-0", reserve: true}, {pod: "g-w-1", bind: "b1<-other"}},
			// b1 is gone, and the rack the gang holds has room for one more pod.
			want: []string{"b0/b", "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 1 fit: 1 of 3 nodes have room for 1 pods: 2 Insufficient nvidia.com/gpu"},
		},
		{
			name:   "a misfit gang is not pinned: kube-scheduler chooses inside the domain",
			misfit: true,
			steps:  []step{{pod: "g-w-0", reserve: true}, {pod: "g-w-1", reserve: true}},
			want:   []string{"-/b", "-/b"},
		},
		{
			name:  "a pod with topology spread constraints is not pinned",
			steps: []step{{pod: "g-w-0", mutate: spread}},
			want:  []string{"-/b"},
		},
		{
			// Pinning skips scoring, so the preference would be ignored.
			name:  "a pod with preferred node affinity is not pinned: kube-scheduler scores the domain's nodes",
			steps: []step{{pod: "g-w-0", mutate: preferNode}},
			want:  []string{"-/b"},
		},
		{
			name:  "a pod with preferred pod anti-affinity is not pinned",
			steps: []step{{pod: "g-w-0", mutate: preferApart}},
			want:  []string{"-/b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			pg := newTestPodGang("ns", "g", workers)
			pg.Spec.TopologyConstraint = pack("rack", "")
			e.addPodGang(pg)
			e.addPods(newTestGangPods("ns", "g", workers)...)
			if tt.misfit {
				e.m.mu.Lock()
				e.m.stateLocked("ns/g").phase = PhaseMisfit
				e.m.mu.Unlock()
			}
			var onNodes []*corev1.Pod
			var got []string
			for _, s := range tt.steps {
				if s.bind != "" {
					node, name, _ := strings.Cut(s.bind, "<-")
					onNodes = append(onNodes, bound(newTestPod("ns", name, "", 1), node))
				}
				pod := e.pod("ns", s.pod)
				if s.mutate != nil {
					pod = pod.DeepCopy()
					s.mutate(pod)
				}
				d, status := e.m.PreFilter(pod, nodeInfos(nodes, onNodes...))
				if !status.IsSuccess() {
					got = append(got, status.Message())
					continue
				}
				node := d.Node
				if node == "" {
					node = "-"
				}
				got = append(got, fmt.Sprintf("%s/%s", node, d.Required["rack"]))
				if s.reserve {
					on := d.Node
					if on == "" {
						on = "b" + s.pod[len(s.pod)-1:]
					}
					e.m.Reserve(pod, on)
					onNodes = append(onNodes, bound(pod, on))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Any end of the attempt spends the plan: after the gang is rejected its next
// pod runs the search again.
func TestGroupCyclePlanEndsWithTheAttempt(t *testing.T) {
	e := newTestEnv(t)
	workers := testGroup{name: "w", pods: 2, min: 2, gpus: 1}
	e.addPodGang(newTestPodGang("ns", "g", workers))
	e.addPods(newTestGangPods("ns", "g", workers)...)
	nodes := nodeInfos([]*corev1.Node{newTestNode("n0", 1, nil), newTestNode("n1", 1, nil)})
	if d, _ := e.m.PreFilter(e.pod("ns", "g-w-0"), nodes); d == nil || d.Node == "" {
		t.Fatalf("first pod not pinned: %+v", d)
	}
	e.m.RejectGang(e.pod("ns", "g-w-0"), "test", true)
	e.m.mu.RLock()
	plan := e.m.states["ns/g"].plan
	e.m.mu.RUnlock()
	if plan != nil {
		t.Fatalf("plan %+v survived the rejected attempt", plan)
	}
}
