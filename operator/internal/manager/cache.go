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

package manager

import (
	"bytes"
	"hash/maphash"
	"sync"
	"unique"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// cacheOptions caches pods only when Grove manages them: the operator never
// needs the cluster's other pods, and caching them all would cost memory in
// proportion to the cluster. Of the other kinds it applies, it caches every
// object, so that an apply never takes over an object of a child's name that
// is not Grove's (childsync.Apply): those not managed by Grove only with
// their identity and owners (see slimForeign). Secrets are not cached at all
// (see clientOptions). Pods are cached slimmed (see slimPod). The children
// the operator applies keep all their fields and the managed fields of their
// main resource: childsync compares and rewrites them (see
// dropSubresourceManagedFields). Every cached object shares its repeated
// metadata with the others (see sharedMeta).
func cacheOptions() cache.Options {
	share := newSharedMeta()
	selector := labels.SelectorFromSet(labels.Set{apicommon.LabelManagedByKey: apicommon.LabelManagedByValue})
	managed := cache.ByObject{Transform: chain(slimForeign, share.transform)}
	slimChild := cache.ByObject{Transform: chain(dropSubresourceManagedFields, share.transform)}
	return cache.Options{
		DefaultTransform: share.transform,
		ByObject: map[client.Object]cache.ByObject{
			&grovecorev1alpha1.PodClique{}:             slimChild,
			&grovecorev1alpha1.PodCliqueScalingGroup{}: slimChild,
			&groveschedulerv1alpha1.PodGang{}:          slimChild,
			&corev1.Pod{}:                              {Label: selector, Transform: chain(slimPod, share.transform)},
			&corev1.Service{}:                          managed,
			&corev1.ServiceAccount{}:                   managed,
			&rbacv1.Role{}:                             managed,
			&rbacv1.RoleBinding{}:                      managed,
			&autoscalingv2.HorizontalPodAutoscaler{}:   managed,
			&resourcev1.ResourceClaim{}:                managed,
		},
	}
}

// slimForeign keeps of an object that Grove does not manage (no
// app.kubernetes.io/managed-by: grove-operator label) what tells whether it
// is one of Grove's children: its name, namespace, UID, version, labels,
// owner references and deletion timestamp. A cluster's own Services,
// ServiceAccounts, Roles, RoleBindings and HPAs then cost the cache little.
func slimForeign(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok || o.GetLabels()[apicommon.LabelManagedByKey] == apicommon.LabelManagedByValue {
		return obj, nil
	}
	m := metav1.ObjectMeta{
		Name: o.GetName(), Namespace: o.GetNamespace(), UID: o.GetUID(), ResourceVersion: o.GetResourceVersion(),
		Labels: o.GetLabels(), OwnerReferences: o.GetOwnerReferences(), DeletionTimestamp: o.GetDeletionTimestamp(),
	}
	switch t := obj.(type) {
	case *corev1.Service:
		return &corev1.Service{TypeMeta: t.TypeMeta, ObjectMeta: m}, nil
	case *corev1.ServiceAccount:
		return &corev1.ServiceAccount{TypeMeta: t.TypeMeta, ObjectMeta: m}, nil
	case *rbacv1.Role:
		return &rbacv1.Role{TypeMeta: t.TypeMeta, ObjectMeta: m}, nil
	case *rbacv1.RoleBinding:
		return &rbacv1.RoleBinding{TypeMeta: t.TypeMeta, ObjectMeta: m}, nil
	case *autoscalingv2.HorizontalPodAutoscaler:
		return &autoscalingv2.HorizontalPodAutoscaler{TypeMeta: t.TypeMeta, ObjectMeta: m}, nil
	}
	return obj, nil
}

// chain runs transforms in order, each on what the one before returned.
func chain(transforms ...toolscache.TransformFunc) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		var err error
		for _, t := range transforms {
			if obj, err = t(obj); err != nil {
				return nil, err
			}
		}
		return obj, nil
	}
}

