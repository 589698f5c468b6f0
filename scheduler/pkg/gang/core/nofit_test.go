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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

func TestResourcesPrintCanonically(t *testing.T) {
	tests := []struct {
		r    Resources
		want string
	}{
		{r: Resources{MilliCPU: 1000, Memory: 1 << 30}, want: "1 cpu, 1Gi memory"},
		{r: Resources{MilliCPU: 500, Memory: 1500 << 20}, want: "500m cpu, 1500Mi memory"},
		{r: Resources{MilliCPU: 2500, Memory: 1e9}, want: "2500m cpu, 1G memory"},
		{r: Resources{Scalar: map[corev1.ResourceName]int64{gpu: 4, "hugepages-2Mi": 1 << 30}}, want: "1Gi hugepages-2Mi, 4 nvidia.com/gpu"},
		{r: Resources{Pods: 1}, want: "no resources"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%+v prints %q, want %q", tt.r, got, tt.want)
		}
	}
}

// The no-fit message counts, per constraint, the nodes it excluded, in
// kube-scheduler's words.
func TestNoFitMessageCountsTheNodesEachConstraintExcluded(t *testing.T) {
	const taintKey = "dedicated"
	cpuNode := func(i int, milliCPU, memory int64) *SimNode {
		return &SimNode{Name: fmt.Sprintf("n%02d", i), Free: Resources{MilliCPU: milliCPU, Memory: memory, Pods: 110}}
	}
	big := GroupDemand{Name: "nofit-0-big", Count: 4, Request: Resources{Pods: 1, MilliCPU: 1000, Memory: 1 << 30}}
	tainted := func(n *SimNode) string {
		if n.Name >= "n30" {
			return untoleratedTaint(&corev1.Taint{Key: taintKey, Value: "infra", Effect: corev1.TaintEffectNoSchedule})
		}
		return ""
	}
	tests := []struct {
		name   string
		nodes  func() []*SimNode
		demand GroupDemand
		want   string
	}{
		{
			name: "every node lacks cpu, some memory too",
			nodes: func() []*SimNode {
				var out []*SimNode
				for i := range 40 {
					mem := int64(8 << 30)
					if i < 12 {
						mem = 512 << 20
					}
					out = append(out, cpuNode(i, 500, mem))
				}
				return out
			},
			demand: big,
			want:   "group nofit-0-big needs 4 pods with 1 cpu, 1Gi memory, 0 fit: 0/40 nodes are available: 40 Insufficient cpu, 12 Insufficient memory",
		},
		{
			name: "taints and resources exclude nodes; the rest have too little room",
			nodes: func() []*SimNode {
				var out []*SimNode
				for i := range 40 {
					cpu := int64(500)
					if i < 3 {
						cpu = 1000
					}
					out = append(out, cpuNode(i, cpu, 8<<30))
				}
				return out
			},
			demand: GroupDemand{Name: big.Name, Count: big.Count, Request: big.Request, Ineligible: tainted},
			want: "group nofit-0-big needs 4 pods with 1 cpu, 1Gi memory, 3 fit: 3/40 nodes are available, with room for 3 pods: " +
				"27 Insufficient cpu, 10 node(s) had untolerated taint {dedicated: infra}",
		},
		{
			name:   "full nodes are too many pods",
			nodes:  func() []*SimNode { n := cpuNode(0, 8000, 8<<30); n.Free.Pods = 0; return []*SimNode{n} },
			demand: big,
			want:   "group nofit-0-big needs 4 pods with 1 cpu, 1Gi memory, 0 fit: 0/1 nodes are available: 1 Too many pods",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fail := Search(tt.nodes(), []GroupDemand{tt.demand}, &Scope{Name: "podgang nofit-0", Groups: []int{0}})
			if fail == nil {
				t.Fatal("the gang was placed")
			}
			if fail.Message != tt.want {
				t.Errorf("message\n got: %s\nwant: %s", fail.Message, tt.want)
			}
		})
	}
}

// A pod's FailedScheduling event is kube-scheduler's FitError around the
// PreFilter status message: "0/N nodes are available" appears once.
func TestPodEventSaysNodesAvailableOnce(t *testing.T) {
	const released = "gang does not fit; its waiting pods were released"
	tests := []struct{ gang, event string }{
		{
			gang:  "group nofit-0-big needs 4 pods with 1 cpu, 1Gi memory, 0 fit: 0/40 nodes are available: 40 Insufficient cpu, 12 Insufficient memory",
			event: "0/40 nodes are available: group nofit-0-big needs 4 pods with 1 cpu, 1Gi memory, 0 fit: 0 of 40 nodes have room: 40 Insufficient cpu, 12 Insufficient memory. " + released,
		},
		{
			gang: `podgang x does not fit in any single "rack" domain (2 tried): group w needs 3 pods with 1 nvidia.com/gpu, 100m cpu, 2 fit: 1/1 nodes are available, with room for 2 pods`,
			event: `0/40 nodes are available: podgang x does not fit in any single "rack" domain (2 tried): group w needs 3 pods with 1 nvidia.com/gpu, 100m cpu, 2 fit: ` +
				"1 of 1 nodes have room for 2 pods. " + released,
		},
		{
			gang:  "no node has topology label \"rack\" required by podgang x",
			event: "0/40 nodes are available: no node has topology label \"rack\" required by podgang x. " + released,
		},
	}
	for _, tt := range tests {
		fitErr := &framework.FitError{NumAllNodes: 40, Diagnosis: framework.Diagnosis{PreFilterMsg: podMessage(tt.gang), PostFilterMsg: released}}
		if got := fitErr.Error(); got != tt.event {
			t.Errorf("event\n got: %s\nwant: %s", got, tt.event)
		}
	}
}

func TestIneligibleNamesTheConstraint(t *testing.T) {
	node := func(mutate func(*corev1.Node)) *corev1.Node {
		n := &corev1.Node{}
		n.Name, n.Labels = "n0", map[string]string{"pool": "cpu"}
		mutate(n)
		return n
	}
	gpuPool := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"pool": "gpu"}}})
	none := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{})
	tests := []struct {
		name     string
		node     *corev1.Node
		affinity nodeaffinity.RequiredNodeAffinity
		want     string
	}{
		{name: "eligible", node: node(func(*corev1.Node) {}), affinity: none, want: ""},
		{name: "cordoned", node: node(func(n *corev1.Node) { n.Spec.Unschedulable = true }), affinity: none, want: "node(s) were unschedulable"},
		{name: "node selector", node: node(func(*corev1.Node) {}), affinity: gpuPool, want: "node(s) didn't match Pod's node affinity/selector"},
		{name: "taint", node: node(func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		}), affinity: none, want: "node(s) had untolerated taint {gpu: true}"},
	}
	for _, tt := range tests {
		if got := exclusion(tt.node, tt.affinity, nil, true); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
