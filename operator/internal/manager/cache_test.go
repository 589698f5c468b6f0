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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unique"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestSlimPod(t *testing.T) {
	gate := []corev1.PodSchedulingGate{{Name: "grove.io/podgang-pending-creation"}}
	full := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: "simple1-0-pca-0", Labels: map[string]string{"app.kubernetes.io/managed-by": "grove-operator"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "grove-operator", Operation: metav1.ManagedFieldsOperationUpdate}},
			},
			Spec: corev1.PodSpec{
				InitContainers:      []corev1.Container{{Name: "grove-initc"}},
				Containers:          []corev1.Container{{Name: "engine", Image: "registry.example.com/engine:1"}},
				EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug"}}},
				Volumes:             []corev1.Volume{{Name: "kube-api-access"}},
				NodeName:            "fake-node-3", Hostname: "simple1-0-pca-0", Subdomain: "simple1-0", SchedulingGates: gate,
				SchedulerName: "grove-scheduler", PriorityClassName: "inference-high",
				NodeSelector:       map[string]string{"pool": "gpu"},
				Tolerations:        []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists}},
				SecurityContext:    &corev1.PodSecurityContext{},
				Affinity:           &corev1.Affinity{},
				ServiceAccountName: "default",
				RestartPolicy:      corev1.RestartPolicyAlways,
			},
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning, Reason: "Evicted", PodIP: "10.1.0.7", HostIP: "10.0.0.3", QOSClass: corev1.PodQOSBurstable,
				StartTime:             &metav1.Time{},
				Conditions:            []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}},
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "grove-initc", Image: "grove-initc:v1", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}}},
				ContainerStatuses: []corev1.ContainerStatus{{
					Name: "engine", Image: "registry.example.com/engine:1", ImageID: "sha256:0a1b", ContainerID: "containerd://77",
					Ready: false, Started: ptr.To(true), RestartCount: 2,
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error", Message: "CUDA out of memory", ContainerID: "containerd://76"}},
					VolumeMounts:         []corev1.VolumeMountStatus{{Name: "kube-api-access", MountPath: "/var/run/secrets"}},
				}},
			},
		}
	}
	got, err := slimPod(full())
	if err != nil {
		t.Fatal(err)
	}
	want := full()
	want.ManagedFields = nil
	want.Spec = corev1.PodSpec{NodeName: "fake-node-3", Hostname: "simple1-0-pca-0", Subdomain: "simple1-0", SchedulingGates: gate,
		SchedulerName: "grove-scheduler", PriorityClassName: "inference-high"}
	want.Status = corev1.PodStatus{Phase: corev1.PodRunning, Reason: "Evicted", Conditions: want.Status.Conditions}
	want.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "engine", Started: ptr.To(true), RestartCount: 2,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}},
	}}

	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("slimPod kept the wrong fields:\n got %+v\nwant %+v", got, want)
	}

	// Objects that are not pods (the informer also passes tombstones) are left alone.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "grove-operator"}}}}
	if got, _ := slimPod(svc); got != svc || len(svc.ManagedFields) != 1 {
		t.Fatalf("slimPod changed a Service: %+v", got)
	}
}

func TestDropSubresourceManagedFields(t *testing.T) {
	spec := metav1.ManagedFieldsEntry{Manager: "grove-operator", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)}
	refs := metav1.ManagedFieldsEntry{Manager: "grove-podclique-controller", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:podgroups":{}}}`)}
	status := metav1.ManagedFieldsEntry{Manager: "grove-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: metav1.NewFieldsV1(`{"f:status":{}}`)}
	for _, tc := range []struct {
		name     string
		in, want []metav1.ManagedFieldsEntry
	}{
		{"status entries go, main-resource entries stay in order", []metav1.ManagedFieldsEntry{spec, status, refs}, []metav1.ManagedFieldsEntry{spec, refs}},
		{"nothing to drop", []metav1.ManagedFieldsEntry{spec, refs}, []metav1.ManagedFieldsEntry{spec, refs}},
		{"only status entries", []metav1.ManagedFieldsEntry{status}, []metav1.ManagedFieldsEntry{}},
		{"none at all", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0", ManagedFields: slices.Clone(tc.in)}}
			got, err := dropSubresourceManagedFields(pg)
			if err != nil {
				t.Fatal(err)
			}
			if got != pg {
				t.Fatalf("returned %p, not the object passed (%p)", got, pg)
			}
			if !equality.Semantic.DeepEqual(pg.ManagedFields, tc.want) {
				t.Fatalf("managed fields\n got %+v\nwant %+v", pg.ManagedFields, tc.want)
			}
			if cap(pg.ManagedFields) != len(pg.ManagedFields) {
				t.Fatalf("kept %d entries in room for %d: the dropped ones' room stays allocated", len(pg.ManagedFields), cap(pg.ManagedFields))
			}
		})
	}
	// Tombstones and other values pass through.
	tomb := "not an object"
	if got, _ := dropSubresourceManagedFields(tomb); got != tomb {
		t.Fatalf("changed a non-object: %v", got)
	}
}

