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
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

func TestPreFilter(t *testing.T) {
	rack := func(r string) map[string]string { return map[string]string{"rack": r} }
	// Rack a holds 2 GPUs on one node, rack b 6 GPUs on two nodes.
	racks := []*corev1.Node{newTestNode("a0", 2, rack("a")), newTestNode("b0", 4, rack("b")), newTestNode("b1", 2, rack("b"))}
	workers := testGroup{name: "w", pods: 4, min: 3, gpus: 1}
	leader := testGroup{name: "l", pods: 1, min: 1, gpus: 1}
	tests := []struct {
		name string
		// groups make PodGang ns/g (none: no PodGang), packed by "rack" when
		// packed; the gang's pods exist for podGroups, or for groups when nil.
		groups    []testGroup
		packed    bool
		podGroups []testGroup
		reserved  []string
		pod       *corev1.Pod
		nodes     []*corev1.Node
		want      *Decision
		code      fwk.Code
		message   string
		// reason is what the gang records for its Scheduled condition.
		reason string
	}{
		{
			name: "an ordinary pod needs no gang decision",
			pod:  newTestPod("ns", "web", "", 0),
		},
		{
			name:    "a pod whose PodGang is unknown is unresolvable",
			pod:     newTestPod("ns", "g-w-0", "g", 1),
			code:    fwk.UnschedulableAndUnresolvable,
			message: "PodGang ns/g not found",
		},
		{
			name:    "a pod its PodGang does not reference is unresolvable",
			groups:  []testGroup{workers},
			pod:     newTestPod("ns", "stray", "g", 1),
			code:    fwk.UnschedulableAndUnresolvable,
			message: "pod is not referenced by PodGang ns/g",
		},
		{
			name:   "a gang that fits is pinned to the smallest rack that holds its minimum set",
			groups: []testGroup{workers},
			packed: true,
			pod:    newTestPod("ns", "g-w-0", "g", 1),
			nodes:  racks,
			want:   &Decision{Required: map[string]string{"rack": "b"}, Node: "b0"},
		},
		{
			name:     "later pods join the rack the gang's placed pods occupy",
			groups:   []testGroup{{name: "w", pods: 2, min: 2, gpus: 1}},
			packed:   true,
			reserved: []string{"g-w-0@b1"},
			pod:      newTestPod("ns", "g-w-1", "g", 1),
			nodes:    racks,
			want:     &Decision{Required: map[string]string{"rack": "b"}, Node: "b0"},
		},
		{
			name:    "a gang no rack can hold is rejected with the search's reason",
			groups:  []testGroup{{name: "w", pods: 7, min: 7, gpus: 1}},
			packed:  true,
			pod:     newTestPod("ns", "g-w-0", "g", 1),
			nodes:   racks,
			code:    fwk.Unschedulable,
			message: `podgang g does not fit in any single "rack" domain (2 tried): group w needs 7 pods with 1 nvidia.com/gpu, 100m cpu, 6 fit: 2 of 2 nodes have room for 6 pods`,
			reason:  `podgang g does not fit in any single "rack" domain (2 tried): group w needs 7 pods with 1 nvidia.com/gpu, 100m cpu, 6 fit: 2/2 nodes are available, with room for 6 pods`,
		},
		{
			name:      "a gang missing referenced pods cannot be completed",
			groups:    []testGroup{leader, workers},
			podGroups: []testGroup{leader, {name: "w", pods: 2, min: 3, gpus: 1}},
			pod:       newTestPod("ns", "g-l-0", "g", 1),
			nodes:     racks,
			code:      fwk.UnschedulableAndUnresolvable,
			message:   "group w needs 3 more pods but only 2 of its referenced pods exist unplaced",
			reason:    "group w needs 3 more pods but only 2 of its referenced pods exist unplaced",
		},
		{
			name:     "a pod beyond its group's minReplicas waits until the whole minimum set is placed",
			groups:   []testGroup{leader, workers},
			reserved: []string{"g-w-0@b0", "g-w-1@b0", "g-w-2@b0"},
			pod:      newTestPod("ns", "g-w-3", "g", 1),
			nodes:    racks,
			want:     &Decision{BestEffort: true},
			code:     fwk.Unschedulable,
			message:  "best-effort pod of group w waits until the minimum set of PodGang ns/g is placed",
		},
		{
			name:     "once the minimum set is placed a best-effort pod only needs a spot of its own",
			groups:   []testGroup{leader, workers},
			reserved: []string{"g-l-0@a0", "g-w-0@b0", "g-w-1@b0", "g-w-2@b0"},
			pod:      newTestPod("ns", "g-w-3", "g", 1),
			nodes:    racks,
			want:     &Decision{BestEffort: true},
		},
		{
			name:     "a best-effort pod without a spot fails alone and records nothing for its gang",
			groups:   []testGroup{leader, workers},
			reserved: []string{"g-l-0@a0", "g-w-0@b0", "g-w-1@b0", "g-w-2@b0"},
			pod:      newTestPod("ns", "g-w-3", "g", 1),
			nodes:    []*corev1.Node{newTestNode("a0", 0, nil)},
			want:     &Decision{BestEffort: true},
			code:     fwk.Unschedulable,
			message:  "group w needs 1 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0 of 1 nodes have room: 1 Insufficient nvidia.com/gpu",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tt.groups != nil {
				pg := newTestPodGang("ns", "g", tt.groups...)
				if tt.packed {
					pg.Spec.TopologyConstraint = pack("rack", "")
				}
				e.addPodGang(pg)
				podGroups := tt.podGroups
				if podGroups == nil {
					podGroups = tt.groups
				}
				e.addPods(newTestGangPods("ns", "g", podGroups...)...)
			}
			for _, r := range tt.reserved {
				name, node := splitAt(r)
				e.m.Reserve(e.pod("ns", name), node)
			}
			got, status := e.m.PreFilter(tt.pod, nodeInfos(tt.nodes))
			if status.Code() != tt.code || status.Message() != tt.message {
				t.Errorf("status %v %q, want %v %q", status.Code(), status.Message(), tt.code, tt.message)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decision %+v, want %+v", got, tt.want)
			}
			if _, reason := e.phase("ns/g"); reason != tt.reason {
				t.Errorf("recorded reason %q, want %q", reason, tt.reason)
			}
		})
	}
}

// splitAt splits "pod@node".
func splitAt(s string) (string, string) {
	for i := range s {
		if s[i] == '@' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
