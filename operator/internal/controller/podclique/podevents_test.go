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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

// TestUrgentPodUpdate: progress reports wait for the batch; terminating,
// ended and relabelled pods do not.
func TestUrgentPodUpdate(t *testing.T) {
	base := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "svc-0-frontend-abcde", Labels: map[string]string{apicommon.LabelPodClique: "svc-0-frontend"}},
			Spec:       corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}},
			Status:     corev1.PodStatus{Phase: corev1.PodPending},
		}
	}
	tests := []struct {
		name   string
		change func(p *corev1.Pod)
		want   bool
	}{
		{name: "gate lifted", change: func(p *corev1.Pod) { p.Spec.SchedulingGates = nil }},
		{name: "bound to a node", change: func(p *corev1.Pod) { p.Spec.NodeName = "node-0" }},
		{name: "running and ready", change: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}},
		{name: "container restarted", change: func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: 1}}
		}},
		{name: "terminating", want: true, change: func(p *corev1.Pod) { now := metav1.Now(); p.DeletionTimestamp = &now }},
		{name: "failed", want: true, change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }},
		{name: "succeeded", want: true, change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }},
		{name: "relabelled", want: true, change: func(p *corev1.Pod) { p.Labels[apicommon.LabelPodTemplateHash] = "abc" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldPod, newPod := base(), base()
			tt.change(newPod)
			if got := urgentPodUpdate(oldPod, newPod); got != tt.want {
				t.Errorf("urgentPodUpdate = %v, want %v", got, tt.want)
			}
		})
	}
	if urgentPodUpdate(base(), base()) {
		t.Error("an unchanged pod is urgent")
	}
}
