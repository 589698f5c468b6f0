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

// Package podcliqueset is the PodCliqueSet controller: it turns a
// PodCliqueSet into its grove-initc access objects, headless Services, HPAs,
// standalone PodCliques, PodCliqueScalingGroups and PodGangs (one component
// operator each, under components/), recreates a replica whose gang stayed
// broken longer than terminationDelay (gang termination), and reports the
// set's status.
//
// Its work comes in kinds of Request: a replica's, which applies the
// children of that replica, every replica's (the same for all, in parallel),
// and the set-level pass, which deletes the children no longer wanted, keeps
// the set-wide objects, terminates broken gangs and writes the status. A
// change of one replica's children queues that replica alone; a change of
// the set's spec queues every replica.
package podcliqueset

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/computedomain"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/hpa"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/initcaccess"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/podclique"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/podcliquescalinggroup"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/podgang"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/resourceclaim"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/service"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/metrics"
	"github.com/grove-project/grove/operator/internal/mnnvl"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// ControllerName is the name of the PodCliqueSet controller.
const ControllerName = "podcliqueset-controller"

// Reconciler reconciles PodCliqueSets.
type Reconciler struct {
	client client.Client
	// apiReader reads from the API server.
	apiReader client.Reader
	recorder  events.EventRecorder
	// groups are the component operators in dependency order: a group runs
	// only when every earlier group synced without error. Components only
	// read the PodCliqueSet, so a group's members run concurrently.
	groups [][]component.Operator[component.SetWork]
	// writes records the operator's own writes the cache has not shown yet:
	// the PodCliques gang termination deleted and the children of deleted
	// PodCliqueSets among them.
	writes *ownwrites.Tracker
	// tasEnabled says whether topology constraints are translated.
	tasEnabled bool
	// mnnvl is network.autoMNNVLEnabled: the set's ComputeDomains are
	// released (finalizer removed, deleted) when it is deleted.
	mnnvl bool
}

// NewReconciler wires the reconciler's component operators. apiReader reads
// from the API server.
func NewReconciler(c client.Client, apiReader client.Reader, d childsync.Deps, cfg *config.OperatorConfiguration, backends *backend.Registry) *Reconciler {
	tas := cfg.TopologyAwareScheduling.Enabled != nil && *cfg.TopologyAwareScheduling.Enabled
	// PodCliques, scaling groups, PodGangs and the set's ResourceClaims come
	// first and together: they are the critical path to pods, and a PodGang that exists when its
	// PodClique's pods appear takes their references at once instead of
	// costing the PodClique another reconcile and status write. The Services,
	// HPAs and grove-initc access objects are needed only once pods run; the
	// grove-initc RoleBinding comes last, after the Role it binds.
	initcObjects, initcBindings := initcaccess.Operators(d)
	first := []component.Operator[component.SetWork]{podclique.New(d), podcliquescalinggroup.New(d), podgang.New(d, backends, tas), resourceclaim.New(d, apiReader)}
	if cfg.Network.AutoMNNVLEnabled {
		// The ComputeDomains come with the pods' other claims: a pod's
		// ResourceClaimTemplate exists only once its ComputeDomain does.
		first = append(first, computedomain.New(d))
	}
	return &Reconciler{
		client:    c,
		apiReader: apiReader,
		recorder:  d.Recorder,
		groups: [][]component.Operator[component.SetWork]{
			first,
			append(initcObjects, service.New(d), hpa.New(d)),
			initcBindings,
		},
		writes:     d.Writes,
		tasEnabled: tas,
		mnnvl:      cfg.Network.AutoMNNVLEnabled,
	}
}

// Request is one unit of the controller's work (component.SetWork): the
// set-level pass of the PodCliqueSet named (Replica component.SetLevel), the
// children of one of its replicas, or of all (component.AllReplicas).
type Request struct {
	types.NamespacedName
	Replica int32
}

// SetLevel is the set-level request of the PodCliqueSet key.
func SetLevel(key types.NamespacedName) Request {
	return Request{NamespacedName: key, Replica: component.SetLevel}
}

