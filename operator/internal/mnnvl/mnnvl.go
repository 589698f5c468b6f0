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

// Package mnnvl is multi-node NVLink for PodCliqueSets
// (network.autoMNNVLEnabled): which cliques are enrolled in which
// grove.io/mnnvl-group, the ComputeDomains (resource.nvidia.com/v1beta1,
// NVIDIA's DRA driver) they share, and the claim their pods get. ComputeDomains
// are handled as unstructured objects: Grove does not depend on NVIDIA's Go module.
package mnnvl

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

const (
	// ClaimName is the name of the pod resource claim and container claim
	// that give GPU containers the ComputeDomain's channel.
	ClaimName = "mnnvl-claim"
	// GPUResource is the extended resource whose request enrolls a clique.
	GPUResource corev1.ResourceName = "nvidia.com/gpu"
	// Group is the ComputeDomain API's group.
	Group = "resource.nvidia.com"
	// Version is the ComputeDomain API version Grove writes.
	Version = "v1beta1"
	// Kind is the ComputeDomain kind.
	Kind = "ComputeDomain"
	// Resource is the ComputeDomain resource.
	Resource = "computedomains"
)

// GVK is the ComputeDomain kind; GVR its resource.
var (
	GVK = schema.GroupVersionKind{Group: Group, Version: Version, Kind: Kind}
	GVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}
)

// Name is the name of the ComputeDomain (and of the ResourceClaimTemplate its
// channel names) of a PodCliqueSet replica and group: <pcs>-<i>-<group>.
func Name(pcsName string, replica int32, group string) string {
	return fmt.Sprintf("%s-%d-%s", pcsName, replica, group)
}

// CliqueGroup returns the group the clique template belongs to, resolved
// clique → scaling-group config → PodCliqueSet, or "" when it is not
// enrolled: no annotation, the nearest one is "none", or no container asks
// for nvidia.com/gpu.
func CliqueGroup(pcs *grovecorev1alpha1.PodCliqueSet, tmpl *grovecorev1alpha1.PodCliqueTemplateSpec) string {
	if tmpl == nil || !RequestsGPU(&tmpl.Spec.PodSpec) {
		return ""
	}
	g := declaredGroup(pcs, tmpl)
	if g == apicommon.MNNVLGroupNone {
		return ""
	}
	return g
}

func declaredGroup(pcs *grovecorev1alpha1.PodCliqueSet, tmpl *grovecorev1alpha1.PodCliqueTemplateSpec) string {
	if g, ok := tmpl.Annotations[apicommon.AnnotationMNNVLGroup]; ok {
		return g
	}
	for _, sg := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		if slices.Contains(sg.CliqueNames, tmpl.Name) {
			if g, ok := sg.Annotations[apicommon.AnnotationMNNVLGroup]; ok {
				return g
			}
			break
		}
	}
	return pcs.Annotations[apicommon.AnnotationMNNVLGroup]
}

// Groups returns the sorted groups the PodCliqueSet's enrolled cliques use.
func Groups(pcs *grovecorev1alpha1.PodCliqueSet) []string {
	var groups []string
	for i := range pcs.Spec.Template.Cliques {
		if g := CliqueGroup(pcs, &pcs.Spec.Template.Cliques[i]); g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	return groups
}

// RequestsGPU reports whether a container of the pod spec asks for
// nvidia.com/gpu (limits or requests) above zero.
func RequestsGPU(ps *corev1.PodSpec) bool {
	return slices.ContainsFunc(ps.Containers, containerRequestsGPU) || slices.ContainsFunc(ps.InitContainers, containerRequestsGPU)
}

func containerRequestsGPU(c corev1.Container) bool {
	for _, l := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
		if q, ok := l[GPUResource]; ok && q.Sign() > 0 {
			return true
		}
	}
	return false
}

// Inject gives the pod the claim mnnvl-claim from the ResourceClaimTemplate
// rctName, and every container that asks for nvidia.com/gpu a claim on it.
// An entry of that name already there is kept as it is.
func Inject(pod *corev1.Pod, rctName string) {
	if !slices.ContainsFunc(pod.Spec.ResourceClaims, func(c corev1.PodResourceClaim) bool { return c.Name == ClaimName }) {
		pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: ClaimName, ResourceClaimTemplateName: &rctName})
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if !containerRequestsGPU(cs[i]) {
				continue
			}
			r := &cs[i].Resources
			if !slices.ContainsFunc(r.Claims, func(c corev1.ResourceClaim) bool { return c.Name == ClaimName }) {
				r.Claims = append(r.Claims, corev1.ResourceClaim{Name: ClaimName})
			}
		}
	}
}
