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

package pod

import (
	"context"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/resourceclaim"
)

// syncClaims makes the ResourceClaims of the clique template's
// resourceSharing entries, <pclq>-all-<template> and <pclq>-<k>-<template>
// for each pod index k below spec.replicas, owned by the PodClique so a
// replaced pod finds its predecessor's claim; it deletes those of pod
// indices removed by a scale-in.
func (c *Component) syncClaims(ctx context.Context, pclq *grovecorev1alpha1.PodClique, pcs *grovecorev1alpha1.PodCliqueSet, id Identity) error {
	tmpl := desired.CliqueTemplate(pcs, id.TemplateName)
	if tmpl == nil || len(tmpl.ResourceSharing) == 0 {
		return nil
	}
	s := resourceclaim.Syncer{D: childsync.Deps{Client: c.client, Scheme: c.client.Scheme(), Recorder: c.recorder}, Templates: c.apiReader}
	owner := resourceclaim.Owner{Object: pclq, PCS: pcs,
		Labels:     map[string]string{apicommon.LabelPodClique: pclq.Name},
		IndexLabel: apicommon.LabelPodCliquePodIndex}
	return s.Sync(ctx, owner, resourceclaim.Wanted(pclq.Name, tmpl.ResourceSharing, pclq.Spec.Replicas), true)
}

// claimsOf returns the ResourceClaims that reach the pod of the given index.
func (b *Builder) claimsOf(podIndex int) []string {
	return resourceclaim.PodClaimNames(b.PCS, resourceclaim.Pod{
		PCSReplica: b.Identity.PCSReplicaIndex, Clique: b.Identity.TemplateName,
		PCSG: b.Identity.PCSGName, PCSGReplica: b.Identity.PCSGReplicaIndex,
		PodClique: b.PCLQ.Name, Index: int32(podIndex),
	})
}
