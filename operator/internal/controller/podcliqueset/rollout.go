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
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/update"
)

// replicaView is what an update needs to know about one PodCliqueSet replica.
type replicaView struct {
	// converged: every standalone PodClique and scaling group of the replica
	// runs the current templates. Children that do not exist yet count as
	// converged: they are created from the current templates.
	converged bool
	// available: every standalone PodClique has minAvailable ready pods and
	// every scaling group minAvailable available replicas.
	available bool
	// ready: available, and every pod of every PodClique of the replica
	// (scaling-group members included) is ready.
	ready bool
	// nothingScheduled: none of its pods is scheduled.
	nothingScheduled bool
	// breached: a child reports MinAvailableBreached=True.
	breached bool
	// pclqsUpdated/pclqsTotal count standalone PodCliques, pcsgsUpdated/pcsgsTotal scaling groups.
	pclqsUpdated, pclqsTotal, pcsgsUpdated, pcsgsTotal int32
	// stalled names children whose update exceeded its progressDeadline.
	stalled []string
	// oldPCLQs counts the replica's PodCliques (scaling-group members
	// included) of an older template, deletingPCLQs those being deleted.
	oldPCLQs, deletingPCLQs int
}

// deadlineExceeded reports a child whose UpdateInProgress condition says its
// progress deadline passed.
func deadlineExceeded(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded
}

// turnDone reports whether a replica's turn in a RollingRecreate update is
// over: it runs the current templates and is back to what it served when its
// turn began. A replica whose pods were all ready waits until all are ready
// again, so one replica at a time is disrupted; one that was only available
// (some pods pending, say for capacity) until it is available; one that was
// not even available served nothing and is not waited for, so it never
// stalls the update. Unknown (nil) counts as ready.
func (v replicaView) turnDone(cu grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress, coherent bool) bool {
	switch {
	case !v.converged:
		return false
	case coherent:
		// Every pod ready, whatever the replica served before: a turn that
		// ended with the new gang Pending would leave no replica in turn to
		// report ProgressDeadlineExceeded while the budget stays used.
		return v.up(true)
	case cu.ReadyAtStart == nil || *cu.ReadyAtStart:
		return v.ready
	case cu.AvailableAtStart == nil || *cu.AvailableAtStart:
		return v.available
	}
	return true
}

