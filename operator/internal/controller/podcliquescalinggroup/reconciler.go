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

// Package podcliquescalinggroup is the PodCliqueScalingGroup controller: it
// creates the member PodCliques <pcsg>-<j>-<clique> of every scaling-group
// replica j < spec.replicas, deletes those of removed replicas, recreates a
// replica whose PodCliques stayed breached longer than terminationDelay (gang
// termination), and reports replica counts and the MinAvailableBreached and
// GangTerminationInProgress conditions.
package podcliquescalinggroup

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/resourceclaim"
	"github.com/grove-project/grove/operator/internal/update"
)

// ControllerName is the name of the PodCliqueScalingGroup controller.
const ControllerName = "podcliquescalinggroup-controller"

const podCliqueKind = "PodClique"

// Reconciler reconciles PodCliqueScalingGroups.
type Reconciler struct {
	d        childsync.Deps
	recorder events.EventRecorder
	status   common.StatusRecorder
	// claims makes the ResourceClaims of the group's resourceSharing entries.
	claims resourceclaim.Syncer
}

// NewReconciler returns a PodCliqueScalingGroup reconciler. templates reads
// external ResourceClaimTemplates from the API server.
func NewReconciler(d childsync.Deps, templates client.Reader) *Reconciler {
	return &Reconciler{d: d, recorder: d.Recorder, status: common.StatusRecorder{Client: d.Client},
		claims: resourceclaim.Syncer{D: d, Templates: templates}}
}

// Reconcile brings one PodCliqueScalingGroup's member PodCliques and status
// in line with its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{}
	if err := r.d.Client.Get(ctx, req.NamespacedName, pcsg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pcsg.DeletionTimestamp != nil {
		return ctrl.Result{}, r.reconcileDelete(ctx, pcsg)
	}
	requeueAfter, err := r.reconcileSpec(ctx, log, pcsg)
	if errors.Is(err, errStatusConflict) {
		return ctrl.Result{RequeueAfter: common.RetryAfterConflict}, nil
	}
	return ctrl.Result{RequeueAfter: requeueAfter}, err
}

// errStatusConflict says the status was computed on a cached object older
// than the stored one; the reconcile is retried once the cache caught up.
var errStatusConflict = errors.New("status computed on a stale PodCliqueScalingGroup")

// reconcileSpec: ensure finalizer → sync member PodCliques → pick the group
// replicas of an older template to replace → gang termination → status and
// lastOperation, written in one patch when something but a timestamp
// changed → replace the picked replicas. The replacement follows the status
// write so that the record of the replicas selected for it (the update's
// readyReplicaIndicesSelectedToUpdate) is never lost to a write that
// conflicts after the replica is gone. It returns when to reconcile again:
// an update's progress deadline or the next breached replica's
// terminationDelay.
func (r *Reconciler) reconcileSpec(ctx context.Context, log logr.Logger, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) (time.Duration, error) {
	pcs, err := r.owningPodCliqueSet(ctx, pcsg)
	if err != nil || pcs == nil {
		return 0, err
	}
	if err := r.ensureFinalizer(ctx, pcsg); err != nil {
		return 0, err
	}
	base := pcsg.DeepCopy()
	upd, err := r.updateStateOf(pcs, pcsg)
	if err != nil {
		return 0, err
	}
	var errs []error
	var doomed []groupReplica
	syncErr := r.syncClaims(ctx, pcs, pcsg)
	if syncErr == nil {
		syncErr = r.syncPodCliques(ctx, pcs, pcsg, upd)
	}
	if syncErr == nil {
		doomed, syncErr = r.planReplacements(ctx, pcsg, upd)
	}
	if syncErr != nil {
		log.Error(syncErr, "Syncing member PodCliques failed")
		errs = append(errs, syncErr)
	}
	var requeueAfter time.Duration
	if len(errs) == 0 {
		if requeueAfter, err = r.terminateBreachedReplicas(ctx, log, pcs, pcsg); err != nil {
			errs = append(errs, err)
		}
	}
	updateAfter, err := r.computeStatus(ctx, base, pcs, pcsg, syncErr == nil, upd)
	if err != nil {
		errs = append(errs, err)
	}
	requeueAfter = common.Earliest(requeueAfter, updateAfter)
	if upd.creationHeld != "" {
		// The PodCliques that hold creation back may belong to the
		// PodCliqueSet (standalone ones), whose deletion queues no
		// reconcile of this group.
		requeueAfter = common.Earliest(requeueAfter, creationHeldRecheck)
	}
	description := "PodCliqueScalingGroup reconciled"
	if len(errs) > 0 {
		description = "PodCliqueScalingGroup reconcile failed"
	}
	common.ApplyOperation(pcsg, grovecorev1alpha1.LastOperationTypeReconcile, description, errs...)
	if err := r.writeStatus(ctx, base, pcsg); apierrors.IsConflict(err) && len(errs) == 0 {
		return 0, errStatusConflict
	} else if err != nil {
		errs = append(errs, err)
	} else if err := r.replaceReplicas(ctx, log, pcsg, doomed); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return 0, errs[0]
	}
	return requeueAfter, nil
}

