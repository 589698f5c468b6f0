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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// The contract floor (-contract-loop): the writes Grove's API contract asks
// of any controller for R replicas × one clique of P pods, made by this
// program's 32 workers. Per replica, in grove-operator's order:
//
//   - the headless Service the pods' DNS names come from;
//   - the PodClique, with its finalizer and identity labels;
//   - the PodGang, its group naming the PodClique and no pod, then its
//     status: Initialized False, phase Pending;
//   - the P pods, named by generateName after the PodClique, gated and
//     labelled with their PodGang;
//   - the PodGang's pod references;
//   - the gates lifted, as soon as the pods are referenced (as grove-operator
//     does): grove-scheduler places the pods;
//   - the PodGang's Initialized True;
//   - one status write of the PodClique.
//
// No PodCliqueSet, and no operator logic: grove-operator runs and reads the
// PodCliques, which belong to no set, but has nothing to write. A lower bound
// for Grove, since each object is written the fewest times the contract
// allows; -contract-loop-as-grove makes the same writes with grove-operator's
// kinds of request (floorWriter). Its deletion deletes the pods (timed, like Grove's), then the
// PodCliques, PodGangs and Services.

// floorClique names replica i's PodClique; it is also its PodGang's group.
func floorClique(i int) string { return fmt.Sprintf("floor-%d-c", i) }

// floorWriter makes the contract floor's writes: by create and update, or,
// asGrove, with grove-operator's kinds of request (server-side apply for
// creates, merge patches with the version as precondition for updates, a
// JSON patch for a PodGang's pod references). The two cost kube-apiserver
// differently for the same objects.
type floorWriter struct {
	c       client.Client
	asGrove bool
}

// create creates obj, or applies it as its only owner.
func (w floorWriter) create(ctx context.Context, obj client.Object) error {
	if !w.asGrove {
		return w.c.Create(ctx, obj)
	}
	gvk, err := apiutil.GVKForObject(obj, w.c.Scheme())
	if err != nil {
		return err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	applied := &unstructured.Unstructured{Object: u}
	applied.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(applied.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(applied.Object, "status")
	if err := w.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied), client.FieldOwner("bench-floor"), client.ForceOwnership); err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(applied.Object, obj)
}

// update writes obj (its status when status is set), changed from base.
func (w floorWriter) update(ctx context.Context, obj, base client.Object, status bool) error {
	switch {
	case !w.asGrove && status:
		return w.c.Status().Update(ctx, obj)
	case !w.asGrove:
		return w.c.Update(ctx, obj)
	}
	patch := client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	if status {
		return w.c.Status().Patch(ctx, obj, patch)
	}
	return w.c.Patch(ctx, obj, patch)
}

// setReferences writes the pod references of pg's only group.
func (w floorWriter) setReferences(ctx context.Context, pg *groveschedulerv1alpha1.PodGang, refs []groveschedulerv1alpha1.NamespacedName) error {
	base := pg.DeepCopy()
	pg.Spec.PodGroups[0].PodReferences = refs
	if !w.asGrove {
		return w.update(ctx, pg, base, false)
	}
	patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/podgroups/0/podReferences", "value": refs}})
	if err != nil {
		return err
	}
	return w.c.Patch(ctx, pg, client.RawPatch(types.JSONPatchType, patch))
}

// floorReplica writes replica i's objects.
func floorReplica(ctx context.Context, w floorWriter, ns string, i, pods int) error {
	name := fmt.Sprintf("floor-%d", i)
	selector := map[string]string{"bench-replica": name}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: selector, PublishNotReadyAddresses: true,
	}}
	if err := w.create(ctx, svc); err != nil {
		return fmt.Errorf("creating Service %s: %w", name, err)
	}
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: floorClique(i), Namespace: ns,
		Finalizers: []string{apicommon.FinalizerPodClique},
		Labels: map[string]string{apicommon.LabelPartOfKey: "floor", apicommon.LabelPodCliqueTemplateName: "c",
			apicommon.LabelPodCliqueSetReplicaIndex: fmt.Sprint(i), apicommon.LabelPodGang: name}},
		Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "c", Replicas: int32(pods), MinAvailable: ptr.To(int32(pods)), PodSpec: podSpec()}}
	if err := w.create(ctx, pclq); err != nil {
		return fmt.Errorf("creating PodClique %s: %w", pclq.Name, err)
	}
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: pclq.Name, MinReplicas: int32(pods)}}}}
	if err := w.create(ctx, pg); err != nil {
		return fmt.Errorf("creating PodGang %s: %w", name, err)
	}
	if err := w.writeInitialized(ctx, pg, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonPodsCreationPending); err != nil {
		return err
	}
	created := make([]*corev1.Pod, pods)
	refs := make([]groveschedulerv1alpha1.NamespacedName, pods)
	for j := range created {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: pclq.Name + "-", Namespace: ns,
			Labels: map[string]string{"bench-replica": name, apicommon.LabelPodGang: name}}, Spec: podSpec()}
		p.Spec.SchedulerName = "grove-scheduler"
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: benchGate}}
		if err := w.c.Create(ctx, p); err != nil {
			return fmt.Errorf("creating pod %d of %s: %w", j, pclq.Name, err)
		}
		created[j] = p
		refs[j] = groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: p.Name}
	}
	if err := w.setReferences(ctx, pg, refs); err != nil {
		return fmt.Errorf("writing the pod references of PodGang %s: %w", name, err)
	}
	for _, p := range created {
		if err := w.c.Patch(ctx, p, ungate); err != nil {
			return fmt.Errorf("ungating pod %s: %w", p.Name, err)
		}
	}
	if err := w.writeInitialized(ctx, pg, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonPodsCreated); err != nil {
		return err
	}
	base := pclq.DeepCopy()
	pclq.Status = grovecorev1alpha1.PodCliqueStatus{ObservedGeneration: ptr.To(pclq.Generation), Replicas: int32(pods), UpdatedReplicas: int32(pods),
		Conditions: []metav1.Condition{{Type: grovecorev1alpha1.ConditionTypePodCliqueScheduled, Status: metav1.ConditionFalse,
			Reason: "InsufficientScheduledPods", Message: fmt.Sprintf("0 of %d pods scheduled", pods), LastTransitionTime: metav1.Now()}}}
	if err := w.update(ctx, pclq, base, true); err != nil {
		return fmt.Errorf("writing the status of PodClique %s: %w", pclq.Name, err)
	}
	return nil
}

