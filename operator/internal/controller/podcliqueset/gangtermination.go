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
	"fmt"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/gangtermination"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// ReasonReplicaDeleteSuccessful is the event of a PodCliqueSet replica
// recreated by gang termination; ReasonReplicaDeleteFailed reports a failure.
const (
	ReasonReplicaDeleteSuccessful = "PodCliqueSetReplicaDeleteSuccessful"
	ReasonReplicaDeleteFailed     = "PodCliqueSetReplicaDeleteFailed"
)

// gangView is what gang termination reads of one PodCliqueSet from the cache.
type gangView struct {
	pclqs map[string]*grovecorev1alpha1.PodClique
	pcsgs map[string]*grovecorev1alpha1.PodCliqueScalingGroup
}

// replicaBreach is the breach that decides about one PodCliqueSet replica.
type replicaBreach struct {
	// what names the breached PodClique or scaling group for events.
	what   string
	reason string
	since  time.Time
}

// terminateBreachedReplicas is the PodCliqueSet replica scope of gang
// termination: when a standalone PodClique, or a scaling group that fell
// below its minAvailable, stays breached longer than terminationDelay, every
// PodClique of that PodCliqueSet replica is deleted and recreated by its
// owner, so the whole gang is scheduled anew instead of holding its nodes
// with a broken instance. It maintains the GangTerminationInProgress
// condition and returns when the next breach expires, so the reconcile is
// requeued exactly then.
func (r *Reconciler) terminateBreachedReplicas(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) (time.Duration, error) {
	v, err := r.readGangView(ctx, pcs)
	if err != nil {
		return 0, err
	}
	r.clearGangTermination(pcs, v)
	if gangtermination.Suspended(pcs) {
		return 0, nil
	}
	delay, now := gangtermination.Delay(pcs), time.Now()
	var requeue time.Duration
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		expected, ok := v.expectedPodCliques(pcs, i)
		if !ok || !gangtermination.Settled(expected, v.pclqs, r.writes) {
			continue
		}
		b, ok := v.replicaBreach(pcs, i)
		if !ok {
			continue
		}
		if left := gangtermination.Remaining(b.since, delay, now); left > 0 {
			if requeue == 0 || left < requeue {
				requeue = left
			}
			continue
		}
		if err := r.recreateReplica(ctx, log, pcs, v, i, b, delay, metav1.NewTime(now)); err != nil {
			return 0, err
		}
	}
	return requeue, nil
}

func (r *Reconciler) readGangView(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet) (*gangView, error) {
	children := childsync.ReadChildren(pcs, "")
	// Read (and deleted), never changed: listed without copies of the cached objects.
	pclqs := &grovecorev1alpha1.PodCliqueList{}
	if err := r.client.List(ctx, pclqs, children...); err != nil {
		return nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing PodCliques for gang termination")
	}
	pcsgs := &grovecorev1alpha1.PodCliqueScalingGroupList{}
	if err := r.client.List(ctx, pcsgs, children...); err != nil {
		return nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUESCALINGGROUP", groveerr.OperationSync, "listing PodCliqueScalingGroups for gang termination")
	}
	v := &gangView{pclqs: map[string]*grovecorev1alpha1.PodClique{}, pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{}}
	for i := range pclqs.Items {
		v.pclqs[pclqs.Items[i].Name] = &pclqs.Items[i]
	}
	for i := range pcsgs.Items {
		v.pcsgs[pcsgs.Items[i].Name] = &pcsgs.Items[i]
	}
	return v, nil
}

// expectedPodCliques lists the PodCliques replica i should have: its
// standalone PodCliques and the members of every replica of its scaling
// groups. ok is false while a scaling group does not exist.
func (v *gangView) expectedPodCliques(pcs *grovecorev1alpha1.PodCliqueSet, i int32) (names []string, ok bool) {
	for _, c := range desired.StandaloneCliques(pcs) {
		names = append(names, apicommon.PodCliqueName(pcs.Name, i, c.Name))
	}
	for k := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		cfg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[k]
		g, found := v.pcsgs[apicommon.PodCliqueScalingGroupName(pcs.Name, i, cfg.Name)]
		if !found || g.DeletionTimestamp != nil {
			return nil, false
		}
		for j := int32(0); j < g.Spec.Replicas; j++ {
			for _, cn := range cfg.CliqueNames {
				names = append(names, apicommon.ScalingGroupPodCliqueName(g.Name, j, cn))
			}
		}
	}
	return names, true
}

