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

// Package update holds what the PodCliqueSet, PodCliqueScalingGroup and
// PodClique controllers share about updates (docs/user-guide.md, "Updates"):
// the strategy, the per-component budget (maxUnavailable, progressDeadline),
// which PodCliqueSet replica is being rolled, and the UpdateInProgress
// condition.
//
// The PodCliqueSet controller decides which replica is updated
// (status.updateProgress.currentlyUpdating); inside it the PodClique
// controller replaces pods of standalone cliques and the
// PodCliqueScalingGroup controller replaces whole group replicas, each within
// its component's maxUnavailable.
package update

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Event reasons of updates.
const (
	// ReasonUpdateStarted is the event when an update record is opened.
	ReasonUpdateStarted = "UpdateStarted"
	// ReasonUpdateCompleted is the event when everything runs the new template.
	ReasonUpdateCompleted = "UpdateCompleted"
	// ReasonReplicaUpdateStarted is the event when a PodCliqueSet replica's turn starts.
	ReasonReplicaUpdateStarted = "ReplicaUpdateStarted"
	// ReasonProgressDeadlineExceeded is the warning when a component made no
	// progress for longer than its progressDeadline.
	ReasonProgressDeadlineExceeded = grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded
	// ReasonReplicaReplaced is the event when a scaling-group replica is deleted to be recreated.
	ReasonReplicaReplaced = "PodCliqueScalingGroupReplicaReplaced"
)

// Strategy is the PodCliqueSet's update strategy; RollingRecreate when unset.
func Strategy(pcs *grovecorev1alpha1.PodCliqueSet) grovecorev1alpha1.UpdateStrategyType {
	if s := pcs.Spec.UpdateStrategy; s != nil && (s.Type == grovecorev1alpha1.OnDeleteStrategyType || s.Type == grovecorev1alpha1.CoherentStrategyType) {
		return s.Type
	}
	return grovecorev1alpha1.RollingRecreateStrategyType
}

// Coherent reports whether the PodCliqueSet updates whole replicas
// (updateStrategy type Coherent).
func Coherent(pcs *grovecorev1alpha1.PodCliqueSet) bool {
	return Strategy(pcs) == grovecorev1alpha1.CoherentStrategyType
}

// Replacing reports whether the PodCliqueSet controller replaces replicas
// under the strategy (RollingRecreate or Coherent), as opposed to OnDelete.
func Replacing(pcs *grovecorev1alpha1.PodCliqueSet) bool {
	return Strategy(pcs) != grovecorev1alpha1.OnDeleteStrategyType
}

// ReplicaBudget is the PodCliqueSet-level budget of a Coherent update: how
// many replicas may be unavailable at once, and the progress deadline of one
// replica's turn. Other strategies take one replica at a time, no deadline.
func ReplicaBudget(pcs *grovecorev1alpha1.PodCliqueSet) (maxUnavailable int32, progressDeadline time.Duration) {
	us := pcs.Spec.UpdateStrategy
	if !Coherent(pcs) {
		return 1, 0
	}
	cfg := &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: us.MaxUnavailable, ProgressDeadline: us.ProgressDeadline}
	return MaxUnavailable(cfg, pcs.Spec.Replicas), ProgressDeadline(cfg)
}

// Revision is what an owner applies to an existing PodClique, given want,
// built from the current template with the current generation hash. A
// PodClique whose template did not change keeps the generation hash at which
// it was set, so its pods, old and recreated, carry one revision. With pin, a
// PodClique of an older template keeps it (pod spec, template annotations,
// template and generation hashes) until it is replaced as a whole; only the
// rest (owner, minAvailable, startsAfter, the recorded template replicas)
// follows want.
func Revision(live, want *grovecorev1alpha1.PodClique, pin bool) *grovecorev1alpha1.PodClique {
	same := live.Labels[apicommon.LabelPodTemplateHash] == want.Labels[apicommon.LabelPodTemplateHash]
	if !same && !pin {
		return want
	}
	out := want.DeepCopy()
	if g, ok := live.Labels[apicommon.LabelPodCliqueSetGenerationHash]; ok {
		out.Labels[apicommon.LabelPodCliqueSetGenerationHash] = g
	} else if !same {
		delete(out.Labels, apicommon.LabelPodCliqueSetGenerationHash)
	}
	if same {
		return out
	}
	out.Spec.PodSpec = *live.Spec.PodSpec.DeepCopy()
	out.Labels[apicommon.LabelPodTemplateHash] = live.Labels[apicommon.LabelPodTemplateHash]
	for k := range out.Annotations {
		if v, ok := live.Annotations[k]; ok && k != apicommon.AnnotationTemplateReplicas {
			out.Annotations[k] = v
		}
	}
	return out
}