// owningPodCliqueSet reads the PodCliqueSet named by the part-of label; nil
// when it is gone (garbage collection then removes the scaling group).
func (r *Reconciler) owningPodCliqueSet(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) (*grovecorev1alpha1.PodCliqueSet, error) {
	key := client.ObjectKey{Namespace: pcsg.Namespace, Name: pcsg.Labels[apicommon.LabelPartOfKey]}
	pcs, err := common.GetPodCliqueSet(ctx, r.d.Client, key)
	if err != nil {
		return nil, groveerr.Wrap(client.IgnoreNotFound(err), "ERR_GET_PODCLIQUESET", groveerr.OperationSync, "reading PodCliqueSet "+key.Name)
	}
	return pcs, nil
}

func pcsReplicaIndex(pcsg *grovecorev1alpha1.PodCliqueScalingGroup) (int32, error) {
	v, err := strconv.Atoi(pcsg.Labels[apicommon.LabelPodCliqueSetReplicaIndex])
	if err != nil {
		return 0, groveerr.Wrap(err, "ERR_MISSING_REPLICA_INDEX", groveerr.OperationSync, "reading label "+apicommon.LabelPodCliqueSetReplicaIndex)
	}
	return int32(v), nil
}

type work struct {
	want         *grovecorev1alpha1.PodClique
	tmpl         *grovecorev1alpha1.PodCliqueTemplateSpec
	groupReplica int32
}

// appendOnce appends v unless it is already the last element (the group
// replicas of todo come in order).
func appendOnce(s []int32, v int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// syncPodCliques deletes the member PodCliques of removed replicas (or of
// cliques no longer in the group) and creates or patches the expected ones.
func (r *Reconciler) syncPodCliques(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, upd *updateState) error {
	pcsReplica, err := pcsReplicaIndex(pcsg)
	if err != nil {
		return err
	}
	minAvailable := desired.PCSGMinAvailable(pcsg)
	hashes, err := hash.Of(pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "hashing the clique templates")
	}
	var todo []work
	keep := map[string]bool{}
	for j := int32(0); j < pcsg.Spec.Replicas; j++ {
		for _, cn := range pcsg.Spec.CliqueNames {
			tmpl := desired.CliqueTemplate(pcs, cn)
			if tmpl == nil {
				return groveerr.New("ERR_MISSING_PODCLIQUE_TEMPLATE", groveerr.OperationSync, "clique "+cn+" is not in PodCliqueSet "+pcs.Name)
			}
			member := &desired.Member{PCSGName: pcsg.Name, ReplicaIndex: j, MinAvailable: minAvailable}
			want, err := desired.PodClique(r.d.Scheme, pcs, pcsReplica, tmpl, hashes.Cliques[cn], hashes.Generation, member, pcsg)
			if err != nil {
				return groveerr.Wrapf(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "building PodClique for clique %s replica %d", cn, j)
			}
			keep[want.Name] = true
			todo = append(todo, work{want: want, tmpl: tmpl, groupReplica: j})
		}
	}
	if err := r.deleteExcept(ctx, pcsg, keep); err != nil {
		return err
	}
	held, existing, err := r.creationHeld(ctx, pcs, pcsReplica, upd)
	if err != nil {
		return err
	}
	upd.creationHeld = held
	skip := map[string]bool{}
	if held != "" {
		for _, w := range todo {
			if !existing[w.want.Name] {
				skip[w.want.Name] = true
				upd.heldPodCliques = append(upd.heldPodCliques, w.want.Name)
				upd.heldGroupReplicas = appendOnce(upd.heldGroupReplicas, w.groupReplica)
			}
		}
		ctrl.LoggerFrom(ctx).V(1).Info("PodClique creation held for the Coherent update", "podCliques", upd.heldPodCliques, "reason", held)
	}
	report := r.d.NewReport(pcsg, podCliqueKind)
	defer report.Emit()
	return childsync.Parallel(len(todo), childsync.DefaultParallelism, func(i int) error {
		w := todo[i]
		if skip[w.want.Name] {
			return nil
		}
		live := &grovecorev1alpha1.PodClique{}
		res, err := childsync.Apply(ctx, r.d, pcsg, childsync.Child{
			Key: client.ObjectKeyFromObject(w.want), Live: live, Scale: desired.PodCliqueScale(&w.tmpl.Spec),
			Build: func() (childsync.ApplyConfiguration, error) {
				if live.UID == "" {
					return desired.PodCliqueApply(w.want)
				}
				// A member built from an older template keeps it until its
				// group replica (RollingRecreate) or its gang (Coherent) is
				// replaced as a whole, so the pods of one multi-node
				// instance never mix templates; under OnDelete the new
				// template is patched in and pods get it when deleted.
				return desired.PodCliqueApply(update.Revision(live, w.want, !upd.onDelete))
			},
		})
		report.Applied(w.want, res, err)
		return groveerr.Wrapf(err, "ERR_CREATE_OR_UPDATE_PODCLIQUE", groveerr.OperationSync, "applying PodClique %s", w.want.Name)
	})
}