func viewReplica(pcs *grovecorev1alpha1.PodCliqueSet, i int32, genHash string, templateHashes map[string]string,
	pclqs map[string]*grovecorev1alpha1.PodClique, pcsgs map[string]*grovecorev1alpha1.PodCliqueScalingGroup) replicaView {
	v := replicaView{converged: true, available: replicaAvailable(pcs, i, pclqs, pcsgs)}
	var scheduled int32
	for _, c := range desired.StandaloneCliques(pcs) {
		v.pclqsTotal++
		p, ok := pclqs[apicommon.PodCliqueName(pcs.Name, i, c.Name)]
		if ok && p.DeletionTimestamp != nil && update.Coherent(pcs) {
			// Its gang is being replaced: the old pods are still there.
			v.converged = false
		}
		if !ok || p.DeletionTimestamp != nil {
			continue
		}
		if update.PodCliqueConverged(p, templateHashes[c.Name]) {
			v.pclqsUpdated++
		} else {
			v.converged = false
		}
		scheduled += p.Status.ScheduledReplicas
		v.breached = v.breached || meta.IsStatusConditionTrue(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		if deadlineExceeded(p.Status.Conditions) {
			v.stalled = append(v.stalled, "PodClique "+p.Name)
		}
	}
	for k := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		v.pcsgsTotal++
		g, ok := pcsgs[apicommon.PodCliqueScalingGroupName(pcs.Name, i, pcs.Spec.Template.PodCliqueScalingGroupConfigs[k].Name)]
		if !ok || g.DeletionTimestamp != nil {
			continue
		}
		if ptr.Deref(g.Status.CurrentPodCliqueSetGenerationHash, "") == genHash {
			v.pcsgsUpdated++
		} else {
			v.converged = false
		}
		scheduled += g.Status.ScheduledReplicas
		v.breached = v.breached || meta.IsStatusConditionTrue(g.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		if deadlineExceeded(g.Status.Conditions) {
			v.stalled = append(v.stalled, "PodCliqueScalingGroup "+g.Name)
		}
	}
	v.nothingScheduled = scheduled == 0
	v.ready = v.available
	index := desired.ReplicaIndexLabel(i)
	for _, p := range pclqs {
		if p.Labels[apicommon.LabelPodCliqueSetReplicaIndex] != index {
			continue
		}
		switch {
		case p.DeletionTimestamp != nil:
			v.deletingPCLQs++
		case update.Outdated(p, templateHashes):
			v.oldPCLQs++
		}
		if p.DeletionTimestamp == nil && p.Status.ReadyReplicas < p.Spec.Replicas {
			v.ready = false
		}
	}
	return v
}

// trackUpdate advances the PodCliqueSet's update from its children in the
// cache: status.updateProgress, currentGenerationHash, updatedReplicas and
// the UpdateInProgress condition. It decides which replica is rolled
// (currentlyUpdating); the PodClique and PodCliqueScalingGroup controllers
// replace pods and group replicas inside it.
//
// An update starts when the generation hash differs from the one the
// replicas converged to (currentGenerationHash) and ends, under
// RollingRecreate, when every replica has been rolled and the last one is
// available again; under OnDelete its record ends at once and Grove replaces
// nothing. A new template, also mid-update, starts a new record; the replica
// being rolled keeps its turn, so no second replica is disrupted.
func (r *Reconciler) trackUpdate(pcs *grovecorev1alpha1.PodCliqueSet, genHash string, templateHashes map[string]string,
	pclqs map[string]*grovecorev1alpha1.PodClique, pcsgs map[string]*grovecorev1alpha1.PodCliqueScalingGroup, now metav1.Time, ev *statusEvents) {
	st := &pcs.Status
	views := make([]replicaView, pcs.Spec.Replicas)
	allConverged, anyOld := true, false
	st.UpdatedReplicas = 0
	for i := range views {
		views[i] = viewReplica(pcs, int32(i), genHash, templateHashes, pclqs, pcsgs)
		allConverged = allConverged && views[i].converged
		anyOld = anyOld || views[i].oldPCLQs > 0
		if views[i].converged && views[i].available {
			st.UpdatedReplicas++
		}
	}
	rolling := update.Replacing(pcs)
	rec := st.UpdateProgress
	switch open := rec != nil && rec.UpdateEndedAt == nil; {
	case rec == nil && st.CurrentGenerationHash == nil && !anyOld:
		// A new PodCliqueSet coming up: creating is no update. Its
		// currentGenerationHash is set below once children run the
		// template, never from the spec alone: a template changed before
		// the first status write would be taken for the one the pods run,
		// and never rolled out.
	case rec == nil && ptr.Deref(st.CurrentGenerationHash, "") == genHash:
	case rec == nil || rec.PodCliqueSetGenerationHash != genHash:
		rec = startUpdate(pcs, rec, genHash, now, ev)
		setScope(pcs, rec, pclqs, templateHashes)
	case open && !rolling:
		// Switched to OnDelete: Grove stops replacing.
		rec.UpdateEndedAt, rec.CurrentlyUpdating = ptr.To(now), nil
	case !open && rolling && ptr.Deref(st.CurrentGenerationHash, "") != genHash:
		// Switched to RollingRecreate or Coherent while pods of an older
		// template remain.
		rec = startUpdate(pcs, rec, genHash, now, ev)
		setScope(pcs, rec, pclqs, templateHashes)
	}
	st.UpdateProgress = rec
	if rec != nil && rec.UpdateEndedAt == nil {
		advance(pcs, rec, views, now, ev)
	}
	if allConverged && len(pclqs) > 0 && (rec == nil || rec.UpdateEndedAt != nil) {
		st.CurrentGenerationHash = ptr.To(genHash)
	}
	if rec != nil {
		rec.UpdatedPodCliquesCount, rec.TotalPodCliquesCount, rec.UpdatedPodCliqueScalingGroupsCount, rec.TotalPodCliqueScalingGroupsCount = 0, 0, 0, 0
		for _, v := range views {
			rec.UpdatedPodCliquesCount += v.pclqsUpdated
			rec.TotalPodCliquesCount += v.pclqsTotal
			rec.UpdatedPodCliqueScalingGroupsCount += v.pcsgsUpdated
			rec.TotalPodCliqueScalingGroupsCount += v.pcsgsTotal
		}
	}
	setUpdateCondition(pcs, views, genHash, now, ev)
}

// startUpdate opens a new update record for genHash. Under OnDelete it ends
// at once. Under RollingRecreate the replica the previous record was rolling
// keeps its turn.
func startUpdate(pcs *grovecorev1alpha1.PodCliqueSet, prev *grovecorev1alpha1.PodCliqueSetUpdateProgress, genHash string, now metav1.Time, ev *statusEvents) *grovecorev1alpha1.PodCliqueSetUpdateProgress {
	rec := &grovecorev1alpha1.PodCliqueSetUpdateProgress{UpdateStartedAt: now, PodCliqueSetGenerationHash: genHash}
	strategy := update.Strategy(pcs)
	if strategy == grovecorev1alpha1.OnDeleteStrategyType {
		rec.UpdateEndedAt = ptr.To(now)
	} else if prev != nil && prev.UpdateEndedAt == nil {
		for _, cu := range prev.CurrentlyUpdating {
			if cu.UpdateEndedAt == nil && cu.ReplicaIndex < pcs.Spec.Replicas {
				rec.CurrentlyUpdating = append(rec.CurrentlyUpdating, grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress{
					ReplicaIndex: cu.ReplicaIndex, UpdateStartedAt: now, ReadyAtStart: cu.ReadyAtStart, AvailableAtStart: cu.AvailableAtStart,
				})
			}
		}
	}
	ev.add(corev1.EventTypeNormal, update.ReasonUpdateStarted, common.ActionUpdate, "Updating to generation hash %s with strategy %s", genHash, strategy)
	return rec
}

// advance moves an update on. A replica keeps its turn until turnDone. Then
// the next replicas that do not run the current templates are picked:
// replicas with no pod scheduled first (nothing to disrupt), then breached
// ones (already disrupted), then by index. RollingRecreate takes one replica
// at a time. Coherent takes up to updateStrategy maxUnavailable replicas at
// once: replicas that are not available whenever a turn is free, available
// ones only while fewer than maxUnavailable replicas are unavailable, the
// replicas in turn counted as unavailable. With none left the update ends.
// up says whether a replica counts as serving for the update's budget: under
// Coherent every pod ready (the guarantee is replicas − maxUnavailable fully
// available replicas; a replica whose turn ended at its minAvailable would
// otherwise let the next turn take one more down), otherwise available.
func (v replicaView) up(coherent bool) bool {
	if coherent {
		return v.available && v.ready
	}
	return v.available
}

func advance(pcs *grovecorev1alpha1.PodCliqueSet, rec *grovecorev1alpha1.PodCliqueSetUpdateProgress, views []replicaView, now metav1.Time, ev *statusEvents) {
	coherent := update.Coherent(pcs)
	var turns []grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress
	inTurn := map[int32]bool{}
	for _, cu := range rec.CurrentlyUpdating {
		i := cu.ReplicaIndex
		if cu.UpdateEndedAt == nil && int(i) < len(views) && !views[i].turnDone(cu, coherent) {
			cu.Message = views[i].turnMessage(coherent)
			turns = append(turns, cu)
			inTurn[i] = true
		}
	}
	if !coherent && len(turns) > 0 {
		rec.CurrentlyUpdating = turns
		return
	}
	var candidates []int32
	unavailable := int32(len(turns))
	for i, v := range views {
		if !inTurn[int32(i)] && !v.converged {
			candidates = append(candidates, int32(i))
		}
		if !inTurn[int32(i)] && !v.up(coherent) {
			unavailable++
		}
	}
	rank := func(i int32) int {
		switch {
		case views[i].nothingScheduled:
			return 0
		case views[i].breached:
			return 1
		}
		return 2
	}
	sort.SliceStable(candidates, func(a, b int) bool { return rank(candidates[a]) < rank(candidates[b]) })
	if len(candidates) == 0 && len(turns) == 0 {
		rec.CurrentlyUpdating = nil
		rec.UpdateEndedAt = ptr.To(now)
		pcs.Status.CurrentGenerationHash = ptr.To(rec.PodCliqueSetGenerationHash)
		ev.add(corev1.EventTypeNormal, update.ReasonUpdateCompleted, common.ActionUpdate, "All %d replicas run generation hash %s", len(views), rec.PodCliqueSetGenerationHash)
		return
	}
	budget, _ := update.ReplicaBudget(pcs)
	for k, next := range candidates {
		if int32(len(turns)) >= budget {
			// Never more turns than the budget, also for replicas seen
			// unavailable: a stale or passing unavailability must not let
			// an update take down more (upstream #697).
			break
		}
		switch {
		case coherent && views[next].up(coherent) && unavailable >= budget:
		default:
			if views[next].up(coherent) {
				unavailable++
			}
			turns = append(turns, grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress{
				ReplicaIndex: next, UpdateStartedAt: now, ReadyAtStart: ptr.To(views[next].ready), AvailableAtStart: ptr.To(views[next].available),
				Message: views[next].turnMessage(coherent),
			})
			ev.add(corev1.EventTypeNormal, update.ReasonReplicaUpdateStarted, common.ActionUpdate, "Updating replica %d (%d of %d replicas left)", next, len(candidates)-k, len(views))
		}
	}
	rec.CurrentlyUpdating = turns
}

// turnMessage says where a replica's turn stands.
func (v replicaView) turnMessage(coherent bool) string {
	switch {
	case coherent && (v.oldPCLQs > 0 || v.deletingPCLQs > 0):
		return fmt.Sprintf("replacing the gangs of the old revision: %d PodCliques of an older template, %d being deleted with their pods; new pods wait until they are gone",
			v.oldPCLQs, v.deletingPCLQs)
	case !v.converged:
		return "creating the PodCliques of the new revision"
	case !v.available:
		return "waiting for the new gangs to be scheduled and available"
	case !v.ready:
		return "waiting for every pod of the new revision to be ready"
	}
	return "done"
}

// setScope records which standalone cliques and scaling groups the update
// changes: those with a PodClique of another template than the current one.
func setScope(pcs *grovecorev1alpha1.PodCliqueSet, rec *grovecorev1alpha1.PodCliqueSetUpdateProgress, pclqs map[string]*grovecorev1alpha1.PodClique, templateHashes map[string]string) {
	standalone, groups := map[string]bool{}, map[string]bool{}
	for _, p := range pclqs {
		if p.DeletionTimestamp != nil || !update.Outdated(p, templateHashes) {
			continue
		}
		if g := p.Labels[apicommon.LabelPodCliqueScalingGroup]; g != "" {
			groups[strings.TrimPrefix(g, pcs.Name+"-"+p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]+"-")] = true
		} else {
			standalone[p.Labels[apicommon.LabelPodCliqueTemplateName]] = true
		}
	}
	rec.InScopeStandalonePodCliques, rec.InScopePodCliqueScalingGroups = sortedKeys(standalone), sortedKeys(groups)
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// setUpdateCondition writes UpdateInProgress: True (RollingUpdate, or
// ProgressDeadlineExceeded naming the stalled children) while a
// RollingRecreate record is open; otherwise False with UpdateCompleted, or
// OnDelete while pods of an older template remain.
func setUpdateCondition(pcs *grovecorev1alpha1.PodCliqueSet, views []replicaView, genHash string, now metav1.Time, ev *statusEvents) {
	st := &pcs.Status
	rec := st.UpdateProgress
	cond := metav1.Condition{Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, ObservedGeneration: pcs.Generation}
	switch {
	case rec != nil && rec.UpdateEndedAt == nil:
		cond.Status, cond.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonRollingUpdate
		var replicas []string
		for _, cu := range rec.CurrentlyUpdating {
			replicas = append(replicas, fmt.Sprint(cu.ReplicaIndex))
		}
		cond.Message = fmt.Sprintf("updating replica %s to generation hash %s: %d of %d replicas updated, %d of %d PodCliques and %d of %d PodCliqueScalingGroups run the new template",
			strings.Join(replicas, ","), genHash, st.UpdatedReplicas, len(views), rec.UpdatedPodCliquesCount, rec.TotalPodCliquesCount,
			rec.UpdatedPodCliqueScalingGroupsCount, rec.TotalPodCliqueScalingGroupsCount)
		var stalled []string
		for _, v := range views {
			stalled = append(stalled, v.stalled...)
		}
		_, deadline := update.ReplicaBudget(pcs)
		for _, cu := range rec.CurrentlyUpdating {
			if over, _ := update.Deadline(cu.UpdateStartedAt.Time, deadline, now.Time); over {
				stalled = append(stalled, fmt.Sprintf("replica %d (%s)", cu.ReplicaIndex, cu.Message))
			}
		}
		if len(stalled) > 0 {
			cond.Reason = grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded
			cond.Message = fmt.Sprintf("%s exceeded its progressDeadline; the update continues: %s", strings.Join(stalled, ", "), cond.Message)
			if was := meta.FindStatusCondition(st.Conditions, cond.Type); was == nil || was.Reason != cond.Reason {
				ev.add(corev1.EventTypeWarning, update.ReasonProgressDeadlineExceeded, common.ActionUpdate, "%s exceeded its progressDeadline; the update continues", strings.Join(stalled, ", "))
			}
		}
	case ptr.Deref(st.CurrentGenerationHash, genHash) != genHash:
		cond.Status, cond.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonOnDelete
		cond.Message = fmt.Sprintf("updateStrategy OnDelete: %d of %d replicas run generation hash %s; pods of older templates are replaced when they are deleted",
			st.UpdatedReplicas, len(views), genHash)
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonUpdateCompleted
		cond.Message = fmt.Sprintf("all replicas run generation hash %s", genHash)
	}
	meta.SetStatusCondition(&st.Conditions, cond)
}

// updateStatusChanged reports a change of what trackUpdate reads from a
// child's status besides its counts: the generation its controller observed,
// its convergence marker, and its MinAvailableBreached and UpdateInProgress
// conditions.
func updateStatusChanged(oldGen, newGen *int64, oldHash, newHash *string, oldConds, newConds []metav1.Condition) bool {
	if ptr.Deref(oldGen, 0) != ptr.Deref(newGen, 0) || ptr.Deref(oldHash, "") != ptr.Deref(newHash, "") {
		return true
	}
	for _, t := range []string{grovecorev1alpha1.ConditionTypeMinAvailableBreached, grovecorev1alpha1.ConditionTypeUpdateInProgress} {
		o, n := meta.FindStatusCondition(oldConds, t), meta.FindStatusCondition(newConds, t)
		if (o == nil) != (n == nil) || (o != nil && (o.Status != n.Status || o.Reason != n.Reason)) {
			return true
		}
	}
	return false
}
