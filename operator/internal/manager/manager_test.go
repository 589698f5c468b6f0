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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

func TestPprofAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   config.Debugging
		want string
	}{
		{"profiling unset serves nothing", config.Debugging{PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, ""},
		{"profiling disabled serves nothing", config.Debugging{EnableProfiling: ptr.To(false), PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, ""},
		{"profiling enabled serves on host:port", config.Debugging{EnableProfiling: ptr.To(true), PprofBindHost: "127.0.0.1", PprofBindPort: 2753}, "127.0.0.1:2753"},
		{"an IPv6 host is bracketed", config.Debugging{EnableProfiling: ptr.To(true), PprofBindHost: "::1", PprofBindPort: 6060}, "[::1]:6060"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pprofAddress(tc.in); got != tc.want {
				t.Fatalf("pprofAddress = %q, want %q", got, tc.want)
			}
		})
	}
}

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
			},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "engine", RestartCount: 2}}},
		}
	}
	got, err := slimPod(full())
	if err != nil {
		t.Fatal(err)
	}
	want := full()
	want.ManagedFields = nil
	want.Spec = corev1.PodSpec{NodeName: "fake-node-3", Hostname: "simple1-0-pca-0", Subdomain: "simple1-0", SchedulingGates: gate}
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
		})
	}
	// Tombstones and other values pass through.
	tomb := "not an object"
	if got, _ := dropSubresourceManagedFields(tomb); got != tomb {
		t.Fatalf("changed a non-object: %v", got)
	}
}
