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
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=pcsg
// +kubebuilder:printcolumn:name="MinAvail",type=integer,JSONPath=`.spec.minAvailable`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduledReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="PCLQs-Updated",type=integer,JSONPath=`.status.updateProgress.updatedPodCliquesCount`
// +kubebuilder:printcolumn:name="PCLQs-Total",type=integer,JSONPath=`.status.updateProgress.totalPodCliquesCount`
// +kubebuilder:printcolumn:name="MinBreached",type=string,JSONPath=`.status.conditions[?(@.type=="MinAvailableBreached")].status`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodCliqueScalingGroup is a set of PodCliques that scale together as one
// multi-node unit, for example a leader and its workers. Each replica of the
// group is one PodClique per member clique, named <group>-<replica>-<clique>.
type PodCliqueScalingGroup struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state of the PodCliqueScalingGroup.
	Spec PodCliqueScalingGroupSpec `json:"spec"`
	// Status is the observed state of the PodCliqueScalingGroup.
	// +optional
	Status PodCliqueScalingGroupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodCliqueScalingGroupList is a list of PodCliqueScalingGroups.
type PodCliqueScalingGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the PodCliqueScalingGroups.
	Items []PodCliqueScalingGroup `json:"items"`
}

// PodCliqueScalingGroupSpec is the desired state of a PodCliqueScalingGroup.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || self.minAvailable <= self.replicas",message="minAvailable must be less than or equal to replicas",fieldPath=".minAvailable"
type PodCliqueScalingGroupSpec struct {
	// Replicas is the number of group replicas.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// MinAvailable is the number of group replicas that belong to the base gang
	// of their PodCliqueSet replica. Immutable.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// CliqueNames are the template clique names that form one group replica.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	CliqueNames []string `json:"cliqueNames"`
	// RollingUpdate is the group's budget during a RollingRecreate update:
	// maxUnavailable counts whole group replicas. Copied from the
	// PodCliqueSet's scaling-group config.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`
}

// PodCliqueScalingGroupStatus is the observed state of a PodCliqueScalingGroup.
type PodCliqueScalingGroupStatus struct {
	// Replicas is the number of group replicas (mirrors spec.replicas for /scale).
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// ScheduledReplicas is the number of replicas whose PodCliques all have at
	// least minAvailable pods scheduled.
	// +optional
	ScheduledReplicas int32 `json:"scheduledReplicas,omitempty"`
	// AvailableReplicas is the number of replicas whose PodCliques all have at
	// least minAvailable pods ready.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// UpdatedReplicas is the number of replicas running the current template.
	// +kubebuilder:default=0
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// Selector is the label selector of this group's pods, published for /scale.
	// +optional
	Selector *string `json:"selector,omitempty"`
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// LastOperation is the last operation the controller ran.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// LastErrors are the errors of the last operation, if it failed.
	// +optional
	LastErrors []LastError `json:"lastErrors,omitempty"`
	// Conditions describe the state of the group: MinAvailableBreached and GangTerminationInProgress.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// CurrentPodCliqueSetGenerationHash is the PodCliqueSet generation hash the group converged to.
	// +optional
	CurrentPodCliqueSetGenerationHash *string `json:"currentPodCliqueSetGenerationHash,omitempty"`
	// UpdateProgress tracks a rolling update of this group.
	// +optional
	UpdateProgress *PodCliqueScalingGroupUpdateProgress `json:"updateProgress,omitempty"`
}

// PodCliqueScalingGroupUpdateProgress tracks a rolling update of a
// PodCliqueScalingGroup. The counts are written also when zero, so kubectl
// get prints 0 rather than nothing.
type PodCliqueScalingGroupUpdateProgress struct {
	// UpdateStartedAt is when the update started.
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// UpdateEndedAt is when the update ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// PodCliqueSetGenerationHash is the generation hash being rolled out.
	PodCliqueSetGenerationHash string `json:"podCliqueSetGenerationHash"`
	// LastProgressTime is when the update last made progress: a member
	// PodClique converged to the new template or a replica became available.
	// progressDeadline counts from it.
	// +optional
	LastProgressTime *metav1.Time `json:"lastProgressTime,omitempty"`
	// UpdatedPodCliquesCount is the number of member PodCliques already updated.
	// +optional
	UpdatedPodCliquesCount int32 `json:"updatedPodCliquesCount"`
	// TotalPodCliquesCount is the number of member PodCliques.
	// +optional
	TotalPodCliquesCount int32 `json:"totalPodCliquesCount"`
	// ReadyReplicaIndicesSelectedToUpdate tracks which ready replicas were replaced.
	// +optional
	ReadyReplicaIndicesSelectedToUpdate *PodCliqueScalingGroupReplicaRollingUpdateProgress `json:"readyReplicaIndicesSelectedToUpdate,omitempty"`
}

// PodCliqueScalingGroupReplicaRollingUpdateProgress tracks ready group replicas replaced one at a time.
type PodCliqueScalingGroupReplicaRollingUpdateProgress struct {
	// Current is the replica index being replaced.
	Current int32 `json:"current"`
	// Completed are the replica indices already replaced.
	// +optional
	Completed []int32 `json:"completed,omitempty"`
}
