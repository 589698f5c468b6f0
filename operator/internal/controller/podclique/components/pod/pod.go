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

// Package pod is the PodClique's component operator for Pods: it creates the
// missing pods (with Grove's labels, environment, hostname, scheduling gate
// and startup-ordering init container), deletes surplus ones in a safe order,
// and lifts the scheduling gate once the pod's PodGang is ready for it.
package pod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/expect"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/mnnvl"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/startuporder"
	"github.com/grove-project/grove/operator/internal/update"
)

// Error codes of the pod component.
const (
	ErrGetPodCliqueSet      grovecorev1alpha1.ErrorCode = "ERR_GET_PODCLIQUESET"
	ErrInvalidPodClique     grovecorev1alpha1.ErrorCode = "ERR_INVALID_PODCLIQUE"
	ErrListPods             grovecorev1alpha1.ErrorCode = "ERR_LIST_PODS"
	ErrCreatePod            grovecorev1alpha1.ErrorCode = "ERR_CREATE_POD"
	ErrDeletePod            grovecorev1alpha1.ErrorCode = "ERR_DELETE_POD"
	ErrRemoveSchedulingGate grovecorev1alpha1.ErrorCode = "ERR_REMOVE_POD_SCHEDULING_GATE"
	ErrGetPodGang           grovecorev1alpha1.ErrorCode = "ERR_GET_PODGANG"
	ErrUpdatePodReferences  grovecorev1alpha1.ErrorCode = "ERR_UPDATE_POD_REFERENCES"
	ErrUnknownSchedulerName grovecorev1alpha1.ErrorCode = "ERR_UNKNOWN_SCHEDULER"
)

// Event reasons on the PodClique.
const (
	ReasonPodCreateSuccessful = "PodCreateSuccessful"
	ReasonPodCreateFailed     = "PodCreateFailed"
	ReasonPodDeleteSuccessful = "PodDeleteSuccessful"
	ReasonPodDeleteFailed     = "PodDeleteFailed"
	// ReasonDuplicatePodIndex is the warning event when pods that share a pod
	// index are replaced.
	ReasonDuplicatePodIndex = "DuplicatePodIndex"
)

// Component manages the pods of PodCliques.
type Component struct {
	client client.Client
	// apiReader reads from the API server, not the cache: it settles creates
	// the cache has not shown by their deadline.
	apiReader    client.Reader
	recorder     events.EventRecorder
	backends     *backend.Registry
	expectations *expect.Store
	initcImage   startuporder.Image
	// mnnvl is network.autoMNNVLEnabled.
	mnnvl bool
	// writes records the gate removals the cache has not shown yet: the only
	// writes of a pod after its create. A gate can never be added back, so
	// a pod the cache shows older than the removal is not patched again and
	// counts as ungated.
	writes *ownwrites.Tracker
}

// New returns the pod component. initcImage is the grove-initc image injected
// into pods with a startup order.
func New(c client.Client, apiReader client.Reader, recorder events.EventRecorder, backends *backend.Registry, expectations *expect.Store, writes *ownwrites.Tracker, initcImage startuporder.Image, mnnvlEnabled bool) *Component {
	return &Component{client: c, apiReader: apiReader, recorder: recorder, backends: backends, expectations: expectations, writes: writes, initcImage: initcImage, mnnvl: mnnvlEnabled}
}

// Kind is the managed kind.
func (c *Component) Kind() string { return "Pod" }

// Forget drops what the component remembers of a PodClique that is gone.
func (c *Component) Forget(key string) {
	c.expectations.Forget(key)
}

