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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
	"k8s.io/utils/ptr"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
)

// gangTree is a PodGang as the Workload API's building blocks: one leaf
// WorkloadItem per pod group under a root that stands for the Workload. The
// translation is flat (one PodGroupTemplate per pod group): the API
// expresses a gang of groups only with CompositePodGroups, which 1.37 serves
// as v1alpha3, so each pod group is its own gang.
//
// It fails closed: a PodGang the API cannot express is a MappingError naming
// the limit, and nothing is written.
func (b *Backend) gangTree(pg *groveschedulerv1alpha1.PodGang) (*workloadbuilder.WorkloadItem, error) {
	if k := preferredKey(pg.Spec.TopologyConstraint); k != "" {
		return nil, translation.Mappingf("PodGang %s prefers packing by %s; the Workload API has required placement only", pg.Name, k)
	}
	gangKey := requiredKey(pg.Spec.TopologyConstraint)
	if gangKey != "" && len(pg.Spec.PodGroups) > 1 {
		return nil, translation.Mappingf("PodGang %s packs %d pod groups together by %s; the Workload API packs each PodGroup on its own", pg.Name, len(pg.Spec.PodGroups), gangKey)
	}
	configKeys := map[string][]string{}
	for _, gc := range pg.Spec.TopologyConstraintGroupConfigs {
		if k := preferredKey(gc.TopologyConstraint); k != "" {
			return nil, translation.Mappingf("PodGang %s prefers packing pod groups %s by %s; the Workload API has required placement only", pg.Name, strings.Join(gc.PodGroupNames, ", "), k)
		}
		k := requiredKey(gc.TopologyConstraint)
		if k == "" {
			continue
		}
		if len(gc.PodGroupNames) > 1 {
			return nil, translation.Mappingf("PodGang %s packs pod groups %s together by %s; the Workload API packs each PodGroup on its own", pg.Name, strings.Join(gc.PodGroupNames, ", "), k)
		}
		for _, name := range gc.PodGroupNames {
			configKeys[name] = append(configKeys[name], k)
		}
	}
	root := &workloadbuilder.WorkloadItem{Name: pg.Name, Path: field.NewPath("spec", "podgroups")}
	for i, g := range pg.Spec.PodGroups {
		if k := preferredKey(g.TopologyConstraint); k != "" {
			return nil, translation.Mappingf("pod group %s prefers packing by %s; the Workload API has required placement only", g.Name, k)
		}
		keys := packKeys(gangKey, configKeys[g.Name], requiredKey(g.TopologyConstraint))
		if len(keys) > 0 && !b.cfg.TopologyAwareScheduling {
			return nil, translation.Mappingf("pod group %s packs by %s; scheduler backend default-scheduler has topologyAwareScheduling off", g.Name, keys[0])
		}
		root.Children = append(root.Children, podGroupItem(g, pg.Spec.PriorityClassName, keys, root.Path.Index(i)))
	}
	if err := checkLimits(pg.Name, root); err != nil {
		return nil, err
	}
	return root, nil
}

// packKeys are the distinct required keys that enclose a pod group: its
// gang's, its group configs' and its own.
func packKeys(gangKey string, configKeys []string, groupKey string) []string {
	var keys []string
	for _, k := range append(append([]string{gangKey}, configKeys...), groupKey) {
		if k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// podGroupItem is a pod group as a leaf: a gang of minReplicas pods (pod by
// pod when minReplicas is 0: nothing has to be placed together), its
// required keys and the gang's priority.
func podGroupItem(g groveschedulerv1alpha1.PodGroup, priorityClassName string, keys []string, path *field.Path) *workloadbuilder.WorkloadItem {
	policy := &policyInput{Basic: &basicPolicyInput{}}
	if g.MinReplicas > 0 {
		policy = &policyInput{Gang: &gangPolicyInput{MinCount: ptr.To(g.MinReplicas)}}
	}
	item := &workloadbuilder.WorkloadItem{
		Name:          g.Name,
		Path:          path,
		DefaultConfig: &workloadbuilder.SchedulingConfig{PriorityClassName: priorityClassName},
		Input:         workloadbuilder.WorkloadInput{Policy: workloadbuilder.PolicyInput{PodGroupData: policy, PathElements: []string{"minReplicas"}}},
	}
	if len(keys) > 0 {
		c := &constraintsInput{}
		for _, k := range keys {
			c.Topology = append(c.Topology, topologyInput{Key: k})
		}
		item.Input.Constraints = workloadbuilder.ConstraintsInput{PodGroupData: c, PathElements: []string{"topologyConstraint"}}
	}
	return item
}

// checkLimits holds a gang tree to the Workload API's limits: at most
// MaxPodGroupTemplates templates in one list, composite templates nested at
// most maxTreeDepth deep, one required key per pod group, and a gang
// policy's minCount of at least 1.
func checkLimits(gang string, root *workloadbuilder.WorkloadItem) error {
	var walk func(item *workloadbuilder.WorkloadItem, depth int) error
	walk = func(item *workloadbuilder.WorkloadItem, depth int) error {
		what := "PodGang " + gang
		if depth > 0 {
			what = "group " + item.Name
		}
		if depth > maxTreeDepth {
			return translation.Mappingf("%s nests %d levels of pod groups; a Workload nests at most %d", what, depth, maxTreeDepth)
		}
		if n := len(item.Children); n > MaxPodGroupTemplates {
			return translation.Mappingf("%s has %d pod groups; a Workload holds at most %d", what, n, MaxPodGroupTemplates)
		}
		if len(item.Children) == 0 && depth > 0 {
			return checkLeaf(item)
		}
		for _, child := range item.Children {
			if err := walk(child, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, 0)
}

func checkLeaf(item *workloadbuilder.WorkloadItem) error {
	if c := item.Input.Constraints.PodGroupData; c != nil && len(c.Topology) > 1 {
		keys := make([]string, len(c.Topology))
		for i, t := range c.Topology {
			keys[i] = t.Key
		}
		return translation.Mappingf("pod group %s is packed by %d keys (%s); a PodGroup takes one required key", item.Name, len(keys), strings.Join(keys, ", "))
	}
	if p := item.Input.Policy.PodGroupData; p != nil && p.Gang != nil && ptr.Deref(p.Gang.MinCount, 0) < 1 {
		return translation.Mappingf("pod group %s has gang minCount %d; a gang needs at least 1", item.Name, ptr.Deref(p.Gang.MinCount, 0))
	}
	return nil
}

func requiredKey(tc *groveschedulerv1alpha1.TopologyConstraint) string {
	if tc == nil || tc.PackConstraint == nil {
		return ""
	}
	return ptr.Deref(tc.PackConstraint.Required, "")
}

func preferredKey(tc *groveschedulerv1alpha1.TopologyConstraint) string {
	if tc == nil || tc.PackConstraint == nil {
		return ""
	}
	return ptr.Deref(tc.PackConstraint.Preferred, "")
}

// describe renders field errors for a MappingError.
func describe(errs field.ErrorList) string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}