// slimPod keeps of a cached pod what the operator reads: its metadata
// without managed fields (pods are created, patched and deleted, never
// applied server-side); of its spec the node, hostname, subdomain, scheduler,
// priority class and scheduling gates; of its status the phase, reason,
// conditions and of its containers' statuses what tells ready, started,
// restarted and failed apart (see the PodClique's unhealthy count). The rest,
// containers and volumes above all, is most of a pod's size. The controllers
// build pods from the PodClique's template and change them only by patches of
// the fields they set, never by writing a cached pod back.
func slimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	pod.ManagedFields = nil
	sp := &pod.Spec
	pod.Spec = corev1.PodSpec{
		NodeName: sp.NodeName, Hostname: sp.Hostname, Subdomain: sp.Subdomain,
		SchedulerName: sp.SchedulerName, PriorityClassName: sp.PriorityClassName, SchedulingGates: sp.SchedulingGates,
	}
	st := &pod.Status
	statuses := make([]corev1.ContainerStatus, len(st.ContainerStatuses))
	for i, cs := range st.ContainerStatuses {
		statuses[i] = slimContainerStatus(cs)
	}
	if len(statuses) == 0 {
		statuses = nil
	}
	pod.Status = corev1.PodStatus{Phase: st.Phase, Reason: st.Reason, Conditions: st.Conditions, ContainerStatuses: statuses}
	return pod, nil
}

// slimContainerStatus keeps a container's name, readiness, start, restart
// count and states, without the states' messages and the container's image,
// IDs, resources and mounts.
func slimContainerStatus(cs corev1.ContainerStatus) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: cs.Name, Ready: cs.Ready, Started: cs.Started, RestartCount: cs.RestartCount,
		State: slimState(cs.State), LastTerminationState: slimState(cs.LastTerminationState),
	}
}

func slimState(s corev1.ContainerState) corev1.ContainerState {
	out := corev1.ContainerState{}
	if s.Waiting != nil {
		out.Waiting = &corev1.ContainerStateWaiting{Reason: s.Waiting.Reason}
	}
	if s.Running != nil {
		out.Running = &corev1.ContainerStateRunning{StartedAt: s.Running.StartedAt}
	}
	if t := s.Terminated; t != nil {
		out.Terminated = &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, Signal: t.Signal, Reason: t.Reason, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt}
	}
	return out
}

// dropSubresourceManagedFields drops from a cached custom resource the
// managed-fields entries of its subresources: those of the status writes of
// the operator and of grove-scheduler, which nothing in the operator reads
// (childsync reads the main resource's entries only). A PodClique's status
// entry is 45 % of its managed fields (767 of 1717 bytes of JSON in a bench
// run), a PodGang's two 50 %: 6.7 MB of field sets at 5000 of each.
func dropSubresourceManagedFields(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	entries := o.GetManagedFields()
	main := 0
	for _, e := range entries {
		if e.Subresource == "" {
			main++
		}
	}
	if main == len(entries) {
		return o, nil
	}
	// A new slice of the entries kept, not the decoded one shortened: that
	// would keep the dropped entries' room for as long as the object is
	// cached.
	kept := make([]metav1.ManagedFieldsEntry, 0, main)
	for _, e := range entries {
		if e.Subresource == "" {
			kept = append(kept, e)
		}
	}
	o.SetManagedFields(kept)
	return o, nil
}

// maxSharedFieldBytes bounds the managed-field sets sharedMeta remembers.
// When it is reached it forgets them all and starts again: objects cached
// before keep what they were given, later ones share anew. What it holds is
// mostly held by cached objects too; the bound caps what it keeps alive alone
// (the sets of deleted objects, and sets no other object has).
const maxSharedFieldBytes = 8 << 20

// maxSharedStringLen: longer strings (annotations holding documents) are
// kept as they are.
const maxSharedStringLen = 320

// sharedMeta makes the cached objects share one copy of the metadata they
// repeat. Every decoded object arrives with its own copy of every string and
// field set, though most are alike across a set's thousands of children: the
// label keys and most label values, the namespace, the owner's name and UID,
// and the managed-field sets (those of the PodCliques of one template, or of
// the headless Services, are byte for byte the same). The informer caches
// are most of the operator's memory at scale, and these copies a large part
// of them.
//
// Strings are made canonical with Go's unique package. The managed-field
// sets are not strings but byte slices behind a pointer, which unique cannot
// share; sharedMeta keeps them in a bounded memory of its own. Measured with
// BenchmarkCachedObjectBytes, sharing them saves 2.7 KB per PodClique, 1.6 KB
// per PodGang and 0.9 KB per Service: 26 MB of heap for the 5000 of each of
// a 10k-pod PodCliqueSet.
//
// Sharing is safe because cached objects are never changed in place: the
// manager's client hands out deep copies, the reads that skip the copy only
// read, and the informers replace an object on update rather than editing it.
type sharedMeta struct {
	mu                        sync.Mutex
	fieldSets                 map[uint64]*metav1.FieldsV1
	hash                      func([]byte) uint64
	fieldBytes, maxFieldBytes int
}