// Outdated reports whether a PodClique still runs another template than the
// current one of its clique (cliqueHashes by template name): its spec
// carries another, or it counts pods of another (PodCliqueOutdated; after a
// switch from OnDelete or RollingRecreate its spec may be current already).
func Outdated(p *grovecorev1alpha1.PodClique, cliqueHashes map[string]string) bool {
	return PodCliqueOutdated(p, cliqueHashes[p.Labels[apicommon.LabelPodCliqueTemplateName]])
}

// CreationHeld says, under Coherent, why the missing PodCliques of one
// PodCliqueSet replica are not created now: some PodClique of the replica
// (replicaPCLQs) is still being deleted, or still carries an older template.
// New pods would otherwise join gangs that hold pods of the old revision;
// they are created once the replica's turn has removed the old ones. Empty
// when creation may go ahead. The PodClique named is the first by name, so
// the reason, which conditions and events carry, does not change with the
// order of a cache list.
func CreationHeld(pcs *grovecorev1alpha1.PodCliqueSet, replicaPCLQs []*grovecorev1alpha1.PodClique, cliqueHashes map[string]string) string {
	if !Coherent(pcs) {
		return ""
	}
	var first *grovecorev1alpha1.PodClique
	for _, p := range replicaPCLQs {
		if (p.DeletionTimestamp != nil || Outdated(p, cliqueHashes)) && (first == nil || p.Name < first.Name) {
			first = p
		}
	}
	switch {
	case first == nil:
		return ""
	case first.DeletionTimestamp != nil:
		return fmt.Sprintf("PodClique %s of the replica's previous revision is still being deleted", first.Name)
	}
	return fmt.Sprintf("PodClique %s runs an older template; the replica's Coherent update replaces it with its gang", first.Name)
}

// MaxUnavailable resolves a component's maxUnavailable against its
// replicas: a count as written, a percentage of replicas rounded down; at
// least 1 either way, so an update always moves. Unset means 1.
func MaxUnavailable(cfg *grovecorev1alpha1.RollingUpdateConfig, replicas int32) int32 {
	if cfg == nil || cfg.MaxUnavailable == nil {
		return 1
	}
	v, err := intstr.GetScaledValueFromIntOrPercent(cfg.MaxUnavailable, int(replicas), false)
	if err != nil || v < 1 {
		// The CRD and the webhook reject other values; an object that
		// bypassed both gets the default.
		return 1
	}
	return int32(v)
}

// ProgressDeadline is a component's progressDeadline; 0 means none.
func ProgressDeadline(cfg *grovecorev1alpha1.RollingUpdateConfig) time.Duration {
	if cfg == nil || cfg.ProgressDeadline == nil || cfg.ProgressDeadline.Duration <= 0 {
		return 0
	}
	return cfg.ProgressDeadline.Duration
}

// Rolling reports whether a RollingRecreate update of the PodCliqueSet
// towards generation hash genHash is running (its record is open).
func Rolling(pcs *grovecorev1alpha1.PodCliqueSet, genHash string) bool {
	p := pcs.Status.UpdateProgress
	return Strategy(pcs) == grovecorev1alpha1.RollingRecreateStrategyType &&
		p != nil && p.UpdateEndedAt == nil && p.PodCliqueSetGenerationHash == genHash
}

// ReplicaUpdating reports whether PodCliqueSet replica i is the one being
// rolled to generation hash genHash now. Only then do the PodClique and
// PodCliqueScalingGroup controllers replace its pods and replicas.
func ReplicaUpdating(pcs *grovecorev1alpha1.PodCliqueSet, i int32, genHash string) bool {
	if !Rolling(pcs, genHash) {
		return false
	}
	for _, r := range pcs.Status.UpdateProgress.CurrentlyUpdating {
		if r.ReplicaIndex == i && r.UpdateEndedAt == nil {
			return true
		}
	}
	return false
}

