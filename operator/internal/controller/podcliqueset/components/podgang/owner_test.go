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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// TestOwnedBy: a PodGang group references only the pods of the PodClique
// object that exists now, never those of a predecessor with the same name.
func TestOwnedBy(t *testing.T) {
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "demo-0-fe", UID: "new"}}
	pod := func(uid types.UID, controller bool) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{
			Kind: "PodClique", Name: "demo-0-fe", UID: uid, Controller: ptr.To(controller),
		}}}}
	}
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		pclq *grovecorev1alpha1.PodClique
		want bool
	}{
		{"pod of the current PodClique", pod("new", true), pclq, true},
		{"pod of a deleted PodClique with the same name", pod("old", true), pclq, false},
		{"owner reference that is not the controller", pod("new", false), pclq, false},
		{"PodClique not in the cache", pod("new", true), nil, false},
	} {
		if got := ownedBy(tt.pod, tt.pclq); got != tt.want {
			t.Errorf("%s: ownedBy = %v, want %v", tt.name, got, tt.want)
		}
	}
}
