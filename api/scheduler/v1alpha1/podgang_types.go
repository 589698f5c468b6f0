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
)

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pg,categories=grove
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Where the gang stands: Pending, Starting (minimum set bound) or Running (minimum set ready)."
// +kubebuilder:printcolumn:name="Scheduled",type=string,JSONPath=`.status.conditions[?(@.type=="Scheduled")].reason`,description="The reason of the Scheduled condition: why the gang is or is not placed."
// +kubebuilder:printcolumn:name="MinPods",type=integer,JSONPath=`.status.minimumPods`,description="Pods the gang needs placed together: the sum of its pod groups' minReplicas."
// +kubebuilder:printcolumn:name="Bound",type=integer,JSONPath=`.status.boundPods`,description="Referenced pods bound to a node."
// +kubebuilder:printcolumn:name="Score",type=number,JSONPath=`.status.placementScore`,description="Share of the bound pods in the most common domain of the gang's pack key (1 = packed)."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since the PodGang was created."

// PodGang is a set of pods that must be scheduled together: every pod group
// gets at least minReplicas of its referenced pods placed at once, or none of
// the gang is placed. Grove's operator writes the spec; the scheduler owns the
// status.
type PodGang struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the gang the scheduler must place.
	// +required
	Spec PodGangSpec `json:"spec"`
	// status is the scheduler's view of the gang.
	// +optional
	Status PodGangStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodGangList is a list of PodGangs.
type PodGangList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the PodGangs.
	Items []PodGang `json:"items"`
}

// PodGangSpec is the gang the scheduler must place.
type PodGangSpec struct {
	// podgroups are the groups of the gang, one per PodClique.
	// +listType=map
	// +listMapKey=name
	// +required
	PodGroups []PodGroup `json:"podgroups"`
	// topologyConstraint packs the whole gang. Its values are node label keys.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// topologyConstraintGroupConfigs pack strict subsets of the pod groups, for
	// example the PodCliques of one scaling-group replica inside a base gang.
	// +optional
	// +listType=map
	// +listMapKey=name
	TopologyConstraintGroupConfigs []TopologyConstraintGroupConfig `json:"topologyConstraintGroupConfigs,omitempty"`
	// priorityClassName is the gang's priority. The scheduler orders gangs by it
	// and may preempt whole lower-priority gangs for it.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// basePodGang is set on a scaled PodGang: it names the base PodGang of the
	// same PodCliqueSet replica and carries the PodCliqueSet-level constraint
	// the two share. The scheduler places this gang in the domain (of the
	// required key) that the base PodGang's placed pods hold, and waits while
	// that domain has no room or the base PodGang holds none; a preferred key
	// tries the base PodGang's domain first.
	// +optional
	BasePodGang *BasePodGangReference `json:"basePodGang,omitempty"`
}

