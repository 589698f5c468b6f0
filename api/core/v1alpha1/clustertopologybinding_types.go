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
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ct,categories=grove
// +kubebuilder:printcolumn:name="Domains",type=string,JSONPath=`.spec.levels[*].domain`,description="The topology levels, broadest first."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since the ClusterTopologyBinding was created."

// ClusterTopologyBinding describes the network topology of the cluster as an
// ordered list of levels, each bound to a node label key. Topology constraints
// name the levels by domain; the scheduler packs pods into nodes sharing the
// level's label value.
type ClusterTopologyBinding struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the ClusterTopologyBinding.
	// +required
	Spec ClusterTopologyBindingSpec `json:"spec"`
	// status is the observed state of the ClusterTopologyBinding.
	// +optional
	Status ClusterTopologyBindingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterTopologyBindingList is a list of ClusterTopologyBindings.
type ClusterTopologyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ClusterTopologyBindings.
	Items []ClusterTopologyBinding `json:"items"`
}

// ClusterTopologyBindingSpec is the desired state of a ClusterTopologyBinding.
type ClusterTopologyBindingSpec struct {
	// levels are the topology levels, ordered from the broadest (for example
	// zone) to the narrowest (for example host). Domains and keys must be unique.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="self.all(l, self.exists_one(m, m.domain == l.domain))",message="domains must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(l, self.exists_one(m, m.key == l.key))",message="keys must be unique"
	// +required
	Levels []TopologyLevel `json:"levels"`
	// schedulerTopologyBindings name, per scheduler backend that keeps its
	// own topology object, the object that mirrors these levels and is
	// managed outside Grove. At most one entry per scheduler.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=schedulerName
	SchedulerTopologyBindings []SchedulerTopologyBinding `json:"schedulerTopologyBindings,omitempty"`
}

// SchedulerTopologyBinding names the topology object of one scheduler backend.
type SchedulerTopologyBinding struct {
	// schedulerName is the scheduler backend the topology object belongs to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	SchedulerName string `json:"schedulerName"`
	// topologyReference is the name of the scheduler's topology object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	TopologyReference string `json:"topologyReference"`
}

// TopologyLevel is one level of a ClusterTopologyBinding.
type TopologyLevel struct {
	// domain is the level's name used in topology constraints.
	// +required
	Domain TopologyDomain `json:"domain"`
	// key is the node label key whose value identifies a domain of this level,
	// for example topology.kubernetes.io/zone.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	// +required
	Key string `json:"key"`
}

// ClusterTopologyBindingStatus is the observed state of a ClusterTopologyBinding.
type ClusterTopologyBindingStatus struct {
	// conditions describe the state of the ClusterTopologyBinding.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// observedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
