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
	"k8s.io/apimachinery/pkg/util/intstr"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.hpaPodSelector
// +kubebuilder:resource:shortName=pcs,categories=grove
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="The Ready condition: True when every replica is available."
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`,description="Desired copies of the whole system."
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`,description="Replicas whose PodCliques and scaling groups all have minAvailable ready pods."
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`,priority=1,description="Available replicas that run the current template."
// +kubebuilder:printcolumn:name="PCLQs-Updated",type=integer,JSONPath=`.status.updateProgress.updatedPodCliquesCount`,priority=1,description="Standalone PodCliques on the current template during the last update."
// +kubebuilder:printcolumn:name="PCLQs-Total",type=integer,JSONPath=`.status.updateProgress.totalPodCliquesCount`,priority=1,description="Standalone PodCliques the last update covers."
// +kubebuilder:printcolumn:name="PCSGs-Updated",type=integer,JSONPath=`.status.updateProgress.updatedPodCliqueScalingGroupsCount`,priority=1,description="PodCliqueScalingGroups on the current template during the last update."
// +kubebuilder:printcolumn:name="PCSGs-Total",type=integer,JSONPath=`.status.updateProgress.totalPodCliqueScalingGroupsCount`,priority=1,description="PodCliqueScalingGroups the last update covers."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since the PodCliqueSet was created."

// PodCliqueSet describes a whole inference system (frontends, routers, prefill
// and decode engines, multi-node leader/worker instances) as one object.
// Grove creates spec.replicas copies of the system described by spec.template,
// each with its own PodCliques, PodCliqueScalingGroups, PodGangs and headless
// Service.
type PodCliqueSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the PodCliqueSet.
	// +required
	Spec PodCliqueSetSpec `json:"spec"`
	// status is the observed state of the PodCliqueSet.
	// +optional
	Status PodCliqueSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PodCliqueSetList is a list of PodCliqueSets.
type PodCliqueSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the PodCliqueSets.
	Items []PodCliqueSet `json:"items"`
}

// PodCliqueSetSpec is the desired state of a PodCliqueSet.
type PodCliqueSetSpec struct {
	// replicas is the number of copies of the whole system. Each copy gets its
	// own replica index (0, 1, …) that appears in the names of everything it owns.
	// At most 150000; the validating webhook also keeps the pods of all
	// replicas together, autoscaling maxima included, within 150000.
	// +optional
	// +default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=150000
	Replicas int32 `json:"replicas,omitempty"`
	// updateStrategy says how pods are replaced when the template changes.
	// +optional
	UpdateStrategy *PodCliqueSetUpdateStrategy `json:"updateStrategy,omitempty"`
	// template describes one copy of the system.
	// +required
	Template PodCliqueSetTemplateSpec `json:"template"`
}

// UpdateStrategyType names an update strategy.
// +kubebuilder:validation:Enum=Coherent;RollingRecreate;OnDelete
type UpdateStrategyType string

const (
	// CoherentStrategyType replaces whole PodCliqueSet replicas, at most
	// updateStrategy.maxUnavailable at a time: every gang of a replica that
	// holds a clique whose template changed is deleted with all its pods, and
	// its pods are created from the new templates only once the old ones are
	// gone, so no PodGang ever holds pods of two revisions and the cliques of
	// a replica (prefill and decode, say) switch together.
	CoherentStrategyType UpdateStrategyType = "Coherent"
	// RollingRecreateStrategyType replaces pods one PodCliqueSet replica at a time,
	// deleting old pods before their replacements are created.
	RollingRecreateStrategyType UpdateStrategyType = "RollingRecreate"
	// OnDeleteStrategyType records the new template and replaces a pod only when
	// the user deletes it.
	OnDeleteStrategyType UpdateStrategyType = "OnDelete"
)

// PodCliqueSetUpdateStrategy says how pods are replaced when the template changes.
// +kubebuilder:validation:XValidation:rule="self.type == 'Coherent' || (!has(self.maxUnavailable) && !has(self.progressDeadline))",message="maxUnavailable and progressDeadline apply to updateStrategy type Coherent only"
type PodCliqueSetUpdateStrategy struct {
	// type is the update strategy.
	// +optional
	// +default="RollingRecreate"
	Type UpdateStrategyType `json:"type,omitempty"`
	// maxUnavailable is how many PodCliqueSet replicas a Coherent update
	// replaces at once: a count (at least 1) or a percentage of replicas
	// ("25%"), rounded down but at least 1. Replicas that are already
	// unavailable count against it. Defaults to 1. Only with type Coherent.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",message="maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// progressDeadline is how long one replica's turn in a Coherent update
	// may take before Grove reports ProgressDeadlineExceeded (the
	// UpdateInProgress condition's reason and a warning event). The update
	// continues. Unset means no deadline. Only with type Coherent.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="progressDeadline must be greater than 0"
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`
}

