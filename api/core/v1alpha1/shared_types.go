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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TopologyDomain names one level of a ClusterTopologyBinding, for example "zone", "block", "rack" or "host".
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
type TopologyDomain string

// Well-known topology domains. Any string matching the TopologyDomain pattern is allowed.
const (
	TopologyDomainRegion     TopologyDomain = "region"
	TopologyDomainZone       TopologyDomain = "zone"
	TopologyDomainDataCenter TopologyDomain = "datacenter"
	TopologyDomainBlock      TopologyDomain = "block"
	TopologyDomainRack       TopologyDomain = "rack"
	TopologyDomainHost       TopologyDomain = "host"
	TopologyDomainNuma       TopologyDomain = "numa"
)

// TopologyConstraint asks the scheduler to pack pods into one topology domain.
// It can be set on the PodCliqueSet template (all pods of one replica), on a
// scaling group (all pods of one scaling-group replica) and on a clique (all
// pods of one PodClique).
type TopologyConstraint struct {
	// topologyName is the name of the ClusterTopologyBinding whose levels the domains
	// refer to. It may be omitted on a scaling group or clique, which then
	// inherits it from the nearest constrained parent (PodCliqueSet, then scaling group).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	TopologyName string `json:"topologyName,omitempty"`
	// pack says in which topology domain the pods must (required) or should
	// (preferred) be placed together.
	// +required
	Pack *TopologyPackConstraint `json:"pack"`
}

// TopologyPackConstraint names the domain pods are packed into. At least one of
// required and preferred must be set.
// +kubebuilder:validation:XValidation:rule="has(self.required) || has(self.preferred)",message="pack must set required or preferred (or both)"
type TopologyPackConstraint struct {
	// required is a hard constraint: all pods are placed within one domain of
	// this level, or none are placed.
	// +optional
	Required *TopologyDomain `json:"required,omitempty"`
	// preferred is a soft constraint: the scheduler tries to place all pods within
	// one domain of this level and falls back to wider placement.
	// +optional
	Preferred *TopologyDomain `json:"preferred,omitempty"`
}

// AutoScalingConfig configures the HorizontalPodAutoscaler Grove creates for a
// clique or a scaling group.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="maxReplicas must be greater than or equal to minReplicas"
type AutoScalingConfig struct {
	// minReplicas is the lower bound the autoscaler may scale down to: 0, or
	// at least minAvailable. 0 lets the component be parked at zero replicas
	// (by kubectl scale or an external autoscaler such as KEDA); the
	// HorizontalPodAutoscaler Grove creates then gets minReplicas 1, because
	// Kubernetes accepts 0 only behind its HPAScaleToZero feature gate, and it
	// leaves a target at zero alone until it is scaled up again. Defaults to
	// the template's replicas.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// maxReplicas is the upper bound the autoscaler may scale up to.
	// +kubebuilder:validation:Minimum=1
	// +required
	MaxReplicas int32 `json:"maxReplicas"`
	// metrics are the metrics the autoscaler scales on. When empty, the
	// HorizontalPodAutoscaler default (80% average CPU utilization) applies.
	// +optional
	// +listType=atomic
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty"`
}

// LastOperationType is the kind of operation a controller last ran on an object.
// +kubebuilder:validation:Enum=Reconcile;Delete
type LastOperationType string

const (
	// LastOperationTypeReconcile is a normal reconcile: create, update, scale.
	LastOperationTypeReconcile LastOperationType = "Reconcile"
	// LastOperationTypeDelete is the clean-up of an object being deleted.
	LastOperationTypeDelete LastOperationType = "Delete"
)

// LastOperationState is the state of the last operation.
// +kubebuilder:validation:Enum=Processing;Succeeded;Error
type LastOperationState string

const (
	// LastOperationStateProcessing means the operation is running.
	LastOperationStateProcessing LastOperationState = "Processing"
	// LastOperationStateSucceeded means the operation completed without error.
	LastOperationStateSucceeded LastOperationState = "Succeeded"
	// LastOperationStateError means the operation ended with errors; see lastErrors.
	LastOperationStateError LastOperationState = "Error"
)

// LastOperation records the last operation a controller ran on an object.
type LastOperation struct {
	// type is the kind of operation.
	// +required
	Type LastOperationType `json:"type"`
	// state is where the operation stands.
	// +required
	State LastOperationState `json:"state"`
	// description says what the operation did or is doing.
	// +optional
	Description string `json:"description,omitempty"`
	// lastUpdateTime is when this record was last written.
	// +required
	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
}

// ErrorCode is a stable, machine-readable code for a reconcile error.
type ErrorCode string

// LastError is one error observed by the last operation.
type LastError struct {
	// code identifies the kind of error.
	// +required
	Code ErrorCode `json:"code"`
	// description is the human-readable error.
	// +required
	Description string `json:"description"`
	// observedAt is when the error was observed.
	// +required
	ObservedAt metav1.Time `json:"observedAt"`
}
