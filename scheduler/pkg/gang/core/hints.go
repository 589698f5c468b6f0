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

package core

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// EventsToRegister lists the cluster events that can make a gang pod this
// plugin rejected (at PreEnqueue, PreFilter or Permit) schedulable, each with
// a queueing hint that decides for the one pod at hand, so that an event
// requeues only the pods it can help instead of every waiting gang pod.
//
// A sibling's scheduling gate being lifted is not among them: kube-scheduler
// hands an unscheduled pod's update only to that pod's own hints, never to
// other pods'. The lifted pod's own attempt brings its gang forward instead:
// when it waits at Permit, the gang's unplaced pods are activated.
//
// PodGangs are not among them either. kube-scheduler would follow a custom
// resource's events through a dynamic informer of its own: a second watch of
// every PodGang beside the Manager's, holding each as unstructured maps (44 %
// of grove-scheduler's live heap with 1500 PodGangs). The Manager activates
// the pods a PodGang's change can help from its own informer instead
// (onPodGang).
func (m *Manager) EventsToRegister() []fwk.ClusterEventWithHint {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add}, QueueingHintFn: m.hintPodAdded},
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Delete}, QueueingHintFn: m.hintPodDeleted},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}, QueueingHintFn: m.hintNodeAdded},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.UpdateNodeAllocatable}, QueueingHintFn: m.hintNodeAllocatable},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.UpdateNodeTaint}, QueueingHintFn: m.hintNodeTaint},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.UpdateNodeLabel}, QueueingHintFn: m.hintNodeLabel},
		{Event: fwk.ClusterEvent{Resource: fwk.PersistentVolumeClaim, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: m.hintClaimChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.PersistentVolume, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: m.hintVolumesChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.StorageClass, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: m.hintVolumesChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.ResourceSlice, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: m.hintDevicesChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.DeviceClass, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: m.hintDevicesChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.ResourceClaim, ActionType: fwk.Add | fwk.Update | fwk.Delete}, QueueingHintFn: m.hintDevicesChanged},
	}
}

// hintDevicesChanged queues a gang pod with DRA claims when devices may have
// come free or appeared (a ResourceSlice or DeviceClass added or changed, a
// ResourceClaim deallocated, deleted or created): the placement search
// allocates the gang's claims (devices.go).
func (m *Manager) hintDevicesChanged(_ klog.Logger, pod *corev1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if len(pod.Spec.ResourceClaims) > 0 && m.referenced(pod) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintClaimChanged queues a gang pod when one of its own
// PersistentVolumeClaims appears or changes (bound, or given a selected node):
// the placement search follows the claims' topology (volumes.go).
func (m *Manager) hintClaimChanged(_ klog.Logger, pod *corev1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	claim, ok := newObj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return fwk.Queue, fmt.Errorf("expected the changed object to be a PersistentVolumeClaim, got %T", newObj)
	}
	if claim.Namespace != pod.Namespace || !m.referenced(pod) {
		return fwk.QueueSkip, nil
	}
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil && vol.PersistentVolumeClaim.ClaimName == claim.Name {
			return fwk.Queue, nil
		}
	}
	return fwk.QueueSkip, nil
}

// hintVolumesChanged queues a gang pod with claims when a PersistentVolume or
// StorageClass appears or changes: a volume that matches an unbound claim, or
// a class's topology, may open nodes to it.
func (m *Manager) hintVolumesChanged(_ klog.Logger, pod *corev1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if hasClaims(pod) && m.referenced(pod) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// podGangChangeHelps reports whether a PodGang's change (old nil: it was
// added) can let its pods through: it appeared, or its spec (references,
// minReplicas, topology, priority) or PodCliqueSet label changed. Status
// updates, which grove-scheduler itself writes, cannot.
func podGangChangeHelps(old, pg *groveschedulerv1alpha1.PodGang) bool {
	if old == nil {
		return true
	}
	// The PodGang's status is a subresource, so its generation moves with the spec only.
	return old.Generation != pg.Generation || old.Labels[apicommon.LabelPartOfKey] != pg.Labels[apicommon.LabelPartOfKey]
}

// gangIndex indexes the scheduler's pods by GangKey, so that a PodGang's
// change finds its pods without scanning the namespace.
const gangIndex = "grove.io/podgang"

func gangIndexFunc(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	if key, ok := GangKey(pod); ok {
		return []string{key}, nil
	}
	return nil, nil
}

// activateWaiting moves the gang's pods that wait for the scheduler (not
// bound, not being deleted, without scheduling gates) back to the active
// queue, where PreEnqueue and the plugins see the PodGang's change. Pods it
// names that are neither queued nor in flight are left alone by the queue; a
// gated pod is queued by its own update once its last gate is lifted.
func (m *Manager) activateWaiting(key string) {
	objs, err := m.podsByGang.ByIndex(gangIndex, key)
	if err != nil {
		m.log.Error(err, "Listing the pods of a gang", "podGang", key)
		return
	}
	pods := map[string]*corev1.Pod{}
	for _, obj := range objs {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Spec.NodeName != "" || p.DeletionTimestamp != nil || len(p.Spec.SchedulingGates) > 0 {
			continue
		}
		pods[p.Namespace+"/"+p.Name] = p
	}
	if len(pods) > 0 {
		m.handle.Activate(m.log, pods)
	}
}

// hintPodAdded queues a pod when a pod of its own gang is bound (kube-scheduler
// reports only assigned pods as added to other pods): its best-effort pods
// wait for the minimum set. A pod of a scaled gang is also queued when a pod
// of its base gang is bound, since its replica's domain may wait for that. It
// also queues a gang pod whose required pod affinity the bound pod satisfies,
// which the placement search may have been waiting for. A pod of anything
// else taking a node frees nothing.
func (m *Manager) hintPodAdded(_ klog.Logger, pod *corev1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	added, ok := newObj.(*corev1.Pod)
	if !ok {
		return fwk.Queue, fmt.Errorf("expected the added object to be a Pod, got %T", newObj)
	}
	key, inGang := GangKey(pod)
	if !inGang {
		return fwk.QueueSkip, nil
	}
	spec := m.referencingSpec(pod)
	if spec == nil {
		return fwk.QueueSkip, nil
	}
	if addedKey, ok := GangKey(added); ok && (addedKey == key || addedKey == spec.base) {
		return fwk.Queue, nil
	}
	if a := pod.Spec.Affinity; a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		if t := newPodTraits(pod, m.namespaceLabels); len(t.affinity) > 0 && t.matchesAll(t.affinity, added) {
			return fwk.Queue, nil
		}
	}
	return fwk.QueueSkip, nil
}

