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
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// TestApplyStatusBreachHistory: wasScheduled turns true once minAvailable
// pods are scheduled and stays so while pods are lost; a breach that lasts
// through the first scheduling counts from then; zero replicas reset it.
func TestApplyStatusBreachHistory(t *testing.T) {
	long := metav1.NewTime(time.Now().Add(-time.Hour))
	tests := []struct {
		name             string
		replicas         int32
		wasScheduled     bool
		counts           podCounts
		wantWasScheduled bool
		wantBreached     metav1.ConditionStatus
		wantReason       string
		// wantFreshBreach: the breach's lastTransitionTime was reset to now.
		wantFreshBreach bool
	}{
		{name: "never scheduled: breached, not counted as scheduled", replicas: 2,
			counts: podCounts{replicas: 2, gated: 2}, wantBreached: metav1.ConditionTrue, wantReason: grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable},
		{name: "scheduled and healthy", replicas: 2,
			counts: podCounts{replicas: 2, scheduled: 2, ready: 2}, wantWasScheduled: true, wantBreached: metav1.ConditionFalse, wantReason: grovecorev1alpha1.ConditionReasonSufficientReadyPods},
		{name: "a pod was deleted and its replacement is pending", replicas: 2, wasScheduled: true,
			counts: podCounts{replicas: 2, scheduled: 1, ready: 1}, wantWasScheduled: true, wantBreached: metav1.ConditionTrue, wantReason: grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable},
		{name: "first scheduled while unhealthy: the breach starts now", replicas: 2,
			counts: podCounts{replicas: 2, scheduled: 2, unhealthy: 1}, wantWasScheduled: true, wantBreached: metav1.ConditionTrue,
			wantReason: grovecorev1alpha1.ConditionReasonInsufficientReadyPods, wantFreshBreach: true},
		{name: "scaled to zero: not breached, history reset", replicas: 0, wasScheduled: true,
			wantBreached: metav1.ConditionFalse, wantReason: grovecorev1alpha1.ConditionReasonScaledToZero},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &grovecorev1alpha1.PodClique{}
			p.Spec.Replicas = tt.replicas
			p.Spec.MinAvailable = ptr.To[int32](2)
			p.Status.WasScheduled = tt.wasScheduled
			p.Status.Conditions = []metav1.Condition{{Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, Status: metav1.ConditionTrue,
				Reason: grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable, LastTransitionTime: long}}
			applyStatus(p, tt.counts)
			if p.Status.WasScheduled != tt.wantWasScheduled {
				t.Errorf("wasScheduled = %v, want %v", p.Status.WasScheduled, tt.wantWasScheduled)
			}
			c := meta.FindStatusCondition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			if c.Status != tt.wantBreached || c.Reason != tt.wantReason {
				t.Errorf("MinAvailableBreached = %s/%s, want %s/%s", c.Status, c.Reason, tt.wantBreached, tt.wantReason)
			}
			fresh := c.LastTransitionTime.After(long.Time)
			if tt.wantBreached == metav1.ConditionTrue && fresh != tt.wantFreshBreach {
				t.Errorf("breach lastTransitionTime %s, fresh = %v, want %v", c.LastTransitionTime, fresh, tt.wantFreshBreach)
			}
			if tt.replicas == 0 {
				s := meta.FindStatusCondition(p.Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueScheduled)
				if s.Status != metav1.ConditionFalse || s.Reason != grovecorev1alpha1.ConditionReasonScaledToZero {
					t.Errorf("PodCliqueScheduled = %s/%s", s.Status, s.Reason)
				}
			}
		})
	}
}
