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

package podcliqueset

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// ImmutableMessage is the error detail for a field that may not change after create.
const ImmutableMessage = "field is immutable"

// validateImmutable rejects changes to what running replicas are built
// around: the clique and scaling-group structure, gang sizes, start order,
// scheduler and topology. Replicas and pod templates stay mutable; changing a
// pod template rolls the pods.
func validateImmutable(oldPCS, newPCS *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	var errs field.ErrorList
	ot, nt := &oldPCS.Spec.Template, &newPCS.Spec.Template
	immutable := func(p *field.Path, newV, oldV any) {
		if !equality.Semantic.DeepEqual(newV, oldV) {
			errs = append(errs, field.Forbidden(p, ImmutableMessage))
		}
	}
	immutable(templatePath.Child("cliqueStartupType"), startupType(nt), startupType(ot))
	immutable(templatePath.Child("topologyConstraint"), nt.TopologyConstraint, ot.TopologyConstraint)

	oldNames, newNames := cliqueNames(ot), cliqueNames(nt)
	if !sameSet(oldNames, newNames) {
		errs = append(errs, field.Forbidden(cliquesPath, "cliques may not be added, removed or renamed"))
	} else if st := startupType(nt); st != grovecorev1alpha1.CliqueStartupTypeAnyOrder && !slices.Equal(oldNames, newNames) {
		errs = append(errs, field.Forbidden(cliquesPath, "cliques may not be reordered with "+string(st)))
	}
	oldCliques := map[string]*grovecorev1alpha1.PodCliqueTemplateSpec{}
	for i := range ot.Cliques {
		oldCliques[ot.Cliques[i].Name] = &ot.Cliques[i]
	}
	for i := range nt.Cliques {
		nc := &nt.Cliques[i]
		oc, ok := oldCliques[nc.Name]
		if !ok {
			continue
		}
		p := cliquesPath.Index(i)
		immutable(p.Child("spec", "roleName"), effectiveRoleName(nc), effectiveRoleName(oc))
		immutable(p.Child("spec", "minAvailable"), nc.Spec.MinAvailable, oc.Spec.MinAvailable)
		immutable(p.Child("spec", "startsAfter"), nonNil(nc.Spec.StartsAfter), nonNil(oc.Spec.StartsAfter))
		immutable(p.Child("spec", "podSpec", "schedulerName"), nc.Spec.PodSpec.SchedulerName, oc.Spec.PodSpec.SchedulerName)
		immutable(p.Child("topologyConstraint"), nc.TopologyConstraint, oc.TopologyConstraint)
	}

	oldGroups := map[string]*grovecorev1alpha1.PodCliqueScalingGroupConfig{}
	var oldGroupNames, newGroupNames []string
	for i := range ot.PodCliqueScalingGroupConfigs {
		g := &ot.PodCliqueScalingGroupConfigs[i]
		oldGroups[g.Name] = g
		oldGroupNames = append(oldGroupNames, g.Name)
	}
	for i := range nt.PodCliqueScalingGroupConfigs {
		newGroupNames = append(newGroupNames, nt.PodCliqueScalingGroupConfigs[i].Name)
	}
	if !sameSet(oldGroupNames, newGroupNames) {
		errs = append(errs, field.Forbidden(scalingGroupsPath, "scaling groups may not be added, removed or renamed"))
	}
	for i := range nt.PodCliqueScalingGroupConfigs {
		ng := &nt.PodCliqueScalingGroupConfigs[i]
		og, ok := oldGroups[ng.Name]
		if !ok {
			continue
		}
		p := scalingGroupsPath.Index(i)
		immutable(p.Child("cliqueNames"), nonNil(ng.CliqueNames), nonNil(og.CliqueNames))
		immutable(p.Child("minAvailable"), ng.MinAvailable, og.MinAvailable)
		immutable(p.Child("topologyConstraint"), ng.TopologyConstraint, og.TopologyConstraint)
	}
	errs = append(errs, resourceSharingImmutable(ot, nt)...)
	return errs
}

func startupType(t *grovecorev1alpha1.PodCliqueSetTemplateSpec) grovecorev1alpha1.CliqueStartupType {
	if t.StartupType == nil || *t.StartupType == "" {
		return grovecorev1alpha1.CliqueStartupTypeAnyOrder
	}
	return *t.StartupType
}

func cliqueNames(t *grovecorev1alpha1.PodCliqueSetTemplateSpec) []string {
	names := make([]string, 0, len(t.Cliques))
	for i := range t.Cliques {
		names = append(names, t.Cliques[i].Name)
	}
	return names
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// nonNil treats an absent list and an empty one as the same value.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
