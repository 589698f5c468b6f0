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
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/update"
)

// updateState is where a scaling group stands in its PodCliqueSet's update.
type updateState struct {
	genHash string
	// hashes are the current pod-template hashes of the member cliques.
	hashes   map[string]string
	onDelete bool
	// cliqueHashes are the current pod-template hashes of every clique of
	// the PodCliqueSet, by template name.
	cliqueHashes map[string]string
	// replicaUpdating: the group's PodCliqueSet replica is the one being
	// rolled now (RollingRecreate); only then are group replicas replaced.
	replicaUpdating bool
	// creationHeld says why missing member PodCliques were not created
	// (Coherent, update.CreationHeld); empty when none was held.
	creationHeld string
	// heldPodCliques are the member PodCliques not created for that reason,
	// heldGroupReplicas their group replicas, in order.
	heldPodCliques    []string
	heldGroupReplicas []int32
	// selected are the available group replicas replaced in this reconcile.
	selected []int32
}

func (r *Reconciler) updateStateOf(pcs *grovecorev1alpha1.PodCliqueSet, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) (*updateState, error) {
	pcsReplica, err := pcsReplicaIndex(pcsg)
	if err != nil {
		return nil, err
	}
	all, err := hash.Of(pcs)
	if err != nil {
		return nil, groveerr.Wrap(err, "ERR_COMPUTE_HASH", groveerr.OperationSync, "computing the template hashes")
	}
	genHash := all.Generation
	hashes := map[string]string{}
	for _, cn := range pcsg.Spec.CliqueNames {
		hashes[cn] = all.Cliques[cn]
	}
	return &updateState{
		genHash: genHash, hashes: hashes, cliqueHashes: all.Cliques,
		onDelete:        update.Strategy(pcs) == grovecorev1alpha1.OnDeleteStrategyType,
		replicaUpdating: update.ReplicaUpdating(pcs, pcsReplica, genHash),
	}, nil
}

// groupReplica is one scaling-group replica as the rolling step sees it.
type groupReplica struct {
	index     int32
	members   []*grovecorev1alpha1.PodClique
	outdated  bool
	available bool
}

// planReplacements picks the group replicas built from an older template to
// replace while the group's PodCliqueSet replica is the one being rolled
// (RollingRecreate). Replicas that are not available go at once, since they
// serve nothing; available ones only while fewer than maxUnavailable
// replicas are unavailable, lowest index first (design decision 5); those
// are recorded in st.selected for the status. The choice only depends on the
// cache, so a repeated reconcile on a stale cache picks the same replicas
// again. Nothing is deleted here: replaceReplicas acts once the status
// records the choice.
func (r *Reconciler) planReplacements(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, st *updateState) ([]groupReplica, error) {
	if !st.replicaUpdating {
		return nil, nil
	}
	members, err := r.memberPodCliques(ctx, pcsg)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*grovecorev1alpha1.PodClique, len(members))
	for i := range members {
		byName[members[i].Name] = &members[i]
	}
	var unavailable int32
	var doomed, availableOld []groupReplica
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		g := groupReplica{index: j, available: replica(pcsg, j, byName, st.hashes).available}
		for _, cn := range pcsg.Spec.CliqueNames {
			p, ok := byName[apicommon.ScalingGroupPodCliqueName(pcsg.Name, j, cn)]
			if !ok || p.DeletionTimestamp != nil {
				continue
			}
			g.members = append(g.members, p)
			g.outdated = g.outdated || update.PodCliqueOutdated(p, st.hashes[cn])
		}
		if !g.available {
			unavailable++
		}
		switch {
		case !g.outdated:
		case !g.available:
			doomed = append(doomed, g)
		default:
			availableOld = append(availableOld, g)
		}
	}
	budget := update.MaxUnavailable(pcsg.Spec.RollingUpdate, pcsg.Spec.Replicas) - unavailable
	for _, g := range availableOld {
		if budget <= 0 {
			break
		}
		doomed = append(doomed, g)
		st.selected = append(st.selected, g.index)
		budget--
	}
	return doomed, nil
}

// replaceReplicas deletes all member PodCliques of each doomed group
// replica; the next sync recreates them from the current template.
func (r *Reconciler) replaceReplicas(ctx context.Context, log logr.Logger, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, doomed []groupReplica) error {
	if len(doomed) == 0 {
		return nil
	}
	report := r.d.NewReport(pcsg, podCliqueKind)
	defer report.Emit()
	for _, g := range doomed {
		names := make([]string, 0, len(g.members))
		for _, p := range g.members {
			err := childsync.DeleteIgnoringNotFound(ctx, r.d.Client, p)
			report.Deleted(p, err)
			if err != nil {
				return groveerr.Wrapf(err, "ERR_DELETE_PODCLIQUE", groveerr.OperationSync, "replacing replica %d: deleting PodClique %s", g.index, p.Name)
			}
			names = append(names, p.Name)
		}
		log.Info("Replacing scaling-group replica built from an older template", "replica", g.index, "available", g.available, "podCliques", names)
		r.recorder.Eventf(pcsg, nil, corev1.EventTypeNormal, update.ReasonReplicaReplaced, common.ActionUpdate,
			"Replacing replica %d (available: %t) with the current template: deleted PodCliques %s", g.index, g.available, strings.Join(names, ", "))
	}
	return nil
}

