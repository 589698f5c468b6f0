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
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/update"
)

// replicaState is what the status knows about one scaling-group replica.
type replicaState struct {
	complete, scheduled, available, updated, breached bool
}

// computeStatus computes the status in memory from the member PodCliques in
// the cache; base is the object as the reconcile read it. It returns when
// the update's progress deadline passes.
func (r *Reconciler) computeStatus(ctx context.Context, base *grovecorev1alpha1.PodCliqueScalingGroup, pcs *grovecorev1alpha1.PodCliqueSet, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, synced bool, upd *updateState) (time.Duration, error) {
	members, err := r.memberPodCliques(ctx, pcsg)
	if err != nil {
		return 0, err
	}
	byName := make(map[string]*grovecorev1alpha1.PodClique, len(members))
	for i := range members {
		byName[members[i].Name] = &members[i]
	}
	hashes := upd.hashes

	st := &pcsg.Status
	st.Replicas = pcsg.Spec.Replicas
	st.ScheduledReplicas, st.AvailableReplicas, st.UpdatedReplicas = 0, 0, 0
	var notInBreach int32
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		rs := replica(pcsg, j, byName, hashes)
		if rs.scheduled {
			st.ScheduledReplicas++
		}
		if rs.available {
			st.AvailableReplicas++
		}
		if rs.updated {
			st.UpdatedReplicas++
		}
		if rs.complete && !rs.breached {
			notInBreach++
		}
	}
	st.Selector = ptr.To(apicommon.PodCliqueScalingGroupSelector(pcs.Name, pcsg.Name))
	if synced {
		st.ObservedGeneration = ptr.To(pcsg.Generation)
		setCreationHeld(pcsg, upd)
	}
	breached := minAvailableBreached(notInBreach, desired.PCSGMinAvailable(pcsg), pcsg.Generation)
	if pcsg.Spec.Replicas == 0 {
		breached = scaledToZero(pcsg.Generation)
	}
	meta.SetStatusCondition(&st.Conditions, breached)
	return applyUpdateStatus(pcsg, &base.Status, upd, byName, metav1.Now()), nil
}

