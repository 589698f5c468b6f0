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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.hpaPodSelector
// +kubebuilder:resource:shortName=pclq
// +kubebuilder:printcolumn:name="MinAvail",type=integer,JSONPath=`.spec.minAvailable`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduledReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Gated",type=integer,JSONPath=`.status.scheduleGatedReplicas`,priority=1
// +kubebuilder:printcolumn:name="MinBreached",type=string,JSONPath=`.status.conditions[?(@.type=="MinAvailableBreached")].status`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodClique is a group of identical pods that play one role, for example the
// prefill workers of one model instance. Grove creates PodCliques from a
// PodCliqueSet; users scale them through /scale.
type PodClique struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state of the PodClique.
	Spec PodCliqueSpec `json:"spec"`
	// Status is the observed state of the PodClique.
	// +optional
	Status PodCliqueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodCliqueList is a list of PodCliques.
type PodCliqueList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the PodCliques.
	Items []PodClique `json:"items"`
}

// PodCliqueSpec is the desired state of a PodClique, and of the cliques in a
// PodCliqueSet template.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || self.minAvailable <= self.replicas",message="minAvailable must be less than or equal to replicas",fieldPath=".minAvailable"
type PodCliqueSpec struct {
	// RoleName is the role the pods play (for example "prefill"). It must be
	// unique within a PodCliqueSet. Defaults to the clique name. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	RoleName string `json:"roleName,omitempty"`
	// PodSpec is the specification of every pod of the clique.
	PodSpec corev1.PodSpec `json:"podSpec"`
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// MinAvailable is the number of pods that must be scheduled together (the
	// clique's share of the gang) and that must stay ready; below it the clique
	// counts as breached. Defaults to replicas. Immutable.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// StartsAfter names the cliques this clique starts after. In a PodCliqueSet
	// template these are clique names and apply with CliqueStartupTypeExplicit;
	// on a PodClique they are the resolved PodClique names. Immutable.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	StartsAfter []string `json:"startsAfter,omitempty"`
	// AutoScalingConfig creates a HorizontalPodAutoscaler for each PodClique
	// of this clique. Not allowed for members of a scaling group.
	// +optional
	AutoScalingConfig *AutoScalingConfig `json:"autoScalingConfig,omitempty"`
	// RollingUpdate is the clique's budget during a RollingRecreate update:
	// maxUnavailable counts its pods. Mutable; not part of the pod template,
	// so changing it replaces no pod.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`
}

// PodCliqueStatus is the observed state of a PodClique.
type PodCliqueStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// LastOperation is the last operation the controller ran.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// LastErrors are the errors of the last operation, if it failed.
	// +optional
	LastErrors []LastError `json:"lastErrors,omitempty"`
	// Replicas is the number of non-terminating pods.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// ReadyReplicas is the number of pods with Ready=True.
	// +kubebuilder:default=0
	ReadyReplicas int32 `json:"readyReplicas"`
	// UpdatedReplicas is the number of pods built from the current template.
	// +kubebuilder:default=0
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// ScheduleGatedReplicas is the number of pods still held by a scheduling gate.
	// +kubebuilder:default=0
	ScheduleGatedReplicas int32 `json:"scheduleGatedReplicas"`
	// ScheduledReplicas is the number of pods bound to a node.
	// +kubebuilder:default=0
	ScheduledReplicas int32 `json:"scheduledReplicas"`
	// HPAPodSelector is the label selector of this clique's pods, published for
	// /scale. Not set for members of a scaling group, which scale through it.
	// +optional
	HPAPodSelector string `json:"hpaPodSelector,omitempty"`
	// Conditions describe the state of the PodClique: PodCliqueScheduled and MinAvailableBreached.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// CurrentPodCliqueSetGenerationHash is the PodCliqueSet generation hash the pods converged to.
	// +optional
	CurrentPodCliqueSetGenerationHash *string `json:"currentPodCliqueSetGenerationHash,omitempty"`
	// CurrentPodTemplateHash is the pod template hash the pods converged to.
	// +optional
	CurrentPodTemplateHash *string `json:"currentPodTemplateHash,omitempty"`
	// UpdateProgress tracks a rolling update of this clique.
	// +optional
	UpdateProgress *PodCliqueUpdateProgress `json:"updateProgress,omitempty"`
}

// PodCliqueUpdateProgress tracks a rolling update of a PodClique.
type PodCliqueUpdateProgress struct {
	// UpdateStartedAt is when the update started.
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// UpdateEndedAt is when the update ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// PodCliqueSetGenerationHash is the generation hash being rolled out.
	PodCliqueSetGenerationHash string `json:"podCliqueSetGenerationHash"`
	// PodTemplateHash is the pod template hash being rolled out.
	PodTemplateHash string `json:"podTemplateHash"`
	// LastProgressTime is when the update last made progress: a pod of the
	// new template was created or became ready. progressDeadline counts from it.
	// +optional
	LastProgressTime *metav1.Time `json:"lastProgressTime,omitempty"`
	// ReadyPodsSelectedToUpdate tracks which ready pods were replaced.
	// +optional
	ReadyPodsSelectedToUpdate *PodsSelectedToUpdate `json:"readyPodsSelectedToUpdate,omitempty"`
}

// PodsSelectedToUpdate tracks the ready pods replaced one at a time.
type PodsSelectedToUpdate struct {
	// Current is the pod being replaced.
	Current string `json:"current"`
	// Completed are the pods already replaced.
	// +optional
	Completed []string `json:"completed,omitempty"`
}
