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

package topology

import (
	"context"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var (
	zone, rack, host, numa = grovecorev1alpha1.TopologyDomainZone, grovecorev1alpha1.TopologyDomainRack,
		grovecorev1alpha1.TopologyDomainHost, grovecorev1alpha1.TopologyDomainNuma
	binding = &grovecorev1alpha1.ClusterTopologyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "dc"},
		Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
			{Domain: zone, Key: "topology.kubernetes.io/zone"}, {Domain: rack, Key: "example.com/rack"}, {Domain: host, Key: "kubernetes.io/hostname"},
		}},
	}
)

func pack(name string, required, preferred *grovecorev1alpha1.TopologyDomain) *grovecorev1alpha1.TopologyConstraint {
	return &grovecorev1alpha1.TopologyConstraint{TopologyName: name, Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: required, Preferred: preferred}}
}

// pcs has a set-level, a scaling-group and a clique constraint; the scaling
// group and the clique inherit the set's topologyName.
func pcs(set, group, clique *grovecorev1alpha1.TopologyConstraint) *grovecorev1alpha1.PodCliqueSet {
	p := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "inf", Generation: 3}}
	p.Spec.Template.TopologyConstraint = set
	p.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "fe"}, {Name: "wk", TopologyConstraint: clique}}
	p.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "sg", CliqueNames: []string{"wk"}, TopologyConstraint: group}}
	return p
}

