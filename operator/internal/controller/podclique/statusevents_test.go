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

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// A status computed on a PodClique read from a stale cache is refused by
// optimistic locking; the event announcing the transition it derived
// (AllScheduledReplicasLost) must not be posted either, or each loss is
// announced twice.
func TestStatusEventsArePostedOnlyWithTheirStatus(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pclq := &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: "ev-0-fe", Namespace: "default"},
		Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: 2},
		Status:     grovecorev1alpha1.PodCliqueStatus{Replicas: 2, ScheduledReplicas: 2},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pclq).WithStatusSubresource(pclq).Build()
	rec := events.NewFakeRecorder(10)
	r := &Reconciler{client: c, recorder: rec, writes: ownwrites.New()}
	ctx := context.Background()
	stale := &grovecorev1alpha1.PodClique{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pclq), stale); err != nil {
		t.Fatal(err)
	}
	lost := pod.Result{Pods: []*corev1.Pod{}}

	if _, err := r.updateStatus(ctx, logr.Discard(), stale.DeepCopy(), lost, nil); err != nil {
		t.Fatalf("first status write: %v", err)
	}
	if _, err := r.updateStatus(ctx, logr.Discard(), stale.DeepCopy(), lost, nil); err == nil {
		t.Fatal("a status computed on a stale PodClique was written")
	}
	var got []string
	for len(rec.Events) > 0 {
		got = append(got, <-rec.Events)
	}
	if len(got) != 1 || got[0] != "Warning AllScheduledReplicasLost All 2 scheduled pods were lost" {
		t.Errorf("events %q, want AllScheduledReplicasLost once", got)
	}
}
