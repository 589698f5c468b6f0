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
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

func TestSyncInitialized(t *testing.T) {
	gr := schema.GroupResource{Group: groveschedulerv1alpha1.SchemeGroupVersion.Group, Resource: "podgangs"}
	for _, tt := range []struct {
		name        string
		complete    bool
		patchErr    error
		wantErr     string
		wantStatus  metav1.ConditionStatus
		wantPatches int
	}{
		{name: "complete", complete: true, wantStatus: metav1.ConditionTrue, wantPatches: 1},
		{name: "pods still being created", wantStatus: metav1.ConditionFalse, wantPatches: 1},
		// The stored PodGang is newer than the cached one: left to the sync its update brings, without error.
		{name: "conflict", complete: true, patchErr: apierrors.NewConflict(gr, "g", errors.New("the object has been modified")), wantPatches: 1},
		{name: "gone", complete: true, patchErr: apierrors.NewNotFound(gr, "g"), wantPatches: 1},
		{name: "other error", complete: true, patchErr: apierrors.NewInternalError(errors.New("etcd unavailable")), wantPatches: 1,
			wantErr: "setting Initialized on PodGang g"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := groveschedulerv1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns"}}
			patches := 0
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pg.DeepCopy()).WithStatusSubresource(pg).
				WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					patches++
					if tt.patchErr != nil {
						return tt.patchErr
					}
					return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				}}).Build()
			cached := &groveschedulerv1alpha1.PodGang{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(pg), cached); err != nil {
				t.Fatal(err)
			}
			o := operator{d: childsync.Deps{Client: c}}

			err := o.syncInitialized(context.Background(), cached, tt.complete)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("syncInitialized = %v; want an error containing %q", err, tt.wantErr)
			}
			if patches != tt.wantPatches {
				t.Fatalf("%d status patches, want %d", patches, tt.wantPatches)
			}
			stored := &groveschedulerv1alpha1.PodGang{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(pg), stored); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(stored.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
			switch {
			case tt.wantStatus == "" && cond != nil:
				t.Fatalf("Initialized written as %+v, want none", cond)
			case tt.wantStatus != "" && (cond == nil || cond.Status != tt.wantStatus):
				t.Fatalf("Initialized %+v, want status %s", cond, tt.wantStatus)
			}
		})
	}
}
