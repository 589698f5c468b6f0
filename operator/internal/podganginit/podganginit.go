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

// Package podganginit decides and writes a PodGang's Initialized condition:
// True once every pod group references as many pods as its PodClique has
// replicas. Two writers use it: the PodCliqueSet's PodGang component, which
// creates the PodGang and marks it not initialized, and the PodClique whose
// pod-reference write completes the gang, which marks it initialized at once
// instead of waiting for the next PodCliqueSet reconcile.
package podganginit

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/metrics"
)

// Complete reports whether every pod group of pg references at least as many
// pods as its PodClique wants. replicasOf gives a group's PodClique replicas,
// and false when that PodClique does not exist or is being deleted.
func Complete(pg *groveschedulerv1alpha1.PodGang, replicasOf func(pclqName string) (int32, bool)) bool {
	for _, g := range pg.Spec.PodGroups {
		replicas, ok := replicasOf(g.Name)
		if !ok || int32(len(g.PodReferences)) < replicas {
			return false
		}
	}
	return true
}

// IsTrue reports whether pg's Initialized condition is True.
func IsTrue(pg *groveschedulerv1alpha1.PodGang) bool {
	return meta.IsStatusConditionTrue(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
}

// Messages of the Initialized condition.
const (
	messagePending   = "Waiting for all pods of the PodGang to be created"
	messageRecreated = "Waiting for all pods of the PodGang to be created again: it references no pod"
	messageDone      = "PodGang is fully initialized"
)

// referencesNoPod reports whether no pod group of pg references a pod.
func referencesNoPod(pg *groveschedulerv1alpha1.PodGang) bool {
	for _, g := range pg.Spec.PodGroups {
		if len(g.PodReferences) > 0 {
			return false
		}
	}
	return true
}

// Write sets pg's Initialized condition (and the phase Pending while the
// scheduler has set none) when it is missing, or when it turns True. True is
// taken back only from a gang that references no pod any more: every
// PodClique of it was deleted and released its group's references (a
// Coherent update replacing the gang, gang termination), so nothing is left
// that the scheduler could act on, and the gang reads as waiting for its
// pods, as a new one does, until the new ones are all referenced. A gang
// that still references a pod keeps True through the churn of single pods.
// The patch carries pg's resourceVersion, so it never overwrites conditions
// the scheduler wrote meanwhile: a conflict is returned to the caller. It
// reports whether it wrote.
func Write(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, initialized bool) (bool, error) {
	cond := metav1.Condition{
		Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized, Status: metav1.ConditionFalse,
		Reason: groveschedulerv1alpha1.PodGangReasonPodsCreationPending, Message: messagePending,
	}
	if initialized {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonPodsCreated, messageDone
	}
	current := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
	recreate := current != nil && current.Status == metav1.ConditionTrue && !initialized && len(pg.Spec.PodGroups) > 0 && referencesNoPod(pg)
	if recreate {
		cond.Message = messageRecreated
	} else if current != nil && (current.Status == metav1.ConditionTrue || current.Status == cond.Status && pg.Status.Phase != "") {
		return false, nil
	}
	// The new status is built on a copy: pg may share its condition list
	// with the informer cache.
	old := pg.Status
	st := old.DeepCopy()
	if st.Phase == "" {
		st.Phase = groveschedulerv1alpha1.PodGangPhasePending
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	pg.Status = *st
	if err := c.Status().Patch(ctx, pg, common.StatusMergeFrom(pg.ResourceVersion, &old, podGangStatus)); err != nil {
		// pg stays what the caller passed: a condition that was not written
		// must not read as set.
		pg.Status = old
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if initialized && (current == nil || current.Message != messageRecreated) {
		// The time from creation: a gang initialized again after its pods
		// were replaced is not counted.
		metrics.PodGangInitializationSeconds.Observe(time.Since(pg.CreationTimestamp.Time).Seconds())
	}
	return true, nil
}

func podGangStatus(pg *groveschedulerv1alpha1.PodGang) any { return &pg.Status }
