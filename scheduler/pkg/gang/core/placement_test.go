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
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const gpu = corev1.ResourceName("nvidia.com/gpu")

func gpuNode(name string, gpus int64, labels map[string]string) *SimNode {
	return &SimNode{Name: name, Labels: labels, Free: Resources{MilliCPU: 8000, Memory: 1 << 34, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: gpus}}}
}

func gpuDemand(name string, count, gpus int64) GroupDemand {
	return GroupDemand{Name: name, Count: count, Request: Resources{Pods: 1, MilliCPU: 100, Scalar: map[corev1.ResourceName]int64{gpu: gpus}}}
}

func TestSearch(t *testing.T) {
	rack := func(r string) map[string]string { return map[string]string{"rack": r} }
	tests := []struct {
		name         string
		nodes        []*SimNode
		demands      []GroupDemand
		root         *Scope
		wantFail     string
		wantRequired map[int]map[string]string
	}{
		{
			name:    "two groups fit across nodes",
			nodes:   []*SimNode{gpuNode("n0", 4, nil), gpuNode("n1", 4, nil)},
			demands: []GroupDemand{gpuDemand("prefill", 2, 2), gpuDemand("decode", 2, 2)},
			root:    &Scope{Name: "podgang pg", Groups: []int{0, 1}},
		},
		{
			name:     "the failing group says how many of its pods fit",
			nodes:    []*SimNode{gpuNode("n0", 4, nil), gpuNode("n1", 4, nil)},
			demands:  []GroupDemand{gpuDemand("decode", 4, 4)},
			root:     &Scope{Name: "podgang pg", Groups: []int{0}},
			wantFail: "group decode needs 4 pods with 4 nvidia.com/gpu, 100m cpu, 2 fit: 2/2 nodes are available, with room for 2 pods",
		},
		{
			name:     "earlier groups consume capacity before later ones",
			nodes:    []*SimNode{gpuNode("n0", 4, nil), gpuNode("n1", 4, nil)},
			demands:  []GroupDemand{gpuDemand("prefill", 1, 1), gpuDemand("decode", 2, 4)},
			root:     &Scope{Name: "podgang pg", Groups: []int{0, 1}},
			wantFail: "group decode needs 2 pods with 4 nvidia.com/gpu, 100m cpu, 1 fit: 1/2 nodes are available, with room for 1 pods: 1 Insufficient nvidia.com/gpu",
		},
		{
			name:         "required key picks the one domain that holds the gang",
			nodes:        []*SimNode{gpuNode("a0", 2, rack("a")), gpuNode("a1", 2, rack("a")), gpuNode("b0", 2, rack("b")), gpuNode("b1", 2, rack("b")), gpuNode("b2", 2, rack("b"))},
			demands:      []GroupDemand{gpuDemand("worker", 5, 1)},
			root:         &Scope{Name: "podgang pg", RequiredKey: "rack", Groups: []int{0}},
			wantRequired: map[int]map[string]string{0: {"rack": "b"}},
		},
		{
			name:         "required key prefers the smallest domain that fits",
			nodes:        []*SimNode{gpuNode("a0", 2, rack("a")), gpuNode("b0", 2, rack("b")), gpuNode("b1", 2, rack("b"))},
			demands:      []GroupDemand{gpuDemand("worker", 2, 1)},
			root:         &Scope{Name: "podgang pg", RequiredKey: "rack", Groups: []int{0}},
			wantRequired: map[int]map[string]string{0: {"rack": "a"}},
		},
		{
			name:         "a fixed domain is kept even when another would fit",
			nodes:        []*SimNode{gpuNode("a0", 2, rack("a")), gpuNode("b0", 2, rack("b")), gpuNode("b1", 2, rack("b"))},
			demands:      []GroupDemand{gpuDemand("worker", 2, 1)},
			root:         &Scope{Name: "podgang pg", RequiredKey: "rack", FixedRequired: "b", Groups: []int{0}},
			wantRequired: map[int]map[string]string{0: {"rack": "b"}},
		},
		{
			name:     "no single domain holds the gang although the cluster does",
			nodes:    []*SimNode{gpuNode("a0", 2, rack("a")), gpuNode("b0", 2, rack("b"))},
			demands:  []GroupDemand{gpuDemand("worker", 3, 1)},
			root:     &Scope{Name: "podgang pg", RequiredKey: "rack", Groups: []int{0}},
			wantFail: `podgang pg does not fit in any single "rack" domain (2 tried): group worker needs 3 pods with 1 nvidia.com/gpu, 100m cpu, 2 fit: 1/1 nodes are available, with room for 2 pods`,
		},
		{
			name:  "group-level required keys split groups across domains inside the gang",
			nodes: []*SimNode{gpuNode("a0", 2, rack("a")), gpuNode("b0", 2, rack("b"))},
			demands: []GroupDemand{
				gpuDemand("prefill", 2, 1), gpuDemand("decode", 2, 1),
			},
			root: &Scope{Name: "podgang pg", Children: []*Scope{
				{Name: "group prefill", RequiredKey: "rack", Groups: []int{0}},
				{Name: "group decode", RequiredKey: "rack", Groups: []int{1}},
			}},
			wantRequired: map[int]map[string]string{0: {"rack": "a"}, 1: {"rack": "b"}},
		},
		{
			name:     "ineligible nodes are skipped",
			nodes:    []*SimNode{gpuNode("n0", 4, map[string]string{"pool": "x"}), gpuNode("n1", 4, nil)},
			demands:  []GroupDemand{{Name: "w", Count: 2, Request: Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 4}}, Eligible: func(n *SimNode) bool { return n.Labels["pool"] == "x" }}},
			root:     &Scope{Name: "podgang pg", Groups: []int{0}},
			wantFail: "group w needs 2 pods with 4 nvidia.com/gpu, 1 fit: 1/2 nodes are available, with room for 1 pods: 1 node(s) didn't match the pod's node constraints",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprint(tt.nodes[0].Free)
			p, fail := Search(tt.nodes, tt.demands, tt.root)
			if got := fmt.Sprint(tt.nodes[0].Free); got != before {
				t.Fatalf("Search changed the caller's free resources: %s -> %s", before, got)
			}
			if tt.wantFail != "" {
				if fail == nil {
					t.Fatalf("expected failure %q, got placement %v", tt.wantFail, p)
				}
				if fail.Message != tt.wantFail {
					t.Fatalf("message\n got: %s\nwant: %s", fail.Message, tt.wantFail)
				}
				return
			}
			if fail != nil {
				t.Fatalf("unexpected failure: %s", fail.Message)
			}
			for gi, want := range tt.wantRequired {
				if !reflect.DeepEqual(p.Required[gi], want) {
					t.Fatalf("group %d required labels = %v, want %v", gi, p.Required[gi], want)
				}
			}
		})
	}
}

func TestResourcesCopies(t *testing.T) {
	tests := []struct {
		name string
		free Resources
		req  Resources
		want int64
	}{
		{"cpu bound", Resources{MilliCPU: 1000, Pods: 10}, Resources{MilliCPU: 300, Pods: 1}, 3},
		{"pod slots bound", Resources{MilliCPU: 1000, Pods: 2}, Resources{MilliCPU: 100, Pods: 1}, 2},
		{"missing scalar", Resources{MilliCPU: 1000, Pods: 2}, Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 1}}, 0},
		{"overcommitted node", Resources{MilliCPU: -100, Pods: 5}, Resources{MilliCPU: 100, Pods: 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.free.copies(tt.req); got != tt.want {
				t.Fatalf("copies = %d, want %d", got, tt.want)
			}
		})
	}
}
