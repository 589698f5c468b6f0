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

// Package resourceclaim is the PodCliqueSet's component for the
// ResourceClaims of its own resourceSharing entries: <pcs>-all-<template>
// once, <pcs>-<i>-<template> per replica, owned by the PodCliqueSet.
package resourceclaim

import (
	"context"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/resourceclaim"
)

type operator struct{ s resourceclaim.Syncer }

// New returns the ResourceClaim component. templates reads external
// ResourceClaimTemplates from the API server.
func New(d childsync.Deps, templates client.Reader) component.Operator[component.SetWork] {
	return operator{resourceclaim.Syncer{D: d, Templates: templates}}
}

func (operator) Kind() string { return "ResourceClaim" }

// Sync makes the claims of the work's replicas (and the AllReplicas claims);
// the set-level pass makes them for every replica and deletes the
// PerReplica claims of replicas removed by a scale-in.
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	if len(pcs.Spec.Template.ResourceSharing) == 0 {
		return nil
	}
	all := resourceclaim.Wanted(pcs.Name, resourceclaim.PodCliqueSetEntries(pcs), pcs.Spec.Replicas)
	owner := resourceclaim.Owner{Object: pcs, PCS: pcs, IndexLabel: apicommon.LabelPodCliqueSetReplicaIndex}
	if w.IsSetLevel() {
		return o.s.Sync(ctx, owner, all, true)
	}
	replicas := map[int32]bool{}
	for _, i := range w.Replicas() {
		replicas[i] = true
	}
	var wanted []resourceclaim.Claim
	for _, c := range all {
		if c.Index < 0 || replicas[c.Index] {
			wanted = append(wanted, c)
		}
	}
	return o.s.Sync(ctx, owner, wanted, false)
}
