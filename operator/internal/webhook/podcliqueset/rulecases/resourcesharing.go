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

package rulecases

import (
	resourcev1 "k8s.io/api/resource/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// GPUTemplate is a resourceClaimTemplates entry asking for one device of
// DeviceClass gpu.example.com.
func GPUTemplate(name string) grovecorev1alpha1.ResourceClaimTemplateConfig {
	return grovecorev1alpha1.ResourceClaimTemplateConfig{Name: name, TemplateSpec: resourcev1.ResourceClaimTemplateSpec{
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"},
		}}}},
	}}
}

// withSharing gives Base an internal template "gpu" shared per PodCliqueSet
// replica, per scaling-group replica and per clique.
func withSharing(p *grovecorev1alpha1.PodCliqueSet) {
	p.Spec.Template.ResourceClaimTemplates = []grovecorev1alpha1.ResourceClaimTemplateConfig{GPUTemplate("gpu")}
	p.Spec.Template.ResourceSharing = []grovecorev1alpha1.PCSResourceSharingSpec{{
		Name: "gpu", Scope: grovecorev1alpha1.ResourceSharingScopePerReplica,
		Filter: &grovecorev1alpha1.PCSResourceSharingFilter{ChildCliqueNames: []string{"frontend"}, ChildScalingGroupNames: []string{"model"}},
	}}
	group(p).ResourceSharing = []grovecorev1alpha1.PCSGResourceSharingSpec{{
		Name: "gpu", Scope: grovecorev1alpha1.ResourceSharingScopeAllReplicas,
		Filter: &grovecorev1alpha1.PCSGResourceSharingFilter{ChildCliqueNames: []string{"worker"}},
	}}
	clique(p, "frontend").ResourceSharing = []grovecorev1alpha1.ResourceSharingSpec{sharing("gpu", grovecorev1alpha1.ResourceSharingScopePerReplica)}
}

func sharing(name string, scope grovecorev1alpha1.ResourceSharingScope) grovecorev1alpha1.ResourceSharingSpec {
	return grovecorev1alpha1.ResourceSharingSpec{Name: name, Scope: scope}
}

func then(fns ...func(*grovecorev1alpha1.PodCliqueSet)) func(*grovecorev1alpha1.PodCliqueSet) {
	return func(p *grovecorev1alpha1.PodCliqueSet) {
		for _, fn := range fns {
			fn(p)
		}
	}
}