// creationHeldRecheck is how soon a group whose member creation is held
// back looks again.
const creationHeldRecheck = time.Second

// creationHeld says, under Coherent, why the missing member PodCliques are
// not created now (update.CreationHeld over every PodClique of the group's
// PodCliqueSet replica), and which PodCliques of that replica exist.
func (r *Reconciler) creationHeld(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, pcsReplica int32, upd *updateState) (string, map[string]bool, error) {
	if !update.Coherent(pcs) {
		return "", nil, nil
	}
	sel := apicommon.DefaultLabels(pcs.Name)
	sel[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(pcsReplica)
	list := &grovecorev1alpha1.PodCliqueList{}
	// Read only: listed without copies of the cached objects.
	if err := r.d.Client.List(ctx, list, append(childsync.ReadChildren(pcs, ""), client.MatchingLabels(sel))...); err != nil {
		return "", nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing the PodCliques of the PodCliqueSet replica")
	}
	existing := make(map[string]bool, len(list.Items))
	pclqs := make([]*grovecorev1alpha1.PodClique, 0, len(list.Items))
	for i := range list.Items {
		existing[list.Items[i].Name] = true
		pclqs = append(pclqs, &list.Items[i])
	}
	return update.CreationHeld(pcs, pclqs, upd.cliqueHashes), existing, nil
}

func (r *Reconciler) memberPodCliques(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) ([]grovecorev1alpha1.PodClique, error) {
	list := &grovecorev1alpha1.PodCliqueList{}
	if err := r.d.Client.List(ctx, list, client.InNamespace(pcsg.Namespace), index.InSet(pcsg.Labels[apicommon.LabelPartOfKey]), memberSelector(pcsg)); err != nil {
		return nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing member PodCliques")
	}
	return list.Items, nil
}

func (r *Reconciler) deleteExcept(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, r.d, pcsg, childsync.Excess{
		List: &grovecorev1alpha1.PodCliqueList{}, Set: pcsg.Labels[apicommon.LabelPartOfKey], Selector: memberSelector(pcsg),
		Kind: podCliqueKind, ListCode: "ERR_LIST_PODCLIQUE", DeleteCode: "ERR_DELETE_PODCLIQUE",
	}, keep)
}

// memberSelector selects the member PodCliques of pcsg.
func memberSelector(pcsg *grovecorev1alpha1.PodCliqueScalingGroup) client.MatchingLabels {
	sel := childsync.Selector(pcsg.Labels[apicommon.LabelPartOfKey], apicommon.LabelComponentPCSGPodClique)
	sel[apicommon.LabelPodCliqueScalingGroup] = pcsg.Name
	return sel
}

// reconcileDelete deletes the member PodCliques, then releases the
// finalizer. Deleting them here rather than leaving them to garbage
// collection removes a scaled-in replica's PodCliques at once, and also where
// no garbage collector runs.
func (r *Reconciler) reconcileDelete(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) error {
	if !controllerutil.ContainsFinalizer(pcsg, apicommon.FinalizerPodCliqueScalingGroup) {
		return nil
	}
	if err := r.status.RecordStart(ctx, pcsg, grovecorev1alpha1.LastOperationTypeDelete, "Deleting PodCliqueScalingGroup"); err != nil {
		return client.IgnoreNotFound(err)
	}
	if err := r.deleteExcept(ctx, pcsg, nil); err != nil {
		_ = r.status.RecordCompletion(ctx, pcsg, grovecorev1alpha1.LastOperationTypeDelete, "Deleting member PodCliques failed", err)
		return err
	}
	base := pcsg.DeepCopy()
	controllerutil.RemoveFinalizer(pcsg, apicommon.FinalizerPodCliqueScalingGroup)
	return groveerr.Wrap(client.IgnoreNotFound(r.d.Client.Patch(ctx, pcsg, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))),
		"ERR_REMOVE_FINALIZER", groveerr.OperationDelete, "removing PodCliqueScalingGroup finalizer")
}

func (r *Reconciler) ensureFinalizer(ctx context.Context, pcsg *grovecorev1alpha1.PodCliqueScalingGroup) error {
	if controllerutil.ContainsFinalizer(pcsg, apicommon.FinalizerPodCliqueScalingGroup) {
		return nil
	}
	base := pcsg.DeepCopy()
	controllerutil.AddFinalizer(pcsg, apicommon.FinalizerPodCliqueScalingGroup)
	return groveerr.Wrap(r.d.Client.Patch(ctx, pcsg, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})),
		"ERR_ADD_FINALIZER", groveerr.OperationSync, "adding PodCliqueScalingGroup finalizer")
}
