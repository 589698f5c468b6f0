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

package common

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestStatusMergeFrom(t *testing.T) {
	status := func(p *grovecorev1alpha1.PodClique) any { return &p.Status }
	withStatus := func(st grovecorev1alpha1.PodCliqueStatus) *grovecorev1alpha1.PodClique {
		return &grovecorev1alpha1.PodClique{
			ObjectMeta: metav1.ObjectMeta{Name: "simple1-0-pca", ResourceVersion: "41"},
			// The spec differs from nothing the patch compares: it must not appear.
			Spec:   grovecorev1alpha1.PodCliqueSpec{Replicas: 3, PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
			Status: st,
		}
	}
	ready := metav1.Condition{Type: "PodCliqueScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled", LastTransitionTime: metav1.Unix(0, 0).Rfc3339Copy()}
	for _, tc := range []struct {
		name     string
		old, new grovecorev1alpha1.PodCliqueStatus
		want     string
	}{
		{
			name: "changed counts only",
			old:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3, ReadyReplicas: 1},
			new:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3, ReadyReplicas: 3},
			want: `{"metadata":{"resourceVersion":"41"},"status":{"readyReplicas":3}}`,
		},
		{
			name: "a condition added replaces the list",
			old:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3},
			new:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3, Conditions: []metav1.Condition{ready}},
			want: `{"metadata":{"resourceVersion":"41"},"status":{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"","reason":"Scheduled","status":"True","type":"PodCliqueScheduled"}]}}`,
		},
		{
			name: "a field gone is removed",
			old:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3, CurrentPodTemplateHash: ptr.To("abc")},
			new:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3},
			want: `{"metadata":{"resourceVersion":"41"},"status":{"currentPodTemplateHash":null}}`,
		},
		{
			name: "no change still carries the version",
			old:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3},
			new:  grovecorev1alpha1.PodCliqueStatus{Replicas: 3},
			want: `{"metadata":{"resourceVersion":"41"},"status":{}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := StatusMergeFrom("41", &tc.old, status)
			if p.Type() != types.MergePatchType {
				t.Fatalf("patch type %s, want %s", p.Type(), types.MergePatchType)
			}
			got, err := p.Data(withStatus(tc.new))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("patch\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("sent with another kind", func(t *testing.T) {
		_, err := StatusMergeFrom("41", &grovecorev1alpha1.PodCliqueStatus{}, status).Data(&grovecorev1alpha1.PodCliqueSet{})
		want := "status patch built for *v1alpha1.PodClique sent with *v1alpha1.PodCliqueSet"
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %q", err, want)
		}
	})
}
