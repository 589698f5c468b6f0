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
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestControlledByDeleted(t *testing.T) {
	ref := func(apiVersion, kind, name string, controller bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "u", Controller: ptr.To(controller)}
	}
	gv := grovecorev1alpha1.SchemeGroupVersion.String()
	now := metav1.Now()
	tests := []struct {
		name     string
		refs     []metav1.OwnerReference
		deleting bool
		want     bool
	}{
		{"controlled by the set", []metav1.OwnerReference{ref(gv, "PodCliqueSet", "inference", true)}, false, true},
		{"already being deleted", []metav1.OwnerReference{ref(gv, "PodCliqueSet", "inference", true)}, true, false},
		{"orphaned", nil, false, false},
		{"owned but not controlled", []metav1.OwnerReference{ref(gv, "PodCliqueSet", "inference", false)}, false, false},
		{"controlled by another set", []metav1.OwnerReference{ref(gv, "PodCliqueSet", "inference-2", true)}, false, false},
		{"controlled by a scaling group of that name", []metav1.OwnerReference{ref(gv, "PodCliqueScalingGroup", "inference", true)}, false, false},
		{"controlled by another API's kind of that name", []metav1.OwnerReference{ref("example.com/v1", "PodCliqueSet", "inference", true)}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "inference-0", OwnerReferences: tt.refs}}
			if tt.deleting {
				svc.DeletionTimestamp = &now
			}
			if got := controlledByDeleted(svc, "inference"); got != tt.want {
				t.Errorf("controlledByDeleted = %v, want %v", got, tt.want)
			}
		})
	}
}

// A reconcile of a deleted PodCliqueSet whose cache still shows a child it
// deleted, alive, does not delete it again: the deletion is recorded in
// ownwrites until the cache shows it.
func TestChildrenOfADeletedSetAreDeletedOnceWhileTheCacheLags(t *testing.T) {
	labels := apicommon.DefaultLabels("gone")
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{
		Name: "gone-0-fe", Namespace: "default", UID: "pclq-uid", Labels: labels, Finalizers: []string{apicommon.FinalizerPodClique},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodCliqueSet",
			Name: "gone", UID: "pcs-uid", Controller: ptr.To(true)}},
	}}
	r, _ := statusTestReconciler(t, pclq)
	stale := &grovecorev1alpha1.PodClique{}
	if err := r.client.Get(context.Background(), client.ObjectKeyFromObject(pclq), stale); err != nil {
		t.Fatal(err)
	}
	deletes := 0
	lagging(t, r, stale, &deletes)
	for i := range 2 {
		if _, err := r.deleteChildrenOfDeleted(context.Background(), logr.Discard(), types.NamespacedName{Namespace: "default", Name: "gone"}); err != nil {
			t.Fatalf("pass %d: %v", i+1, err)
		}
	}
	if deletes != 1 {
		t.Errorf("two passes on a cache that shows the deleted child alive sent %d deletes, want 1", deletes)
	}
}
