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
	fwk "k8s.io/kube-scheduler/framework"

	schedv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// PodGangResource is the event resource kube-scheduler watches PodGangs
// through, with its dynamic informers ("<plural>.<version>.<group>").
var PodGangResource = fwk.EventResource("podgangs." + schedv1alpha1.SchemeGroupVersion.Version + "." + schedv1alpha1.GroupName)

// EventsToRegister requeues gang pods when what blocked them may have changed:
// their PodGang appears or changes, capacity is freed, or nodes change.
func (m *Manager) EventsToRegister() []fwk.ClusterEventWithHint {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: PodGangResource, ActionType: fwk.Add | fwk.Update}},
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.Delete}},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}},
	}
}
