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
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/gangtermination"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// ReasonReplicaDeleteSuccessful is the event of a scaling-group replica
// recreated by gang termination; ReasonReplicaDeleteFailed reports a failure.
const (
	ReasonReplicaDeleteSuccessful = "PodCliqueScalingGroupReplicaDeleteSuccessful"
	ReasonReplicaDeleteFailed     = "PodCliqueScalingGroupReplicaDeleteFailed"
)

// replicaBreach is one scaling-group replica as gang termination sees it.
type replicaBreach struct {
	index   int32
	members []*grovecorev1alpha1.PodClique
	// healthy: every member exists and none reports MinAvailableBreached=True
	// (the replicas the group's own MinAvailableBreached counts as not in breach).
	healthy bool
	// breach is its earliest breach that counts, if any.
	breach gangtermination.Breach
	counts bool
}

// terminateBreachedReplicas is the scaling-group replica scope of gang
// termination. A replica whose member PodClique stayed breached longer than
// terminationDelay is recreated (its member PodCliques deleted; the sync
// creates them anew) when the other replicas still meet the group's
// minAvailable; otherwise the whole PodCliqueSet replica is at stake and the
// PodCliqueSet controller recreates it. It also maintains the
// GangTerminationInProgress condition and returns when the next breach
// expires, so the reconcile is requeued exactly then.
func (r *Reconciler) terminateBreachedReplicas(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) (time.Duration, error) {
	members, err := r.memberPodCliques(ctx, pcsg)
	if err != nil {
		return 0, err
	}
	byName := make(map[string]*grovecorev1alpha1.PodClique, len(members))
	for i := range members {
		byName[members[i].Name] = &members[i]
	}
	replicas := make([]replicaBreach, 0, pcsg.Spec.Replicas)
	var expected []string
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		rb := replicaBreach{index: j, healthy: true}
		var breaches []gangtermination.Breach
		for _, cn := range pcsg.Spec.CliqueNames {
			name := apicommon.ScalingGroupPodCliqueName(pcsg.Name, j, cn)
			expected = append(expected, name)
			p, ok := byName[name]
			if !ok || p.DeletionTimestamp != nil {
				rb.healthy = false
				continue
			}
			rb.members = append(rb.members, p)
			if meta.IsStatusConditionTrue(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached) {
				rb.healthy = false
			}
			if b, ok := gangtermination.BreachOf(p); ok {
				breaches = append(breaches, b)
			}
		}
		rb.breach, rb.counts = gangtermination.Earliest(breaches)
		replicas = append(replicas, rb)
	}

	r.clearGangTermination(pcsg, expected, byName)
	if gangtermination.Suspended(pcs) ||
		meta.IsStatusConditionPresentAndEqual(pcsg.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached, metav1.ConditionUnknown) ||
		!gangtermination.Settled(expected, byName, r.d.Writes) {
		return 0, nil
	}

	delay, now := gangtermination.Delay(pcs), time.Now()
	var healthy int32
	var expired []replicaBreach
	var requeue time.Duration
	for _, rb := range replicas {
		if rb.healthy {
			healthy++
		}
		if !rb.counts {
			continue
		}
		if left := gangtermination.Remaining(rb.breach.Since, delay, now); left > 0 {
			if requeue == 0 || left < requeue {
				requeue = left
			}
			continue
		}
		expired = append(expired, rb)
	}
	if len(expired) == 0 {
		return requeue, nil
	}
	if minAvailable := desired.PCSGMinAvailable(pcsg); healthy < minAvailable {
		log.Info("Breached scaling-group replicas leave fewer than minAvailable healthy; the PodCliqueSet replica is recreated instead",
			"healthy", healthy, "minAvailable", minAvailable)
		return 0, nil
	}
	return requeue, r.recreateReplicas(ctx, log, pcsg, expired, delay, metav1.NewTime(now))
}

