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
	"fmt"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/expect"
	"github.com/grove-project/grove/operator/internal/groveerr"
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
	ErrUnknownSchedulerName grovecorev1alpha1.ErrorCode = "ERR_UNKNOWN_SCHEDULER"
)

// Event reasons on the PodClique.
const (
	ReasonPodCreateSuccessful = "PodCreateSuccessful"
	ReasonPodCreateFailed     = "PodCreateFailed"
	ReasonPodDeleteSuccessful = "PodDeleteSuccessful"
	ReasonPodDeleteFailed     = "PodDeleteFailed"
)

// Component manages the pods of PodCliques.
type Component struct {
	client       client.Client
	recorder     record.EventRecorder
	backends     *backend.Registry
	expectations *expect.Store
	initcImage   string
}

// New returns the pod component. initcImage is the grove-initc image with its tag.
func New(c client.Client, recorder record.EventRecorder, backends *backend.Registry, expectations *expect.Store, initcImage string) *Component {
	return &Component{client: c, recorder: recorder, backends: backends, expectations: expectations, initcImage: initcImage}
}

// Kind is the managed kind.
func (c *Component) Kind() string { return "Pod" }

// Result says what Sync left undone, so the reconciler can report it.
type Result struct {
	// PendingCreates and PendingDeletes are pods whose creation or deletion the
	// cache has not shown yet, including those this Sync made.
	PendingCreates, PendingDeletes int
	// Gated is the number of active pods still carrying Grove's gate.
	Gated int
	// Pods are the PodClique's pods as the cache showed them at the start of
	// Sync; status is computed from them.
	Pods []*corev1.Pod
	// Rollout says where the PodClique stands in an update (rollout.go).
	Rollout Rollout
}

// Sync brings the PodClique's pods in line with spec.replicas and lifts the
// scheduling gates that may be lifted.
func (c *Component) Sync(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) error {
	_, err := c.SyncWithResult(ctx, log, pclq)
	return err
}

// SyncWithResult is Sync, also reporting what is still pending.
func (c *Component) SyncWithResult(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) (Result, error) {
	var res Result
	id, err := IdentityOf(pclq)
	if err != nil {
		return res, groveerr.Wrap(err, ErrInvalidPodClique, groveerr.OperationSync, "reading the PodClique's identity labels")
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := c.client.Get(ctx, types.NamespacedName{Namespace: pclq.Namespace, Name: id.PCSName}, pcs); err != nil {
		return res, groveerr.Wrapf(err, ErrGetPodCliqueSet, groveerr.OperationSync, "getting PodCliqueSet %s", id.PCSName)
	}
	be, err := c.backends.ForSchedulerName(pclq.Spec.PodSpec.SchedulerName)
	if err != nil {
		return res, groveerr.Wrap(err, ErrUnknownSchedulerName, groveerr.OperationSync, "choosing the scheduler backend")
	}
	pods, err := c.listPods(ctx, pclq)
	if err != nil {
		return res, err
	}
	res.Pods = pods

	key := client.ObjectKeyFromObject(pclq).String()
	present := make(map[types.UID]bool, len(pods))
	for _, p := range pods {
		present[p.UID] = p.DeletionTimestamp != nil
	}
	pendingCreates, pendingDeletes := c.expectations.Sync(key, present)
	res.PendingCreates, res.PendingDeletes = len(pendingCreates), len(pendingDeletes)

	var active []*corev1.Pod
	for _, p := range pods {
		if _, deleting := pendingDeletes[p.UID]; IsActive(p) && !deleting {
			active = append(active, p)
		}
	}

	before := len(active)
	if active, res.Rollout, err = c.rollOut(ctx, log, pclq, pcs, id, active, len(pendingCreates)); err != nil {
		return res, err
	}
	res.PendingDeletes += before - len(active)

	switch diff := len(active) + len(pendingCreates) - int(pclq.Spec.Replicas); {
	case diff < 0:
		builder, err := NewBuilder(pclq, pcs, id, be, c.initcImage)
		if err != nil {
			return res, groveerr.Wrap(err, ErrInvalidPodClique, groveerr.OperationSync, "preparing the pod template")
		}
		indices := FreeIndices(pclq.Name, active, pendingCreates, -diff)
		if err := c.createPods(ctx, log, pclq, builder, indices); err != nil {
			return res, err
		}
		res.PendingCreates += len(indices)
	case diff > 0:
		SortForDeletion(active, pclq.Name, pclq.Labels[common.LabelPodTemplateHash])
		if err := c.deletePods(ctx, log, pclq, active[:diff]); err != nil {
			return res, err
		}
		res.PendingDeletes += diff
		active = active[diff:]
	}

	gated, err := c.liftGates(ctx, log, pclq, id, active)
	res.Gated = gated
	return res, err
}

// Delete deletes every pod of the PodClique and forgets its expectations.
func (c *Component) Delete(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique) error {
	pods, err := c.listPods(ctx, pclq)
	if err != nil {
		return err
	}
	var active []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			active = append(active, p)
		}
	}
	if err := c.deletePods(ctx, log, pclq, active); err != nil {
		return err
	}
	c.expectations.Forget(client.ObjectKeyFromObject(pclq).String())
	return nil
}