// Reconcile does the work req names.
func (r *Reconciler) Reconcile(ctx context.Context, req Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("replica", req.Replica)
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := r.client.Get(ctx, req.NamespacedName, pcs); err != nil {
		if !apierrors.IsNotFound(err) || req.Replica != component.SetLevel {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		// Gone: its children are deleted, by the garbage collector and,
		// faster, by the operator.
		metrics.PodGangsPending.DeleteLabelValues(req.Namespace, req.Name)
		if err := r.releaseComputeDomains(ctx, req.NamespacedName); err != nil {
			return ctrl.Result{}, err
		}
		retryAfter, err := r.deleteChildrenOfDeleted(ctx, log, req.NamespacedName)
		return ctrl.Result{RequeueAfter: retryAfter}, err
	}
	if pcs.DeletionTimestamp != nil {
		if req.Replica != component.SetLevel {
			return ctrl.Result{}, nil
		}
		if err := r.releaseComputeDomains(ctx, req.NamespacedName); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.releaseLegacyFinalizer(ctx, log, pcs)
	}
	if req.Replica != component.SetLevel {
		taken, err := r.reconcileReplica(ctx, log, pcs, req.Replica)
		if taken && err == nil {
			return ctrl.Result{RequeueAfter: notOwnedRetry}, nil
		}
		return ctrl.Result{}, err
	}
	requeueAfter, err := r.reconcileSpec(ctx, log, pcs)
	if errors.Is(err, errStatusConflict) {
		return ctrl.Result{RequeueAfter: common.RetryAfterConflict}, nil
	}
	return ctrl.Result{RequeueAfter: requeueAfter}, err
}

// notOwnedRetry is when a pass that left a child's name to an object the set
// does not control runs again: that object's deletion queues nothing, as the
// operator watches only the objects it manages.
const notOwnedRetry = 30 * time.Second

// reconcileReplica applies the children of one replica, or of all
// (component.AllReplicas), and reports whether names of its children are
// held by objects the set does not control (the components' reports posted
// the events naming them). The pass over all replicas of a large set takes
// long (one apply per child, at the client's request rate); it stops once
// the set is deleted, whose children would only be work for the deletion.
func (r *Reconciler) reconcileReplica(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet, replica int32) (bool, error) {
	if replica == component.AllReplicas {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go r.stopWhenDeleted(ctx, stop, pcs)
	}
	errs, taken := r.syncComponents(ctx, log, component.SetWork{PCS: pcs, Replica: replica})
	if ctx.Err() != nil {
		return false, nil // the set was deleted, or the operator is stopping
	}
	if len(errs) > 0 {
		r.recorder.Eventf(pcs, nil, corev1.EventTypeWarning, "ReconcileError", common.ActionReconcile, "%v", errs[0])
		return len(taken) > 0, errors.Join(errs...)
	}
	return len(taken) > 0, nil
}

// deletionPoll is how often a pass over all replicas looks whether its set
// was deleted.
const deletionPoll = 500 * time.Millisecond

// stopWhenDeleted calls stop once the cache shows pcs deleted, being deleted
// or replaced by a set of the same name, or ctx ends.
func (r *Reconciler) stopWhenDeleted(ctx context.Context, stop context.CancelFunc, pcs *grovecorev1alpha1.PodCliqueSet) {
	t := time.NewTicker(deletionPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := &grovecorev1alpha1.PodCliqueSet{}
		err := r.client.Get(ctx, client.ObjectKeyFromObject(pcs), cur)
		if apierrors.IsNotFound(err) || err == nil && (cur.DeletionTimestamp != nil || cur.UID != pcs.UID) {
			stop()
			return
		}
	}
}

// errStatusConflict says the status was computed on a cached object older
// than the stored one; the reconcile is retried once the cache caught up.
var errStatusConflict = errors.New("status computed on a stale PodCliqueSet")

// reconcileSpec is the set-level pass: the components' set-level work →
// gang termination → status and lastOperation, written in one patch when
// something but a timestamp changed → the deleting step of a Coherent
// update's turns. It returns when the next breach's
// terminationDelay expires.
func (r *Reconciler) reconcileSpec(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) (time.Duration, error) {
	base := pcs.DeepCopy()
	errs, taken := r.syncComponents(ctx, log, component.SetWork{PCS: pcs, Replica: component.SetLevel})
	// A failed component step leaves the later steps' names unchecked: the
	// condition is then not cleared, only rewritten when there are names.
	checkedAll := len(errs) == 0
	var requeueAfter time.Duration
	if len(errs) == 0 {
		var err error
		if requeueAfter, err = r.terminateBreachedReplicas(ctx, log, pcs); err != nil {
			errs = append(errs, err)
		}
	}

	var ev statusEvents
	if err := r.computeStatus(ctx, pcs, len(errs) == 0, &ev); err != nil {
		errs = append(errs, err)
	}
	if checkedAll || len(taken) > 0 {
		setChildNameConflict(pcs, taken)
	}
	if len(taken) > 0 && (requeueAfter == 0 || requeueAfter > notOwnedRetry) {
		requeueAfter = notOwnedRetry
	}
	description := "PodCliqueSet reconciled"
	if len(errs) > 0 {
		description = "PodCliqueSet reconcile failed"
	}
	common.ApplyOperation(pcs, grovecorev1alpha1.LastOperationTypeReconcile, description, errs...)
	if err := r.writeStatus(ctx, base, pcs, ev); apierrors.IsConflict(err) && len(errs) == 0 {
		return 0, errStatusConflict
	} else if err != nil {
		errs = append(errs, err)
	} else if len(errs) == 0 {
		// After the status write, so a Coherent turn is recorded before its
		// gangs are deleted.
		deadlineAfter, err := r.replaceGangs(ctx, log, pcs)
		if err != nil {
			errs = append(errs, err)
		}
		requeueAfter = common.Earliest(requeueAfter, deadlineAfter)
	}
	if len(errs) > 0 {
		r.recorder.Eventf(pcs, nil, corev1.EventTypeWarning, "ReconcileError", common.ActionReconcile, "%v", errs[0])
		return 0, errs[0]
	}
	return requeueAfter, nil
}

// syncComponents runs the component groups in order, the members of a group
// concurrently, and stops after the first group that failed; its errors are
// returned, with the children's names held by objects the set does not
// control that the groups run met. Such a name fails no group: the set's
// other children do not depend on the object left alone.
func (r *Reconciler) syncComponents(ctx context.Context, log logr.Logger, w component.SetWork) ([]error, []childsync.ErrNotOwned) {
	var taken []childsync.ErrNotOwned
	for _, group := range r.groups {
		errs := make([]error, len(group))
		held := make([][]childsync.ErrNotOwned, len(group))
		var wg sync.WaitGroup
		for i, op := range group {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				held[i], errs[i] = childsync.SplitNotOwned(op.Sync(ctx, log.WithValues("component", op.Kind()), w))
				metrics.ComponentSyncSeconds.WithLabelValues(op.Kind()).Observe(time.Since(start).Seconds())
				if errs[i] != nil && ctx.Err() == nil {
					log.Error(errs[i], "Component sync failed", "component", op.Kind())
				}
			}()
		}
		wg.Wait()
		taken = slices.Concat(append([][]childsync.ErrNotOwned{taken}, held...)...)
		if failed := slices.DeleteFunc(errs, func(err error) bool { return err == nil }); len(failed) > 0 {
			return failed, taken
		}
	}
	return nil, taken
}

