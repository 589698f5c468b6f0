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

package core

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"

	apicommon "github.com/grove-project/grove/api/common"
)

// GangKey returns "namespace/podgang" for a pod of a gang.
func GangKey(pod *corev1.Pod) (string, bool) {
	name, ok := pod.Labels[apicommon.LabelPodGang]
	if !ok || name == "" {
		return "", false
	}
	return pod.Namespace + "/" + name, true
}

// SortKey returns what QueueSort orders by: priority (gang priority for pods
// of a gang), the gang's creation time (ok=false means use the pod's own queue
// time) and a tie-breaking key that keeps a gang's pods adjacent.
func (m *Manager) SortKey(pod *corev1.Pod) (priority int32, created time.Time, group string, ok bool) {
	key, inGang := GangKey(pod)
	if !inGang {
		return corev1helpers.PodPriority(pod), time.Time{}, "", false
	}
	spec := m.spec(key)
	if spec == nil {
		return corev1helpers.PodPriority(pod), time.Time{}, key, false
	}
	return m.priorityOf(spec), spec.created, key, true
}

// PreEnqueue keeps a gang pod out of the active queue until its PodGang exists and references it.
//
// A pod that still has a scheduling gate passes: the SchedulingGates plugin
// holds it, and Grove lifts its gate only once the PodGang references the
// pod. kube-scheduler runs PreEnqueue plugins in no fixed order and wakes a
// held pod on the events of the plugin that held it; held here, every gated
// pod would be re-checked on every PodGang write in the cluster, held there
// only when its own gates change.
func (m *Manager) PreEnqueue(pod *corev1.Pod) *fwk.Status {
	m.queueReady.Store(true)
	key, ok := GangKey(pod)
	if !ok || len(pod.Spec.SchedulingGates) > 0 {
		return nil
	}
	spec := m.spec(key)
	if spec == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("PodGang %s does not exist yet", key))
	}
	if _, ok := spec.refIndex[pod.Name]; !ok {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("pod is not yet referenced by PodGang %s", key))
	}
	return nil
}