// writeInitialized writes pg's Initialized condition (and the phase Pending
// while grove-scheduler has set none), reading the PodGang again when
// grove-scheduler wrote its status in between.
func (w floorWriter) writeInitialized(ctx context.Context, pg *groveschedulerv1alpha1.PodGang, status metav1.ConditionStatus, reason string) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		base := pg.DeepCopy()
		if pg.Status.Phase == "" {
			pg.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
		}
		meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized,
			Status: status, Reason: reason, Message: "pods created: " + string(status)})
		err := w.update(ctx, pg, base, true)
		if apierrors.IsConflict(err) {
			if getErr := w.c.Get(ctx, client.ObjectKeyFromObject(pg), pg); getErr != nil {
				return getErr
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing Initialized %s of PodGang %s: %w", status, pg.Name, err)
	}
	return nil
}

// measureFloor runs the contract floor: creates every replica, waits until
// all pods are Running, deletes the pods and waits until none is left. It
// prints the times, the CPU seconds and kube-apiserver's writes, and returns
// the times and the CPU seconds of all processes, create to deleted.
func measureFloor(ctx context.Context, o options, cfg *rest.Config, c client.Client, raw phaseTimes) (phaseTimes, float64, error) {
	var t phaseTimes
	total := o.replicas * o.pods
	ns, err := namespace(ctx, c, "bench-floor-")
	if err != nil {
		return t, 0, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	r, err := follow(fctx, cfg, c.Scheme(), ns, false)
	if err != nil {
		return t, 0, err
	}
	apiStart, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, 0, err
	}
	cpuBefore := readProcesses(o.clusterDir)
	start := time.Now()
	if err := parallel(o.replicas, func(i int) error { return floorReplica(ctx, floorWriter{c: c, asGrove: o.floorAsGrove}, ns, i, o.pods) }); err != nil {
		return t, 0, fmt.Errorf("contract floor: %w", err)
	}
	if err := watchPods(ctx, r, ns, total, start, &t, false); err != nil {
		return t, 0, fmt.Errorf("contract floor: %w", err)
	}
	cpuRunning := readProcesses(o.clusterDir)
	apiRunning, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, 0, err
	}
	t.createRequests = diff(apiStart, apiRunning)
	fmt.Printf("\ncontract floor: %d pods Running after %s (raw loop %s); CPU seconds to Running: %s\n", total, secs(t.running), secs(raw.running), cpuSummary(cpuBefore, cpuRunning))
	fmt.Printf("kube-apiserver from the contract floor's create to all Running, every client: %s\n", requestSummary(t.createRequests))

	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return t, 0, err
	}
	delStart := time.Now()
	err = parallel(len(pods.Items), func(k int) error {
		return client.IgnoreNotFound(c.Delete(ctx, &pods.Items[k]))
	})
	if err != nil {
		return t, 0, fmt.Errorf("contract floor: deleting pods: %w", err)
	}
	if t.deletion, err = waitGone(ctx, r, ns, delStart, false); err != nil {
		return t, 0, fmt.Errorf("contract floor: %w", err)
	}
	t.deleted = time.Since(delStart)
	cpuAfter := readProcesses(o.clusterDir)
	apiAfter, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, 0, err
	}
	t.deleteRequests = diff(apiRunning, apiAfter)
	fmt.Printf("contract floor: all pods gone after %s (raw loop %s); CPU seconds, create to deleted: %s\n", secs(t.deleted), secs(raw.deleted), cpuSummary(cpuBefore, cpuAfter))
	fmt.Printf("kube-apiserver during the contract floor's deletion, every client: %s\n", requestSummary(t.deleteRequests))
	// The rest goes outside the timed deletion, one request each (and one
	// more for a PodClique's finalizer).
	drop := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
	for _, list := range []client.ObjectList{&grovecorev1alpha1.PodCliqueList{}, &groveschedulerv1alpha1.PodGangList{}, &corev1.ServiceList{}} {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return t, 0, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return t, 0, err
		}
		if err := parallel(len(items), func(k int) error {
			obj := items[k].(client.Object)
			if _, ok := obj.(*grovecorev1alpha1.PodClique); ok {
				if err := c.Patch(ctx, obj, drop); err != nil {
					return client.IgnoreNotFound(err)
				}
			}
			return client.IgnoreNotFound(c.Delete(ctx, obj))
		}); err != nil {
			return t, 0, fmt.Errorf("contract floor: deleting %T: %w", list, err)
		}
	}
	return t, cpuTotal(cpuBefore, cpuAfter), nil
}