// releaseComputeDomains removes Grove's finalizer from the ComputeDomains of
// a deleted PodCliqueSet and deletes them, so neither they nor a foreground
// deletion of the set wait for a finalizer nobody else removes.
func (r *Reconciler) releaseComputeDomains(ctx context.Context, key types.NamespacedName) error {
	if !r.mnnvl {
		return nil
	}
	return mnnvl.ReleaseAll(ctx, r.client, key.Namespace, key.Name, nil)
}

// releaseLegacyFinalizer removes the finalizer older Grove versions put on
// every PodCliqueSet. A PodCliqueSet needs none: all its children carry a
// controller reference to it, so garbage collection removes them (and the
// operator, faster, once the set is gone: deleteChildrenOfDeleted), and
// nothing else is left to clean up.
func (r *Reconciler) releaseLegacyFinalizer(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	if !controllerutil.ContainsFinalizer(pcs, apicommon.FinalizerPodCliqueSet) {
		return nil
	}
	base := pcs.DeepCopy()
	controllerutil.RemoveFinalizer(pcs, apicommon.FinalizerPodCliqueSet)
	if err := r.client.Patch(ctx, pcs, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return groveerr.Wrap(client.IgnoreNotFound(err), "ERR_REMOVE_FINALIZER", groveerr.OperationDelete, "removing the finalizer of an older Grove from the PodCliqueSet")
	}
	log.Info("Released the finalizer an older Grove added; the children are garbage-collected")
	return nil
}
