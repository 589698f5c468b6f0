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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// setMinAvailableBreached records the MinAvailableBreached condition and
// whether the clique was ever scheduled, the two facts gang termination
// reads (docs/user-guide.md, "Gang termination"). A breach counts from the
// moment the clique first had minAvailable pods scheduled: a clique that
// stays breached while it gets scheduled (its pods fail right away) gets a
// fresh lastTransitionTime, so the time it waited for capacity never counts
// towards terminationDelay.
func setMinAvailableBreached(st *grovecorev1alpha1.PodCliqueStatus, breached metav1.Condition, minAvailableScheduled bool) {
	firstScheduled := minAvailableScheduled && !st.WasScheduled
	if firstScheduled {
		st.WasScheduled = true
		if breached.Status == metav1.ConditionTrue {
			meta.RemoveStatusCondition(&st.Conditions, breached.Type)
		}
	}
	meta.SetStatusCondition(&st.Conditions, breached)
}

// setScaledToZero writes the conditions of a PodClique scaled to zero: it
// wants no pods, so it lacks none and is not breached, and it starts over as
// never scheduled, so scaling it up again when capacity is short never
// triggers gang termination.
func setScaledToZero(pclq *grovecorev1alpha1.PodClique) {
	st := &pclq.Status
	st.WasScheduled = false
	for _, t := range []string{grovecorev1alpha1.ConditionTypePodCliqueScheduled, grovecorev1alpha1.ConditionTypeMinAvailableBreached} {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: t, Status: metav1.ConditionFalse, ObservedGeneration: pclq.Generation,
			Reason: grovecorev1alpha1.ConditionReasonScaledToZero, Message: "Scaled to zero replicas",
		})
	}
}
