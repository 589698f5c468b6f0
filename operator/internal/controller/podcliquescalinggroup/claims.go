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

package podcliquescalinggroup

import (
	"context"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/resourceclaim"
)

// syncClaims makes the ResourceClaims of the group's resourceSharing entries,
// <pcsg>-all-<template> and <pcsg>-<j>-<template> for each group replica j,
// owned by the group, and deletes those of replicas removed by a scale-in.
// They are made before the member PodCliques, whose pods reference them.
func (r *Reconciler) syncClaims(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) error {
	if len(pcsg.Spec.CliqueNames) == 0 {
		return nil
	}
	cfg := desired.ScalingGroupOfClique(pcs, pcsg.Spec.CliqueNames[0])
	if cfg == nil || len(cfg.ResourceSharing) == 0 {
		return nil
	}
	owner := resourceclaim.Owner{Object: pcsg, PCS: pcs,
		Labels:     map[string]string{apicommon.LabelPodCliqueScalingGroup: pcsg.Name},
		IndexLabel: apicommon.LabelPodCliqueScalingGroupReplicaIndex}
	return r.claims.Sync(ctx, owner, resourceclaim.Wanted(pcsg.Name, resourceclaim.ScalingGroupEntries(cfg), pcsg.Spec.Replicas), true)
}