// decoded returns obj as a cache receives it: decoded from its JSON, so that
// each object has its own copy of every string and field set.
func decoded[T any](t *testing.T, obj *T) *T {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestSharedMetaSharesWhatObjectsRepeat(t *testing.T) {
	podOf := func(name, index string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, GenerateName: "simple1-0-pca-", Namespace: "default",
				Labels:          map[string]string{"grove.io/podclique": "simple1-0-pca", "apps.kubernetes.io/pod-index": index},
				Annotations:     map[string]string{"note": strings.Repeat("x", maxSharedStringLen+1)},
				Finalizers:      []string{"grove.io/finalizer"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "grove.io/v1alpha1", Kind: "PodClique", Name: "simple1-0-pca", UID: "5c1d"}},
				ManagedFields: []metav1.ManagedFieldsEntry{{
					Manager: "grove-operator", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "grove.io/v1alpha1",
					FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`),
				}},
			},
			Spec: corev1.PodSpec{NodeName: "fake-node-3", SchedulerName: "grove-scheduler", Hostname: name, Subdomain: "simple1-0",
				SchedulingGates: []corev1.PodSchedulingGate{{Name: "grove.io/podgang-pending-creation"}}},
			Status: corev1.PodStatus{Reason: "Evicted",
				Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "engine"}}},
		}
	}
	s := newSharedMeta()
	a, b := decoded(t, podOf("simple1-0-pca-0", "0")), decoded(t, podOf("simple1-0-pca-1", "1"))
	// unique keeps a canonical string while something holds its handle; the
	// cache holds only the strings, so a collection between two transforms
	// may start a string's sharing anew. Held here, none can.
	held := []unique.Handle[string]{}
	for _, v := range []string{"default", "simple1-0-pca", "grove.io/finalizer", "5c1d", "grove-operator", "fake-node-3", "grove-scheduler",
		"simple1-0", "grove.io/podgang-pending-creation", "simple1-0-pca-", "Evicted", "ContainersNotReady", "engine",
		"grove.io/podclique", "apps.kubernetes.io/pod-index", "note"} {
		held = append(held, unique.Make(v))
	}
	defer runtime.KeepAlive(held)
	for _, p := range []*corev1.Pod{a, b} {
		if got, err := s.transform(p); err != nil || got != p {
			t.Fatalf("transform returned %v, %v; want the pod it was given", got, err)
		}
	}
	// Nothing the operator reads changes.
	for _, tc := range []struct{ got, want *corev1.Pod }{{a, podOf("simple1-0-pca-0", "0")}, {b, podOf("simple1-0-pca-1", "1")}} {
		if !equality.Semantic.DeepEqual(tc.got, tc.want) {
			t.Fatalf("transform changed the pod:\n got %+v\nwant %+v", tc.got, tc.want)
		}
	}
	shared := map[string][2]string{
		"namespace":        {a.Namespace, b.Namespace},
		"label value":      {a.Labels["grove.io/podclique"], b.Labels["grove.io/podclique"]},
		"finalizer":        {a.Finalizers[0], b.Finalizers[0]},
		"owner name":       {a.OwnerReferences[0].Name, b.OwnerReferences[0].Name},
		"owner UID":        {string(a.OwnerReferences[0].UID), string(b.OwnerReferences[0].UID)},
		"field manager":    {a.ManagedFields[0].Manager, b.ManagedFields[0].Manager},
		"node":             {a.Spec.NodeName, b.Spec.NodeName},
		"scheduler":        {a.Spec.SchedulerName, b.Spec.SchedulerName},
		"subdomain":        {a.Spec.Subdomain, b.Spec.Subdomain},
		"scheduling gate":  {a.Spec.SchedulingGates[0].Name, b.Spec.SchedulingGates[0].Name},
		"generateName":     {a.GenerateName, b.GenerateName},
		"status reason":    {a.Status.Reason, b.Status.Reason},
		"condition reason": {a.Status.Conditions[0].Reason, b.Status.Conditions[0].Reason},
		"container name":   {a.Status.ContainerStatuses[0].Name, b.Status.ContainerStatuses[0].Name},
	}
	for what, pair := range shared {
		if !sameString(pair[0], pair[1]) {
			t.Errorf("%s %q is not shared between the two pods", what, pair[0])
		}
	}
	if a.ManagedFields[0].FieldsV1 != b.ManagedFields[0].FieldsV1 {
		t.Errorf("the identical managed-field sets are not shared")
	}
	for k := range a.Labels {
		for k2 := range b.Labels {
			if k == k2 && !sameString(k, k2) {
				t.Errorf("label key %q is not shared", k)
			}
		}
	}
	// What differs, and long strings, stay each pod's own.
	if sameString(a.Labels["apps.kubernetes.io/pod-index"], b.Labels["apps.kubernetes.io/pod-index"]) {
		t.Errorf("different label values share memory")
	}
	if sameString(a.Annotations["note"], b.Annotations["note"]) {
		t.Errorf("an annotation longer than %d bytes was shared", maxSharedStringLen)
	}

	// Tombstones and other values pass through.
	tomb := "not an object"
	if got, _ := s.transform(tomb); got != tomb {
		t.Fatalf("changed a non-object: %v", got)
	}
}

func TestSharedMetaForgetsFieldSetsWhenFull(t *testing.T) {
	s := newSharedMeta()
	s.maxFieldBytes = 20
	first := metav1.NewFieldsV1(`{"f:spec":{}}`)
	s.fieldSet(first)
	if got := s.fieldSet(metav1.NewFieldsV1(`{"f:spec":{}}`)); got != first {
		t.Fatalf("a set seen before was not shared")
	}
	s.fieldSet(metav1.NewFieldsV1(`{"f:status":{}}`)) // 13 + 15 bytes: over the bound, the memory starts again
	if len(s.fieldSets) != 1 || s.fieldBytes != 15 {
		t.Fatalf("after the bound: %d field sets, %d bytes; want 1 of 15 bytes", len(s.fieldSets), s.fieldBytes)
	}
	if got := s.fieldSet(metav1.NewFieldsV1(`{"f:spec":{}}`)); got == first {
		t.Fatalf("a forgotten set was still shared")
	}
}

func TestSharedMetaKeepsSetsThatOnlyShareAHash(t *testing.T) {
	s := newSharedMeta()
	s.hash = func([]byte) uint64 { return 7 } // every set under one hash
	spec, again, status := metav1.NewFieldsV1(`{"f:spec":{}}`), metav1.NewFieldsV1(`{"f:spec":{}}`), metav1.NewFieldsV1(`{"f:status":{}}`)
	if got := s.fieldSet(spec); got != spec {
		t.Fatalf("the first set was not kept as it came")
	}
	if got := s.fieldSet(again); got != spec {
		t.Fatalf("an equal set was not given the shared copy")
	}
	if got := s.fieldSet(status); got != status || got.String() != `{"f:status":{}}` {
		t.Fatalf("a different set under the same hash was given %q", got.String())
	}
}

func TestChainRunsTransformsInOrder(t *testing.T) {
	var ran []string
	step := func(name string, err error) func(any) (any, error) {
		return func(obj any) (any, error) {
			ran = append(ran, name)
			return obj.(string) + name, err
		}
	}
	got, err := chain(step("a", nil), step("b", nil))("x")
	if err != nil || got != "xab" || !slices.Equal(ran, []string{"a", "b"}) {
		t.Fatalf("chain = %v, %v after %v; want xab after [a b]", got, err, ran)
	}
	ran = nil
	boom := errors.New("boom")
	if _, err := chain(step("a", boom), step("b", nil))("x"); !errors.Is(err, boom) || !slices.Equal(ran, []string{"a"}) {
		t.Fatalf("chain after an error = %v, ran %v; want boom after [a]", err, ran)
	}
}

// BenchmarkCachedObjectBytes reports the heap held per object of a Grove
// child as the API server sends it (testdata: objects of a 10k bench run,
// managed fields included), decoded alone and after the cache's transforms,
// over 2000 objects that differ in name and UID as a set's children do
// (decoded with encoding/json; the informers decode pods from protobuf).
// Run it once:
//
//	go test -run '^$' -bench CachedObjectBytes -benchtime 1x ./internal/manager/
func BenchmarkCachedObjectBytes(b *testing.B) {
	share := newSharedMeta()
	for _, tc := range []struct {
		kind      string
		newObj    func() client.Object
		transform func(any) (any, error)
	}{
		{"pod", func() client.Object { return &corev1.Pod{} }, chain(slimPod, share.transform)},
		{"podclique", func() client.Object { return &grovecorev1alpha1.PodClique{} }, chain(dropSubresourceManagedFields, share.transform)},
		{"podgang", func() client.Object { return &groveschedulerv1alpha1.PodGang{} }, chain(dropSubresourceManagedFields, share.transform)},
		{"service", func() client.Object { return &corev1.Service{} }, share.transform},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.kind+".json"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.kind, func(b *testing.B) {
			for range b.N {
				b.ReportMetric(heldPerObject(b, data, tc.newObj, nil), "decoded-B/obj")
				b.ReportMetric(heldPerObject(b, data, tc.newObj, tc.transform), "cached-B/obj")
			}
		})
	}
}

// heldPerObject decodes 2000 objects from data, each under its own name and
// UID, passes each through transform (when not nil), and returns the heap
// they hold, per object.
func heldPerObject(b *testing.B, data []byte, newObj func() client.Object, transform func(any) (any, error)) float64 {
	const n = 2000
	held := make([]any, n)
	before := heapInUse()
	for i := range n {
		obj := newObj()
		if err := json.Unmarshal(data, obj); err != nil {
			b.Fatal(err)
		}
		obj.SetName(fmt.Sprintf("%s-%d", obj.GetName(), i))
		obj.SetUID(types.UID(fmt.Sprintf("%08d-%s", i, obj.GetUID())))
		held[i] = obj
		if transform != nil {
			var err error
			if held[i], err = transform(obj); err != nil {
				b.Fatal(err)
			}
		}
	}
	after := heapInUse()
	runtime.KeepAlive(held)
	return float64(after-before) / n
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