// Result says what Sync left undone, so the reconciler can report it.
type Result struct {
	// Orphaned: the PodClique's PodCliqueSet does not exist; Sync did nothing.
	Orphaned bool
	// PendingCreates and PendingDeletes are pods whose creation or deletion the
	// cache has not shown yet, including those this Sync made.
	PendingCreates, PendingDeletes int
	// Gated is the number of active pods still carrying Grove's gate.
	Gated int
	// Lifted are pods whose gate this component removed while the cache
	// still shows it; status counts them as ungated.
	Lifted map[types.UID]bool
	// RecheckAfter is set while creates or deletes are pending: by then their
	// deadline passes and they are settled even if no pod event arrives.
	RecheckAfter time.Duration
	// OldestPending is how long the oldest pending create or delete made by
	// an earlier Sync has waited for the cache; those this Sync made are new.
	OldestPending time.Duration
	// Pods are the PodClique's pods as the cache showed them at the start of
	// Sync; status is computed from them.
	Pods []*corev1.Pod
	// Rollout says where the PodClique stands in an update (rollout.go).
	Rollout Rollout
}

// Sync brings the PodClique's pods in line with spec.replicas, gives every
// pod a distinct index in 0..replicas-1, and lifts the scheduling gates that
// may be lifted. It reports what is still pending.
func (c *Component) Sync(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) (Result, error) {
	var res Result
	id, err := IdentityOf(pclq)
	if err != nil {
		return res, groveerr.Wrap(err, ErrInvalidPodClique, groveerr.OperationSync, "reading the PodClique's identity labels")
	}
	pcs, err := common.GetPodCliqueSet(ctx, c.client, types.NamespacedName{Namespace: pclq.Namespace, Name: id.PCSName})
	if apierrors.IsNotFound(err) {
		// The PodCliqueSet was deleted and the garbage collector has not
		// reached this PodClique yet (or the set was deleted orphaning it):
		// nothing owns its pods' lifecycle any more, and retrying cannot help.
		// A set the cache does not show yet brings this PodClique back when
		// it appears (the controller's PodCliqueSet watch).
		res.Orphaned = true
		return res, nil
	}
	if err != nil {
		return res, groveerr.Wrapf(err, ErrGetPodCliqueSet, groveerr.OperationSync, "getting PodCliqueSet %s", id.PCSName)
	}
	be, err := c.backends.ForSchedulerName(pclq.Spec.PodSpec.SchedulerName)
	if err != nil {
		return res, groveerr.Wrap(err, ErrUnknownSchedulerName, groveerr.OperationSync, "choosing the scheduler backend")
	}
	if err := c.syncClaims(ctx, pclq, pcs, id); err != nil {
		return res, err
	}
	pods, err := c.cachedPods(ctx, pclq)
	if err != nil {
		return res, err
	}
	res.Pods = pods
	pending, err := c.settleExpectations(ctx, pclq, pods)
	if err != nil {
		return res, err
	}
	res.PendingCreates, res.PendingDeletes = len(pending.ReservedIndices), len(pending.PendingDeletes)
	res.RecheckAfter = pending.RecheckAfter
	res.OldestPending = pending.Oldest

	var active []*corev1.Pod
	for _, p := range pods {
		if _, deleting := pending.PendingDeletes[p.UID]; IsActive(p) && !deleting {
			active = append(active, p)
		}
	}
	currentHash := pclq.Labels[apicommon.LabelPodTemplateHash]
	extras := DuplicateIndexExtras(pclq.Name, active, currentHash)
	if repair := c.repairBudget(pclq, active, extras); len(repair) > 0 {
		if err := c.deleteDuplicates(ctx, log, pclq, repair); err != nil {
			return res, err
		}
		res.PendingDeletes += len(repair)
		active = without(active, repair)
		extras = without(extras, repair)
	}

	before := len(active)
	if active, res.Rollout, err = c.rollOut(ctx, log, pclq, pcs, id, active, len(pending.ReservedIndices)); err != nil {
		return res, err
	}
	res.PendingDeletes += before - len(active)
	extras = without(extras, without(extras, active))

	switch diff := len(active) + len(pending.ReservedIndices) - int(pclq.Spec.Replicas); {
	case diff < 0:
		builder, err := NewBuilder(pclq, pcs, id, be, c.initcImage)
		if err != nil {
			return res, groveerr.Wrap(err, ErrInvalidPodClique, groveerr.OperationSync, "preparing the pod template")
		}
		if c.mnnvl {
			builder.MNNVLGroup = mnnvl.CliqueGroup(pcs, desired.CliqueTemplate(pcs, id.TemplateName))
		}
		indices := FreeIndices(pclq.Name, active, pending.ReservedIndices, -diff)
		if err := c.createPods(ctx, log, pclq, builder, indices); err != nil {
			return res, err
		}
		res.PendingCreates += len(indices)
	case diff > 0:
		// Pods that share an index with a kept pod go first, then the order
		// of SortForDeletion.
		SortForDeletion(active, pclq.Name, currentHash)
		active = slices.Concat(extras, without(active, extras))
		if err := c.deletePods(ctx, log, pclq, active[:diff]); err != nil {
			return res, err
		}
		res.PendingDeletes += diff
		active = active[diff:]
	}
	if (res.PendingCreates > 0 || res.PendingDeletes > 0) && res.RecheckAfter == 0 {
		res.RecheckAfter = expect.DefaultTimeout
	}
	referenced, err := c.syncReferences(ctx, log, pclq, id.PodGangName, active, len(pending.ReservedIndices) > 0 || res.PendingCreates > 0)
	if err != nil {
		return res, err
	}
	res.Lifted, err = c.liftGates(ctx, log, pclq, id, active, referenced)
	for _, p := range active {
		if HasGroveGate(p) && !res.Lifted[p.UID] {
			res.Gated++
		}
	}
	return res, err
}

