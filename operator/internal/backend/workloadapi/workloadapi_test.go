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

package workloadapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/config"
)

func gang(groups ...groveschedulerv1alpha1.PodGroup) *groveschedulerv1alpha1.PodGang {
	return &groveschedulerv1alpha1.PodGang{
		ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns", UID: "uid-g", Labels: map[string]string{"app.kubernetes.io/part-of": "pcs"}},
		Spec:       groveschedulerv1alpha1.PodGangSpec{PodGroups: groups, PriorityClassName: "high"},
	}
}

func group(name string, minReplicas int32) groveschedulerv1alpha1.PodGroup {
	return groveschedulerv1alpha1.PodGroup{Name: name, MinReplicas: minReplicas}
}

func pack(required, preferred string) *groveschedulerv1alpha1.TopologyConstraint {
	tc := &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{}}
	if required != "" {
		tc.PackConstraint.Required = ptr.To(required)
	}
	if preferred != "" {
		tc.PackConstraint.Preferred = ptr.To(preferred)
	}
	return tc
}

func withPack(g groveschedulerv1alpha1.PodGroup, tc *groveschedulerv1alpha1.TopologyConstraint) groveschedulerv1alpha1.PodGroup {
	g.TopologyConstraint = tc
	return g
}

func policyString(p schedulingv1beta1.PodGroupSchedulingPolicy, c *schedulingv1beta1.PodGroupSchedulingConstraints) string {
	var keys []string
	if c != nil {
		for _, t := range c.Topology {
			keys = append(keys, t.Key)
		}
	}
	if p.Gang != nil {
		return fmt.Sprintf("gang %d %v", p.Gang.MinCount, keys)
	}
	return fmt.Sprintf("basic %v", keys)
}

// render prints the compiled Workload and PodGroups in one line each.
func render(w *workload, groups []*podGroup) []string {
	var ts []string
	for _, t := range w.Spec.PodGroupTemplates {
		ts = append(ts, fmt.Sprintf("%s:%s", t.Name, policyString(t.SchedulingPolicy, t.SchedulingConstraints)))
	}
	ref := w.Spec.ControllerRef
	owner := metav1.GetControllerOf(w)
	out := []string{fmt.Sprintf("Workload %s/%s: controllerRef %s/%s/%s, owner %s/%s, part-of %s, templates [%s]",
		w.Namespace, w.Name, ref.APIGroup, ref.Kind, ref.Name, owner.Kind, owner.UID, w.Labels["app.kubernetes.io/part-of"], strings.Join(ts, " "))}
	for _, g := range groups {
		owner := metav1.GetControllerOf(g)
		out = append(out, fmt.Sprintf("PodGroup %s: workload %s/%s, %s, priority %s, owner %s, podgang label %s",
			g.Name, g.Spec.WorkloadRef.WorkloadName, g.Spec.WorkloadRef.TemplateName,
			policyString(g.Spec.SchedulingPolicy, g.Spec.SchedulingConstraints),
			g.Spec.PriorityClassName, owner.Name, g.Labels["grove.io/podgang"]))
	}
	return out
}