// recreateReplicas deletes the member PodCliques of the expired replicas and
// records GangTerminationInProgress, with an event per replica naming the
// breached PodClique and the delay.
func (r *Reconciler) recreateReplicas(ctx context.Context, log logr.Logger, pcsg *grovecorev1alpha1.PodCliqueScalingGroup,
	expired []replicaBreach, delay time.Duration, started metav1.Time) error {
	var done []string
	for _, rb := range expired {
		why := fmt.Sprintf("PodClique %s had MinAvailableBreached=True (%s) for longer than terminationDelay %s",
			rb.breach.PodClique, rb.breach.Reason, delay)
		// The breached PodClique is the event's related object: events.k8s.io
		// merges events with the same regarding, related, reason and action
		// into one series, and one pass may recreate several replicas.
		breached := breachedMember(rb)
		if err := gangtermination.Delete(ctx, r.d.Client, r.d.Writes, rb.members); err != nil {
			r.recorder.Eventf(pcsg, breached, corev1.EventTypeWarning, ReasonReplicaDeleteFailed, common.ActionDelete,
				"Error deleting the PodCliques of replica %d to recreate it (%s): %v", rb.index, why, err)
			return groveerr.Wrapf(err, "ERR_GANG_TERMINATION", groveerr.OperationSync, "deleting the PodCliques of replica %d", rb.index)
		}
		log.Info("Gang termination: recreating scaling-group replica", "replica", rb.index, "podClique", rb.breach.PodClique,
			"breachedSince", rb.breach.Since, "terminationDelay", delay)
		r.recorder.Eventf(pcsg, breached, corev1.EventTypeNormal, ReasonReplicaDeleteSuccessful, common.ActionDelete,
			"Deleted the %d PodCliques of replica %d to recreate it: %s", len(rb.members), rb.index, why)
		done = append(done, fmt.Sprintf("replica %d (%s)", rb.index, why))
	}
	sort.Strings(done)
	return r.setGangTermination(ctx, pcsg, metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeGangTerminationInProgress, Status: metav1.ConditionTrue,
		Reason: grovecorev1alpha1.ConditionReasonGangTerminationActive, LastTransitionTime: started, ObservedGeneration: pcsg.Generation,
		Message: "Recreating " + strings.Join(done, "; ") + "; waiting until the recreated PodCliques are scheduled again",
	})
}

// clearGangTermination removes GangTerminationInProgress once every replica
// is back: all member PodCliques exist and those recreated since the
// termination started had minAvailable pods scheduled.
func (r *Reconciler) clearGangTermination(pcsg *grovecorev1alpha1.PodCliqueScalingGroup,
	expected []string, byName map[string]*grovecorev1alpha1.PodClique) {
	c := meta.FindStatusCondition(pcsg.Status.Conditions, grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
	if c == nil || !gangtermination.Back(expected, byName, c.LastTransitionTime, r.d.Writes) {
		return
	}
	// Cleared in memory: the reconcile's status write carries it, and a write
	// that fails is followed by a reconcile that clears it again.
	meta.RemoveStatusCondition(&pcsg.Status.Conditions, c.Type)
}

// setGangTermination sets the condition in a status patch of its own, right
// after the PodCliques were deleted: the recreated PodCliques carry no breach,
// so a condition lost with a failed status write would never be set again.
func (r *Reconciler) setGangTermination(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, cond metav1.Condition) error {
	base := pcsg.DeepCopy()
	meta.SetStatusCondition(&pcsg.Status.Conditions, cond)
	_, err := common.PatchStatusIfChanged(ctx, r.d.Client, base, pcsg, pcsgStatus)
	return groveerr.Wrap(err, "ERR_UPDATE_PCSG_STATUS", groveerr.OperationSync, "patching GangTerminationInProgress of PodCliqueScalingGroup")
}

// breachedMember returns the member PodClique whose breach expired, or nil
// when it is no longer among the members.
func breachedMember(rb replicaBreach) runtime.Object {
	for _, p := range rb.members {
		if p.Name == rb.breach.PodClique {
			return p
		}
	}
	return nil
}