// hintPodDeleted queues a pod when a deleted pod freed capacity on a node the
// pod may run on. A deleted pod without a node had waited at Permit or been
// nominated (kube-scheduler reports no other unscheduled pod's deletion to
// other pods), so it held a node the event does not name.
func (m *Manager) hintPodDeleted(_ klog.Logger, pod *corev1.Pod, oldObj, _ any) (fwk.QueueingHint, error) {
	deleted, ok := lastState(oldObj).(*corev1.Pod)
	if !ok {
		return fwk.Queue, fmt.Errorf("expected the deleted object to be a Pod, got %T", oldObj)
	}
	if !m.referenced(pod) {
		return fwk.QueueSkip, nil
	}
	if deleted.Spec.NodeName == "" {
		return fwk.Queue, nil
	}
	node, err := m.nodes.Get(deleted.Spec.NodeName)
	if err != nil || mayRunOn(pod, node) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintNodeAdded queues a pod when a node it may run on appears.
func (m *Manager) hintNodeAdded(_ klog.Logger, pod *corev1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	node, ok := newObj.(*corev1.Node)
	if !ok {
		return fwk.Queue, fmt.Errorf("expected the added object to be a Node, got %T", newObj)
	}
	if m.referenced(pod) && mayRunOn(pod, node) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintNodeAllocatable queues a pod when a node it may run on grew in a
// resource the pod requests, or in pod slots.
func (m *Manager) hintNodeAllocatable(_ klog.Logger, pod *corev1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, node, err := nodePair(oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if m.referenced(pod) && mayRunOn(pod, node) && grewFor(requestOf(pod), old.Status.Allocatable, node.Status.Allocatable) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintNodeTaint queues a pod when a node becomes one it may run on: uncordoned,
// or a taint it does not tolerate removed.
func (m *Manager) hintNodeTaint(_ klog.Logger, pod *corev1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, node, err := nodePair(oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if m.referenced(pod) && mayRunOn(pod, node) && !mayRunOn(pod, old) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintNodeLabel queues a pod when a node's labels now match its node affinity,
// or change the topology domain of a key its gang packs by.
func (m *Manager) hintNodeLabel(_ klog.Logger, pod *corev1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, node, err := nodePair(oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	spec := m.referencingSpec(pod)
	if spec == nil || !mayRunOn(pod, node) {
		return fwk.QueueSkip, nil
	}
	if !mayRunOn(pod, old) {
		return fwk.Queue, nil
	}
	for _, key := range spec.topologyKeys {
		if old.Labels[key] != node.Labels[key] {
			return fwk.Queue, nil
		}
	}
	return fwk.QueueSkip, nil
}

// referenced reports whether the pod's PodGang is known and references it;
// until then only a PodGang event can let it through PreEnqueue.
func (m *Manager) referenced(pod *corev1.Pod) bool {
	return m.referencingSpec(pod) != nil
}

// referencingSpec returns the digested PodGang that references the pod, or nil.
func (m *Manager) referencingSpec(pod *corev1.Pod) *gangSpec {
	key, ok := GangKey(pod)
	if !ok {
		return nil
	}
	spec := m.spec(key)
	if spec == nil {
		return nil
	}
	if _, ok := spec.refIndex[pod.Name]; !ok {
		return nil
	}
	return spec
}

// mayRunOn reports whether the node is one the pod may run on at all.
func mayRunOn(pod *corev1.Pod, node *corev1.Node) bool {
	return eligible(node, nodeaffinity.GetRequiredNodeAffinity(pod), pod.Spec.Tolerations)
}

// grewFor reports whether allocatable grew in pod slots or in a resource the request asks for.
func grewFor(req Resources, old, cur corev1.ResourceList) bool {
	grew := func(name corev1.ResourceName) bool {
		q, ok := cur[name]
		if !ok {
			return false
		}
		prev, ok := old[name]
		return !ok || q.Cmp(prev) > 0
	}
	if grew(corev1.ResourcePods) || (req.MilliCPU > 0 && grew(corev1.ResourceCPU)) || (req.Memory > 0 && grew(corev1.ResourceMemory)) {
		return true
	}
	for name, v := range req.Scalar {
		if v > 0 && grew(name) {
			return true
		}
	}
	return false
}

func nodePair(oldObj, newObj any) (*corev1.Node, *corev1.Node, error) {
	old, okOld := oldObj.(*corev1.Node)
	cur, okNew := newObj.(*corev1.Node)
	if !okOld || !okNew {
		return nil, nil, fmt.Errorf("expected a Node update, got %T → %T", oldObj, newObj)
	}
	return old, cur, nil
}
