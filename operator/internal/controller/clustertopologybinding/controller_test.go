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

package clustertopologybinding

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
)

// TestReconcileStatusWrite: a status write that meets a newer stored binding
// (the cache lags behind the previous reconcile's write) is retried shortly,
// without an error or an event; other failures are errors.
func TestReconcileStatusWrite(t *testing.T) {
	gr := grovecorev1alpha1.SchemeGroupVersion.WithResource("clustertopologybindings").GroupResource()
	for _, tt := range []struct {
		name       string
		patchErr   error
		want       ctrl.Result
		wantErr    string
		wantStatus metav1.ConditionStatus
		wantEvents int
	}{
		{name: "written", wantStatus: metav1.ConditionTrue, wantEvents: 1},
		{name: "conflict", patchErr: apierrors.NewConflict(gr, "t", errors.New("the object has been modified")), want: ctrl.Result{RequeueAfter: common.RetryAfterConflict}},
		{name: "other error", patchErr: apierrors.NewInternalError(errors.New("etcd unavailable")), wantErr: "patching ClusterTopologyBinding status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			if err := corev1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			ctb := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "t", Generation: 1},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{{Domain: "zone", Key: "z"}}}}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"z": "a"}}}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ctb, node).WithStatusSubresource(ctb).
				WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					if tt.patchErr != nil {
						return tt.patchErr
					}
					return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				}}).Build()
			recorder := events.NewFakeRecorder(5)
			r := &Reconciler{client: c, recorder: recorder}

			got, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ctb)})
			if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Reconcile = %+v, %v; want %+v, error containing %q", got, err, tt.want, tt.wantErr)
			}
			if n := len(recorder.Events); n != tt.wantEvents {
				t.Fatalf("%d events, want %d", n, tt.wantEvents)
			}
			stored := &grovecorev1alpha1.ClusterTopologyBinding{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(ctb), stored); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(stored.Status.Conditions, grovecorev1alpha1.ConditionTypeNodesLabelled)
			switch {
			case tt.wantStatus == "" && cond != nil:
				t.Fatalf("NodesLabelled written as %+v, want none", cond)
			case tt.wantStatus != "" && (cond == nil || cond.Status != tt.wantStatus):
				t.Fatalf("NodesLabelled %+v, want status %s", cond, tt.wantStatus)
			}
		})
	}
}

func TestNodesLabelledCondition(t *testing.T) {
	levels := []grovecorev1alpha1.TopologyLevel{{Domain: "zone", Key: "z"}, {Domain: "rack", Key: "r"}, {Domain: "host", Key: "h"}}
	tests := []struct {
		name    string
		nodes   []map[string]string
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{name: "every level labelled", nodes: []map[string]string{{"z": "a", "r": "1", "h": "n1"}, {"z": "a", "r": "2", "h": "n2"}, {"z": "b", "r": "3", "h": "n3"}},
			status: metav1.ConditionTrue, reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			message: "zone (z): 3 nodes, 2 domains; rack (r): 3 nodes, 3 domains; host (h): 3 nodes, 3 domains"},
		{name: "a level on some nodes only still counts as labelled", nodes: []map[string]string{{"z": "a", "r": "1", "h": "n1"}, {"h": "n2"}},
			status: metav1.ConditionTrue, reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			message: "zone (z): 1 nodes, 1 domains; rack (r): 1 nodes, 1 domains; host (h): 2 nodes, 2 domains"},
		{name: "levels on no node", nodes: []map[string]string{{"h": "n1"}, nil},
			status: metav1.ConditionFalse, reason: grovecorev1alpha1.ConditionReasonLevelsNotLabelled,
			message: "no node carries the label key of level zone, rack; zone (z): 0 nodes, 0 domains; rack (r): 0 nodes, 0 domains; host (h): 1 nodes, 1 domains"},
		{name: "no nodes at all", nodes: nil,
			status: metav1.ConditionFalse, reason: grovecorev1alpha1.ConditionReasonLevelsNotLabelled,
			message: "no node carries the label key of level zone, rack, host; zone (z): 0 nodes, 0 domains; rack (r): 0 nodes, 0 domains; host (h): 0 nodes, 0 domains"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NodesLabelledCondition(levels, tt.nodes)
			if c.Type != grovecorev1alpha1.ConditionTypeNodesLabelled || c.Status != tt.status || c.Reason != tt.reason || c.Message != tt.message {
				t.Fatalf("got %s=%s/%s %q, want %s/%s %q", c.Type, c.Status, c.Reason, c.Message, tt.status, tt.reason, tt.message)
			}
		})
	}
}
