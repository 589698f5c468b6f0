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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func pack(required, preferred string) *groveschedulerv1alpha1.TopologyConstraint {
	tc := &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{}}
	if required != "" {
		tc.PackConstraint.Required = &required
	}
	if preferred != "" {
		tc.PackConstraint.Preferred = &preferred
	}
	return tc
}

func refs(ns string, names ...string) []groveschedulerv1alpha1.NamespacedName {
	out := make([]groveschedulerv1alpha1.NamespacedName, 0, len(names))
	for _, n := range names {
		out = append(out, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: n})
	}
	return out
}

// render prints a scope tree as "name[req/pref](groups){children}".
func render(t *scopeTemplate) string {
	var children []string
	for _, c := range t.children {
		children = append(children, render(c))
	}
	return fmt.Sprintf("%s[%s/%s]%v{%s}", t.name, t.requiredKey, t.preferredKey, t.groups, strings.Join(children, ","))
}

func TestNewGangSpec(t *testing.T) {
	tests := []struct {
		name     string
		spec     groveschedulerv1alpha1.PodGangSpec
		wantTree string
		wantRefs map[string]int
		wantMins []int64
		wantKeys []string
	}{
		{
			name: "plain gang keeps groups at the root and indexes references",
			spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{
				{Name: "pcs-0-frontend", MinReplicas: 1, PodReferences: refs("ns", "fe-0", "fe-1")},
				{Name: "pcs-0-worker", MinReplicas: 2, PodReferences: refs("ns", "w-0", "w-1")},
			}},
			wantTree: "podgang pcs-0[/][0 1]{}",
			wantRefs: map[string]int{"fe-0": 0, "fe-1": 0, "w-0": 1, "w-1": 1},
			wantMins: []int64{1, 2},
		},
		{
			name: "references in another namespace and duplicates are ignored",
			spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{
				{Name: "a", MinReplicas: 1, PodReferences: append(refs("ns", "a-0"), refs("other", "x-0")...)},
				{Name: "b", MinReplicas: 1, PodReferences: refs("ns", "a-0", "b-0")},
			}},
			wantTree: "podgang pcs-0[/][0 1]{}",
			wantRefs: map[string]int{"a-0": 0, "b-0": 1},
			wantMins: []int64{1, 1},
		},
		{
			name: "gang, group config and group constraints nest",
			spec: groveschedulerv1alpha1.PodGangSpec{
				TopologyConstraint: pack("zone", ""),
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{
					{Name: "pcs-0-sg-0", PodGroupNames: []string{"leader", "worker"}, TopologyConstraint: pack("block", "")},
				},
				PodGroups: []groveschedulerv1alpha1.PodGroup{
					{Name: "router", MinReplicas: 1, PodReferences: refs("ns", "r-0")},
					{Name: "leader", MinReplicas: 1, PodReferences: refs("ns", "l-0")},
					{Name: "worker", MinReplicas: 2, PodReferences: refs("ns", "w-0", "w-1"), TopologyConstraint: pack("", "rack")},
				},
			},
			wantTree: "podgang pcs-0[zone/][0]{group config pcs-0-sg-0[block/][1]{group worker[/rack][2]{}}}",
			wantRefs: map[string]int{"r-0": 0, "l-0": 1, "w-0": 2, "w-1": 2},
			wantMins: []int64{1, 1, 2},
			wantKeys: []string{"zone", "block", "rack"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newGangSpec(&groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pcs-0"}, Spec: tt.spec})
			if s.key != "ns/pcs-0" {
				t.Fatalf("key = %q", s.key)
			}
			if got := render(s.root); got != tt.wantTree {
				t.Fatalf("scope tree\n got: %s\nwant: %s", got, tt.wantTree)
			}
			if !reflect.DeepEqual(s.refIndex, tt.wantRefs) {
				t.Fatalf("refIndex = %v, want %v", s.refIndex, tt.wantRefs)
			}
			var mins []int64
			for _, g := range s.groups {
				mins = append(mins, g.min)
			}
			if !reflect.DeepEqual(mins, tt.wantMins) {
				t.Fatalf("mins = %v, want %v", mins, tt.wantMins)
			}
			if !reflect.DeepEqual(s.topologyKeys, tt.wantKeys) {
				t.Fatalf("topologyKeys = %v, want %v", s.topologyKeys, tt.wantKeys)
			}
		})
	}
}

func TestMinSetMet(t *testing.T) {
	spec := newGangSpec(&groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}, Spec: groveschedulerv1alpha1.PodGangSpec{
		PodGroups: []groveschedulerv1alpha1.PodGroup{
			{Name: "a", MinReplicas: 1, PodReferences: refs("ns", "a-0", "a-1")},
			{Name: "b", MinReplicas: 2, PodReferences: refs("ns", "b-0", "b-1", "b-2")},
		},
	}})
	tests := []struct {
		name     string
		reserved []string
		bound    []string
		want     bool
	}{
		{"nothing placed", nil, nil, false},
		{"extras do not stand in for another group", []string{"a-0", "a-1"}, []string{"b-0"}, false},
		{"reserved and bound together complete the set", []string{"b-1"}, []string{"a-0", "b-0"}, true},
		{"a pod seen both reserved and bound counts once", []string{"b-0"}, []string{"a-0", "b-0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newGangState()
			for _, p := range tt.reserved {
				st.reserved[p] = "n"
			}
			for _, p := range tt.bound {
				st.bound[p] = "n"
			}
			if got := minSetMet(spec, counts(spec, st)); got != tt.want {
				t.Fatalf("minSetMet = %v, want %v", got, tt.want)
			}
		})
	}
}
