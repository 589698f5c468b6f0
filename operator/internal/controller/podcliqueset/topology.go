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
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/topology"
)

// setTopologyCondition writes the TopologyLevelsUnavailable condition: which
// topology constraints could not be translated into the PodGangs, and why.
func (r *Reconciler) setTopologyCondition(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet) error {
	res, err := topology.Resolve(ctx, r.client, pcs, r.tasEnabled)
	if err != nil {
		return err
	}
	cond := res.Condition(pcs)
	if cond == nil {
		meta.RemoveStatusCondition(&pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable)
		return nil
	}
	meta.SetStatusCondition(&pcs.Status.Conditions, *cond)
	return nil
}

// recordTopologyChange emits an event when the TopologyLevelsUnavailable
// condition's status, reason or message changed between two statuses: a
// Warning while constraints are left out of the PodGangs, Normal once all
// translate.
func (r *Reconciler) recordTopologyChange(pcs *grovecorev1alpha1.PodCliqueSet, before []metav1.Condition) {
	now := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable)
	if now == nil {
		return
	}
	if was := meta.FindStatusCondition(before, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable); was != nil &&
		was.Status == now.Status && was.Reason == now.Reason && was.Message == now.Message {
		return
	}
	eventType := corev1.EventTypeWarning
	if now.Status == metav1.ConditionFalse {
		eventType = corev1.EventTypeNormal
	}
	r.recorder.Eventf(pcs, nil, eventType, now.Reason, common.ActionReconcile, "%s", now.Message)
}
