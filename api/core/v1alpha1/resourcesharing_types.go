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
	resourcev1 "k8s.io/api/resource/v1"
)

// ResourceClaimTemplateConfig is a named ResourceClaim template declared in
// the PodCliqueSet, for resourceSharing entries at any level to refer to.
type ResourceClaimTemplateConfig struct {
	// name identifies the template in resourceSharing entries and ends the
	// names of the ResourceClaims made from it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// templateSpec is the ResourceClaim every claim made from this template
	// gets: its labels, annotations and device requests.
	// +required
	TemplateSpec resourcev1.ResourceClaimTemplateSpec `json:"templateSpec"`
}

// ResourceSharingScope says how many ResourceClaims an entry makes for its owner.
// +kubebuilder:validation:Enum=AllReplicas;PerReplica
type ResourceSharingScope string

const (
	// ResourceSharingScopeAllReplicas makes one claim per owner object, shared
	// by every pod the entry reaches: <owner>-all-<template>.
	ResourceSharingScopeAllReplicas ResourceSharingScope = "AllReplicas"
	// ResourceSharingScopePerReplica makes one claim per replica of the owner
	// (PodCliqueSet replica, scaling-group replica, or pod index for a
	// clique), shared by that replica's pods: <owner>-<index>-<template>.
	ResourceSharingScopePerReplica ResourceSharingScope = "PerReplica"
)

// ResourceSharingSpec shares ResourceClaims made from one template among the
// pods of its owner. It is the entry of a clique template, whose pods are
// all reached.
type ResourceSharingSpec struct {
	// name is the template: an entry of spec.template.resourceClaimTemplates
	// with this name, or else a ResourceClaimTemplate object of this name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// namespace is the namespace of the ResourceClaimTemplate object; empty
	// means the PodCliqueSet's. Must be empty when name is an internal template.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// scope says whether one claim serves every replica of the owner
	// (AllReplicas) or each replica gets its own (PerReplica).
	// +required
	Scope ResourceSharingScope `json:"scope"`
}

// PCSResourceSharingSpec shares ResourceClaims owned by the PodCliqueSet.
type PCSResourceSharingSpec struct {
	// name is the template: an entry of spec.template.resourceClaimTemplates
	// with this name, or else a ResourceClaimTemplate object of this name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// namespace is the namespace of the ResourceClaimTemplate object; empty
	// means the PodCliqueSet's. Must be empty when name is an internal template.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// scope says whether one claim serves every replica of the owner
	// (AllReplicas) or each replica gets its own (PerReplica).
	// +required
	Scope ResourceSharingScope `json:"scope"`
	// filter limits the entry to the pods of the named cliques and scaling
	// groups; absent, every pod of the PodCliqueSet is reached.
	// +optional
	Filter *PCSResourceSharingFilter `json:"filter,omitempty"`
}

// PCSResourceSharingFilter names the children of a PodCliqueSet an entry reaches.
type PCSResourceSharingFilter struct {
	// childCliqueNames are clique names (from spec.template.cliques) whose
	// pods get the claims.
	// +optional
	// +listType=atomic
	ChildCliqueNames []string `json:"childCliqueNames,omitempty"`
	// childScalingGroupNames are scaling-group names whose member cliques'
	// pods get the claims.
	// +optional
	// +listType=atomic
	ChildScalingGroupNames []string `json:"childScalingGroupNames,omitempty"`
}

// PCSGResourceSharingSpec shares ResourceClaims owned by a PodCliqueScalingGroup.
type PCSGResourceSharingSpec struct {
	// name is the template: an entry of spec.template.resourceClaimTemplates
	// with this name, or else a ResourceClaimTemplate object of this name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`
	// namespace is the namespace of the ResourceClaimTemplate object; empty
	// means the PodCliqueSet's. Must be empty when name is an internal template.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// scope says whether one claim serves every replica of the owner
	// (AllReplicas) or each replica gets its own (PerReplica).
	// +required
	Scope ResourceSharingScope `json:"scope"`
	// filter limits the entry to the pods of the named member cliques;
	// absent, every member clique's pods are reached.
	// +optional
	Filter *PCSGResourceSharingFilter `json:"filter,omitempty"`
}

// PCSGResourceSharingFilter names the member cliques of a scaling group an entry reaches.
type PCSGResourceSharingFilter struct {
	// childCliqueNames are member clique names (from the group's cliqueNames)
	// whose pods get the claims.
	// +optional
	// +listType=atomic
	ChildCliqueNames []string `json:"childCliqueNames,omitempty"`
}

// Sharing returns the entry without its filter.
func (e *PCSResourceSharingSpec) Sharing() ResourceSharingSpec {
	return ResourceSharingSpec{Name: e.Name, Namespace: e.Namespace, Scope: e.Scope}
}

// Sharing returns the entry without its filter.
func (e *PCSGResourceSharingSpec) Sharing() ResourceSharingSpec {
	return ResourceSharingSpec{Name: e.Name, Namespace: e.Namespace, Scope: e.Scope}
}
