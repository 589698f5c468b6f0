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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name string
		in   *grovecorev1alpha1.PodCliqueSet
		want *grovecorev1alpha1.PodCliqueSet
	}{
		{
			name: "every default applied",
			in: &grovecorev1alpha1.PodCliqueSet{Spec: grovecorev1alpha1.PodCliqueSetSpec{Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
					{Name: "frontend", Spec: grovecorev1alpha1.PodCliqueSpec{}},
					{Name: "worker", Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 3, AutoScalingConfig: &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 5}}},
				},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{
					{Name: "model", CliqueNames: []string{"worker"}, Replicas: ptr.To[int32](2), ScaleConfig: &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 4}},
				},
			}}},
			want: &grovecorev1alpha1.PodCliqueSet{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default"},
				Spec: grovecorev1alpha1.PodCliqueSetSpec{Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
					Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
						{Name: "frontend", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "frontend", Replicas: 1, MinAvailable: ptr.To[int32](1),
							PodSpec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: ptr.To[int64](30)},
							RollingUpdate: &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(1))}}},
						{Name: "worker", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "worker", Replicas: 3, MinAvailable: ptr.To[int32](3),
							AutoScalingConfig: &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](3), MaxReplicas: 5},
							PodSpec:           corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: ptr.To[int64](30)}}},
					},
					PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{
						{Name: "model", CliqueNames: []string{"worker"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1),
							ScaleConfig:   &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](2), MaxReplicas: 4},
							RollingUpdate: &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
					},
					TerminationDelay:      &metav1.Duration{Duration: 4 * time.Hour},
					HeadlessServiceConfig: &grovecorev1alpha1.HeadlessServiceConfig{PublishNotReadyAddresses: true},
				}},
			},
		},
		{
			name: "written values kept",
			in: &grovecorev1alpha1.PodCliqueSet{
				ObjectMeta: metav1.ObjectMeta{Namespace: "prod"},
				Spec: grovecorev1alpha1.PodCliqueSetSpec{Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
					Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "frontend", Spec: grovecorev1alpha1.PodCliqueSpec{
						RoleName: "web", Replicas: 4, MinAvailable: ptr.To[int32](2),
						PodSpec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: ptr.To[int64](5)},
						RollingUpdate: &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromString("25%")),
							ProgressDeadline: &metav1.Duration{Duration: time.Hour}}}}},
					TerminationDelay:      &metav1.Duration{Duration: time.Minute},
					HeadlessServiceConfig: &grovecorev1alpha1.HeadlessServiceConfig{PublishNotReadyAddresses: false},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == nil {
				want = tt.in.DeepCopy()
			}
			got := tt.in.DeepCopy()
			Default(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("Default() mismatch (-want +got):\n%s", d)
			}
			again := got.DeepCopy()
			Default(again)
			if d := cmp.Diff(got, again); d != "" {
				t.Fatalf("Default() is not idempotent (-first +second):\n%s", d)
			}
		})
	}
}
