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

// Package startuporder decides which PodCliques a PodClique starts after and
// injects the grove-initc init container that enforces it. It is pure logic:
// it reads a PodCliqueSet and writes into a pod object, and never calls the
// API server.
package startuporder

import (
	"fmt"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Parent is a PodClique to wait for, and how many of its pods must be Ready.
type Parent struct {
	// Name is the PodClique name.
	Name string
	// MinAvailable is the number of the parent's pods that must be Ready.
	MinAvailable int32
}

// defaultScalingGroupMinAvailable is the CRD default of a scaling group's
// minAvailable; the API server fills it in, but objects built in memory (for
// example by tests or before defaulting) may still carry nil.
const defaultScalingGroupMinAvailable int32 = 1

// Parents resolves the PodCliques that the PodClique built from template clique
// cliqueName in PodCliqueSet replica pcsReplicaIndex starts after.
// pcsgReplicaIndex is the scaling-group replica of that PodClique when the
// clique belongs to a scaling group, and is ignored for standalone cliques.
//
// The template dependencies come from spec.template.cliqueStartupType: none for
// CliqueStartupTypeAnyOrder (and when unset), the clique listed just before for
// CliqueStartupTypeInOrder, the clique's startsAfter for CliqueStartupTypeExplicit.
// Each dependency is then turned into PodClique names:
//   - from a standalone clique or a base scaling-group replica (index below the
//     group's minAvailable), a standalone parent is the parent's PodClique in the
//     same PodCliqueSet replica, and a parent in a scaling group is that group's
//     base replicas 0..minAvailable-1, since those are the ones in the same base
//     PodGang;
//   - from a scaled replica only parents in the same scaling group are kept, at
//     the same replica index: grove-initc only sees pods of its own PodGang, and a
//     scaled replica is a PodGang of its own.
//
// The result follows the order of the dependencies, then of the replica indices,
// so the same PodCliqueSet always yields the same init container arguments.
func Parents(pcs *grovecorev1alpha1.PodCliqueSet, pcsReplicaIndex int32, cliqueName string, pcsgReplicaIndex int32) ([]Parent, error) {
	if pcs == nil {
		return nil, fmt.Errorf("cannot resolve startup dependencies of clique %q: PodCliqueSet is nil", cliqueName)
	}
	tmpl := &pcs.Spec.Template
	dependencies, err := templateDependencies(tmpl, cliqueName)
	if err != nil {
		return nil, fmt.Errorf("PodCliqueSet %s/%s: %w", pcs.Namespace, pcs.Name, err)
	}
	if len(dependencies) == 0 {
		return nil, nil
	}

	ownGroup := scalingGroupOf(tmpl, cliqueName)
	if ownGroup != nil && pcsgReplicaIndex < 0 {
		return nil, fmt.Errorf("PodCliqueSet %s/%s: clique %q belongs to scaling group %q but the scaling-group replica index is %d",
			pcs.Namespace, pcs.Name, cliqueName, ownGroup.Name, pcsgReplicaIndex)
	}
	scaledReplica := ownGroup != nil && pcsgReplicaIndex >= scalingGroupMinAvailable(ownGroup)

	var parents []Parent
	for _, dep := range dependencies {
		minAvailable := cliqueMinAvailable(dep)
		parentGroup := scalingGroupOf(tmpl, dep.Name)
		switch {
		case scaledReplica:
			if parentGroup == nil || parentGroup.Name != ownGroup.Name {
				continue
			}
			pcsgName := apicommon.PodCliqueScalingGroupName(pcs.Name, pcsReplicaIndex, parentGroup.Name)
			parents = append(parents, Parent{
				Name:         apicommon.ScalingGroupPodCliqueName(pcsgName, pcsgReplicaIndex, dep.Name),
				MinAvailable: minAvailable,
			})
		case parentGroup == nil:
			parents = append(parents, Parent{
				Name:         apicommon.PodCliqueName(pcs.Name, pcsReplicaIndex, dep.Name),
				MinAvailable: minAvailable,
			})
		default:
			pcsgName := apicommon.PodCliqueScalingGroupName(pcs.Name, pcsReplicaIndex, parentGroup.Name)
			for k := int32(0); k < scalingGroupMinAvailable(parentGroup); k++ {
				parents = append(parents, Parent{
					Name:         apicommon.ScalingGroupPodCliqueName(pcsgName, k, dep.Name),
					MinAvailable: minAvailable,
				})
			}
		}
	}
	return parents, nil
}

// NeedsInitContainer reports whether pcs orders the start of its cliques, so
// that the pods of some clique get the grove-initc init container. The base
// replicas of every clique keep all of its dependencies (see Parents), so a
// clique with one gets the init container. A clique whose dependencies cannot
// be resolved gets no pod at all, and is not counted.
func NeedsInitContainer(pcs *grovecorev1alpha1.PodCliqueSet) bool {
	tmpl := &pcs.Spec.Template
	for i := range tmpl.Cliques {
		if deps, err := templateDependencies(tmpl, tmpl.Cliques[i].Name); err == nil && len(deps) > 0 {
			return true
		}
	}
	return false
}

// templateDependencies returns the templates of the cliques that cliqueName
// starts after, in the order the startup type defines them.
func templateDependencies(tmpl *grovecorev1alpha1.PodCliqueSetTemplateSpec, cliqueName string) ([]*grovecorev1alpha1.PodCliqueTemplateSpec, error) {
	index := cliqueIndex(tmpl, cliqueName)
	if index < 0 {
		return nil, fmt.Errorf("unknown clique %q", cliqueName)
	}
	startupType := grovecorev1alpha1.CliqueStartupTypeAnyOrder
	if tmpl.StartupType != nil {
		startupType = *tmpl.StartupType
	}

	switch startupType {
	case grovecorev1alpha1.CliqueStartupTypeAnyOrder, "":
		return nil, nil
	case grovecorev1alpha1.CliqueStartupTypeInOrder:
		if index == 0 {
			return nil, nil
		}
		return []*grovecorev1alpha1.PodCliqueTemplateSpec{&tmpl.Cliques[index-1]}, nil
	case grovecorev1alpha1.CliqueStartupTypeExplicit:
		var deps []*grovecorev1alpha1.PodCliqueTemplateSpec
		seen := make(map[string]bool, len(tmpl.Cliques[index].Spec.StartsAfter))
		for _, name := range tmpl.Cliques[index].Spec.StartsAfter {
			if name == cliqueName {
				return nil, fmt.Errorf("clique %q starts after itself", cliqueName)
			}
			parentIndex := cliqueIndex(tmpl, name)
			if parentIndex < 0 {
				return nil, fmt.Errorf("clique %q starts after unknown clique %q", cliqueName, name)
			}
			// Admission rejects duplicates; skipping them here keeps a pod from
			// being given the same argument twice if one slipped through.
			if seen[name] {
				continue
			}
			seen[name] = true
			deps = append(deps, &tmpl.Cliques[parentIndex])
		}
		return deps, nil
	default:
		return nil, fmt.Errorf("unknown clique startup type %q", startupType)
	}
}

func cliqueIndex(tmpl *grovecorev1alpha1.PodCliqueSetTemplateSpec, name string) int {
	for i := range tmpl.Cliques {
		if tmpl.Cliques[i].Name == name {
			return i
		}
	}
	return -1
}

func scalingGroupOf(tmpl *grovecorev1alpha1.PodCliqueSetTemplateSpec, cliqueName string) *grovecorev1alpha1.PodCliqueScalingGroupConfig {
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		for _, member := range tmpl.PodCliqueScalingGroupConfigs[i].CliqueNames {
			if member == cliqueName {
				return &tmpl.PodCliqueScalingGroupConfigs[i]
			}
		}
	}
	return nil
}

func scalingGroupMinAvailable(group *grovecorev1alpha1.PodCliqueScalingGroupConfig) int32 {
	if group.MinAvailable != nil {
		return *group.MinAvailable
	}
	return defaultScalingGroupMinAvailable
}

// cliqueMinAvailable is the number of Ready pods a dependent waits for: the
// parent's minAvailable, which admission defaults to its replicas. It is never
// below 1, because grove-initc rejects a count of 0 and waiting for no pod would
// not order anything.
func cliqueMinAvailable(clique *grovecorev1alpha1.PodCliqueTemplateSpec) int32 {
	n := clique.Spec.Replicas
	if clique.Spec.MinAvailable != nil {
		n = *clique.Spec.MinAvailable
	}
	return max(n, 1)
}
