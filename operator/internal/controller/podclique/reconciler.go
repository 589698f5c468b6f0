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

// Package podclique is the PodClique controller: it keeps a PodClique's pods
// at spec.replicas, lifts their scheduling gates once their PodGang is ready
// for them, and reports pod counts and conditions in status.
package podclique

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/update"
)

// ControllerName is the PodClique controller's name.
const ControllerName = "podclique-controller"

// ReasonAllScheduledReplicasLost is the warning event when a PodClique that
// had scheduled pods has none left.
const ReasonAllScheduledReplicasLost = "AllScheduledReplicasLost"

// ErrUpdateStatus is the error code of a failed status write.
const ErrUpdateStatus grovecorev1alpha1.ErrorCode = "ERR_UPDATE_PODCLIQUE_STATUS"

// Reconciler reconciles PodCliques.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
	pods     *pod.Component
	// writes holds back reconciles that read a PodClique older than the
	// controller's own last status write.
	writes *ownwrites.Tracker
}

// statusHoldBack is how long status writes wait for the cache to show the
// pods this controller created or deleted. A watch normally catches up well
// within it.
const statusHoldBack = 5 * time.Second

// Reconcile runs: get → (delete flow) → ensure finalizer → sync pods → status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("podClique", req.NamespacedName)
	ctx = ctrl.LoggerInto(ctx, log)

	pclq := &grovecorev1alpha1.PodClique{}
	if err := r.client.Get(ctx, req.NamespacedName, pclq); err != nil {
		if apierrors.IsNotFound(err) {
			r.pods.Forget(req.String())
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting PodClique: %w", err)
	}
	if r.writes.Behind(pclq) {
		// The cache has not shown this controller's last status write yet;
		// status computed now would start from what that write replaced,
		// and its optimistic-lock write would only meet a conflict.
		return ctrl.Result{RequeueAfter: common.RetryAfterConflict}, nil
	}
	if !pclq.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, log, pclq)
	}
	if err := r.ensureFinalizer(ctx, pclq); err != nil {
		return ctrl.Result{}, err
	}
	result, syncErr := r.pods.Sync(ctx, log, pclq)
	if result.Orphaned {
		log.V(1).Info("PodCliqueSet is gone; leaving the PodClique to the garbage collector")
		return ctrl.Result{}, nil
	}
	// While pods this controller created or deleted are not yet in the cache,
	// counts computed now would be stale and overwritten moments later, when
	// the pod events arrive; skipping the write halves status traffic for
	// large PodCliqueSets. Errors, and the ready pods an update replaced, are
	// always recorded. The hold-back is bounded: an expectation can wait up to
	// its deadline (a create whose answer an API server outage lost), and
	// meanwhile the pods that exist become Ready and must be reported.
	if hold := statusHoldBack - result.OldestPending; hold > 0 && syncErr == nil &&
		(result.PendingCreates > 0 || result.PendingDeletes > 0) && len(result.Rollout.SelectedReady) == 0 {
		return ctrl.Result{RequeueAfter: common.Earliest(hold, result.RecheckAfter)}, nil
	}
	requeueAfter, err := r.updateStatus(ctx, log, pclq, result, syncErr)
	if apierrors.IsConflict(err) {
		// The status was computed on a cached PodClique older than the
		// stored one; a merge patch from it could drop what an earlier
		// reconcile wrote (ready counts, the update record). Retry once the
		// cache caught up.
		return ctrl.Result{RequeueAfter: common.RetryAfterConflict}, syncErr
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if syncErr != nil {
		// controller-runtime requeues with exponential backoff.
		return ctrl.Result{}, syncErr
	}
	return ctrl.Result{RequeueAfter: common.Earliest(requeueAfter, result.RecheckAfter)}, nil
}

func (r *Reconciler) ensureFinalizer(ctx context.Context, pclq *grovecorev1alpha1.PodClique) error {
	if controllerutil.ContainsFinalizer(pclq, apicommon.FinalizerPodClique) {
		return nil
	}
	base := pclq.DeepCopy()
	controllerutil.AddFinalizer(pclq, apicommon.FinalizerPodClique)
	if err := r.client.Patch(ctx, pclq, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("adding finalizer to PodClique %s: %w", pclq.Name, err)
	}
	return nil
}

