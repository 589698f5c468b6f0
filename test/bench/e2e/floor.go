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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// The contract floor (-contract-loop): the writes Grove's API contract asks
// of any controller for R replicas × one clique of P pods, made by this
// program's 32 workers. Per replica, in the contract's order:
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
// allows. Its deletion deletes the pods (timed, like Grove's), then the
// PodCliques, PodGangs and Services.

// floorClique names replica i's PodClique; it is also its PodGang's group.
func floorClique(i int) string { return fmt.Sprintf("floor-%d-c", i) }

// floorReplica writes replica i's objects.
func floorReplica(ctx context.Context, c client.Client, ns string, i, pods int) error {
	name := fmt.Sprintf("floor-%d", i)
	selector := map[string]string{"bench-replica": name}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: selector, PublishNotReadyAddresses: true,
	}}
	if err := c.Create(ctx, svc); err != nil {
		return fmt.Errorf("creating Service %s: %w", name, err)
	}
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: floorClique(i), Namespace: ns,
		Finalizers: []string{apicommon.FinalizerPodClique},
		Labels: map[string]string{apicommon.LabelPartOfKey: "floor", apicommon.LabelPodCliqueTemplateName: "c",
			apicommon.LabelPodCliqueSetReplicaIndex: fmt.Sprint(i), apicommon.LabelPodGang: name}},
		Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "c", Replicas: int32(pods), MinAvailable: ptr.To(int32(pods)), PodSpec: podSpec()}}
	if err := c.Create(ctx, pclq); err != nil {
		return fmt.Errorf("creating PodClique %s: %w", pclq.Name, err)
	}
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: pclq.Name, MinReplicas: int32(pods)}}}}
	if err := c.Create(ctx, pg); err != nil {
		return fmt.Errorf("creating PodGang %s: %w", name, err)
	}
	if err := writeInitialized(ctx, c, pg, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonPodsCreationPending); err != nil {
		return err
	}
	created := make([]*corev1.Pod, pods)
	for j := range created {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: pclq.Name + "-", Namespace: ns,
			Labels: map[string]string{"bench-replica": name, apicommon.LabelPodGang: name}}, Spec: podSpec()}
		p.Spec.SchedulerName = "grove-scheduler"
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: benchGate}}
		if err := c.Create(ctx, p); err != nil {
			return fmt.Errorf("creating pod %d of %s: %w", j, pclq.Name, err)
		}
		created[j] = p
		pg.Spec.PodGroups[0].PodReferences = append(pg.Spec.PodGroups[0].PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: p.Name})
	}
	if err := c.Update(ctx, pg); err != nil {
		return fmt.Errorf("writing the pod references of PodGang %s: %w", name, err)
	}
	ungate := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"schedulingGates":null}}`))
	for _, p := range created {
		if err := c.Patch(ctx, p, ungate); err != nil {
			return fmt.Errorf("ungating pod %s: %w", p.Name, err)
		}
	}
	if err := writeInitialized(ctx, c, pg, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonPodsCreated); err != nil {
		return err
	}
	pclq.Status = grovecorev1alpha1.PodCliqueStatus{ObservedGeneration: ptr.To(pclq.Generation), Replicas: int32(pods), UpdatedReplicas: int32(pods),
		Conditions: []metav1.Condition{{Type: grovecorev1alpha1.ConditionTypePodCliqueScheduled, Status: metav1.ConditionFalse,
			Reason: "InsufficientScheduledPods", Message: fmt.Sprintf("0 of %d pods scheduled", pods), LastTransitionTime: metav1.Now()}}}
	if err := c.Status().Update(ctx, pclq); err != nil {
		return fmt.Errorf("writing the status of PodClique %s: %w", pclq.Name, err)
	}
	return nil
}

// writeInitialized writes pg's Initialized condition (and the phase Pending
// while grove-scheduler has set none), reading the PodGang again when
// grove-scheduler wrote its status in between.
func writeInitialized(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, status metav1.ConditionStatus, reason string) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if pg.Status.Phase == "" {
			pg.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
		}
		meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized,
			Status: status, Reason: reason, Message: "pods created: " + string(status)})
		err := c.Status().Update(ctx, pg)
		if apierrors.IsConflict(err) {
			if getErr := c.Get(ctx, client.ObjectKeyFromObject(pg), pg); getErr != nil {
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
	if err := parallel(o.replicas, func(i int) error { return floorReplica(ctx, c, ns, i, o.pods) }); err != nil {
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
