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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// scaledToZero is the MinAvailableBreached condition of a scaling group
// scaled to zero: it wants no replicas, so it lacks none. Its PodCliques are
// gone and its groups left the PodGang, so the rest of the PodCliqueSet
// replica keeps running.
func scaledToZero(generation int64) metav1.Condition {
	return metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, ObservedGeneration: generation,
		Status: metav1.ConditionFalse, Reason: grovecorev1alpha1.ConditionReasonScaledToZero,
		Message: "Scaled to zero replicas",
	}
}