// Drain deletes the pods of a PodClique that is being deleted and returns
// how many are left: pods still listed (terminating ones included) and
// creates the cache has not shown yet. The PodClique is released only when
// none is left, so that a PodClique recreated under the same name (a
// scaling-group replica replaced by an update, a replica recreated after gang
// termination) never runs a pod next to an old one holding the same index and
// hostname, whether or not the garbage collector is running. recheckAfter is
// set while creates are pending: by then they are settled even if no pod
// event arrives.
func (c *Component) Drain(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) (left int, recheckAfter time.Duration, err error) {
	pods, err := c.cachedPods(ctx, pclq)
	if err != nil {
		return 0, 0, err
	}
	pending, err := c.settleExpectations(ctx, pclq, pods)
	if err != nil {
		return 0, 0, err
	}
	var remove []*corev1.Pod
	for _, p := range pods {
		if _, deleting := pending.PendingDeletes[p.UID]; p.DeletionTimestamp == nil && !deleting {
			remove = append(remove, p)
		}
	}
	if len(remove) > 0 {
		if err := c.deletePods(ctx, log, pclq, remove); err != nil {
			return 0, 0, err
		}
	}
	if len(pending.ReservedIndices) > 0 {
		recheckAfter = pending.RecheckAfter
	}
	return len(pods) + len(pending.ReservedIndices), recheckAfter, nil
}

// settleExpectations settles the PodClique's pending creates and deletes
// against the cached pods and, for creates past their deadline, against a
// live list from the API server.
func (c *Component) settleExpectations(ctx context.Context, pclq *grovecorev1alpha1.PodClique, cached []*corev1.Pod) (expect.State, error) {
	key := client.ObjectKeyFromObject(pclq).String()
	st := c.expectations.Sync(key, observe(pclq.Name, cached))
	if !st.Overdue {
		return st, nil
	}
	live, err := c.livePods(ctx, pclq)
	if err != nil {
		return st, err
	}
	c.expectations.Confirm(key, observe(pclq.Name, live))
	return c.expectations.Sync(key, observe(pclq.Name, cached)), nil
}

// observe turns pods into what the expectations store compares.
func observe(pclqName string, pods []*corev1.Pod) []expect.Pod {
	out := make([]expect.Pod, 0, len(pods))
	for _, p := range pods {
		idx, ok := podIndexOf(pclqName, p)
		if !ok {
			idx = -1
		}
		out = append(out, expect.Pod{UID: p.UID, Index: idx, Active: IsActive(p), Terminating: p.DeletionTimestamp != nil})
	}
	return out
}

