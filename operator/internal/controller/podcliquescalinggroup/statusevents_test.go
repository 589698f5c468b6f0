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

package podcliquescalinggroup

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// The ProgressDeadlineExceeded event is posted by the status write that
// records the condition turning to that reason, once: a write computed on a
// stale PodCliqueScalingGroup is refused and posts nothing.
func TestProgressDeadlineEventIsPostedWithItsStatus(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "ev-0-sg", Namespace: "default"},
		Spec:       grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2},
		Status: grovecorev1alpha1.PodCliqueScalingGroupStatus{Conditions: []metav1.Condition{{
			Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionTrue,
			Reason: grovecorev1alpha1.ConditionReasonRollingUpdate, LastTransitionTime: metav1.Now(),
		}}},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pcsg).WithStatusSubresource(pcsg).Build()
	rec := events.NewFakeRecorder(10)
	r := NewReconciler(childsync.Deps{Client: c, Recorder: rec}, c)
	ctx := context.Background()
	base := &grovecorev1alpha1.PodCliqueScalingGroup{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pcsg), base); err != nil {
		t.Fatal(err)
	}
	stalled := func() *grovecorev1alpha1.PodCliqueScalingGroup {
		p := base.DeepCopy()
		meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{
			Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionTrue,
			Reason: grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded, Message: "no progress",
		})
		return p
	}
	if err := r.writeStatus(ctx, base, stalled()); err != nil {
		t.Fatalf("first status write: %v", err)
	}
	if err := r.writeStatus(ctx, base, stalled()); err == nil {
		t.Fatal("a status computed on a stale PodCliqueScalingGroup was written")
	}
	var got []string
	for len(rec.Events) > 0 {
		got = append(got, <-rec.Events)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "Warning ProgressDeadlineExceeded No update progress for more than progressDeadline") {
		t.Errorf("events %q, want ProgressDeadlineExceeded once", got)
	}
}
