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

// Package resourceclaim makes the ResourceClaims of resourceSharing entries
// (grove-reference §3.17): one per owner (AllReplicas) or one per replica of
// the owner (PerReplica), for a PodCliqueSet, a PodCliqueScalingGroup or a
// PodClique, owned by it so they survive pod replacements and go with their
// owner; and it adds the claims that reach a pod to the pod's spec.
package resourceclaim

import (
	"slices"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"

	apicommon "github.com/grove-project/grove/api/common"
)

// Claim is one ResourceClaim an owner wants.
type Claim struct {
	// Name is the claim's name.
	Name string
	// Entry is the resourceSharing entry the claim is made for.
	Entry grovecorev1alpha1.ResourceSharingSpec
	// Index is the owner's replica (or pod) index of a PerReplica claim, -1
	// for an AllReplicas claim.
	Index int32
}

// Wanted returns the claims an owner named owner with the given number of
// replicas wants for entries: each AllReplicas entry once, each PerReplica
// entry for every index below replicas.
func Wanted(owner string, entries []grovecorev1alpha1.ResourceSharingSpec, replicas int32) []Claim {
	var out []Claim
	for _, e := range entries {
		if e.Scope == grovecorev1alpha1.ResourceSharingScopeAllReplicas {
			out = append(out, Claim{Name: apicommon.AllReplicasResourceClaimName(owner, e.Name), Entry: e, Index: -1})
			continue
		}
		for i := int32(0); i < replicas; i++ {
			out = append(out, Claim{Name: apicommon.PerReplicaResourceClaimName(owner, i, e.Name), Entry: e, Index: i})
		}
	}
	return out
}

// PodCliqueSetEntries returns the PodCliqueSet-level entries without their filters.
func PodCliqueSetEntries(pcs *grovecorev1alpha1.PodCliqueSet) []grovecorev1alpha1.ResourceSharingSpec {
	out := make([]grovecorev1alpha1.ResourceSharingSpec, 0, len(pcs.Spec.Template.ResourceSharing))
	for i := range pcs.Spec.Template.ResourceSharing {
		out = append(out, pcs.Spec.Template.ResourceSharing[i].Sharing())
	}
	return out
}

// ScalingGroupEntries returns a scaling group's entries without their filters.
func ScalingGroupEntries(cfg *grovecorev1alpha1.PodCliqueScalingGroupConfig) []grovecorev1alpha1.ResourceSharingSpec {
	out := make([]grovecorev1alpha1.ResourceSharingSpec, 0, len(cfg.ResourceSharing))
	for i := range cfg.ResourceSharing {
		out = append(out, cfg.ResourceSharing[i].Sharing())
	}
	return out
}

// Pod says where a pod sits in its PodCliqueSet.
type Pod struct {
	// PCSReplica is the PodCliqueSet replica index.
	PCSReplica int32
	// Clique is the clique template name.
	Clique string
	// PCSG is the PodCliqueScalingGroup's name; empty for a standalone clique.
	PCSG string
	// PCSGReplica is the scaling-group replica index.
	PCSGReplica int32
	// PodClique is the PodClique's name.
	PodClique string
	// Index is the pod index within its PodClique.
	Index int32
}

// PodClaimNames returns the claims that reach the pod, in the order
// PodCliqueSet, scaling group, clique entries: an entry without a filter
// reaches every pod of its owner, one with a filter the pods of the cliques
// (and, at PodCliqueSet level, the scaling groups) it names.
func PodClaimNames(pcs *grovecorev1alpha1.PodCliqueSet, p Pod) []string {
	tmpl := &pcs.Spec.Template
	var group *grovecorev1alpha1.PodCliqueScalingGroupConfig
	if p.PCSG != "" {
		for i := range tmpl.PodCliqueScalingGroupConfigs {
			if slices.Contains(tmpl.PodCliqueScalingGroupConfigs[i].CliqueNames, p.Clique) {
				group = &tmpl.PodCliqueScalingGroupConfigs[i]
			}
		}
	}
	var names []string
	claim := func(owner string, e grovecorev1alpha1.ResourceSharingSpec, index int32) {
		if e.Scope == grovecorev1alpha1.ResourceSharingScopeAllReplicas {
			names = append(names, apicommon.AllReplicasResourceClaimName(owner, e.Name))
		} else {
			names = append(names, apicommon.PerReplicaResourceClaimName(owner, index, e.Name))
		}
	}
	for i := range tmpl.ResourceSharing {
		e := &tmpl.ResourceSharing[i]
		if f := e.Filter; f != nil && !slices.Contains(f.ChildCliqueNames, p.Clique) &&
			(group == nil || !slices.Contains(f.ChildScalingGroupNames, group.Name)) {
			continue
		}
		claim(pcs.Name, e.Sharing(), p.PCSReplica)
	}
	if group != nil {
		for i := range group.ResourceSharing {
			e := &group.ResourceSharing[i]
			if f := e.Filter; f != nil && !slices.Contains(f.ChildCliqueNames, p.Clique) {
				continue
			}
			claim(p.PCSG, e.Sharing(), p.PCSGReplica)
		}
	}
	for i := range tmpl.Cliques {
		if c := &tmpl.Cliques[i]; c.Name == p.Clique {
			for _, e := range c.ResourceSharing {
				claim(p.PodClique, e, p.Index)
			}
		}
	}
	return names
}
