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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
)

// podCounts are what a PodClique's status reports about its pods.
type podCounts struct {
	replicas, ready, scheduled, gated, updated int32
	// unhealthy are scheduled pods that are not healthy: a container started
	// but is not ready, or a container exited with an error.
	unhealthy int32
}

// countPods counts the active pods. Pods in lifted had their scheduling gate
// removed by this controller although the cache still shows it: they count
// as ungated, so the status is not written once with the gate and again when
// the cache catches up.
func countPods(pods []*corev1.Pod, templateHash string, lifted map[types.UID]bool) podCounts {
	var c podCounts
	for _, p := range pods {
		if !pod.IsActive(p) {
			continue
		}
		c.replicas++
		if pod.IsReady(p) {
			c.ready++
		}
		if len(p.Spec.SchedulingGates) > 0 && !lifted[p.UID] {
			c.gated++
		}
		if pod.IsScheduled(p) {
			c.scheduled++
			if !pod.IsReady(p) && unhealthy(p) {
				c.unhealthy++
			}
		}
		if templateHash != "" && p.Labels[apicommon.LabelPodTemplateHash] == templateHash {
			c.updated++
		}
	}
	return c
}

// unhealthy reports a pod whose containers started but are not ready, or
// that has a container which last exited with an error. A pod still starting
// (no container started yet) is not unhealthy: it may still become ready.
func unhealthy(p *corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 {
			return true
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return true
		}
		if cs.Started != nil && *cs.Started && !cs.Ready {
			return true
		}
	}
	return false
}

// minAvailable is the PodClique's minAvailable, defaulting to its replicas.
func minAvailable(pclq *grovecorev1alpha1.PodClique) int32 {
	if pclq.Spec.MinAvailable != nil {
		return *pclq.Spec.MinAvailable
	}
	return pclq.Spec.Replicas
}

// applyStatus writes the counts, selector and conditions into status.
func applyStatus(pclq *grovecorev1alpha1.PodClique, c podCounts) {
	st := &pclq.Status
	st.Replicas, st.ReadyReplicas, st.ScheduledReplicas = c.replicas, c.ready, c.scheduled
	st.ScheduleGatedReplicas, st.UpdatedReplicas = c.gated, c.updated
	st.ObservedGeneration = ptr.To(pclq.Generation)
	// Members of a scaling group scale through it and publish no selector.
	if pclq.Labels[apicommon.LabelPodCliqueScalingGroup] == "" {
		st.HPAPodSelector = apicommon.PodCliqueSelector(pclq.Labels[apicommon.LabelPartOfKey], pclq.Name)
	} else {
		st.HPAPodSelector = ""
	}

	if pclq.Spec.Replicas == 0 {
		setScaledToZero(pclq)
		return
	}
	minAvail := minAvailable(pclq)
	scheduled := metav1.Condition{Type: grovecorev1alpha1.ConditionTypePodCliqueScheduled, ObservedGeneration: pclq.Generation,
		Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonSufficientScheduledPods,
		Message: fmt.Sprintf("%d of %d pods scheduled, minAvailable %d", c.scheduled, pclq.Spec.Replicas, minAvail)}
	if c.scheduled < minAvail {
		scheduled.Status, scheduled.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonInsufficientScheduledPods
	}
	meta.SetStatusCondition(&st.Conditions, scheduled)

	breached := metav1.Condition{Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, ObservedGeneration: pclq.Generation}
	switch healthy := c.scheduled - c.unhealthy; {
	case c.scheduled < minAvail:
		breached.Status, breached.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable
		breached.Message = fmt.Sprintf("%d pods scheduled, fewer than minAvailable %d", c.scheduled, minAvail)
	case healthy < minAvail:
		breached.Status, breached.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonInsufficientReadyPods
		breached.Message = fmt.Sprintf("%d scheduled pods are healthy or still starting, fewer than minAvailable %d", healthy, minAvail)
	default:
		breached.Status, breached.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonSufficientReadyPods
		breached.Message = fmt.Sprintf("%d pods ready, %d scheduled, minAvailable %d", c.ready, c.scheduled, minAvail)
	}
	setMinAvailableBreached(st, breached, c.scheduled >= minAvail)
}
