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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestChildDeletionsRememberForTwoMinutes(t *testing.T) {
	now := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
	d := newChildDeletions()
	d.now = func() time.Time { return now }

	d.record("a")
	if !d.sent("a") || d.sent("b") {
		t.Fatalf("after recording a: sent(a)=%v sent(b)=%v", d.sent("a"), d.sent("b"))
	}
	now = now.Add(childDeletionMemory - time.Second)
	if !d.sent("a") {
		t.Fatal("a forgotten before childDeletionMemory")
	}
	now = now.Add(time.Second)
	if d.sent("a") {
		t.Fatal("a remembered after childDeletionMemory")
	}
	d.record("b")
	if _, kept := d.at["a"]; kept || len(d.at) != 1 {
		t.Fatalf("expired entries not pruned: %v", d.at)
	}
	// Within the same period no second pass runs: c is recorded beside b.
	now = now.Add(time.Second)
	d.record("c")
	if !d.sent("b") || !d.sent("c") || len(d.at) != 2 {
		t.Fatalf("entries %v", d.at)
	}
}

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