// replicaBreach returns the earliest breach of replica i that counts: a
// standalone PodClique's, or a scaling group's that reports
// MinAvailableBreached=True because a member PodClique that was scheduled
// broke (a group whose replicas never got capacity never counts). A group's
// breach counts from the later of the group's and that member's breach.
func (v *gangView) replicaBreach(pcs *grovecorev1alpha1.PodCliqueSet, i int32) (replicaBreach, bool) {
	var out []replicaBreach
	for _, c := range desired.StandaloneCliques(pcs) {
		if b, ok := gangtermination.BreachOf(v.pclqs[apicommon.PodCliqueName(pcs.Name, i, c.Name)]); ok {
			out = append(out, replicaBreach{what: "PodClique " + b.PodClique, reason: b.Reason, since: b.Since})
		}
	}
	for k := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		cfg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[k]
		g := v.pcsgs[apicommon.PodCliqueScalingGroupName(pcs.Name, i, cfg.Name)]
		c := meta.FindStatusCondition(g.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		if g.Spec.Replicas == 0 || c == nil || c.Status != metav1.ConditionTrue {
			continue
		}
		var members []gangtermination.Breach
		for j := int32(0); j < g.Spec.Replicas; j++ {
			for _, cn := range cfg.CliqueNames {
				if b, ok := gangtermination.BreachOf(v.pclqs[apicommon.ScalingGroupPodCliqueName(g.Name, j, cn)]); ok {
					members = append(members, b)
				}
			}
		}
		first, ok := gangtermination.Earliest(members)
		if !ok {
			continue
		}
		since := first.Since
		if c.LastTransitionTime.After(since) {
			since = c.LastTransitionTime.Time
		}
		out = append(out, replicaBreach{
			what:   fmt.Sprintf("PodCliqueScalingGroup %s (PodClique %s)", g.Name, first.PodClique),
			reason: c.Reason, since: since,
		})
	}
	if len(out) == 0 {
		return replicaBreach{}, false
	}
	earliest := out[0]
	for _, b := range out[1:] {
		if b.since.Before(earliest.since) {
			earliest = b
		}
	}
	return earliest, true
}

// recreateReplica deletes every PodClique of replica i (selected by the
// part-of and replica-index labels); the PodCliqueSet and scaling-group
// controllers create them anew. The PodGangs stay and follow the new pods.
func (r *Reconciler) recreateReplica(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet, v *gangView,
	i int32, b replicaBreach, delay time.Duration, started metav1.Time) error {
	index := strconv.Itoa(int(i))
	var victims []*grovecorev1alpha1.PodClique
	for _, p := range v.pclqs {
		if p.Labels[apicommon.LabelPodCliqueSetReplicaIndex] == index && p.DeletionTimestamp == nil {
			victims = append(victims, p)
		}
	}
	why := fmt.Sprintf("%s had MinAvailableBreached=True (%s) for longer than terminationDelay %s", b.what, b.reason, delay)
	if err := gangtermination.Delete(ctx, r.client, r.writes, victims); err != nil {
		r.recorder.Eventf(pcs, nil, corev1.EventTypeWarning, ReasonReplicaDeleteFailed, common.ActionDelete,
			"Error deleting the PodCliques of PodCliqueSet replica %d to recreate it (%s): %v", i, why, err)
		return groveerr.Wrapf(err, "ERR_GANG_TERMINATION", groveerr.OperationSync, "deleting the PodCliques of PodCliqueSet replica %d", i)
	}
	log.Info("Gang termination: recreating PodCliqueSet replica", "replica", i, "breached", b.what, "breachedSince", b.since, "terminationDelay", delay)
	r.recorder.Eventf(pcs, nil, corev1.EventTypeNormal, ReasonReplicaDeleteSuccessful, common.ActionDelete,
		"Deleted the %d PodCliques of PodCliqueSet replica %d to recreate it: %s", len(victims), i, why)
	return r.setGangTermination(ctx, pcs, metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeGangTerminationInProgress, Status: metav1.ConditionTrue,
		Reason: grovecorev1alpha1.ConditionReasonGangTerminationActive, LastTransitionTime: started, ObservedGeneration: pcs.Generation,
		Message: fmt.Sprintf("Recreating replica %d (%s); waiting until the recreated PodCliques are scheduled again", i, why),
	})
}

// clearGangTermination removes GangTerminationInProgress once every replica
// is back: all its PodCliques exist and those recreated since the
// termination started had minAvailable pods scheduled.
func (r *Reconciler) clearGangTermination(pcs *grovecorev1alpha1.PodCliqueSet, v *gangView) {
	c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
	if c == nil {
		return
	}
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		expected, ok := v.expectedPodCliques(pcs, i)
		if !ok || !gangtermination.Back(expected, v.pclqs, c.LastTransitionTime, r.writes) {
			return
		}
	}
	// Cleared in memory: the reconcile's status write carries it, and a write
	// that fails is followed by a reconcile that clears it again.
	meta.RemoveStatusCondition(&pcs.Status.Conditions, c.Type)
}

// setGangTermination sets the condition in a status patch of its own, right
// after the PodCliques were deleted: the recreated PodCliques carry no breach,
// so a condition lost with a failed status write would never be set again.
func (r *Reconciler) setGangTermination(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, cond metav1.Condition) error {
	base := pcs.DeepCopy()
	meta.SetStatusCondition(&pcs.Status.Conditions, cond)
	_, err := common.PatchStatusIfChanged(ctx, r.client, base, pcs, pcsStatus)
	return groveerr.Wrap(err, "ERR_UPDATE_PCS_STATUS", groveerr.OperationSync, "patching GangTerminationInProgress of PodCliqueSet")
}