// repairBudget picks the pods sharing an index that may be deleted now. One
// that is not ready is unavailable already and always goes; ready ones go
// only while fewer than maxUnavailable pods of the clique are unavailable,
// so a repair never takes down more of a running gang than an update would.
func (c *Component) repairBudget(pclq *grovecorev1alpha1.PodClique, active, extras []*corev1.Pod) []*corev1.Pod {
	if len(extras) == 0 {
		return nil
	}
	ready := 0
	for _, p := range active {
		if IsReady(p) {
			ready++
		}
	}
	allowed := maxUnavailable(pclq) - max(0, int(pclq.Spec.Replicas)-ready)
	var out []*corev1.Pod
	for _, p := range extras {
		if !IsReady(p) {
			out = append(out, p)
		} else if allowed > 0 {
			out = append(out, p)
			allowed--
		}
	}
	return out
}

// maxUnavailable is how many pods of the clique Grove's own deletions may make
// unavailable at once: the clique's rolling-update budget.
func maxUnavailable(pclq *grovecorev1alpha1.PodClique) int {
	return int(update.MaxUnavailable(pclq.Spec.RollingUpdate, pclq.Spec.Replicas))
}

func (c *Component) deleteDuplicates(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, pods []*corev1.Pod) error {
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		idx, _ := podIndexOf(pclq.Name, p)
		names = append(names, fmt.Sprintf("%s (index %d)", p.Name, idx))
	}
	log.Info("Replacing pods whose pod index another pod holds", "pods", names)
	c.recorder.Eventf(pclq, nil, corev1.EventTypeWarning, ReasonDuplicatePodIndex, common.ActionDelete,
		"Replacing %d pod(s) whose pod index another pod of the clique holds: %s", len(pods), strings.Join(names, ", "))
	return c.deletePods(ctx, log, pclq, pods)
}

func without(pods, drop []*corev1.Pod) []*corev1.Pod {
	if len(drop) == 0 {
		return pods
	}
	gone := make(map[types.UID]bool, len(drop))
	for _, p := range drop {
		gone[p.UID] = true
	}
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if !gone[p.UID] {
			out = append(out, p)
		}
	}
	return out
}

// cachedPods returns the pods the PodClique controls, from the cache. A
// PodClique lists its pods on every pod event: through the index only its
// own, not every pod of the namespace (10 000 for a 10k-pod PodCliqueSet).
func (c *Component) cachedPods(ctx context.Context, pclq *grovecorev1alpha1.PodClique) ([]*corev1.Pod, error) {
	return listPods(ctx, c.client, pclq, index.InPodClique(pclq.Name))
}

// livePods returns the pods the PodClique controls, from the API server.
func (c *Component) livePods(ctx context.Context, pclq *grovecorev1alpha1.PodClique) ([]*corev1.Pod, error) {
	return listPods(ctx, c.apiReader, pclq, client.MatchingLabels{apicommon.LabelPodClique: pclq.Name})
}

// listPods returns the pods of pclq's namespace that selector selects and
// pclq controls. Matching the controller UID, not just the PodClique name,
// keeps pods of an earlier PodClique with the same name out.
func listPods(ctx context.Context, reader client.Reader, pclq *grovecorev1alpha1.PodClique, selector client.ListOption) ([]*corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := reader.List(ctx, list, client.InNamespace(pclq.Namespace), selector); err != nil {
		return nil, groveerr.Wrapf(err, ErrListPods, groveerr.OperationSync, "listing pods of PodClique %s", pclq.Name)
	}
	pods := make([]*corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		p := &list.Items[i]
		for _, ref := range p.OwnerReferences {
			if ref.Controller != nil && *ref.Controller && ref.UID == pclq.UID {
				pods = append(pods, p)
				break
			}
		}
	}
	return pods, nil
}

