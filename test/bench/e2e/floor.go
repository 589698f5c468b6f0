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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// The contract floor (-contract-loop): what any controller of Grove's API
// writes at the least for R replicas × one clique of P pods, written by this
// program's 32 workers with no operator involved. Per replica: the headless
// Service the pods' DNS names come from, the PodGang naming its pods with
// Initialized True, and the P pods, created gated and labelled with their
// PodGang and ungated at once, placed by grove-scheduler. No PodCliqueSet,
// no PodCliques, no Initialized False first and no status of Grove's own:
// a lower bound for Grove, not a design Grove could ship. Its deletion
// deletes the pods (timed, like Grove's), then the PodGangs and Services.

// floorPod names pod j of replica i.
func floorPod(i, j int) string { return fmt.Sprintf("floor-%d-c-%d", i, j) }

// floorReplica writes replica i's Service, PodGang and pods.
func floorReplica(ctx context.Context, c client.Client, ns string, i, pods int) error {
	name := fmt.Sprintf("floor-%d", i)
	selector := map[string]string{"bench-replica": name}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: selector, PublishNotReadyAddresses: true,
	}}
	if err := c.Create(ctx, svc); err != nil {
		return fmt.Errorf("creating Service %s: %w", name, err)
	}
	group := groveschedulerv1alpha1.PodGroup{Name: name + "-c", MinReplicas: int32(pods)}
	for j := range pods {
		group.PodReferences = append(group.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: floorPod(i, j)})
	}
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{group}}}
	if err := c.Create(ctx, pg); err != nil {
		return fmt.Errorf("creating PodGang %s: %w", name, err)
	}
	pg.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
	meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized,
		Status: metav1.ConditionTrue, Reason: groveschedulerv1alpha1.PodGangReasonPodsCreated, Message: "all pods created"})
	if err := c.Status().Update(ctx, pg); err != nil {
		return fmt.Errorf("writing Initialized of PodGang %s: %w", name, err)
	}
	ungate := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"schedulingGates":null}}`))
	for j := range pods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: floorPod(i, j), Namespace: ns,
			Labels: map[string]string{"bench-replica": name, apicommon.LabelPodGang: name}}, Spec: podSpec()}
		p.Spec.SchedulerName = "grove-scheduler"
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: benchGate}}
		if err := c.Create(ctx, p); err != nil {
			return fmt.Errorf("creating pod %s: %w", p.Name, err)
		}
		if err := c.Patch(ctx, p, ungate); err != nil {
			return fmt.Errorf("ungating pod %s: %w", p.Name, err)
		}
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

	delStart := time.Now()
	err = parallel(total, func(k int) error {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: floorPod(k/o.pods, k%o.pods), Namespace: ns}}
		return client.IgnoreNotFound(c.Delete(ctx, pod))
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
	// The rest goes outside the timed deletion, one request each.
	for _, list := range []client.ObjectList{&groveschedulerv1alpha1.PodGangList{}, &corev1.ServiceList{}} {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return t, 0, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return t, 0, err
		}
		if err := parallel(len(items), func(k int) error {
			return client.IgnoreNotFound(c.Delete(ctx, items[k].(client.Object)))
		}); err != nil {
			return t, 0, fmt.Errorf("contract floor: deleting %T: %w", list, err)
		}
	}
	return t, cpuTotal(cpuBefore, cpuAfter), nil
}
