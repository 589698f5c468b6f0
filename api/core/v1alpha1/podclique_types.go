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
// +kubebuilder:resource:shortName=pclq,categories=grove
// +kubebuilder:printcolumn:name="MinAvail",type=integer,JSONPath=`.spec.minAvailable`,description="Pods that must be ready for the PodClique to count as available."
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`,description="Desired pods."
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`,description="Pods with Ready=True."
// +kubebuilder:printcolumn:name="Scheduled",type=integer,JSONPath=`.status.scheduledReplicas`,description="Pods bound to a node."
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`,description="Pods of the current pod template."
// +kubebuilder:printcolumn:name="Gated",type=integer,JSONPath=`.status.scheduleGatedReplicas`,priority=1,description="Pods still held by a scheduling gate."
// +kubebuilder:printcolumn:name="MinBreached",type=string,JSONPath=`.status.conditions[?(@.type=="MinAvailableBreached")].status`,priority=1,description="The MinAvailableBreached condition: True when fewer than minAvailable pods are scheduled or ready."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since the PodClique was created."

// PodClique is a group of identical pods that play one role, for example the
// prefill workers of one model instance. Grove creates PodCliques from a
// PodCliqueSet; users scale them through /scale.
type PodClique struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the PodClique.
	// +required
	Spec PodCliqueSpec `json:"spec"`
	// status is the observed state of the PodClique.
	// +optional
	Status PodCliqueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodCliqueList is a list of PodCliques.
type PodCliqueList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the PodCliques.
	Items []PodClique `json:"items"`
}

// PodCliqueSpec is the desired state of a PodClique, and of the cliques in a
// PodCliqueSet template.
// +kubebuilder:validation:XValidation:rule="self.replicas == 0 || !has(self.minAvailable) || self.replicas >= self.minAvailable",message="replicas must be 0 or greater than or equal to minAvailable",fieldPath=".replicas"
type PodCliqueSpec struct {
	// roleName is the role the pods play (for example "prefill"). It must be
	// unique within a PodCliqueSet. Defaults to the clique name. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	RoleName string `json:"roleName,omitempty"`
	// podSpec is the specification of every pod of the clique.
	// +required
	PodSpec corev1.PodSpec `json:"podSpec"`
	// replicas is the number of pods. A PodClique may be scaled to 0 (parked)
	// and back; otherwise it must be at least minAvailable. In a clique
	// template of a PodCliqueSet the defaulting webhook turns 0, or a
	// template without replicas, into 1. At most 150000.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=150000
	// +required
	Replicas int32 `json:"replicas"`
	// minAvailable is the number of pods that must be scheduled together (the
	// clique's share of the gang) and that must stay ready; below it the clique
	// counts as breached. Defaults to replicas. Immutable.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// startsAfter names the cliques this clique starts after. In a PodCliqueSet
	// template these are clique names and apply with CliqueStartupTypeExplicit;
	// on a PodClique they are the resolved PodClique names. Immutable.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	StartsAfter []string `json:"startsAfter,omitempty"`
	// autoScalingConfig creates a HorizontalPodAutoscaler for each PodClique
	// of this clique. Not allowed for members of a scaling group.
	// +optional
	AutoScalingConfig *AutoScalingConfig `json:"autoScalingConfig,omitempty"`
	// rollingUpdate is the clique's budget during a RollingRecreate update:
	// maxUnavailable counts its pods. Mutable; not part of the pod template,
	// so changing it replaces no pod.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`
}

// PodCliqueStatus is the observed state of a PodClique.
type PodCliqueStatus struct {
	// conditions describe the state of the PodClique: PodCliqueScheduled and MinAvailableBreached.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
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
	// replicas is the number of non-terminating pods.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// readyReplicas is the number of pods with Ready=True.
	// +default=0
	// +required
	ReadyReplicas int32 `json:"readyReplicas"`
	// updatedReplicas is the number of pods built from the current template.
	// +default=0
	// +required
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// scheduleGatedReplicas is the number of pods still held by a scheduling gate.
	// +default=0
	// +required
	ScheduleGatedReplicas int32 `json:"scheduleGatedReplicas"`
	// scheduledReplicas is the number of pods bound to a node.
	// +default=0
	// +required
	ScheduledReplicas int32 `json:"scheduledReplicas"`
	// wasScheduled is true once minAvailable pods of the PodClique have been
	// scheduled at the same time. Gang termination acts only on PodCliques that
	// were scheduled, so a clique that never got capacity (or was just
	// recreated) is never recreated again. It resets when the PodClique is
	// scaled to zero.
	// +optional
	WasScheduled bool `json:"wasScheduled,omitempty"`
	// hpaPodSelector is the label selector of this clique's pods, published for
	// /scale. Not set for members of a scaling group, which scale through it.
	// +optional
	HPAPodSelector string `json:"hpaPodSelector,omitempty"`
	// currentPodCliqueSetGenerationHash is the PodCliqueSet generation hash the pods converged to.
	// +optional
	CurrentPodCliqueSetGenerationHash *string `json:"currentPodCliqueSetGenerationHash,omitempty"`
	// currentPodTemplateHash is the pod template hash the pods converged to.
	// +optional
	CurrentPodTemplateHash *string `json:"currentPodTemplateHash,omitempty"`
	// updateProgress tracks a rolling update of this clique.
	// +optional
	UpdateProgress *PodCliqueUpdateProgress `json:"updateProgress,omitempty"`
}

// PodCliqueUpdateProgress tracks a rolling update of a PodClique.
type PodCliqueUpdateProgress struct {
	// updateStartedAt is when the update started.
	// +required
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// updateEndedAt is when the update ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// podCliqueSetGenerationHash is the generation hash being rolled out.
	// +required
	PodCliqueSetGenerationHash string `json:"podCliqueSetGenerationHash"`
	// podTemplateHash is the pod template hash being rolled out.
	// +required
	PodTemplateHash string `json:"podTemplateHash"`
	// lastProgressTime is when the update last made progress: a pod of the
	// new template was created or became ready. progressDeadline counts from it.
	// +optional
	LastProgressTime *metav1.Time `json:"lastProgressTime,omitempty"`
	// readyPodsSelectedToUpdate tracks which ready pods were replaced.
	// +optional
	ReadyPodsSelectedToUpdate *PodsSelectedToUpdate `json:"readyPodsSelectedToUpdate,omitempty"`
}

// PodsSelectedToUpdate tracks the ready pods replaced one at a time.
type PodsSelectedToUpdate struct {
	// current is the pod being replaced.
	// +required
	Current string `json:"current"`
	// completed are the pods already replaced.
	// +optional
	// +listType=atomic
	Completed []string `json:"completed,omitempty"`
}