func (c *Component) createPods(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, builder *Builder, indices []int) error {
	key := client.ObjectKeyFromObject(pclq).String()
	var mu sync.Mutex
	var created []string
	n, err := slowStart(len(indices), func(i int) error {
		pod := builder.Build(indices[i])
		// The index is taken before the request is sent: if the answer is
		// lost, the pod may exist all the same.
		c.expectations.Reserve(key, indices[i])
		if err := c.client.Create(ctx, pod); err != nil {
			if !createMayHaveSucceeded(err) {
				c.expectations.Release(key, indices[i])
			}
			return fmt.Errorf("creating pod %s with index %d: %w", pod.GenerateName, indices[i], err)
		}
		c.expectations.Created(key, indices[i], pod.UID)
		mu.Lock()
		created = append(created, pod.Name)
		mu.Unlock()
		return nil
	})
	if n > 0 {
		log.V(1).Info("Created pods", "count", n, "pods", created)
		c.recorder.Eventf(pclq, nil, corev1.EventTypeNormal, ReasonPodCreateSuccessful, common.ActionCreate, "Created %d pod(s): %s", n, strings.Join(created, ", "))
	}
	if err != nil {
		c.recorder.Eventf(pclq, nil, corev1.EventTypeWarning, ReasonPodCreateFailed, common.ActionCreate, "Failed to create pods: %v", err)
		return groveerr.Wrapf(err, ErrCreatePod, groveerr.OperationSync, "creating %d pod(s) of PodClique %s (%d created)", len(indices), pclq.Name, n)
	}
	return nil
}

// createMayHaveSucceeded reports whether a failed create may still have made
// its pod. Only an answer in which the API server rejected the request, or a
// connection that was refused before anything was sent, proves it did not;
// timeouts, server errors and cut connections leave the pod's existence open.
func createMayHaveSucceeded(err error) bool {
	switch {
	case apierrors.IsAlreadyExists(err), apierrors.IsInvalid(err), apierrors.IsForbidden(err),
		apierrors.IsBadRequest(err), apierrors.IsNotFound(err), apierrors.IsUnauthorized(err),
		apierrors.IsConflict(err), apierrors.IsTooManyRequests(err), apierrors.IsRequestEntityTooLargeError(err),
		apierrors.IsMethodNotSupported(err), apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err):
		return false
	case errors.Is(err, syscall.ECONNREFUSED):
		return false
	}
	return true
}

func (c *Component) deletePods(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, pods []*corev1.Pod) error {
	key := client.ObjectKeyFromObject(pclq).String()
	var mu sync.Mutex
	var deleted []string
	// All at once, unlike creates: a pod's delete is seldom refused for a
	// reason that refuses the next one too, and the pods of a PodClique being
	// deleted are what a user waits for.
	err := childsync.Parallel(len(pods), childsync.DefaultParallelism, func(i int) error {
		p := pods[i]
		if err := c.client.Delete(ctx, p, client.Preconditions{UID: &p.UID}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s: %w", p.Name, err)
		}
		c.expectations.ExpectDelete(key, p.UID)
		mu.Lock()
		deleted = append(deleted, p.Name)
		mu.Unlock()
		return nil
	})
	n := len(deleted)
	slices.Sort(deleted)
	if n > 0 {
		log.V(1).Info("Deleted pods", "count", n, "pods", deleted)
		// A PodClique being deleted removes all its pods, as expected; an
		// Event about an object that is going away would only add an API
		// write per PodClique to the deletion of a whole set. Failures are
		// always recorded.
		if pclq.DeletionTimestamp == nil {
			c.recorder.Eventf(pclq, nil, corev1.EventTypeNormal, ReasonPodDeleteSuccessful, common.ActionDelete, "Deleted %d pod(s): %s", n, strings.Join(deleted, ", "))
		}
	}
	if err != nil {
		c.recorder.Eventf(pclq, nil, corev1.EventTypeWarning, ReasonPodDeleteFailed, common.ActionDelete, "Failed to delete pods: %v", err)
		return groveerr.Wrapf(err, ErrDeletePod, groveerr.OperationSync, "deleting %d pod(s) of PodClique %s (%d deleted)", len(pods), pclq.Name, n)
	}
	return nil
}