func resolve(t *testing.T, p *grovecorev1alpha1.PodCliqueSet, enabled bool, objs ...*grovecorev1alpha1.ClusterTopologyBinding) Resolution {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(scheme)
	for _, o := range objs {
		b = b.WithObjects(o.DeepCopy())
	}
	r, err := Resolve(context.Background(), b.Build(), p, enabled)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestName(t *testing.T) {
	tests := []struct {
		name string
		pcs  *grovecorev1alpha1.PodCliqueSet
		want string
	}{
		{"set-level name", pcs(pack("dc", &rack, nil), pack("", &host, nil), nil), "dc"},
		{"scaling-group name when the set has no constraint", pcs(nil, pack("dc2", &host, nil), pack("", &host, nil)), "dc2"},
		{"clique name last", pcs(nil, nil, pack("dc3", &host, nil)), "dc3"},
		{"no name anywhere", pcs(pack("", &rack, nil), nil, nil), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Name(tt.pcs); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTranslate(t *testing.T) {
	found := resolve(t, pcs(pack("dc", &zone, nil), nil, nil), true, binding)
	missing := resolve(t, pcs(pack("dc", &zone, nil), nil, nil), true)
	disabled := resolve(t, pcs(pack("dc", &zone, nil), nil, nil), false, binding)
	tests := []struct {
		name         string
		res          Resolution
		tc           *grovecorev1alpha1.TopologyConstraint
		wantRequired *string
		wantPref     *string
		wantNil      bool
	}{
		{name: "required and preferred become node label keys", res: found, tc: pack("", &zone, &rack),
			wantRequired: ptr.To("topology.kubernetes.io/zone"), wantPref: ptr.To("example.com/rack")},
		{name: "the translatable part of a constraint is kept", res: found, tc: pack("", &rack, &numa), wantRequired: ptr.To("example.com/rack")},
		{name: "nothing translatable means no constraint", res: found, tc: pack("", &numa, nil), wantNil: true},
		{name: "a missing binding translates nothing", res: missing, tc: pack("", &zone, nil), wantNil: true},
		{name: "topology-aware scheduling off translates nothing", res: disabled, tc: pack("", &zone, nil), wantNil: true},
		{name: "no constraint", res: found, tc: nil, wantNil: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.res.Translate(tt.tc)
			if tt.wantNil {
				if got != nil {
					t.Fatalf("want nil, got %+v", got.PackConstraint)
				}
				return
			}
			if got == nil || !reflect.DeepEqual(got.PackConstraint.Required, tt.wantRequired) || !reflect.DeepEqual(got.PackConstraint.Preferred, tt.wantPref) {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestCondition(t *testing.T) {
	full := pcs(pack("dc", &rack, nil), pack("", &rack, &host), pack("", nil, &host))
	tests := []struct {
		name    string
		pcs     *grovecorev1alpha1.PodCliqueSet
		enabled bool
		objs    []*grovecorev1alpha1.ClusterTopologyBinding
		want    *metav1.Condition
	}{
		{name: "disabled without constraints: no condition", pcs: pcs(nil, nil, nil), enabled: false, want: nil},
		{name: "disabled with constraints", pcs: pcs(pack("dc", &rack, nil), nil, nil), enabled: false,
			want: &metav1.Condition{Status: metav1.ConditionUnknown, Reason: "TopologyAwareSchedulingDisabled",
				Message: "topology-aware scheduling is disabled in the operator configuration; left out of the PodGangs: spec.template.topologyConstraint.pack.required=rack"}},
		{name: "no constraints", pcs: pcs(nil, nil, nil), enabled: true,
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: "AllClusterTopologyLevelsAvailable", Message: "No topology constraints defined"}},
		{name: "no topologyName", pcs: pcs(nil, pack("", &rack, nil), nil), enabled: true,
			want: &metav1.Condition{Status: metav1.ConditionUnknown, Reason: "TopologyNameMissing",
				Message: "no topology constraint names a ClusterTopologyBinding (topologyName); left out of the PodGangs: spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required=rack"}},
		{name: "binding missing", pcs: full, enabled: true,
			want: &metav1.Condition{Status: metav1.ConditionUnknown, Reason: "ClusterTopologyNotFound",
				Message: `ClusterTopologyBinding "dc" does not exist; left out of the PodGangs: spec.template.topologyConstraint.pack.required=rack, ` +
					"spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required=rack, spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.preferred=host, " +
					"spec.template.cliques[1].topologyConstraint.pack.preferred=host"}},
		{name: "domains that are no level", pcs: pcs(pack("dc", &rack, &numa), pack("", ptr.To(grovecorev1alpha1.TopologyDomainBlock), nil), nil), enabled: true, objs: []*grovecorev1alpha1.ClusterTopologyBinding{binding},
			want: &metav1.Condition{Status: metav1.ConditionTrue, Reason: "ClusterTopologyLevelsUnavailable",
				Message: `domains that are not levels of ClusterTopologyBinding "dc" (levels: zone, rack, host) are left out of the PodGangs: ` +
					"spec.template.topologyConstraint.pack.preferred=numa, spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required=block"}},
		{name: "every domain a level", pcs: full, enabled: true, objs: []*grovecorev1alpha1.ClusterTopologyBinding{binding},
			want: &metav1.Condition{Status: metav1.ConditionFalse, Reason: "AllClusterTopologyLevelsAvailable",
				Message: `every topology domain is a level of ClusterTopologyBinding "dc"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(t, tt.pcs, tt.enabled, tt.objs...).Condition(tt.pcs)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("want no condition, got %+v", got)
				}
				return
			}
			tt.want.Type, tt.want.ObservedGeneration = "TopologyLevelsUnavailable", 3
			if got == nil || !reflect.DeepEqual(*got, *tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestIdentityNamesBindingAndKeys(t *testing.T) {
	keys := func(kv ...string) map[grovecorev1alpha1.TopologyDomain]string {
		m := map[grovecorev1alpha1.TopologyDomain]string{}
		for i := 0; i < len(kv); i += 2 {
			m[grovecorev1alpha1.TopologyDomain(kv[i])] = kv[i+1]
		}
		return m
	}
	base := Resolution{enabled: true, name: "t", found: true, keys: keys("zone", "z", "rack", "r")}
	tests := []struct {
		name string
		r    Resolution
		same bool
	}{
		{name: "the same binding and keys", r: Resolution{enabled: true, name: "t", found: true, keys: keys("rack", "r", "zone", "z"), levels: []string{"zone"}}, same: true},
		{name: "another binding", r: Resolution{enabled: true, name: "u", found: true, keys: keys("zone", "z", "rack", "r")}},
		{name: "another key", r: Resolution{enabled: true, name: "t", found: true, keys: keys("zone", "z", "rack", "r2")}},
		{name: "one level fewer", r: Resolution{enabled: true, name: "t", found: true, keys: keys("zone", "z")}},
		{name: "binding gone", r: Resolution{enabled: true, name: "t"}},
		{name: "disabled", r: Resolution{name: "t", found: true, keys: keys("zone", "z", "rack", "r")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if same := tt.r.Identity() == base.Identity(); same != tt.same {
				t.Errorf("Identity %q vs %q: same = %v, want %v", tt.r.Identity(), base.Identity(), same, tt.same)
			}
		})
	}
}
