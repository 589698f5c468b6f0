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

package podcliqueset

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/index"
)

func statusTestReconciler(t *testing.T, objs ...client.Object) (*Reconciler, *events.FakeRecorder) {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, grovecorev1alpha1.AddToScheme, groveschedulerv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(&grovecorev1alpha1.PodCliqueSet{})
	partOf := func(o client.Object) []string { return []string{o.GetLabels()[apicommon.LabelPartOfKey]} }
	for _, obj := range []client.Object{&grovecorev1alpha1.PodClique{}, &grovecorev1alpha1.PodCliqueScalingGroup{}, &groveschedulerv1alpha1.PodGang{}} {
		b = b.WithIndex(obj, index.PartOf, partOf)
	}
	c := b.Build()
	rec := events.NewFakeRecorder(100)
	return &Reconciler{client: c, apiReader: c, recorder: rec}, rec
}

func drain(rec *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// A reconcile that reads the PodCliqueSet from a cache that has not yet seen
// the status the previous reconcile wrote re-derives the same transitions
// (an update started, a replica's turn, the update completed). Its status
// write is refused (optimistic locking), and so must its events be: each
// transition is posted once.
func TestUpdateEventsArePostedOnceWhenTheCacheIsStale(t *testing.T) {
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ev", Namespace: "default", Generation: 2},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "fe", Spec: grovecorev1alpha1.PodCliqueSpec{
				RoleName: "fe", Replicas: 1, PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:2"}}},
			}}},
		}},
		Status: grovecorev1alpha1.PodCliqueSetStatus{CurrentGenerationHash: ptr.To("an-older-template")},
	}
	r, rec := statusTestReconciler(t, pcs)
	ctx := context.Background()
	read := func() *grovecorev1alpha1.PodCliqueSet {
		got := &grovecorev1alpha1.PodCliqueSet{}
		if err := r.client.Get(ctx, client.ObjectKeyFromObject(pcs), got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	stale := read()
	if _, err := r.reconcileSpec(ctx, logr.Discard(), stale.DeepCopy()); err != nil {
		t.Fatalf("first reconcile: %v", err)
	}
	first := drain(rec)
	if _, err := r.reconcileSpec(ctx, logr.Discard(), stale.DeepCopy()); err == nil {
		t.Fatalf("a status computed on a stale PodCliqueSet was written")
	}
	again := drain(rec)

	count := map[string]int{}
	for _, e := range append(first, again...) {
		count[strings.Fields(e)[1]]++
	}
	for _, reason := range []string{"UpdateStarted", "UpdateCompleted"} {
		if count[reason] != 1 {
			t.Errorf("%s posted %d times, want once; events: %q then %q", reason, count[reason], first, again)
		}
	}
	if st := read().Status; st.UpdateProgress == nil || st.UpdateProgress.UpdateEndedAt == nil {
		t.Errorf("the update record was not written: %+v", st.UpdateProgress)
	}
}

func TestReadyCondition(t *testing.T) {
	tests := []struct {
		name        string
		replicas    int32
		unavailable []int32
		want        string
	}{
		{name: "every replica available", replicas: 3, want: "True/AllReplicasAvailable: 3 of 3 replicas available"},
		{name: "some replicas unavailable", replicas: 3, unavailable: []int32{0, 2}, want: "False/ReplicasUnavailable: 1 of 3 replicas available; unavailable: 0, 2"},
		{name: "many unavailable are cut short", replicas: 8, unavailable: []int32{0, 1, 2, 3, 4, 5, 6, 7}, want: "False/ReplicasUnavailable: 0 of 8 replicas available; unavailable: 0, 1, 2, 3, 4 and 3 more"},
		{name: "scaled to zero", replicas: 0, want: "True/ScaledToZero: 0 replicas wanted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Generation: 4}, Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: tt.replicas}}
			setReadyCondition(pcs, tt.unavailable)
			c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeReady)
			if c == nil {
				t.Fatal("no Ready condition")
			}
			if got := string(c.Status) + "/" + c.Reason + ": " + c.Message; got != tt.want {
				t.Errorf("Ready = %q, want %q", got, tt.want)
			}
			if c.ObservedGeneration != 4 {
				t.Errorf("observedGeneration = %d, want 4", c.ObservedGeneration)
			}
		})
	}
}