// syncReferences writes the PodClique's active pods into its own group of its
// PodGang, and returns the names the group references. Each PodClique owns
// the podReferences of its group: the PodCliqueSet controller creates the
// PodGang and its groups but never rewrites references, so the write of one
// PodClique never waits on the others and costs one request per change. While
// creates of this PodClique are unseen the write waits for them, so a clique
// whose pods are created in one go writes its references once.
func (c *Component) syncReferences(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, podGangName string, active []*corev1.Pod, createsPending bool) (map[string]bool, error) {
	pg := &groveschedulerv1alpha1.PodGang{}
	if err := c.client.Get(ctx, types.NamespacedName{Namespace: pclq.Namespace, Name: podGangName}, pg); err != nil {
		if apierrors.IsNotFound(err) {
			// The PodGang's creation event brings the next reconcile.
			return nil, nil
		}
		return nil, groveerr.Wrapf(err, ErrGetPodGang, groveerr.OperationSync, "getting PodGang %s", podGangName)
	}
	group := slices.IndexFunc(pg.Spec.PodGroups, func(g groveschedulerv1alpha1.PodGroup) bool { return g.Name == pclq.Name })
	if group < 0 || !GangOfSet(pg, pclq) {
		// Not this PodClique's PodGang: a user's object of its name is
		// never written.
		return nil, nil
	}
	current := pg.Spec.PodGroups[group].PodReferences
	want := make([]groveschedulerv1alpha1.NamespacedName, 0, len(active))
	for _, p := range active {
		want = append(want, groveschedulerv1alpha1.NamespacedName{Namespace: p.Namespace, Name: p.Name})
	}
	slices.SortFunc(want, func(a, b groveschedulerv1alpha1.NamespacedName) int { return strings.Compare(a.Name, b.Name) })
	if createsPending || slices.Equal(current, want) {
		return referencedNames(pclq.Namespace, current), nil
	}
	// A cache that has not shown this PodClique's last write of the same
	// references yet costs one more patch, which changes nothing: the
	// API server skips a write that leaves the object as it is.
	// The test pins the group by name: should the PodCliqueSet controller have
	// reordered the groups meanwhile, the patch fails and the sync is retried.
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": fmt.Sprintf("/spec/podgroups/%d/name", group), "value": pclq.Name},
		{"op": "replace", "path": fmt.Sprintf("/spec/podgroups/%d/podReferences", group), "value": want},
	})
	if err != nil {
		return nil, err
	}
	if err := c.client.Patch(ctx, pg, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(childsync.PodCliqueFieldManager)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, groveerr.Wrapf(err, ErrUpdatePodReferences, groveerr.OperationSync, "writing the pod references of group %s in PodGang %s", pclq.Name, podGangName)
	}
	// The new generation of the PodGang queues its replica in the
	// PodCliqueSet controller, the one writer of its Initialized condition.
	log.V(1).Info("Wrote pod references", "podGang", podGangName, "pods", len(want))
	return referencedNames(pclq.Namespace, want), nil
}

// GangOfSet reports whether pg's controller is the PodCliqueSet pclq belongs
// to (its part-of label).
func GangOfSet(pg *groveschedulerv1alpha1.PodGang, pclq *grovecorev1alpha1.PodClique) bool {
	ref := metav1.GetControllerOfNoCopy(pg)
	return ref != nil && ref.Kind == "PodCliqueSet" && ref.Name == pclq.Labels[apicommon.LabelPartOfKey]
}

func referencedNames(namespace string, refs []groveschedulerv1alpha1.NamespacedName) map[string]bool {
	out := make(map[string]bool, len(refs))
	for _, r := range refs {
		if r.Namespace == namespace {
			out[r.Name] = true
		}
	}
	return out
}