func TestBuildCompilesOneTemplateAndPodGroupPerPodGroup(t *testing.T) {
	pg := gang(withPack(group("g-decode", 4), pack("example.com/rack", "")), group("g-prefill", 0))
	b := New(config.DefaultSchedulerConfig{GangScheduling: true, TopologyAwareScheduling: true})
	w, groups, err := b.build(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Workload ns/g: controllerRef scheduler.grove.io/PodGang/g, owner PodGang/uid-g, part-of pcs, templates [g-decode:gang 4 [example.com/rack] g-prefill:basic []]",
		"PodGroup g-decode: workload g/g-decode, gang 4 [example.com/rack], priority high, owner g, podgang label g",
		"PodGroup g-prefill: workload g/g-prefill, basic [], priority high, owner g, podgang label g",
	}
	if got := render(w, groups); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every limit of the Workload API the backend fails closed on: the PodGang
// gets a MappingError naming the limit, and nothing is compiled.
func TestBuildFailsClosedOnWhatTheWorkloadAPICannotExpress(t *testing.T) {
	nine := make([]groveschedulerv1alpha1.PodGroup, 9)
	for i := range nine {
		nine[i] = group(fmt.Sprintf("c%d", i), 1)
	}
	gangPacked := func(pg *groveschedulerv1alpha1.PodGang, tc *groveschedulerv1alpha1.TopologyConstraint) *groveschedulerv1alpha1.PodGang {
		pg.Spec.TopologyConstraint = tc
		return pg
	}
	configPacked := func(pg *groveschedulerv1alpha1.PodGang, tc *groveschedulerv1alpha1.TopologyConstraint, names ...string) *groveschedulerv1alpha1.PodGang {
		pg.Spec.TopologyConstraintGroupConfigs = append(pg.Spec.TopologyConstraintGroupConfigs, groveschedulerv1alpha1.TopologyConstraintGroupConfig{Name: "sg", PodGroupNames: names, TopologyConstraint: tc})
		return pg
	}
	tests := []struct {
		name string
		pg   *groveschedulerv1alpha1.PodGang
		tas  bool
		want string
	}{
		{"more than 8 templates in one list", gang(nine...), true,
			"PodGang g has 9 pod groups; a Workload holds at most 8"},
		{"a preferred key on the gang", gangPacked(gang(group("a", 1)), pack("", "example.com/rack")), true,
			"PodGang g prefers packing by example.com/rack; the Workload API has required placement only"},
		{"a preferred key on a group config", configPacked(gang(group("a", 1)), pack("", "example.com/rack"), "a"), true,
			"PodGang g prefers packing pod groups a by example.com/rack; the Workload API has required placement only"},
		{"a preferred key on a pod group", gang(withPack(group("a", 1), pack("zone", "example.com/rack"))), true,
			"pod group a prefers packing by example.com/rack; the Workload API has required placement only"},
		{"two required keys on one pod group (gang and group)", gangPacked(gang(withPack(group("a", 2), pack("example.com/rack", ""))), pack("topology.kubernetes.io/zone", "")), true,
			"pod group a is packed by 2 keys (topology.kubernetes.io/zone, example.com/rack); a PodGroup takes one required key"},
		{"two required keys on one pod group (group config and group)", configPacked(gang(withPack(group("a", 2), pack("example.com/rack", ""))), pack("topology.kubernetes.io/zone", ""), "a"), true,
			"pod group a is packed by 2 keys (topology.kubernetes.io/zone, example.com/rack); a PodGroup takes one required key"},
		{"a required key across pod groups", gangPacked(gang(group("a", 1), group("b", 1)), pack("example.com/rack", "")), true,
			"PodGang g packs 2 pod groups together by example.com/rack; the Workload API packs each PodGroup on its own"},
		{"a group config's required key across pod groups", configPacked(gang(group("a", 1), group("b", 1)), pack("example.com/rack", ""), "a", "b"), true,
			"PodGang g packs pod groups a, b together by example.com/rack; the Workload API packs each PodGroup on its own"},
		{"a required key without topologyAwareScheduling", gang(withPack(group("a", 1), pack("example.com/rack", ""))), false,
			"pod group a packs by example.com/rack; scheduler backend default-scheduler has topologyAwareScheduling off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(config.DefaultSchedulerConfig{GangScheduling: true, TopologyAwareScheduling: tt.tas})
			w, groups, err := b.build(context.Background(), tt.pg)
			var mapping *translation.MappingError
			if !errors.As(err, &mapping) {
				t.Fatalf("got %v (Workload %v, %d PodGroups), want a MappingError", err, w, len(groups))
			}
			if mapping.Message != tt.want {
				t.Errorf("got %q\nwant %q", mapping.Message, tt.want)
			}
		})
	}
}

