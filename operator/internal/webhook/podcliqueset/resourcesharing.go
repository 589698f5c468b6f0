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
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var validScopes = sets.New(string(grovecorev1alpha1.ResourceSharingScopeAllReplicas), string(grovecorev1alpha1.ResourceSharingScopePerReplica))

// resourceSharing checks resourceClaimTemplates and the resourceSharing
// entries of the PodCliqueSet, its scaling groups and its cliques.
func (s *staticCheck) resourceSharing() {
	tmpl := &s.pcs.Spec.Template
	internal := sets.New[string]()
	tp := templatePath.Child("resourceClaimTemplates")
	for i := range tmpl.ResourceClaimTemplates {
		t := &tmpl.ResourceClaimTemplates[i]
		p := tp.Index(i)
		s.dnsLabel(p.Child("name"), t.Name)
		if internal.Has(t.Name) {
			s.add(field.Duplicate(p.Child("name"), t.Name))
		}
		internal.Insert(t.Name)
		if len(t.TemplateSpec.Spec.Devices.Requests) == 0 {
			s.add(field.Required(p.Child("templateSpec", "spec", "devices", "requests"), "at least one device request is required"))
		}
	}
	cliques := sets.New[string]()
	for i := range tmpl.Cliques {
		cliques.Insert(tmpl.Cliques[i].Name)
	}
	groups := sets.New[string]()
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		groups.Insert(tmpl.PodCliqueScalingGroupConfigs[i].Name)
	}

	sp := templatePath.Child("resourceSharing")
	entries := make([]grovecorev1alpha1.ResourceSharingSpec, len(tmpl.ResourceSharing))
	for i := range tmpl.ResourceSharing {
		e := &tmpl.ResourceSharing[i]
		entries[i] = e.Sharing()
		if f := e.Filter; f != nil {
			fp := sp.Index(i).Child("filter")
			if len(f.ChildCliqueNames) == 0 && len(f.ChildScalingGroupNames) == 0 {
				s.add(field.Required(fp, "must name at least one of childCliqueNames or childScalingGroupNames"))
			}
			s.filterNames(fp.Child("childCliqueNames"), f.ChildCliqueNames, cliques, "is not a clique of this PodCliqueSet")
			s.filterNames(fp.Child("childScalingGroupNames"), f.ChildScalingGroupNames, groups, "is not a scaling group of this PodCliqueSet")
		}
	}
	s.sharingEntries(sp, entries, internal)

	for gi := range tmpl.PodCliqueScalingGroupConfigs {
		g := &tmpl.PodCliqueScalingGroupConfigs[gi]
		gp := scalingGroupsPath.Index(gi).Child("resourceSharing")
		members := sets.New(g.CliqueNames...)
		entries := make([]grovecorev1alpha1.ResourceSharingSpec, len(g.ResourceSharing))
		for i := range g.ResourceSharing {
			e := &g.ResourceSharing[i]
			entries[i] = e.Sharing()
			if f := e.Filter; f != nil {
				fp := gp.Index(i).Child("filter", "childCliqueNames")
				if len(f.ChildCliqueNames) == 0 {
					s.add(field.Required(fp, "must name at least one member clique"))
				}
				s.filterNames(fp, f.ChildCliqueNames, members, "is not a member clique of scaling group "+g.Name)
			}
		}
		s.sharingEntries(gp, entries, internal)
	}
	for ci := range tmpl.Cliques {
		c := &tmpl.Cliques[ci]
		s.sharingEntries(cliquesPath.Index(ci).Child("resourceSharing"), c.ResourceSharing, internal)
	}
	s.claimNameLengths()
}

// claimNameLengths rejects entries whose claims, at the highest replica and
// pod indices the set has now (or its autoscalers may reach), get names
// longer than a DNS label: a pod references each claim by an entry of that
// name in spec.resourceClaims, and the API server would refuse the pod.
func (s *staticCheck) claimNameLengths() {
	pcs := s.pcs
	if pcs.Name == "" {
		return
	}
	tmpl := &pcs.Spec.Template
	pcsIdx := lastIndex(pcs.Spec.Replicas)
	check := func(p *field.Path, owner string, last int32, e grovecorev1alpha1.ResourceSharingSpec) {
		name := apicommon.AllReplicasResourceClaimName(owner, e.Name)
		if e.Scope == grovecorev1alpha1.ResourceSharingScopePerReplica {
			name = apicommon.PerReplicaResourceClaimName(owner, last, e.Name)
		}
		if len(name) > utilvalidation.DNS1123LabelMaxLength {
			s.add(field.Invalid(p.Child("name"), e.Name, fmt.Sprintf(
				"the claim name %q is %d characters: pods reference it by an entry of that name in spec.resourceClaims, at most %d; shorten the PodCliqueSet, scaling-group, clique or template name",
				name, len(name), utilvalidation.DNS1123LabelMaxLength)))
		}
	}
	for i := range tmpl.ResourceSharing {
		check(templatePath.Child("resourceSharing").Index(i), pcs.Name, pcsIdx, tmpl.ResourceSharing[i].Sharing())
	}
	groupOf := map[string]*grovecorev1alpha1.PodCliqueScalingGroupConfig{}
	for gi := range tmpl.PodCliqueScalingGroupConfigs {
		g := &tmpl.PodCliqueScalingGroupConfigs[gi]
		for _, c := range g.CliqueNames {
			groupOf[c] = g
		}
		owner := apicommon.PodCliqueScalingGroupName(pcs.Name, pcsIdx, g.Name)
		for i := range g.ResourceSharing {
			check(scalingGroupsPath.Index(gi).Child("resourceSharing").Index(i), owner, lastIndex(groupReplicas(g)), g.ResourceSharing[i].Sharing())
		}
	}
	for ci := range tmpl.Cliques {
		c := &tmpl.Cliques[ci]
		owner := apicommon.PodCliqueName(pcs.Name, pcsIdx, c.Name)
		if g := groupOf[c.Name]; g != nil {
			owner = apicommon.ScalingGroupPodCliqueName(apicommon.PodCliqueScalingGroupName(pcs.Name, pcsIdx, g.Name), lastIndex(groupReplicas(g)), c.Name)
		}
		pods := c.Spec.Replicas
		if a := c.Spec.AutoScalingConfig; a != nil && a.MaxReplicas > pods {
			pods = a.MaxReplicas
		}
		for i := range c.ResourceSharing {
			check(cliquesPath.Index(ci).Child("resourceSharing").Index(i), owner, lastIndex(pods), c.ResourceSharing[i])
		}
	}
}

