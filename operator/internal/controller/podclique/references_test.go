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

package podclique

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestReleaseReferences(t *testing.T) {
	for _, tt := range []struct {
		name string
		// setUID is the UID of the PodCliqueSet "svc" in the cache; empty: none.
		setUID      string
		wantPatches int
		wantRefs    int
	}{
		{name: "the set exists: the group's references are emptied", setUID: "pcs-uid", wantPatches: 1, wantRefs: 0},
		// The PodGang is deleted with the set: a patch would only fail its
		// delete, whose precondition is the version.
		{name: "the set is gone: the PodGang is left as it is", wantRefs: 2},
		{name: "a new set of the same name: the old set's PodGang is left as it is", setUID: "new-uid", wantRefs: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			for _, add := range []func(*runtime.Scheme) error{grovecorev1alpha1.AddToScheme, groveschedulerv1alpha1.AddToScheme} {
				if err := add(scheme); err != nil {
					t.Fatal(err)
				}
			}
			pg := &groveschedulerv1alpha1.PodGang{
				ObjectMeta: metav1.ObjectMeta{Name: "svc-0", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{{
					APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodCliqueSet", Name: "svc", UID: "pcs-uid", Controller: ptr.To(true)}}},
				Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{
					Name: "svc-0-frontend", MinReplicas: 2,
					PodReferences: []groveschedulerv1alpha1.NamespacedName{{Namespace: "ns", Name: "svc-0-frontend-a"}, {Namespace: "ns", Name: "svc-0-frontend-b"}},
				}}},
			}
			objs := []client.Object{pg}
			if tt.setUID != "" {
				objs = append(objs, &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "ns", UID: k8stypes.UID(tt.setUID)}})
			}
			patches := 0
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					patches++
					return c.Patch(ctx, obj, patch, opts...)
				}}).Build()
			pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "svc-0-frontend", Namespace: "ns",
				Labels: map[string]string{apicommon.LabelPartOfKey: "svc", apicommon.LabelPodGang: "svc-0"}}}
			r := &Reconciler{client: c}

			if err := r.releaseReferences(context.Background(), pclq); err != nil {
				t.Fatalf("releaseReferences: %v", err)
			}
			if patches != tt.wantPatches {
				t.Errorf("patches = %d, want %d", patches, tt.wantPatches)
			}
			got := &groveschedulerv1alpha1.PodGang{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(pg), got); err != nil {
				t.Fatal(err)
			}
			if n := len(got.Spec.PodGroups[0].PodReferences); n != tt.wantRefs {
				t.Errorf("group svc-0-frontend references %d pods, want %d", n, tt.wantRefs)
			}
		})
	}
}