// writeStatus patches the status computed in memory when anything but
// timestamps changed since base, the object as the reconcile read it. It is
// the reconcile's one status write. Once it succeeded, it announces the
// UpdateInProgress condition turning to ProgressDeadlineExceeded: a reconcile
// on a stale PodCliqueScalingGroup re-derives that turn, but its write is
// refused (optimistic locking), so the event is posted once.
func (r *Reconciler) writeStatus(ctx context.Context, base, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) error {
	wrote, err := common.PatchStatusIfChanged(ctx, r.d.Client, base, pcsg, pcsgStatus)
	if err != nil {
		return groveerr.Wrap(err, "ERR_UPDATE_PCSG_STATUS", groveerr.OperationSync, "patching PodCliqueScalingGroup status")
	}
	if !wrote {
		return nil
	}
	was := meta.FindStatusCondition(base.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
	now := meta.FindStatusCondition(pcsg.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
	if now != nil && now.Status == metav1.ConditionTrue && now.Reason == grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded &&
		(was == nil || was.Reason != grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded) {
		r.recorder.Eventf(pcsg, nil, corev1.EventTypeWarning, update.ReasonProgressDeadlineExceeded, common.ActionUpdate,
			"No update progress for more than progressDeadline %s; the update continues", update.ProgressDeadline(pcsg.Spec.RollingUpdate))
	}
	if now := meta.FindStatusCondition(pcsg.Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueCreationHeld); now != nil && now.Status == metav1.ConditionTrue &&
		!meta.IsStatusConditionTrue(base.Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueCreationHeld) {
		r.recorder.Eventf(pcsg, nil, corev1.EventTypeNormal, ReasonPodCliqueCreationHeld, common.ActionCreate, "%s", now.Message)
	}
	return nil
}

// ReasonPodCliqueCreationHeld is the event when member PodCliques start
// waiting for the Coherent update of their PodCliqueSet replica.
const ReasonPodCliqueCreationHeld = grovecorev1alpha1.ConditionTypePodCliqueCreationHeld

// setCreationHeld sets PodCliqueCreationHeld from what the sync held back
// (update.CreationHeld): True naming the member PodCliques, their group
// replicas, the PodCliqueSet replica and why; False once nothing is held,
// absent until the first hold.
func setCreationHeld(pcsg *grovecorev1alpha1.PodCliqueScalingGroup, upd *updateState) {
	c := metav1.Condition{Type: grovecorev1alpha1.ConditionTypePodCliqueCreationHeld, ObservedGeneration: pcsg.Generation}
	if len(upd.heldPodCliques) == 0 {
		if meta.FindStatusCondition(pcsg.Status.Conditions, c.Type) == nil {
			return
		}
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonPodCliquesCreated, "every member PodClique exists"
		meta.SetStatusCondition(&pcsg.Status.Conditions, c)
		return
	}
	groups := make([]string, 0, len(upd.heldGroupReplicas))
	for _, j := range upd.heldGroupReplicas {
		groups = append(groups, strconv.Itoa(int(j)))
	}
	noun := "group replica"
	if len(groups) > 1 {
		noun = "group replicas"
	}
	c.Status, c.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonCoherentUpdate
	c.Message = fmt.Sprintf("PodCliques %s (%s %s) wait for PodCliqueSet replica %s's Coherent update: %s",
		strings.Join(upd.heldPodCliques, ", "), noun, strings.Join(groups, ", "), pcsg.Labels[apicommon.LabelPodCliqueSetReplicaIndex], upd.creationHeld)
	meta.SetStatusCondition(&pcsg.Status.Conditions, c)
}

func pcsgStatus(pcsg *grovecorev1alpha1.PodCliqueScalingGroup) any { return pcsg.Status }

// replica evaluates scaling-group replica j: complete when all its member
// PodCliques exist; scheduled when each has PodCliqueScheduled=True;
// available when also each has minAvailable ready pods; updated when also
// each runs the current template (update.PodCliqueConverged); breached when any reports
// MinAvailableBreached=True.
func replica(pcsg *grovecorev1alpha1.PodCliqueScalingGroup, j int32, byName map[string]*grovecorev1alpha1.PodClique, hashes map[string]string) replicaState {
	rs := replicaState{complete: true, scheduled: true, available: true, updated: true}
	for _, cn := range pcsg.Spec.CliqueNames {
		p, ok := byName[apicommon.ScalingGroupPodCliqueName(pcsg.Name, j, cn)]
		if !ok || p.DeletionTimestamp != nil {
			return replicaState{}
		}
		minAvailable := desired.CliqueMinAvailable(&p.Spec)
		if !meta.IsStatusConditionTrue(p.Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueScheduled) {
			rs.scheduled = false
		}
		if p.Status.ReadyReplicas < minAvailable {
			rs.available = false
		}
		if !update.PodCliqueConverged(p, hashes[cn]) {
			rs.updated = false
		}
		if meta.IsStatusConditionTrue(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached) {
			rs.breached = true
		}
	}
	rs.available = rs.available && rs.scheduled
	rs.updated = rs.updated && rs.available
	return rs
}

func minAvailableBreached(notInBreach, minAvailable int32, generation int64) metav1.Condition {
	c := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, ObservedGeneration: generation,
		Status:  metav1.ConditionFalse,
		Reason:  grovecorev1alpha1.ConditionReasonSufficientAvailablePCSGReplicas,
		Message: fmt.Sprintf("%d replicas are not in breach, minAvailable is %d", notInBreach, minAvailable),
	}
	if notInBreach < minAvailable {
		c.Status = metav1.ConditionTrue
		c.Reason = grovecorev1alpha1.ConditionReasonInsufficientAvailablePCSGReplicas
	}
	return c
}