// reconcileDelete deletes the PodClique's pods and releases the PodClique
// once they are gone (pod events bring the reconciles in between). Waiting
// keeps an index from being held twice: the PodClique's name, and with it its
// pods' hostnames, stays taken until no pod of it is left.
func (r *Reconciler) reconcileDelete(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) (ctrl.Result, error) {
	key := client.ObjectKeyFromObject(pclq).String()
	if !controllerutil.ContainsFinalizer(pclq, apicommon.FinalizerPodClique) {
		r.pods.Forget(key)
		return ctrl.Result{}, nil
	}
	left, recheckAfter, err := r.pods.Drain(ctx, log, pclq)
	if err != nil {
		return ctrl.Result{}, err
	}
	if left > 0 {
		log.V(1).Info("Waiting for the pods of the deleted PodClique to be gone", "left", left)
		return ctrl.Result{RequeueAfter: recheckAfter}, nil
	}
	if err := r.releaseReferences(ctx, pclq); err != nil {
		return ctrl.Result{}, err
	}
	r.pods.Forget(key)
	base := pclq.DeepCopy()
	controllerutil.RemoveFinalizer(pclq, apicommon.FinalizerPodClique)
	if err := r.client.Patch(ctx, pclq, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("removing finalizer from PodClique %s: %w", pclq.Name, err)
	}
	log.V(1).Info("Released PodClique")
	return ctrl.Result{}, nil
}

// updateStatus computes the status from the pods Sync listed and writes it in
// one patch, only when something changed. It returns when the update's
// progress deadline passes, to be reconciled then.
func (r *Reconciler) updateStatus(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, res pod.Result, syncErr error) (time.Duration, error) {
	old := pclq.Status.DeepCopy()
	counts := countPods(res.Pods, pclq.Labels[apicommon.LabelPodTemplateHash], res.Lifted)
	// Sync may fail before it lists the pods; then the counts it would give are
	// unknown, and the last ones stay while the error is recorded.
	var upd updateOutcome
	if res.Pods != nil {
		applyStatus(pclq, counts)
		upd = applyUpdateStatus(pclq, old, res.Rollout, counts, metav1.Now())
	}
	switch {
	case syncErr != nil:
		common.ApplyOperation(pclq, grovecorev1alpha1.LastOperationTypeReconcile, "syncing pods failed", syncErr)
	case res.PendingCreates > 0 || res.PendingDeletes > 0 || counts.replicas != pclq.Spec.Replicas:
		common.ApplyProcessing(pclq, grovecorev1alpha1.LastOperationTypeReconcile,
			fmt.Sprintf("scaling to %d pods: %d exist", pclq.Spec.Replicas, counts.replicas))
	case res.Gated > 0:
		common.ApplyProcessing(pclq, grovecorev1alpha1.LastOperationTypeReconcile,
			fmt.Sprintf("%d pods wait for PodGang %s", res.Gated, pclq.Labels[apicommon.LabelPodGang]))
	default:
		common.ApplyOperation(pclq, grovecorev1alpha1.LastOperationTypeReconcile,
			fmt.Sprintf("%d pods released to the scheduler", counts.replicas))
	}
	if equality.Semantic.DeepEqual(*old, pclq.Status) {
		return upd.requeueAfter, nil
	}
	if err := r.client.Status().Patch(ctx, pclq, common.StatusMergeFrom(pclq.ResourceVersion, old, podCliqueStatus)); err != nil {
		return 0, groveerr.Wrapf(err, ErrUpdateStatus, groveerr.OperationSync, "updating status of PodClique %s", pclq.Name)
	}
	r.writes.Wrote(pclq)
	// The events announce transitions the status just written records; a
	// reconcile on a stale PodClique re-derives them, but its write is
	// refused (optimistic locking), so they are posted only here.
	if upd.deadlineExceeded {
		r.recorder.Eventf(pclq, nil, corev1.EventTypeWarning, update.ReasonProgressDeadlineExceeded, common.ActionUpdate,
			"No update progress for more than progressDeadline %s; the update continues", update.ProgressDeadline(pclq.Spec.RollingUpdate))
	}
	if old.ScheduledReplicas > 0 && pclq.Status.ScheduledReplicas == 0 {
		r.recorder.Eventf(pclq, nil, corev1.EventTypeWarning, ReasonAllScheduledReplicasLost, common.ActionReconcile,
			"All %d scheduled pods were lost", old.ScheduledReplicas)
	}
	log.V(2).Info("Updated status", "replicas", counts.replicas, "ready", counts.ready, "scheduled", counts.scheduled, "gated", counts.gated)
	return upd.requeueAfter, nil
}

func podCliqueStatus(p *grovecorev1alpha1.PodClique) any { return &p.Status }