// groupReplicas is the most replicas a scaling group has now or its autoscaler may set.
func groupReplicas(g *grovecorev1alpha1.PodCliqueScalingGroupConfig) int32 {
	n := int32(1)
	if g.Replicas != nil {
		n = *g.Replicas
	}
	if g.ScaleConfig != nil && g.ScaleConfig.MaxReplicas > n {
		n = g.ScaleConfig.MaxReplicas
	}
	return n
}

// lastIndex is the highest index of n replicas (0 for none).
func lastIndex(n int32) int32 {
	if n <= 1 {
		return 0
	}
	return n - 1
}

// sharingEntries checks the entries of one resourceSharing list.
func (s *staticCheck) sharingEntries(p *field.Path, entries []grovecorev1alpha1.ResourceSharingSpec, internal sets.Set[string]) {
	seen := sets.New[string]()
	for i := range entries {
		e := &entries[i]
		ep := p.Index(i)
		if e.Name == "" {
			s.add(field.Required(ep.Child("name"), "the name of a resourceClaimTemplates entry or of a ResourceClaimTemplate is required"))
		} else {
			s.dnsLabel(ep.Child("name"), e.Name)
			if seen.Has(e.Name) {
				s.add(field.Duplicate(ep.Child("name"), e.Name))
			}
			seen.Insert(e.Name)
		}
		if e.Namespace != "" {
			if internal.Has(e.Name) {
				s.add(field.Invalid(ep.Child("namespace"), e.Namespace, "must be empty: "+e.Name+" is a resourceClaimTemplates entry of this PodCliqueSet"))
			}
			for _, msg := range utilvalidation.IsDNS1123Label(e.Namespace) {
				s.add(field.Invalid(ep.Child("namespace"), e.Namespace, msg))
			}
		}
		if !validScopes.Has(string(e.Scope)) {
			s.add(field.NotSupported(ep.Child("scope"), e.Scope, sets.List(validScopes)))
		}
	}
}

func (s *staticCheck) filterNames(p *field.Path, names []string, known sets.Set[string], unknown string) {
	seen := sets.New[string]()
	for i, n := range names {
		switch {
		case !known.Has(n):
			s.add(field.Invalid(p.Index(i), n, unknown))
		case seen.Has(n):
			s.add(field.Duplicate(p.Index(i), n))
		}
		seen.Insert(n)
	}
}

// dnsLabel checks a name that ends the names of ResourceClaims.
func (s *staticCheck) dnsLabel(p *field.Path, name string) {
	if name == "" {
		s.add(field.Required(p, "name is required"))
		return
	}
	for _, msg := range utilvalidation.IsDNS1123Label(name) {
		s.add(field.Invalid(p, name, msg))
	}
}

// resourceSharingImmutable rejects changes to resourceClaimTemplates and to
// the resourceSharing entries at every level: existing claims and the pods
// that reference them were made from them.
func resourceSharingImmutable(ot, nt *grovecorev1alpha1.PodCliqueSetTemplateSpec) field.ErrorList {
	var errs field.ErrorList
	immutable := func(p *field.Path, newV, oldV any) {
		if !equality.Semantic.DeepEqual(newV, oldV) {
			errs = append(errs, field.Forbidden(p, ImmutableMessage))
		}
	}
	immutable(templatePath.Child("resourceClaimTemplates"), nonNilList(nt.ResourceClaimTemplates), nonNilList(ot.ResourceClaimTemplates))
	immutable(templatePath.Child("resourceSharing"), nonNilList(nt.ResourceSharing), nonNilList(ot.ResourceSharing))
	oldGroups := map[string][]grovecorev1alpha1.PCSGResourceSharingSpec{}
	for _, g := range ot.PodCliqueScalingGroupConfigs {
		oldGroups[g.Name] = g.ResourceSharing
	}
	for i, g := range nt.PodCliqueScalingGroupConfigs {
		if old, ok := oldGroups[g.Name]; ok {
			immutable(scalingGroupsPath.Index(i).Child("resourceSharing"), nonNilList(g.ResourceSharing), nonNilList(old))
		}
	}
	oldCliques := map[string][]grovecorev1alpha1.ResourceSharingSpec{}
	for _, c := range ot.Cliques {
		oldCliques[c.Name] = c.ResourceSharing
	}
	for i, c := range nt.Cliques {
		if old, ok := oldCliques[c.Name]; ok {
			immutable(cliquesPath.Index(i).Child("resourceSharing"), nonNilList(c.ResourceSharing), nonNilList(old))
		}
	}
	return errs
}

// nonNilList treats an absent list and an empty one as the same value.
func nonNilList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