// liftGates removes Grove's scheduling gate from every active pod its PodGang
// references. Pods of a scaled PodGang wait until the base PodGang is
// scheduled: each of its groups has minReplicas pods scheduled. It returns the
// gated pods of the cache whose gate is removed already (now or by an earlier
// sync); the others are reconciled again when the PodGang or the base
// PodGang's PodCliques change, so there is no timed requeue.
func (c *Component) liftGates(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, id Identity, active []*corev1.Pod, referenced map[string]bool) (map[types.UID]bool, error) {
	lifted := map[types.UID]bool{}
	var gated []*corev1.Pod
	for _, p := range active {
		switch {
		case !HasGroveGate(p):
		case c.writes.Behind(p):
			// Its gate removal is not in the cache yet.
			lifted[p.UID] = true
		default:
			gated = append(gated, p)
		}
	}
	if len(gated) == 0 || len(referenced) == 0 {
		return lifted, nil
	}
	if id.BasePodGangName != "" {
		scheduled, err := c.podGangScheduled(ctx, pclq.Namespace, id.BasePodGangName)
		if err != nil || !scheduled {
			return lifted, err
		}
	}
	var ready []*corev1.Pod
	for _, p := range gated {
		if referenced[p.Name] {
			ready = append(ready, p)
		}
	}
	var mu sync.Mutex
	patch := []byte(fmt.Sprintf(`{"spec":{"schedulingGates":[{"$patch":"delete","name":%q}]}}`, apicommon.PodGangSchedulingGate))
	// All at once, unlike creates: the gang is placed only when all of its
	// pods are ungated, so each round trip in between delays its scheduling.
	var n atomic.Int32
	err := childsync.Parallel(len(ready), childsync.DefaultParallelism, func(i int) error {
		p := ready[i]
		switch err := c.client.Patch(ctx, p, client.RawPatch(types.StrategicMergePatchType, patch)); {
		case err == nil:
			c.writes.Wrote(p)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("removing the scheduling gate of pod %s: %w", p.Name, err)
		}
		mu.Lock()
		lifted[p.UID] = true
		mu.Unlock()
		n.Add(1)
		return nil
	})
	if n.Load() > 0 {
		log.V(1).Info("Lifted scheduling gates", "count", n.Load(), "podGang", id.PodGangName)
	}
	if err != nil {
		return lifted, groveerr.Wrap(err, ErrRemoveSchedulingGate, groveerr.OperationSync, "lifting scheduling gates")
	}
	return lifted, nil
}

// podGangScheduled reports whether every group of a PodGang has at least
// minReplicas pods scheduled, according to its PodCliques' status.
func (c *Component) podGangScheduled(ctx context.Context, namespace, name string) (bool, error) {
	pg := &groveschedulerv1alpha1.PodGang{}
	if err := c.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, pg); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, groveerr.Wrapf(err, ErrGetPodGang, groveerr.OperationSync, "getting base PodGang %s", name)
	}
	for _, g := range pg.Spec.PodGroups {
		member := &grovecorev1alpha1.PodClique{}
		if err := c.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: g.Name}, member); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, fmt.Errorf("getting PodClique %s of base PodGang %s: %w", g.Name, name, err)
		}
		if member.Status.ScheduledReplicas < g.MinReplicas {
			return false, nil
		}
	}
	return true, nil
}

// slowStart runs fn for 0..n-1 in batches of 1, 2, 4, … running each batch
// concurrently, and stops after the first batch with a failure, so a
// systematic error (quota, webhook) costs one call instead of n. It returns
// how many calls succeeded.
func slowStart(n int, fn func(i int) error) (int, error) {
	done := 0
	for batch := 1; done < n; batch *= 2 {
		size := min(batch, n-done)
		errs := make(chan error, size)
		var wg sync.WaitGroup
		for i := done; i < done+size; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs <- fn(i)
			}(i)
		}
		wg.Wait()
		close(errs)
		var firstErr error
		ok := 0
		for err := range errs {
			if err == nil {
				ok++
			} else if firstErr == nil {
				firstErr = err
			}
		}
		done += size
		if firstErr != nil {
			return done - size + ok, firstErr
		}
	}
	return done, nil
}
