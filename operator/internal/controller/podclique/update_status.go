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

package podclique

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
	"github.com/grove-project/grove/operator/internal/update"
)

// updateOutcome is what applyUpdateStatus asks of the reconciler.
type updateOutcome struct {
	// requeueAfter is when the progress deadline passes; 0 when none is pending.
	requeueAfter time.Duration
	// deadlineExceeded says the deadline passed in this reconcile.
	deadlineExceeded bool
}

// applyUpdateStatus writes what a PodClique reports about updates:
//   - currentPodTemplateHash (and currentPodCliqueSetGenerationHash) once no
//     active pod of an older template is left, unset while some are;
//   - the update record: opened when the PodClique's pods start being
//     replaced (RollingRecreate) or, under OnDelete, opened and ended at
//     once; ended when every pod runs the new template and minAvailable are
//     ready;
//   - the UpdateInProgress condition, with reason ProgressDeadlineExceeded
//     after progressDeadline without progress;
//   - MinAvailableBreached=Unknown (UpdateInProgress) while its PodCliqueSet
//     replica is rolled, so gang termination waits for the update.
func applyUpdateStatus(pclq *grovecorev1alpha1.PodClique, prev *grovecorev1alpha1.PodCliqueStatus, ro pod.Rollout, c podCounts, now metav1.Time) updateOutcome {
	var out updateOutcome
	st := &pclq.Status
	templateHash := pclq.Labels[apicommon.LabelPodTemplateHash]
	converged := templateHash != "" && c.updated == c.replicas
	if converged {
		st.CurrentPodTemplateHash = ptr.To(templateHash)
		if ro.GenerationHash != "" {
			st.CurrentPodCliqueSetGenerationHash = ptr.To(ro.GenerationHash)
		}
	} else {
		// Pods of several templates run: the pods converged to none.
		st.CurrentPodTemplateHash, st.CurrentPodCliqueSetGenerationHash = nil, nil
	}

	rec := st.UpdateProgress
	open := rec != nil && rec.UpdateEndedAt == nil
	newRecord := func() *grovecorev1alpha1.PodCliqueUpdateProgress {
		return &grovecorev1alpha1.PodCliqueUpdateProgress{
			UpdateStartedAt: now, PodCliqueSetGenerationHash: ro.GenerationHash, PodTemplateHash: templateHash, LastProgressTime: ptr.To(now),
		}
	}
	switch {
	case !converged && ro.OnDelete && ro.GenerationHash != "" && (rec == nil || rec.PodTemplateHash != templateHash):
		// Under OnDelete Grove replaces nothing itself: the record says
		// which template pods come back with when they are deleted.
		rec = newRecord()
		rec.UpdateEndedAt = ptr.To(now)
	case !converged && ro.Rolling && (rec == nil || rec.PodTemplateHash != templateHash || rec.UpdateEndedAt != nil):
		// A new template, also mid-update, starts a new record.
		rec = newRecord()
	case open && !ro.Rolling:
		// Switched to OnDelete, or the replica's turn is over.
		rec.UpdateEndedAt = ptr.To(now)
	case open && converged && c.replicas >= pclq.Spec.Replicas && c.ready >= minAvailable(pclq):
		// Every replacement exists and minAvailable are ready.
		rec.UpdateEndedAt = ptr.To(now)
	case open && (c.updated > prev.UpdatedReplicas || c.ready > prev.ReadyReplicas):
		rec.LastProgressTime = ptr.To(now)
	}
	if rec != nil && rec.UpdateEndedAt == nil && len(ro.SelectedReady) > 0 {
		recordSelected(rec, ro.SelectedReady)
		rec.LastProgressTime = ptr.To(now)
	}
	st.UpdateProgress = rec

	if rec != nil {
		cond := update.DoneCondition(pclq.Generation, ro.OnDelete && !converged,
			fmt.Sprintf("%d of %d pods run template %s", c.updated, c.replicas, templateHash))
		if rec.UpdateEndedAt == nil {
			deadline := update.ProgressDeadline(pclq.Spec.RollingUpdate)
			last := rec.UpdateStartedAt.Time
			if rec.LastProgressTime != nil {
				last = rec.LastProgressTime.Time
			}
			exceeded, after := update.Deadline(last, deadline, now.Time)
			out.requeueAfter = after
			cond = update.InProgressCondition(pclq.Generation, exceeded, deadline,
				fmt.Sprintf("%d of %d pods run template %s, %d ready, maxUnavailable %d", c.updated, c.replicas, templateHash, c.ready,
					update.MaxUnavailable(pclq.Spec.RollingUpdate, pclq.Spec.Replicas)))
			was := meta.FindStatusCondition(prev.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
			out.deadlineExceeded = exceeded && (was == nil || was.Reason != grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded)
		}
		meta.SetStatusCondition(&st.Conditions, cond)
	}
	if ro.ReplicaUpdating {
		update.MarkBreachUnknown(&st.Conditions, prev.Conditions, pclq.Generation)
	}
	return out
}

// recordSelected records the ready pods just replaced: the last becomes
// current, earlier ones are completed.
func recordSelected(rec *grovecorev1alpha1.PodCliqueUpdateProgress, names []string) {
	sel := rec.ReadyPodsSelectedToUpdate
	if sel == nil {
		sel = &grovecorev1alpha1.PodsSelectedToUpdate{}
	} else if sel.Current != "" {
		sel.Completed = append(sel.Completed, sel.Current)
	}
	sel.Completed = append(sel.Completed, names[:len(names)-1]...)
	sel.Current = names[len(names)-1]
	rec.ReadyPodsSelectedToUpdate = sel
}
