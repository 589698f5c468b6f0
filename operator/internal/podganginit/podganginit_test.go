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

package podganginit

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestWrite(t *testing.T) {
	gang := func(refs []int, cond *metav1.Condition) *groveschedulerv1alpha1.PodGang {
		pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns"}}
		for i, n := range refs {
			grp := groveschedulerv1alpha1.PodGroup{Name: string(rune('a' + i)), MinReplicas: 1}
			for k := 0; k < n; k++ {
				grp.PodReferences = append(grp.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: "ns", Name: grp.Name + string(rune('0'+k))})
			}
			pg.Spec.PodGroups = append(pg.Spec.PodGroups, grp)
		}
		if cond != nil {
			pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
			pg.Status.Conditions = []metav1.Condition{*cond}
		}
		return pg
	}
	initialized := &metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized, Status: metav1.ConditionTrue,
		Reason: groveschedulerv1alpha1.PodGangReasonPodsCreated, Message: messageDone}
	recreating := &metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized, Status: metav1.ConditionFalse,
		Reason: groveschedulerv1alpha1.PodGangReasonPodsCreationPending, Message: messageRecreated}
	tests := []struct {
		name        string
		pg          *groveschedulerv1alpha1.PodGang
		initialized bool
		wantWrote   bool
		// want is "Status: message" of Initialized afterwards.
		want string
	}{
		{name: "a new gang waits for its pods", pg: gang([]int{0, 0}, nil), wantWrote: true, want: "False: " + messagePending},
		{name: "a new gang whose pods are all referenced", pg: gang([]int{1, 2}, nil), initialized: true, wantWrote: true, want: "True: " + messageDone},
		{name: "True stays while a pod is replaced", pg: gang([]int{1, 0}, initialized), want: "True: " + messageDone},
		{name: "True is taken back from a gang that references no pod", pg: gang([]int{0, 0}, initialized), wantWrote: true, want: "False: " + messageRecreated},
		{name: "a gang without groups (all scaled to zero) keeps True", pg: gang(nil, initialized), want: "True: " + messageDone},
		{name: "a recreated gang stays waiting while its new pods arrive", pg: gang([]int{1, 0}, recreating), want: "False: " + messageRecreated},
		{name: "a recreated gang turns True once all are referenced", pg: gang([]int{1, 1}, recreating), initialized: true, wantWrote: true, want: "True: " + messageDone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := groveschedulerv1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tt.pg).WithStatusSubresource(&groveschedulerv1alpha1.PodGang{}).Build()
			live := &groveschedulerv1alpha1.PodGang{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tt.pg), live); err != nil {
				t.Fatal(err)
			}
			wrote, err := Write(context.Background(), c, live, tt.initialized)
			if err != nil {
				t.Fatal(err)
			}
			if wrote != tt.wantWrote {
				t.Errorf("wrote = %v, want %v", wrote, tt.wantWrote)
			}
			stored := &groveschedulerv1alpha1.PodGang{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tt.pg), stored); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(stored.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
			if cond == nil {
				t.Fatalf("no Initialized condition")
			}
			if got := string(cond.Status) + ": " + cond.Message; got != tt.want {
				t.Errorf("Initialized = %q, want %q", got, tt.want)
			}
		})
	}
}