// resourceSharingCreate returns the rules for resourceClaimTemplates and
// resourceSharing on create.
func resourceSharingCreate() []Case {
	return []Case{
		{Name: "resourceClaimTemplates need a device request", Path: "spec.template.resourceClaimTemplates[0].templateSpec.spec.devices.requests", Message: "at least one device request is required",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.ResourceClaimTemplates[0].TemplateSpec.Spec.Devices.Requests = []resourcev1.DeviceRequest{}
			}),
			Good: withSharing},
		{Name: "resourceSharing names are unique per list", Path: "spec.template.cliques[0].resourceSharing[1].name", Message: "Duplicate value",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				c := clique(p, "frontend")
				c.ResourceSharing = append(c.ResourceSharing, sharing("gpu", grovecorev1alpha1.ResourceSharingScopeAllReplicas))
			}),
			Good: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				c := clique(p, "frontend")
				c.ResourceSharing = append(c.ResourceSharing, sharing("nic", grovecorev1alpha1.ResourceSharingScopeAllReplicas))
			})},
		{Name: "resourceSharing namespace only for external templates", Path: "spec.template.podCliqueScalingGroups[0].resourceSharing[0].namespace", Message: "must be empty: gpu is a resourceClaimTemplates entry",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) { group(p).ResourceSharing[0].Namespace = "shared" }),
			Good: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ResourceSharing[0].Name, group(p).ResourceSharing[0].Namespace = "fabric", "shared"
			})},
		{Name: "resourceSharing scope is AllReplicas or PerReplica", Path: "spec.template.resourceSharing[0].scope", Message: "Unsupported value", SchemaFirst: true,
			Bad:  then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.ResourceSharing[0].Scope = "PerPod" }),
			Good: withSharing},
		{Name: "PodCliqueSet filter names something", Path: "spec.template.resourceSharing[0].filter", Message: "must name at least one of childCliqueNames or childScalingGroupNames",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.ResourceSharing[0].Filter = &grovecorev1alpha1.PCSResourceSharingFilter{}
			}),
			Good: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.ResourceSharing[0].Filter = nil })},
		{Name: "PodCliqueSet filter cliques exist", Path: "spec.template.resourceSharing[0].filter.childCliqueNames[0]", Message: "is not a clique of this PodCliqueSet",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.ResourceSharing[0].Filter.ChildCliqueNames = []string{"router"}
			}),
			Good: withSharing},
		{Name: "PodCliqueSet filter scaling groups exist", Path: "spec.template.resourceSharing[0].filter.childScalingGroupNames[0]", Message: "is not a scaling group of this PodCliqueSet",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.ResourceSharing[0].Filter.ChildScalingGroupNames = []string{"frontend"}
			}),
			Good: withSharing},
		{Name: "scaling-group filter names members", Path: "spec.template.podCliqueScalingGroups[0].resourceSharing[0].filter.childCliqueNames[0]", Message: "is not a member clique of scaling group model",
			Bad: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ResourceSharing[0].Filter.ChildCliqueNames = []string{"frontend"}
			}),
			Good: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ResourceSharing[0].Filter.ChildCliqueNames = []string{"leader"}
			})},
		{Name: "scaling-group filter names at least one member", Path: "spec.template.podCliqueScalingGroups[0].resourceSharing[0].filter.childCliqueNames", Message: "must name at least one member clique",
			Bad:  then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) { group(p).ResourceSharing[0].Filter.ChildCliqueNames = nil }),
			Good: then(withSharing, func(p *grovecorev1alpha1.PodCliqueSet) { group(p).ResourceSharing[0].Filter = nil })},
		{Name: "claim names fit a pod's spec.resourceClaims entry", Path: "spec.template.cliques[2].resourceSharing[0].name", Message: `the claim name "inference-0-model-1-worker-2-gpu-for-the-worker-pods-of-every-replica" is 69 characters`,
			Bad:  func(p *grovecorev1alpha1.PodCliqueSet) { workerClaim(p, "gpu-for-the-worker-pods-of-every-replica") },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { workerClaim(p, "gpu-worker") }},
	}
}

// workerClaim gives each worker pod a claim of its own from the internal template name.
func workerClaim(p *grovecorev1alpha1.PodCliqueSet, name string) {
	p.Spec.Template.ResourceClaimTemplates = []grovecorev1alpha1.ResourceClaimTemplateConfig{GPUTemplate(name)}
	clique(p, "worker").ResourceSharing = []grovecorev1alpha1.ResourceSharingSpec{sharing(name, grovecorev1alpha1.ResourceSharingScopePerReplica)}
}

// resourceSharingUpdates returns the immutability rules of resource sharing.
func resourceSharingUpdates(immutable func(name, path string, bad func(*grovecorev1alpha1.PodCliqueSet)) Case) []Case {
	return []Case{
		immutable("resourceClaimTemplates", "spec.template.resourceClaimTemplates", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.ResourceClaimTemplates = []grovecorev1alpha1.ResourceClaimTemplateConfig{GPUTemplate("gpu")}
		}),
		immutable("PodCliqueSet resourceSharing", "spec.template.resourceSharing", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.ResourceSharing = []grovecorev1alpha1.PCSResourceSharingSpec{{Name: "fabric", Scope: grovecorev1alpha1.ResourceSharingScopeAllReplicas}}
		}),
		immutable("scaling group resourceSharing", "spec.template.podCliqueScalingGroups[0].resourceSharing", func(p *grovecorev1alpha1.PodCliqueSet) {
			group(p).ResourceSharing = []grovecorev1alpha1.PCSGResourceSharingSpec{{Name: "fabric", Scope: grovecorev1alpha1.ResourceSharingScopePerReplica}}
		}),
		immutable("clique resourceSharing", "spec.template.cliques[0].resourceSharing", func(p *grovecorev1alpha1.PodCliqueSet) {
			clique(p, "frontend").ResourceSharing = []grovecorev1alpha1.ResourceSharingSpec{sharing("fabric", grovecorev1alpha1.ResourceSharingScopePerReplica)}
		}),
	}
}
