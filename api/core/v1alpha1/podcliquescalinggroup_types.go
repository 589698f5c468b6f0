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
// +kubebuilder:resource:shortName=pcsg,categories=grove
// +kubebuilder:printcolumn:name="MinAvail",type=integer,JSONPath=`.spec.minAvailable`,description="Group replicas that must be available for the group to count as available."
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`,description="Desired group replicas."
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`,description="Group replicas whose PodCliques all have minAvailable ready pods."
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduledReplicas`,description="Group replicas whose PodCliques all have minAvailable pods scheduled."
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`,description="Group replicas of the current template."
// +kubebuilder:printcolumn:name="PCLQs-Updated",type=integer,JSONPath=`.status.updateProgress.updatedPodCliquesCount`,description="PodCliques on the current template during the last update."
// +kubebuilder:printcolumn:name="PCLQs-Total",type=integer,JSONPath=`.status.updateProgress.totalPodCliquesCount`,description="PodCliques the last update covers."
// +kubebuilder:printcolumn:name="MinBreached",type=string,JSONPath=`.status.conditions[?(@.type=="MinAvailableBreached")].status`,priority=1,description="The MinAvailableBreached condition: True when fewer than minAvailable group replicas are available."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since the PodCliqueScalingGroup was created."

// PodCliqueScalingGroup is a set of PodCliques that scale together as one
// multi-node unit, for example a leader and its workers. Each replica of the
// group is one PodClique per member clique, named <group>-<replica>-<clique>.
type PodCliqueScalingGroup struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the PodCliqueScalingGroup.
	// +required
	Spec PodCliqueScalingGroupSpec `json:"spec"`
	// status is the observed state of the PodCliqueScalingGroup.
	// +optional
	Status PodCliqueScalingGroupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodCliqueScalingGroupList is a list of PodCliqueScalingGroups.
type PodCliqueScalingGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the PodCliqueScalingGroups.
	Items []PodCliqueScalingGroup `json:"items"`
}

// PodCliqueScalingGroupSpec is the desired state of a PodCliqueScalingGroup.
// +kubebuilder:validation:XValidation:rule="self.replicas == 0 || !has(self.minAvailable) || self.replicas >= self.minAvailable",message="replicas must be 0 or greater than or equal to minAvailable",fieldPath=".replicas"
type PodCliqueScalingGroupSpec struct {
	// replicas is the number of group replicas. A scaling group may be scaled
	// to 0 (parked) and back; otherwise it must be at least minAvailable.
	// At most 150000.
	// +default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=150000
	// +required
	Replicas int32 `json:"replicas"`
	// minAvailable is the number of group replicas that belong to the base gang
	// of their PodCliqueSet replica. Immutable.
	// +optional
	// +default=1
	// +kubebuilder:validation:Minimum=1
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// cliqueNames are the template clique names that form one group replica.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	// +required
	CliqueNames []string `json:"cliqueNames"`
	// rollingUpdate is the group's budget during a RollingRecreate update:
	// maxUnavailable counts whole group replicas. Copied from the
	// PodCliqueSet's scaling-group config.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`
}

// PodCliqueScalingGroupStatus is the observed state of a PodCliqueScalingGroup.
type PodCliqueScalingGroupStatus struct {
	// conditions describe the state of the group: MinAvailableBreached and GangTerminationInProgress.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// replicas is the number of group replicas (mirrors spec.replicas for /scale).
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// scheduledReplicas is the number of replicas whose PodCliques all have at
	// least minAvailable pods scheduled.
	// +optional
	ScheduledReplicas int32 `json:"scheduledReplicas,omitempty"`
	// availableReplicas is the number of replicas whose PodCliques all have at
	// least minAvailable pods ready.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// updatedReplicas is the number of replicas running the current template.
	// +default=0
	// +required
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// selector is the label selector of this group's pods, published for /scale.
	// +optional
	Selector *string `json:"selector,omitempty"`
	// observedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// lastOperation is the last operation the controller ran.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// lastErrors are the errors of the last operation, if it failed.
	// +optional
	// +listType=atomic
	LastErrors []LastError `json:"lastErrors,omitempty"`
	// currentPodCliqueSetGenerationHash is the PodCliqueSet generation hash the group converged to.
	// +optional
	CurrentPodCliqueSetGenerationHash *string `json:"currentPodCliqueSetGenerationHash,omitempty"`
	// updateProgress tracks a rolling update of this group.
	// +optional
	UpdateProgress *PodCliqueScalingGroupUpdateProgress `json:"updateProgress,omitempty"`
}

// PodCliqueScalingGroupUpdateProgress tracks a rolling update of a
// PodCliqueScalingGroup. The counts are written also when zero, so kubectl
// get prints 0 rather than nothing.
type PodCliqueScalingGroupUpdateProgress struct {
	// updateStartedAt is when the update started.
	// +required
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// updateEndedAt is when the update ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// podCliqueSetGenerationHash is the generation hash being rolled out.
	// +required
	PodCliqueSetGenerationHash string `json:"podCliqueSetGenerationHash"`
	// lastProgressTime is when the update last made progress: a member
	// PodClique converged to the new template or a replica became available.
	// progressDeadline counts from it.
	// +optional
	LastProgressTime *metav1.Time `json:"lastProgressTime,omitempty"`
	// updatedPodCliquesCount is the number of member PodCliques already updated.
	// +optional
	UpdatedPodCliquesCount int32 `json:"updatedPodCliquesCount"`
	// totalPodCliquesCount is the number of member PodCliques.
	// +optional
	TotalPodCliquesCount int32 `json:"totalPodCliquesCount"`
	// readyReplicaIndicesSelectedToUpdate tracks which ready replicas were replaced.
	// +optional
	ReadyReplicaIndicesSelectedToUpdate *PodCliqueScalingGroupReplicaRollingUpdateProgress `json:"readyReplicaIndicesSelectedToUpdate,omitempty"`
}

// PodCliqueScalingGroupReplicaRollingUpdateProgress tracks ready group replicas replaced one at a time.
type PodCliqueScalingGroupReplicaRollingUpdateProgress struct {
	// current is the replica index being replaced.
	// +required
	Current int32 `json:"current"`
	// completed are the replica indices already replaced.
	// +optional
	// +listType=atomic
	Completed []int32 `json:"completed,omitempty"`
}
