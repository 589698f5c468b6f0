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

package podgang

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/kai"
	"github.com/grove-project/grove/operator/internal/config"
)

// TestSyncBackendUnavailable: a cluster that does not serve the backend's
// kind gives the gang BackendUnavailable, rechecked later, and writes nothing;
// once the kind is served the backend writes its object.
func TestSyncBackendUnavailable(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{grovecorev1alpha1.AddToScheme, groveschedulerv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	pg := &groveschedulerv1alpha1.PodGang{
		ObjectMeta: metav1.ObjectMeta{Name: "g-0", Namespace: "ns", UID: "uid-g-0"},
		Spec:       groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: "g-0-a", MinReplicas: 1}}},
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns"}}
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	b := kai.New(config.KAIConfig{})

	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{groveschedulerv1alpha1.SchemeGroupVersion})
	r := &Reconciler{client: c, mapper: mapper, scheme: scheme}
	v, requeue, err := r.syncBackend(context.Background(), b, pg, pcs)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != groveschedulerv1alpha1.PodGangReasonBackendUnavailable || v.Scheduled || requeue != unavailableRecheck ||
		!strings.HasPrefix(v.Message, "scheduler backend kai-scheduler: the cluster serves no PodGroup (scheduling.run.ai/v2alpha2): ") {
		t.Fatalf("verdict %+v, requeue %v; want BackendUnavailable naming scheduling.run.ai/v2alpha2 PodGroup, recheck %v", v, requeue, unavailableRecheck)
	}

	kpg := &unstructured.Unstructured{}
	kpg.SetGroupVersionKind(kai.PodGroupGVK)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "g-0"}, kpg); !apierrors.IsNotFound(err) {
		t.Fatalf("PodGroup g-0 written while its kind is not served: %v", err)
	}

	mapper.Add(kai.PodGroupGVK, meta.RESTScopeNamespace)
	v, requeue, err = r.syncBackend(context.Background(), b, pg, pcs)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != groveschedulerv1alpha1.PodGangReasonSchedulingPending || requeue != 0 {
		t.Fatalf("verdict %+v, requeue %v once the kind is served; want SchedulingPending, no recheck", v, requeue)
	}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "g-0"}, kpg); err != nil {
		t.Fatalf("PodGroup g-0 once the kind is served: %v", err)
	}
	if minMember, _, _ := unstructured.NestedInt64(kpg.Object, "spec", "minMember"); minMember != 1 {
		t.Errorf("PodGroup g-0 minMember %d, want 1", minMember)
	}
}
