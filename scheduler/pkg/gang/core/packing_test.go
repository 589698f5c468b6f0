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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestNewGangSpecBasePodGang(t *testing.T) {
	tests := []struct {
		name     string
		base     *groveschedulerv1alpha1.BasePodGangReference
		own      *groveschedulerv1alpha1.TopologyConstraint
		wantBase string
		wantTree string
		wantKeys []string
	}{
		{
			name:     "a base PodGang: no replica scope",
			wantTree: "podgang pcs-0-sg-0[rack/][0]{}",
			own:      pack("rack", ""),
			wantKeys: []string{"rack"},
		},
		{
			name:     "a scaled PodGang without a PodCliqueSet-level constraint only names its base",
			base:     &groveschedulerv1alpha1.BasePodGangReference{Name: "pcs-0"},
			own:      pack("rack", ""),
			wantBase: "ns/pcs-0",
			wantTree: "podgang pcs-0-sg-0[rack/][0]{}",
			wantKeys: []string{"rack"},
		},
		{
			name:     "the PodCliqueSet-level constraint encloses the scaled gang's own",
			base:     &groveschedulerv1alpha1.BasePodGangReference{Name: "pcs-0", TopologyConstraint: pack("zone", "rack")},
			own:      pack("rack", ""),
			wantBase: "ns/pcs-0",
			wantTree: "PodCliqueSet replica of base PodGang ns/pcs-0[zone/rack][]{podgang pcs-0-sg-0[rack/][0]{}}",
			wantKeys: []string{"zone", "rack"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newGangSpec(&groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pcs-0-sg-0"}, Spec: groveschedulerv1alpha1.PodGangSpec{
				TopologyConstraint: tt.own, BasePodGang: tt.base,
				PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: "w", MinReplicas: 2, PodReferences: refs("ns", "w-0", "w-1")}},
			}})
			if s.base != tt.wantBase {
				t.Errorf("base = %q, want %q", s.base, tt.wantBase)
			}
			if got := render(s.root); got != tt.wantTree {
				t.Errorf("scope tree\n got: %s\nwant: %s", got, tt.wantTree)
			}
			if !reflect.DeepEqual(s.topologyKeys, tt.wantKeys) {
				t.Errorf("topologyKeys = %v, want %v", s.topologyKeys, tt.wantKeys)
			}
		})
	}
}

// TestScaledGangJoinsBaseDomain places a scaled gang of 2 one-GPU pods whose
// base PodGang's pods sit on base-node, on racks a (a0, a1) and b (b0 alone,
// so the smallest-first search would pick it when free).
func TestScaledGangJoinsBaseDomain(t *testing.T) {
	labels := func(rack, host string) map[string]string { return map[string]string{"rack": rack, "host": host} }
	tests := []struct {
		name         string
		constraint   *groveschedulerv1alpha1.TopologyConstraint
		gpusA        int64
		baseAssigned map[string]string
		ownAssigned  map[string]string
		wantRequired map[string]string
		wantNodes    []string
		wantFail     string
	}{
		{
			name:         "required: the base gang's rack, although rack b is the tighter fit",
			constraint:   pack("rack", ""),
			gpusA:        1,
			baseAssigned: map[string]string{"base-0": "a0"},
			wantRequired: map[string]string{"rack": "a"},
			wantNodes:    []string{"a0", "a1"},
		},
		{
			name:         "required: the base gang's rack has no room, the gang waits and says for what",
			constraint:   pack("rack", ""),
			gpusA:        0,
			baseAssigned: map[string]string{"base-0": "a0"},
			wantFail:     "waits for room in rack=a, the domain base PodGang ns/pcs-0 holds: group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu",
		},
		{
			name:       "required: the base gang holds no node yet, the gang waits for it",
			constraint: pack("rack", ""),
			gpusA:      1,
			wantFail:   `waits for base PodGang ns/pcs-0 to hold pods in a "rack" domain: its PodCliqueSet replica's pods must share one`,
		},
		{
			name:         "required: the gang's own placed pods keep their rack",
			constraint:   pack("rack", ""),
			gpusA:        1,
			baseAssigned: map[string]string{"base-0": "b0"},
			ownAssigned:  map[string]string{"w-0": "a0"},
			wantRequired: map[string]string{"rack": "a"},
			wantNodes:    []string{"a0"},
		},
		{
			name:         "preferred: the base gang's rack first",
			constraint:   pack("", "rack"),
			gpusA:        1,
			baseAssigned: map[string]string{"base-0": "a1"},
			wantRequired: map[string]string{},
			wantNodes:    []string{"a0", "a1"},
		},
		{
			name:         "preferred: the base gang's rack has no room, the gang goes elsewhere",
			constraint:   pack("", "rack"),
			gpusA:        0,
			baseAssigned: map[string]string{"base-0": "a1"},
			wantRequired: map[string]string{},
			wantNodes:    []string{"b0", "b0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := newGangSpec(&groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pcs-0-sg-0"}, Spec: groveschedulerv1alpha1.PodGangSpec{
				BasePodGang: &groveschedulerv1alpha1.BasePodGangReference{Name: "pcs-0", TopologyConstraint: tt.constraint},
				PodGroups:   []groveschedulerv1alpha1.PodGroup{{Name: "w", MinReplicas: 2, PodReferences: refs("ns", "w-0", "w-1")}},
			}})
			nodes := []*SimNode{gpuNode("a0", tt.gpusA, labels("a", "a0")), gpuNode("a1", tt.gpusA, labels("a", "a1")), gpuNode("b0", 2, labels("b", "b0"))}
			byName := map[string]*SimNode{}
			for _, n := range nodes {
				byName[n.Name] = n
			}
			own := map[string]string{}
			for k, v := range tt.ownAssigned {
				own[k] = v
			}
			view := gangView{spec: spec, counts: []int64{int64(len(own))}, assigned: own, baseAssigned: tt.baseAssigned}
			count := 2 - int64(len(own))
			p, fail := Search(nodes, []GroupDemand{gpuDemand("w", count, 1)}, view.scope(byName))
			if tt.wantFail != "" {
				if fail == nil || fail.Message != tt.wantFail {
					t.Fatalf("Search = %+v, %+v; want failure %q", p, fail, tt.wantFail)
				}
				return
			}
			if fail != nil {
				t.Fatalf("Search failed: %s", fail.Message)
			}
			if got := p.Required[0]; !reflect.DeepEqual(got, tt.wantRequired) && (len(got) != 0 || len(tt.wantRequired) != 0) {
				t.Errorf("required = %v, want %v", got, tt.wantRequired)
			}
			if !reflect.DeepEqual(p.Nodes[0], tt.wantNodes) {
				t.Errorf("nodes = %v, want %v", p.Nodes[0], tt.wantNodes)
			}
		})
	}
}