// applyUpdateStatus writes what a scaling group reports about updates:
// currentPodCliqueSetGenerationHash once every member exists and runs the
// current template (unset while some do not), the
// update record with member counts and the replicas replaced, the
// UpdateInProgress condition and, while its PodCliqueSet replica is rolled,
// MinAvailableBreached=Unknown. It returns when the progress deadline passes
// (0: not pending); writeStatus announces the deadline once it is recorded.
func applyUpdateStatus(pcsg *grovecorev1alpha1.PodCliqueScalingGroup, prev *grovecorev1alpha1.PodCliqueScalingGroupStatus, st *updateState,
	byName map[string]*grovecorev1alpha1.PodClique, now metav1.Time) time.Duration {
	status := &pcsg.Status
	var updated, total int32
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		for _, cn := range pcsg.Spec.CliqueNames {
			total++
			if p, ok := byName[apicommon.ScalingGroupPodCliqueName(pcsg.Name, j, cn)]; ok && p.DeletionTimestamp == nil && update.PodCliqueConverged(p, st.hashes[cn]) {
				updated++
			}
		}
	}
	converged := converged(pcsg, byName, st.hashes)
	if converged {
		status.CurrentPodCliqueSetGenerationHash = ptr.To(st.genHash)
	} else {
		status.CurrentPodCliqueSetGenerationHash = nil
	}

	rec := status.UpdateProgress
	open := rec != nil && rec.UpdateEndedAt == nil
	prevUpdated := int32(0)
	if rec != nil {
		prevUpdated = rec.UpdatedPodCliquesCount
	}
	newRecord := func() *grovecorev1alpha1.PodCliqueScalingGroupUpdateProgress {
		return &grovecorev1alpha1.PodCliqueScalingGroupUpdateProgress{UpdateStartedAt: now, PodCliqueSetGenerationHash: st.genHash, LastProgressTime: ptr.To(now)}
	}
	switch {
	case !converged && st.onDelete && (rec == nil || rec.PodCliqueSetGenerationHash != st.genHash):
		rec = newRecord()
		rec.UpdateEndedAt = ptr.To(now)
	case !converged && st.replicaUpdating && (rec == nil || rec.PodCliqueSetGenerationHash != st.genHash || rec.UpdateEndedAt != nil):
		rec = newRecord()
	case open && !st.replicaUpdating:
		rec.UpdateEndedAt = ptr.To(now)
	case open && converged && status.AvailableReplicas >= desired.PCSGMinAvailable(pcsg):
		rec.UpdateEndedAt = ptr.To(now)
	case open && (updated > prevUpdated || status.AvailableReplicas > prev.AvailableReplicas):
		rec.LastProgressTime = ptr.To(now)
	}
	if rec != nil {
		rec.UpdatedPodCliquesCount, rec.TotalPodCliquesCount = updated, total
		if rec.UpdateEndedAt == nil && len(st.selected) > 0 {
			sel := rec.ReadyReplicaIndicesSelectedToUpdate
			if sel == nil {
				sel = &grovecorev1alpha1.PodCliqueScalingGroupReplicaRollingUpdateProgress{Current: -1}
			}
			for _, j := range st.selected {
				if j == sel.Current {
					// Chosen again by a reconcile before its replacement showed in the cache.
					continue
				}
				if sel.Current >= 0 {
					sel.Completed = append(sel.Completed, sel.Current)
				}
				sel.Current = j
			}
			rec.ReadyReplicaIndicesSelectedToUpdate = sel
			rec.LastProgressTime = ptr.To(now)
		}
	}
	status.UpdateProgress = rec

	var requeueAfter time.Duration
	if rec != nil {
		cond := update.DoneCondition(pcsg.Generation, st.onDelete && !converged,
			fmt.Sprintf("%d of %d PodCliques run the current template", updated, total))
		if rec.UpdateEndedAt == nil {
			deadline := update.ProgressDeadline(pcsg.Spec.RollingUpdate)
			last := rec.UpdateStartedAt.Time
			if rec.LastProgressTime != nil {
				last = rec.LastProgressTime.Time
			}
			var over bool
			over, requeueAfter = update.Deadline(last, deadline, now.Time)
			cond = update.InProgressCondition(pcsg.Generation, over, deadline,
				fmt.Sprintf("%d of %d PodCliques run the current template, %d of %d replicas available, maxUnavailable %d",
					updated, total, status.AvailableReplicas, pcsg.Spec.Replicas, update.MaxUnavailable(pcsg.Spec.RollingUpdate, pcsg.Spec.Replicas)))
		}
		meta.SetStatusCondition(&status.Conditions, cond)
	}
	if st.replicaUpdating {
		update.MarkBreachUnknown(&status.Conditions, prev.Conditions, pcsg.Generation)
	}
	return requeueAfter
}

// converged reports whether every member PodClique of every replica exists
// and runs the current template of its clique. A missing member is being
// (re)created; the group has not converged until it is there.
func converged(pcsg *grovecorev1alpha1.PodCliqueScalingGroup, byName map[string]*grovecorev1alpha1.PodClique, hashes map[string]string) bool {
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		for _, cn := range pcsg.Spec.CliqueNames {
			p, ok := byName[apicommon.ScalingGroupPodCliqueName(pcsg.Name, j, cn)]
			if !ok || p.DeletionTimestamp != nil || !update.PodCliqueConverged(p, hashes[cn]) {
				return false
			}
		}
	}
	return true
}

// updateRecordChanged passes PodCliqueSet updates that change what the
// scaling group acts on in its update record (update.RecordKey).
func updateRecordChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*grovecorev1alpha1.PodCliqueSet)
			n, ok2 := e.ObjectNew.(*grovecorev1alpha1.PodCliqueSet)
			return ok1 && ok2 && update.RecordKey(o) != update.RecordKey(n)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