func newSharedMeta() *sharedMeta {
	seed := maphash.MakeSeed()
	return &sharedMeta{
		fieldSets:     map[uint64]*metav1.FieldsV1{},
		hash:          func(b []byte) uint64 { return maphash.Bytes(seed, b) },
		maxFieldBytes: maxSharedFieldBytes,
	}
}

// transform is a cache transform that shares obj's namespace, generated-name
// prefix, labels, annotations, owner references, finalizers and managed
// fields, and for a pod the strings of its spec and status that repeat across
// pods.
func (s *sharedMeta) transform(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	o.SetNamespace(s.string(o.GetNamespace()))
	o.SetGenerateName(s.string(o.GetGenerateName()))
	o.SetLabels(s.stringMap(o.GetLabels()))
	o.SetAnnotations(s.stringMap(o.GetAnnotations()))
	for i, f := range o.GetFinalizers() {
		o.GetFinalizers()[i] = s.string(f)
	}
	for i := range o.GetOwnerReferences() {
		r := &o.GetOwnerReferences()[i]
		r.APIVersion, r.Kind, r.Name = s.string(r.APIVersion), s.string(r.Kind), s.string(r.Name)
		r.UID = types.UID(s.string(string(r.UID)))
	}
	for i := range o.GetManagedFields() {
		e := &o.GetManagedFields()[i]
		e.Manager, e.APIVersion, e.FieldsType, e.Subresource = s.string(e.Manager), s.string(e.APIVersion), s.string(e.FieldsType), s.string(e.Subresource)
		if e.FieldsV1 != nil {
			e.FieldsV1 = s.fieldSet(e.FieldsV1)
		}
	}
	if pod, ok := o.(*corev1.Pod); ok {
		s.pod(pod)
	}
	return o, nil
}

// pod shares the strings a pod repeats with its clique's other pods and the
// pods on its node.
func (s *sharedMeta) pod(pod *corev1.Pod) {
	sp, st := &pod.Spec, &pod.Status
	sp.NodeName, sp.SchedulerName, sp.Subdomain = s.string(sp.NodeName), s.string(sp.SchedulerName), s.string(sp.Subdomain)
	sp.PriorityClassName = s.string(sp.PriorityClassName)
	for i := range sp.SchedulingGates {
		sp.SchedulingGates[i].Name = s.string(sp.SchedulingGates[i].Name)
	}
	st.Reason = s.string(st.Reason)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		c.Reason, c.Message = s.string(c.Reason), s.string(c.Message)
	}
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Name = s.string(st.ContainerStatuses[i].Name)
	}
}

// string returns the canonical copy of v (unique.Make). Equal strings made
// canonical while one of them is alive share their bytes.
func (s *sharedMeta) string(v string) string {
	if v == "" || len(v) > maxSharedStringLen {
		return v
	}
	return unique.Make(v).Value()
}

// stringMap returns m with shared keys and values, as a new map: Go does not
// promise that assigning to a key already present replaces the key's string.
func (s *sharedMeta) stringMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[s.string(k)] = s.string(v)
	}
	return out
}

// fieldSet returns the shared copy of a managed-fields set. The memory is
// keyed by a hash of the set, not by a copy of it, so a set it keeps is held
// once, by the first object that brought it; a different set under the same
// hash keeps its own copy.
func (s *sharedMeta) fieldSet(f *metav1.FieldsV1) *metav1.FieldsV1 {
	raw := f.GetRawBytes()
	if len(raw) == 0 {
		return f
	}
	key := s.hash(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if shared, ok := s.fieldSets[key]; ok {
		if bytes.Equal(shared.GetRawBytes(), raw) {
			return shared
		}
		return f
	}
	if s.fieldBytes += len(raw); s.fieldBytes > s.maxFieldBytes {
		clear(s.fieldSets)
		s.fieldBytes = len(raw)
	}
	s.fieldSets[key] = f
	return f
}