// CliqueStartupType says in which order the cliques of a replica start.
// +kubebuilder:validation:Enum=CliqueStartupTypeAnyOrder;CliqueStartupTypeInOrder;CliqueStartupTypeExplicit
type CliqueStartupType string

const (
	// CliqueStartupTypeAnyOrder starts all cliques at once.
	CliqueStartupTypeAnyOrder CliqueStartupType = "CliqueStartupTypeAnyOrder"
	// CliqueStartupTypeInOrder starts each clique after the one listed before it.
	CliqueStartupTypeInOrder CliqueStartupType = "CliqueStartupTypeInOrder"
	// CliqueStartupTypeExplicit starts each clique after the cliques named in its startsAfter.
	CliqueStartupTypeExplicit CliqueStartupType = "CliqueStartupTypeExplicit"
)

// PodCliqueSetTemplateSpec describes one copy (replica) of the system.
// +kubebuilder:validation:XValidation:rule="!has(self.podCliqueScalingGroups) || self.podCliqueScalingGroups.all(g, g.cliqueNames.all(n, self.cliques.exists(c, c.name == n)))",message="every name in podCliqueScalingGroups[].cliqueNames must be a clique defined in cliques",fieldPath=".podCliqueScalingGroups"
// +kubebuilder:validation:XValidation:rule="!has(self.podCliqueScalingGroups) || self.cliques.all(c, self.podCliqueScalingGroups.filter(g, c.name in g.cliqueNames).size() <= 1)",message="a clique may belong to at most one scaling group",fieldPath=".podCliqueScalingGroups"
type PodCliqueSetTemplateSpec struct {
	// cliques are the roles of the system. Names must be unique.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +required
	Cliques []PodCliqueTemplateSpec `json:"cliques"`
	// cliqueStartupType says in which order cliques start. Immutable.
	// +optional
	// +default="CliqueStartupTypeAnyOrder"
	StartupType *CliqueStartupType `json:"cliqueStartupType,omitempty"`
	// priorityClassName is the priority of every PodGang of this PodCliqueSet.
	// The scheduler orders and preempts whole gangs by it.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// headlessServiceConfig configures the headless Service created per replica.
	// +optional
	HeadlessServiceConfig *HeadlessServiceConfig `json:"headlessServiceConfig,omitempty"`
	// topologyConstraint packs all pods of one replica into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// terminationDelay is how long a clique may stay below minAvailable before
	// Grove recreates the affected gang. Defaults to 4h.
	// +optional
	TerminationDelay *metav1.Duration `json:"terminationDelay,omitempty"`
	// podCliqueScalingGroups group cliques that scale together as one
	// multi-node unit (for example a leader and its workers).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	PodCliqueScalingGroupConfigs []PodCliqueScalingGroupConfig `json:"podCliqueScalingGroups,omitempty"`
	// resourceClaimTemplates are named ResourceClaim templates that
	// resourceSharing entries at every level can refer to. Immutable.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	ResourceClaimTemplates []ResourceClaimTemplateConfig `json:"resourceClaimTemplates,omitempty"`
	// resourceSharing makes ResourceClaims owned by the PodCliqueSet, one for
	// all replicas or one per replica, and adds them to the pods its filter
	// selects. Immutable.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ResourceSharing []PCSResourceSharingSpec `json:"resourceSharing,omitempty"`
}