// PodCliqueConverged reports whether a PodClique runs the given template:
// its spec carries it and, as its controller last observed that spec, no pod
// of another template is left.
func PodCliqueConverged(p *grovecorev1alpha1.PodClique, templateHash string) bool {
	h := p.Labels[apicommon.LabelPodTemplateHash]
	return h == templateHash && p.Status.ObservedGeneration != nil && *p.Status.ObservedGeneration == p.Generation &&
		p.Status.CurrentPodTemplateHash != nil && *p.Status.CurrentPodTemplateHash == h
}

// PodCliqueOutdated reports whether a PodClique still runs an older template:
// its spec carries another one, or its controller, having observed the spec
// it has now, counts pods of another template. A PodClique whose status does
// not reflect its spec yet (just created or just patched) is not known to be
// outdated.
func PodCliqueOutdated(p *grovecorev1alpha1.PodClique, templateHash string) bool {
	if p.Labels[apicommon.LabelPodTemplateHash] != templateHash {
		return true
	}
	observed := p.Status.ObservedGeneration != nil && *p.Status.ObservedGeneration == p.Generation
	return observed && p.Status.UpdatedReplicas < p.Status.Replicas
}

// RecordKey condenses what the PodClique and PodCliqueScalingGroup
// controllers act on in a PodCliqueSet's update record: the generation hash,
// whether it is open, and the replicas being updated. Their watches compare it.
func RecordKey(pcs *grovecorev1alpha1.PodCliqueSet) string {
	p := pcs.Status.UpdateProgress
	if p == nil {
		return ""
	}
	key := p.PodCliqueSetGenerationHash + "/" + strconv.FormatBool(p.UpdateEndedAt == nil)
	for _, r := range p.CurrentlyUpdating {
		key += "/" + strconv.Itoa(int(r.ReplicaIndex)) + ":" + strconv.FormatBool(r.UpdateEndedAt == nil)
	}
	return key
}

// Deadline says whether a component's update went longer than deadline
// without progress since lastProgress, and otherwise after how long it will
// (0 when there is no deadline).
func Deadline(lastProgress time.Time, deadline time.Duration, now time.Time) (exceeded bool, after time.Duration) {
	if deadline <= 0 {
		return false, 0
	}
	left := lastProgress.Add(deadline).Sub(now)
	if left <= 0 {
		return true, 0
	}
	return false, left
}

// InProgressCondition is the UpdateInProgress condition of a component whose
// update record is open: True with reason RollingUpdate, or
// ProgressDeadlineExceeded when the deadline passed.
func InProgressCondition(generation int64, exceeded bool, deadline time.Duration, msg string) metav1.Condition {
	c := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionTrue, ObservedGeneration: generation,
		Reason: grovecorev1alpha1.ConditionReasonRollingUpdate, Message: msg,
	}
	if exceeded {
		c.Reason = grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded
		c.Message = fmt.Sprintf("no progress for more than progressDeadline %s; the update continues: %s", deadline, msg)
	}
	return c
}

// DoneCondition is the UpdateInProgress condition of a component without an
// open update record: False with reason UpdateCompleted, or OnDelete while
// pods of an older template remain under the OnDelete strategy.
func DoneCondition(generation int64, onDeletePending bool, msg string) metav1.Condition {
	c := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionFalse, ObservedGeneration: generation,
		Reason: grovecorev1alpha1.ConditionReasonUpdateCompleted, Message: msg,
	}
	if onDeletePending {
		c.Reason = grovecorev1alpha1.ConditionReasonOnDelete
	}
	return c
}

// MarkBreachUnknown sets MinAvailableBreached to Unknown with reason
// UpdateInProgress on a component of the PodCliqueSet replica being rolled:
// gang termination waits until the update ends. The condition was just
// computed from the pods; the time it became Unknown is kept from prev rather
// than reset on every reconcile.
func MarkBreachUnknown(conditions *[]metav1.Condition, prev []metav1.Condition, generation int64) {
	unknown := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, Status: metav1.ConditionUnknown, ObservedGeneration: generation,
		Reason:  grovecorev1alpha1.ConditionReasonUpdateInProgress,
		Message: "the PodCliqueSet replica is being updated; gang termination waits until it ends",
	}
	if was := meta.FindStatusCondition(prev, unknown.Type); was != nil && was.Status == metav1.ConditionUnknown {
		unknown.LastTransitionTime = was.LastTransitionTime
	}
	meta.SetStatusCondition(conditions, unknown)
}
