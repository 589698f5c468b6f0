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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// RollingUpdateConfig is the disruption budget of one component (a clique or
// a scaling group) during a RollingRecreate update.
type RollingUpdateConfig struct {
	// maxUnavailable is how many pods of a clique, or replicas of a scaling
	// group, may be unavailable at once while Grove replaces them: a count
	// (at least 1) or a percentage of replicas ("25%"), rounded down but at
	// least 1. Pods or replicas that are already unavailable count against it
	// and are replaced first. Defaults to 1.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",message="maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// progressDeadline is how long the component's update may go without
	// progress (an old pod or replica replaced, a new one becoming ready)
	// before Grove reports ProgressDeadlineExceeded. The update continues.
	// Unset means no deadline.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="progressDeadline must be greater than 0"
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`
}

// Condition type and reasons of updates.
const (
	// ConditionTypeUpdateInProgress is True while Grove rolls a PodCliqueSet,
	// PodCliqueScalingGroup or PodClique to a new template.
	ConditionTypeUpdateInProgress = "UpdateInProgress"

	// ConditionReasonRollingUpdate goes with UpdateInProgress=True while the
	// update makes progress.
	ConditionReasonRollingUpdate = "RollingUpdate"
	// ConditionReasonProgressDeadlineExceeded goes with UpdateInProgress=True
	// when a component went longer than its progressDeadline without progress.
	ConditionReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ConditionReasonUpdateCompleted goes with UpdateInProgress=False once
	// everything runs the current template.
	ConditionReasonUpdateCompleted = "UpdateCompleted"
	// ConditionReasonOnDelete goes with UpdateInProgress=False under the
	// OnDelete strategy while pods of an older template remain: Grove replaces
	// them only when they are deleted.
	ConditionReasonOnDelete = "OnDelete"
)