// HeadlessServiceConfig configures the headless Service of a replica.
type HeadlessServiceConfig struct {
	// publishNotReadyAddresses publishes DNS records of pods before they are Ready,
	// so peers of a multi-node instance can find each other while starting.
	// +default=true
	// +required
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses"`
}

// PodCliqueTemplateSpec describes one clique (role) of the system.
type PodCliqueTemplateSpec struct {
	// name is the clique's name, unique within the PodCliqueSet. It appears in
	// the names of the PodCliques and pods created from it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// labels are added to the PodCliques and pods created from this template.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// annotations are added to the PodCliques and pods created from this template.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// topologyConstraint packs the pods of each PodClique of this template into one domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// resourceSharing makes ResourceClaims owned by each PodClique of this
	// template, one for the PodClique or one per pod index, and adds them to
	// its pods. Immutable.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ResourceSharing []ResourceSharingSpec `json:"resourceSharing,omitempty"`
	// spec is the specification of the PodCliques created from this template.
	// +required
	Spec PodCliqueSpec `json:"spec"`
}

// PodCliqueScalingGroupConfig groups cliques that scale together.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || !has(self.replicas) || self.minAvailable <= self.replicas",message="minAvailable must be less than or equal to replicas",fieldPath=".minAvailable"
type PodCliqueScalingGroupConfig struct {
	// name is the scaling group's name, unique within the PodCliqueSet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// cliqueNames are the cliques that form one replica of the group. Immutable.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +required
	CliqueNames []string `json:"cliqueNames"`
	// annotations are added to the PodCliqueScalingGroup objects.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// replicas is the initial number of replicas of the group in each
	// PodCliqueSet replica. At most 150000.
	// +optional
	// +default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=150000
	Replicas *int32 `json:"replicas,omitempty"`
	// minAvailable is the number of group replicas that must be scheduled
	// together with the standalone cliques (the base gang). Replicas beyond it
	// are scheduled as separate gangs. Immutable.
	// +optional
	// +default=1
	// +kubebuilder:validation:Minimum=1
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// scaleConfig creates a HorizontalPodAutoscaler for each PodCliqueScalingGroup.
	// +optional
	ScaleConfig *AutoScalingConfig `json:"scaleConfig,omitempty"`
	// topologyConstraint packs the pods of one group replica into one domain.
	// It must not be wider than the PodCliqueSet's constraint.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// rollingUpdate is the group's budget during a RollingRecreate update:
	// maxUnavailable counts whole group replicas (all PodCliques of one
	// replica are replaced together). Mutable.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`
	// resourceSharing makes ResourceClaims owned by each
	// PodCliqueScalingGroup, one for the group or one per group replica, and
	// adds them to the pods of the member cliques its filter selects. Immutable.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ResourceSharing []PCSGResourceSharingSpec `json:"resourceSharing,omitempty"`
}

// PodCliqueSetStatus is the observed state of a PodCliqueSet.
type PodCliqueSetStatus struct {
	// conditions describe the state of the PodCliqueSet.
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
	// replicas is the number of replicas (mirrors spec.replicas for /scale).
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// updatedReplicas is the number of replicas running the current template.
	// +default=0
	// +required
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// availableReplicas is the number of replicas whose cliques and scaling
	// groups all have at least minAvailable ready pods.
	// +default=0
	// +required
	AvailableReplicas int32 `json:"availableReplicas"`
	// hpaPodSelector is the label selector of all pods of this PodCliqueSet,
	// published for the /scale subresource.
	// +optional
	HPAPodSelector string `json:"hpaPodSelector,omitempty"`
	// podGangStatuses mirror the phase and conditions the scheduler reports on
	// the PodGangs of this PodCliqueSet, sorted by name: all of them when
	// there are at most 100; otherwise 100, those that are not Running first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	PodGangStatuses []PodGangStatus `json:"podGangStatuses,omitempty"`
	// currentGenerationHash is the hash of the pod templates the replicas converge to.
	// +optional
	CurrentGenerationHash *string `json:"currentGenerationHash,omitempty"`
	// updateProgress tracks a rolling update.
	// +optional
	UpdateProgress *PodCliqueSetUpdateProgress `json:"updateProgress,omitempty"`
}