// BasePodGangReference ties a scaled PodGang to the base PodGang of its
// PodCliqueSet replica.
type BasePodGangReference struct {
	// name is the base PodGang's name, in the scaled PodGang's namespace.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`
	// topologyConstraint is the PodCliqueSet-level constraint, as node label
	// keys; empty when the PodCliqueSet has none.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// PodGroup is one group of a gang: the pods of one PodClique.
type PodGroup struct {
	// name is the group's name (the PodClique's name).
	// +required
	Name string `json:"name"`
	// podReferences are the pods of the group. The API server fills in an
	// empty list when a write leaves them out (the operator's server-side
	// apply of the other fields of a group, before the group's PodClique
	// has written them).
	// +listType=atomic
	// +default=[]
	// +required
	PodReferences []NamespacedName `json:"podReferences"`
	// minReplicas is how many referenced pods must be placed together with the
	// rest of the gang. Pods beyond it are placed best effort.
	// +kubebuilder:validation:Minimum=0
	// +required
	MinReplicas int32 `json:"minReplicas"`
	// topologyConstraint packs the pods of this group.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// NamespacedName names an object.
type NamespacedName struct {
	// namespace is the object's namespace.
	// +required
	Namespace string `json:"namespace"`
	// name is the object's name.
	// +required
	Name string `json:"name"`
}

// TopologyConstraint packs pods into one topology domain.
type TopologyConstraint struct {
	// packConstraint names the node label keys to pack by.
	// +optional
	PackConstraint *TopologyPackConstraint `json:"packConstraint,omitempty"`
}

// TopologyPackConstraint names node label keys: pods are placed on nodes that
// share the label's value.
type TopologyPackConstraint struct {
	// required is a node label key all pods must share a value of.
	// +optional
	Required *string `json:"required,omitempty"`
	// preferred is a node label key pods should share a value of.
	// +optional
	Preferred *string `json:"preferred,omitempty"`
}

// TopologyConstraintGroupConfig packs a subset of a gang's pod groups.
type TopologyConstraintGroupConfig struct {
	// name identifies the subset.
	// +required
	Name string `json:"name"`
	// podGroupNames are the pod groups in the subset.
	// +listType=atomic
	// +required
	PodGroupNames []string `json:"podGroupNames"`
	// topologyConstraint packs the subset.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// PodGangPhase is where a gang stands in scheduling. The scheduler that owns
// the gang (grove-scheduler, or the operator for the other backends) writes it.
// +kubebuilder:validation:Enum=Pending;Starting;Running
type PodGangPhase string

const (
	// PodGangPhasePending means the gang's minimum set is not placed yet.
	PodGangPhasePending PodGangPhase = "Pending"
	// PodGangPhaseStarting means the minimum set is bound and not yet ready.
	PodGangPhaseStarting PodGangPhase = "Starting"
	// PodGangPhaseRunning means the minimum set is bound and ready.
	PodGangPhaseRunning PodGangPhase = "Running"
)

// PodGang condition types.
const (
	// PodGangConditionTypeScheduled is True once the gang's minimum set is
	// bound; while False its reason and message say why the gang waits.
	PodGangConditionTypeScheduled = "Scheduled"
	// PodGangConditionTypeReady is True once the gang's minimum set is ready.
	PodGangConditionTypeReady = "Ready"
	// PodGangConditionTypeInitialized is True once all pods of the gang exist
	// and are referenced. The operator writes it.
	PodGangConditionTypeInitialized = "Initialized"
)

// Reasons of the Initialized condition, written by the operator.
const (
	// PodGangReasonPodsCreationPending goes with Initialized=False.
	PodGangReasonPodsCreationPending = "PodGangPodsCreationPending"
	// PodGangReasonPodsCreated goes with Initialized=True.
	PodGangReasonPodsCreated = "PodGangPodsCreated"
)

// Reasons of the Scheduled and Ready conditions, written by grove-scheduler
// or, for the other scheduler backends, by the operator. A backend that
// reports its own scheduler's state (a PodGroup's phase, say) may write
// further reasons, named after that state.
const (
	// PodGangReasonMinimumSetScheduled goes with Scheduled=True: every pod
	// group has minReplicas pods bound.
	PodGangReasonMinimumSetScheduled = "MinimumSetScheduled"
	// PodGangReasonUnschedulable goes with Scheduled=False: the last attempt
	// found the gang does not fit; the message says, per constraint, how many
	// nodes it excluded.
	PodGangReasonUnschedulable = "Unschedulable"
	// PodGangReasonWaitingForMinimumSet goes with Scheduled=False: some pods
	// hold their nodes at Permit while the rest of the minimum set is scheduled.
	PodGangReasonWaitingForMinimumSet = "WaitingForMinimumSet"
	// PodGangReasonSchedulingPending goes with Scheduled=False: no attempt
	// has finished yet.
	PodGangReasonSchedulingPending = "SchedulingPending"
	// PodGangReasonBackendUnavailable goes with Scheduled=False: the cluster
	// does not serve a kind the gang's scheduler backend writes.
	PodGangReasonBackendUnavailable = "BackendUnavailable"
	// PodGangReasonBackendMappingFailed goes with Scheduled=False: the
	// backend's API cannot express the gang.
	PodGangReasonBackendMappingFailed = "BackendMappingFailed"
	// PodGangReasonMinimumSetReady goes with Ready=True: every pod group has
	// minReplicas Ready pods.
	PodGangReasonMinimumSetReady = "MinimumSetReady"
	// PodGangReasonMinimumSetNotReady goes with Ready=False: some pod group
	// has fewer than minReplicas Ready pods.
	PodGangReasonMinimumSetNotReady = "MinimumSetNotReady"
)

// PodGangStatus is the scheduler's view of a gang.
type PodGangStatus struct {
	// conditions describe the gang: Initialized (written by the operator),
	// Scheduled and Ready (written by the scheduler).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// phase is where the gang stands.
	// +default="Pending"
	// +required
	Phase PodGangPhase `json:"phase"`
	// placementScore is the share of the bound pods inside the most common
	// domain of the gang's pack key (preferred, else required): 1 when packed
	// into one domain or when the gang has no key. Set once the minimum set
	// is bound.
	// +optional
	PlacementScore *float64 `json:"placementScore,omitempty"`
	// minimumPods is how many pods the gang needs placed together: the sum of
	// its pod groups' minReplicas.
	// +optional
	MinimumPods int32 `json:"minimumPods"`
	// boundPods is how many of the gang's referenced pods are bound to a node.
	// +optional
	BoundPods int32 `json:"boundPods"`
}