// listPods returns the pods the PodClique controls. Matching the controller
// UID, not just the label, keeps pods of an earlier PodClique with the same
// name out.
func (c *Component) listPods(ctx context.Context, pclq *grovecorev1alpha1.PodClique) ([]*corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := c.client.List(ctx, list, client.InNamespace(pclq.Namespace), client.MatchingLabels{common.LabelPodClique: pclq.Name}); err != nil {
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
		if err := c.client.Create(ctx, pod); err != nil {
			return fmt.Errorf("creating pod %s with index %d: %w", pod.GenerateName, indices[i], err)
		}
		c.expectations.ExpectCreate(key, pod.UID, indices[i])
		mu.Lock()
		created = append(created, pod.Name)
		mu.Unlock()
		return nil
	})
	if n > 0 {
		log.V(1).Info("Created pods", "count", n, "pods", created)
		c.recorder.Eventf(pclq, corev1.EventTypeNormal, ReasonPodCreateSuccessful, "Created %d pod(s): %s", n, strings.Join(created, ", "))
	}
	if err != nil {
		c.recorder.Eventf(pclq, corev1.EventTypeWarning, ReasonPodCreateFailed, "Failed to create pods: %v", err)
		return groveerr.Wrapf(err, ErrCreatePod, groveerr.OperationSync, "creating %d pod(s) of PodClique %s (%d created)", len(indices), pclq.Name, n)
	}
	return nil
}

func (c *Component) deletePods(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, pods []*corev1.Pod) error {
	key := client.ObjectKeyFromObject(pclq).String()
	var mu sync.Mutex
	var deleted []string
	n, err := slowStart(len(pods), func(i int) error {
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
	if n > 0 {
		log.V(1).Info("Deleted pods", "count", n, "pods", deleted)
		c.recorder.Eventf(pclq, corev1.EventTypeNormal, ReasonPodDeleteSuccessful, "Deleted %d pod(s): %s", n, strings.Join(deleted, ", "))
	}
	if err != nil {
		c.recorder.Eventf(pclq, corev1.EventTypeWarning, ReasonPodDeleteFailed, "Failed to delete pods: %v", err)
		return groveerr.Wrapf(err, ErrDeletePod, groveerr.OperationSync, "deleting %d pod(s) of PodClique %s (%d deleted)", len(pods), pclq.Name, n)
	}
	return nil
}

// liftGates removes Grove's scheduling gate from every active pod its PodGang
// references. Pods of a scaled PodGang wait until the base PodGang is
// scheduled: each of its groups has minReplicas pods scheduled. It returns how
// many pods remain gated; they are reconciled again when the PodGang or the
// base PodGang's PodCliques change, so there is no timed requeue.
func (c *Component) liftGates(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, id Identity, active []*corev1.Pod) (int, error) {
	var gated []*corev1.Pod
	for _, p := range active {
		if HasGroveGate(p) {
			gated = append(gated, p)
		}
	}
	if len(gated) == 0 {
		return 0, nil
	}
	referenced, err := c.referencedPods(ctx, pclq, id.PodGangName)
	if err != nil || len(referenced) == 0 {
		return len(gated), err
	}
	if id.BasePodGangName != "" {
		scheduled, err := c.podGangScheduled(ctx, pclq.Namespace, id.BasePodGangName)
		if err != nil || !scheduled {
			return len(gated), err
		}
	}
	var ready []*corev1.Pod
	for _, p := range gated {
		if referenced[p.Name] {
			ready = append(ready, p)
		}
	}
	patch := []byte(fmt.Sprintf(`{"spec":{"schedulingGates":[{"$patch":"delete","name":%q}]}}`, common.PodGangSchedulingGate))
	n, err := slowStart(len(ready), func(i int) error {
		if err := c.client.Patch(ctx, ready[i], client.RawPatch(types.StrategicMergePatchType, patch)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing the scheduling gate of pod %s: %w", ready[i].Name, err)
		}
		return nil
	})
	if n > 0 {
		log.V(1).Info("Lifted scheduling gates", "count", n, "podGang", id.PodGangName)
	}
	if err != nil {
		return len(gated) - n, groveerr.Wrap(err, ErrRemoveSchedulingGate, groveerr.OperationSync, "lifting scheduling gates")
	}
	return len(gated) - n, nil
}

// referencedPods returns the names of the pods the PodGang lists for this PodClique.
func (c *Component) referencedPods(ctx context.Context, pclq *grovecorev1alpha1.PodClique, podGangName string) (map[string]bool, error) {
	pg := &groveschedv1alpha1.PodGang{}
	if err := c.client.Get(ctx, types.NamespacedName{Namespace: pclq.Namespace, Name: podGangName}, pg); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, groveerr.Wrapf(err, ErrGetPodGang, groveerr.OperationSync, "getting PodGang %s", podGangName)
	}
	refs := map[string]bool{}
	for _, g := range pg.Spec.PodGroups {
		if g.Name != pclq.Name {
			continue
		}
		for _, r := range g.PodReferences {
			if r.Namespace == pclq.Namespace {
				refs[r.Name] = true
			}
		}
	}
	return refs, nil
}

// podGangScheduled reports whether every group of a PodGang has at least
// minReplicas pods scheduled, according to its PodCliques' status.
func (c *Component) podGangScheduled(ctx context.Context, namespace, name string) (bool, error) {
	pg := &groveschedv1alpha1.PodGang{}
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