// PodGangStatus mirrors the scheduler's view of one PodGang.
type PodGangStatus struct {
	// conditions are the PodGang's conditions.
	// +optional
	// +listType=atomic
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// name is the PodGang's name.
	// +required
	Name string `json:"name"`
	// phase is the PodGang's phase.
	// +required
	Phase groveschedulerv1alpha1.PodGangPhase `json:"phase"`
}

// PodCliqueSetUpdateProgress tracks a rolling update of a PodCliqueSet. The
// counts are written also when zero, so kubectl get prints 0 rather than
// nothing.
type PodCliqueSetUpdateProgress struct {
	// updateStartedAt is when the update started.
	// +required
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// updateEndedAt is when the update ended; unset while it runs.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// podCliqueSetGenerationHash is the generation hash being rolled out.
	// +optional
	PodCliqueSetGenerationHash string `json:"podCliqueSetGenerationHash,omitempty"`
	// updatedPodCliquesCount is the number of standalone PodCliques already updated.
	// +optional
	UpdatedPodCliquesCount int32 `json:"updatedPodCliquesCount"`
	// totalPodCliquesCount is the number of standalone PodCliques.
	// +optional
	TotalPodCliquesCount int32 `json:"totalPodCliquesCount"`
	// updatedPodCliqueScalingGroupsCount is the number of PodCliqueScalingGroups already updated.
	// +optional
	UpdatedPodCliqueScalingGroupsCount int32 `json:"updatedPodCliqueScalingGroupsCount"`
	// totalPodCliqueScalingGroupsCount is the number of PodCliqueScalingGroups.
	// +optional
	TotalPodCliqueScalingGroupsCount int32 `json:"totalPodCliqueScalingGroupsCount"`
	// currentlyUpdating lists the replicas being updated.
	// +optional
	// +listType=atomic
	CurrentlyUpdating []PodCliqueSetReplicaUpdateProgress `json:"currentlyUpdating,omitempty"`
	// inScopeStandalonePodCliques names the standalone cliques whose
	// template this update changes (Coherent), as found when it started.
	// +optional
	// +listType=atomic
	InScopeStandalonePodCliques []string `json:"inScopeStandalonePodCliques,omitempty"`
	// inScopePodCliqueScalingGroups names the scaling groups with a member
	// clique whose template this update changes (Coherent), as found when it
	// started.
	// +optional
	// +listType=atomic
	InScopePodCliqueScalingGroups []string `json:"inScopePodCliqueScalingGroups,omitempty"`
}

// PodCliqueSetReplicaUpdateProgress tracks the update of one PodCliqueSet replica.
type PodCliqueSetReplicaUpdateProgress struct {
	// replicaIndex is the replica being updated.
	// +required
	ReplicaIndex int32 `json:"replicaIndex"`
	// updateStartedAt is when its update started.
	// +required
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// updateEndedAt is when its update ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// readyAtStart says whether every pod of the replica was ready when its
	// turn started. Its turn then ends only when every pod is ready again.
	// +optional
	ReadyAtStart *bool `json:"readyAtStart,omitempty"`
	// availableAtStart says whether the replica was available (every clique
	// and scaling group at minAvailable) when its turn started. If it was
	// not all ready but available, its turn ends when it is available again;
	// if it was not even available, once it runs the new templates.
	// +optional
	AvailableAtStart *bool `json:"availableAtStart,omitempty"`
	// message says where the replica's turn stands (Coherent): the gangs
	// whose PodCliques are being deleted, the old pods still terminating, or
	// the new gangs not yet ready.
	// +optional
	Message string `json:"message,omitempty"`
}
