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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const hostKey = "kubernetes.io/hostname"

// labelled returns the pod with the extra labels.
func labelled(p *corev1.Pod, kv ...string) *corev1.Pod {
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

// antiAffine gives the pod a required anti-affinity to pods labelled app=value by topology key.
func antiAffine(p *corev1.Pod, app, key string) *corev1.Pod {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key,
	}}}
	return p
}

// affine gives the pod a required affinity to pods labelled app=value by topology key.
func affine(p *corev1.Pod, app, key string) *corev1.Pod {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: key,
	}}}
	return p
}

// hostPort gives the pod's container a host port.
func hostPort(p *corev1.Pod, port int32) *corev1.Pod {
	p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return p
}

// hosts builds nodes with 8 GPUs each, labelled with their hostname and the given zone (if any).
func hosts(zones ...string) []*corev1.Node {
	var out []*corev1.Node
	for i, z := range zones {
		name := "n" + string(rune('0'+i))
		labels := map[string]string{hostKey: name}
		if z != "" {
			labels["zone"] = z
		}
		out = append(out, newTestNode(name, 8, labels))
	}
	return out
}

func TestSearchModelsPodAffinityAndHostPorts(t *testing.T) {
	worker := func() *corev1.Pod { return labelled(newTestPod("ns", "w", "g", 1), "app", "worker") }
	type demand struct {
		name  string
		count int64
		pod   *corev1.Pod
	}
	tests := []struct {
		name     string
		nodes    []*corev1.Node
		existing []*corev1.Pod
		demands  []demand
		// nodes is, per group, where the search put its pods; empty when it fails with message.
		want    map[int][]string
		message string
	}{
		{
			name:    "without terms or ports a group packs onto one node",
			nodes:   hosts("", "", ""),
			demands: []demand{{"w", 3, worker()}},
			want:    map[int][]string{0: {"n0", "n0", "n0"}},
		},
		{
			name:    "anti-affinity to its own pods by hostname puts one pod per host",
			nodes:   hosts("", "", ""),
			demands: []demand{{"w", 3, antiAffine(worker(), "worker", hostKey)}},
			want:    map[int][]string{0: {"n0", "n1", "n2"}},
		},
		{
			name:    "one pod per host fails on fewer hosts than pods",
			nodes:   hosts("", "", ""),
			demands: []demand{{"w", 4, antiAffine(worker(), "worker", hostKey)}},
			message: "group w needs 4 pods with 1 nvidia.com/gpu, 100m cpu, 3 fit: 3/3 nodes are available (nodes refused by pod anti-affinity)",
		},
		{
			name:    "anti-affinity by zone puts one pod per zone",
			nodes:   hosts("a", "a", "b"),
			demands: []demand{{"w", 2, antiAffine(worker(), "worker", "zone")}},
			want:    map[int][]string{0: {"n0", "n2"}},
		},
		{
			name:     "a host holding a pod the group's anti-affinity selects is avoided",
			nodes:    hosts("", ""),
			existing: []*corev1.Pod{labelled(bound(newTestPod("ns", "other", "", 0), "n0"), "app", "worker")},
			demands:  []demand{{"w", 2, antiAffine(worker(), "worker", hostKey)}},
			message:  "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 1 fit: 2/2 nodes are available (nodes refused by pod anti-affinity)",
		},
		{
			name:     "a pod on a node whose anti-affinity selects the group keeps the group off that node",
			nodes:    hosts("", ""),
			existing: []*corev1.Pod{antiAffine(bound(newTestPod("ns", "loner", "", 0), "n0"), "worker", hostKey)},
			demands:  []demand{{"w", 2, worker()}},
			want:     map[int][]string{0: {"n1", "n1"}},
		},
		{
			name:     "an existing pod's anti-affinity in another namespace does not select the group",
			nodes:    hosts("", ""),
			existing: []*corev1.Pod{antiAffine(bound(newTestPod("other", "loner", "", 0), "n0"), "worker", hostKey)},
			demands:  []demand{{"w", 2, worker()}},
			want:     map[int][]string{0: {"n0", "n0"}},
		},
		{
			name:  "anti-affinity between two groups of the gang keeps them apart",
			nodes: hosts("", ""),
			demands: []demand{
				{"prefill", 1, labelled(newTestPod("ns", "p", "g", 1), "app", "prefill")},
				{"decode", 1, antiAffine(labelled(newTestPod("ns", "d", "g", 1), "app", "decode"), "prefill", hostKey)},
			},
			want: map[int][]string{0: {"n0"}, 1: {"n1"}},
		},
		{
			name:     "required affinity follows the existing pods it selects",
			nodes:    hosts("", "", ""),
			existing: []*corev1.Pod{labelled(bound(newTestPod("ns", "db", "", 0), "n2"), "app", "db")},
			demands:  []demand{{"w", 2, affine(worker(), "db", hostKey)}},
			want:     map[int][]string{0: {"n2", "n2"}},
		},
		{
			name:    "required affinity to pods that exist nowhere fails",
			nodes:   hosts("", ""),
			demands: []demand{{"w", 1, affine(worker(), "db", hostKey)}},
			message: "group w needs 1 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 2/2 nodes are available (nodes refused by pod affinity)",
		},
		{
			name:  "required affinity follows another group of the gang",
			nodes: hosts("", "", ""),
			demands: []demand{
				{"db", 1, labelled(newTestPod("ns", "db", "g", 8), "app", "db")},
				{"w", 2, affine(worker(), "db", hostKey)},
			},
			// db fills n0's 8 GPUs, so its followers have no room there.
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 2/3 nodes are available: 1 Insufficient nvidia.com/gpu (nodes refused by pod affinity)",
		},
		{
			name:    "a group affine to itself starts anywhere and then stays in that domain",
			nodes:   hosts("a", "b", "b"),
			demands: []demand{{"w", 9, affine(worker(), "worker", "zone")}},
			want:    map[int][]string{0: {"n1", "n1", "n1", "n1", "n1", "n1", "n1", "n1", "n2"}},
		},
		{
			name:    "pods with the same host port take one node each",
			nodes:   hosts("", ""),
			demands: []demand{{"w", 3, hostPort(worker(), 8080)}},
			message: "group w needs 3 pods with 1 nvidia.com/gpu, 100m cpu, 2 fit: 2/2 nodes are available (nodes refused by host ports)",
		},
		{
			name:     "a node whose pods use the host port is avoided",
			nodes:    hosts("", ""),
			existing: []*corev1.Pod{hostPort(bound(newTestPod("ns", "web", "", 0), "n0"), 8080)},
			demands:  []demand{{"w", 1, hostPort(worker(), 8080)}},
			want:     map[int][]string{0: {"n1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			nodes, _ := simNodes(nodeInfos(tt.nodes, tt.existing...))
			var demands []GroupDemand
			root := &Scope{Name: "podgang g"}
			for i, d := range tt.demands {
				demands = append(demands, e.m.demandFor(d.name, d.count, d.pod, volumeTopology{}))
				root.Groups = append(root.Groups, i)
			}
			p, fail := Search(nodes, demands, root)
			if tt.message != "" {
				if fail == nil || fail.Message != tt.message {
					t.Fatalf("Search = %v, %+v; want failure %q", p, fail, tt.message)
				}
				return
			}
			if fail != nil {
				t.Fatalf("Search failed: %s", fail.Message)
			}
			if !reflect.DeepEqual(p.Nodes, tt.want) {
				t.Fatalf("pods placed on %v, want %v", p.Nodes, tt.want)
			}
		})
	}
}