// The limits a flat translation of a PodGang cannot reach (composite
// templates nested too deep, a gang minCount below 1), held by the same
// check on the item tree.
func TestCheckLimits(t *testing.T) {
	leaf := func(name string, minCount int32) *workloadbuilder.WorkloadItem {
		return &workloadbuilder.WorkloadItem{Name: name, Input: workloadbuilder.WorkloadInput{Policy: workloadbuilder.PolicyInput{PodGroupData: &policyInput{Gang: &gangPolicyInput{MinCount: ptr.To(minCount)}}}}}
	}
	nest := func(depth int) *workloadbuilder.WorkloadItem {
		item := leaf("a", 1)
		for i := depth - 1; i >= 0; i-- {
			item = &workloadbuilder.WorkloadItem{Name: fmt.Sprintf("level%d", i), Children: []*workloadbuilder.WorkloadItem{item}}
		}
		return item
	}
	wide := &workloadbuilder.WorkloadItem{Name: "g", Children: []*workloadbuilder.WorkloadItem{{Name: "composite"}}}
	for i := range 9 {
		wide.Children[0].Children = append(wide.Children[0].Children, leaf(fmt.Sprintf("c%d", i), 1))
	}
	tests := []struct {
		name string
		root *workloadbuilder.WorkloadItem
		want string
	}{
		{"flat gang", nest(1), ""},
		{"templates nested 4 deep", nest(4), ""},
		{"templates nested 5 deep", nest(5), "group a nests 5 levels of pod groups; a Workload nests at most 4"},
		{"9 templates in a composite's list", wide, "group composite has 9 pod groups; a Workload holds at most 8"},
		{"gang minCount 0", &workloadbuilder.WorkloadItem{Name: "g", Children: []*workloadbuilder.WorkloadItem{leaf("a", 0)}}, "pod group a has gang minCount 0; a gang needs at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := checkLimits("g", tt.root); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The admission check of the same limit: a clique packed by another required
// domain than its PodCliqueSet or scaling group is rejected at its field.
func TestValidatePodCliqueSetOneRequiredDomain(t *testing.T) {
	required := func(d grovecorev1alpha1.TopologyDomain) *grovecorev1alpha1.TopologyConstraint {
		return &grovecorev1alpha1.TopologyConstraint{TopologyName: "dc", Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: ptr.To(d)}}
	}
	pcs := func(set, group, clique *grovecorev1alpha1.TopologyConstraint) *grovecorev1alpha1.PodCliqueSet {
		p := &grovecorev1alpha1.PodCliqueSet{Spec: grovecorev1alpha1.PodCliqueSetSpec{Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			TopologyConstraint: set,
			Cliques:            []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "wk", TopologyConstraint: clique}},
		}}}
		if group != nil {
			p.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "sg", CliqueNames: []string{"wk"}, TopologyConstraint: group}}
		}
		return p
	}
	tests := []struct {
		name string
		pcs  *grovecorev1alpha1.PodCliqueSet
		want string
	}{
		{"the clique alone", pcs(nil, nil, required("rack")), ""},
		{"the same domain twice", pcs(required("rack"), nil, required("rack")), ""},
		{"PodCliqueSet and clique differ", pcs(required("zone"), nil, required("rack")),
			"spec.template.cliques[0].topologyConstraint.pack.required: Forbidden: clique wk is packed by 2 required domains (zone, rack); the Workload API of scheduler backend default-scheduler packs a PodGroup by one key"},
		{"scaling group and clique differ", pcs(nil, required("zone"), required("rack")),
			"spec.template.cliques[0].topologyConstraint.pack.required: Forbidden: clique wk is packed by 2 required domains (zone, rack); the Workload API of scheduler backend default-scheduler packs a PodGroup by one key"},
	}
	b := New(config.DefaultSchedulerConfig{GangScheduling: true, TopologyAwareScheduling: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if errs := b.ValidatePodCliqueSet(tt.pcs); len(errs) > 0 {
				got = errs.ToAggregate().Error()
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
