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
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// maxNamedConflicts is how many objects the ChildNameConflict message names.
const maxNamedConflicts = 10

// setChildNameConflict sets ChildNameConflict True naming the objects that
// hold names of the set's children without being controlled by it, or False
// once there are none; a set that never had one gets no condition.
func setChildNameConflict(pcs *grovecorev1alpha1.PodCliqueSet, taken []childsync.ErrNotOwned) {
	cond := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeChildNameConflict, ObservedGeneration: pcs.Generation,
		Status: metav1.ConditionFalse, Reason: grovecorev1alpha1.ConditionReasonNoChildNameConflict,
		Message: "No object the PodCliqueSet does not control holds a name of its children",
	}
	if len(taken) == 0 {
		if meta.FindStatusCondition(pcs.Status.Conditions, cond.Type) != nil {
			meta.SetStatusCondition(&pcs.Status.Conditions, cond)
		}
		return
	}
	names := make([]string, 0, len(taken))
	for _, t := range taken {
		names = append(names, fmt.Sprintf("%s %s (%s)", t.Kind, t.Name, t.Holder()))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	count := len(names)
	if count > maxNamedConflicts {
		names = append(names[:maxNamedConflicts], fmt.Sprintf("and %d more", count-maxNamedConflicts))
	}
	cond.Status, cond.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonChildNamesTaken
	cond.Message = fmt.Sprintf("%d objects the PodCliqueSet does not control hold names of its children and are left untouched: %s",
		count, strings.Join(names, ", "))
	meta.SetStatusCondition(&pcs.Status.Conditions, cond)
}
