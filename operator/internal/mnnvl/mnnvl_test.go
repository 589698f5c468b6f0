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

package mnnvl

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func clique(name string, gpus int64, group string) grovecorev1alpha1.PodCliqueTemplateSpec {
	c := grovecorev1alpha1.PodCliqueTemplateSpec{Name: name}
	ctr := corev1.Container{Name: "main"}
	if gpus > 0 {
		ctr.Resources.Limits = corev1.ResourceList{GPUResource: *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	c.Spec.PodSpec.Containers = []corev1.Container{ctr, {Name: "sidecar"}}
	if group != "" {
		c.Annotations = map[string]string{apicommon.AnnotationMNNVLGroup: group}
	}
	return c
}

func TestCliqueGroupResolution(t *testing.T) {
	pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "inf", Annotations: map[string]string{apicommon.AnnotationMNNVLGroup: "set"}}}
	pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{
		clique("router", 0, ""),      // no GPU: never enrolled
		clique("prefill", 4, ""),     // inherits the set's group
		clique("decode", 8, "fast"),  // own group
		clique("leader", 1, ""),      // the scaling group's
		clique("worker", 1, "none"),  // opts out below its group
		clique("solo", 2, "none"),    // opts out below the set
		clique("zero", 0, "special"), // group but no GPU
	}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{
		{Name: "model", CliqueNames: []string{"leader", "worker"}, Annotations: map[string]string{apicommon.AnnotationMNNVLGroup: "model"}},
	}
	want := map[string]string{"router": "", "prefill": "set", "decode": "fast", "leader": "model", "worker": "", "solo": "", "zero": ""}
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		if got := CliqueGroup(pcs, c); got != want[c.Name] {
			t.Errorf("CliqueGroup(%s) = %q, want %q", c.Name, got, want[c.Name])
		}
	}
	if got := Groups(pcs); !slices.Equal(got, []string{"fast", "model", "set"}) {
		t.Errorf("Groups = %v", got)
	}
	pcs.Annotations[apicommon.AnnotationMNNVLGroup] = "none"
	if got := Groups(pcs); !slices.Equal(got, []string{"fast", "model"}) {
		t.Errorf("Groups with the set opted out = %v", got)
	}
}

func TestInjectClaimsOnlyGPUContainers(t *testing.T) {
	c := clique("w", 1, "")
	pod := &corev1.Pod{Spec: *c.Spec.PodSpec.DeepCopy()}
	Inject(pod, "inf-0-g")
	Inject(pod, "inf-0-g") // idempotent
	if len(pod.Spec.ResourceClaims) != 1 || pod.Spec.ResourceClaims[0].Name != ClaimName || *pod.Spec.ResourceClaims[0].ResourceClaimTemplateName != "inf-0-g" {
		t.Fatalf("pod claims = %+v", pod.Spec.ResourceClaims)
	}
	if got := pod.Spec.Containers[0].Resources.Claims; len(got) != 1 || got[0].Name != ClaimName {
		t.Fatalf("GPU container claims = %+v", got)
	}
	if got := pod.Spec.Containers[1].Resources.Claims; len(got) != 0 {
		t.Fatalf("non-GPU container claims = %+v", got)
	}
}

func TestPreflight(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resources []*metav1.APIResourceList
		ok        bool
	}{
		{name: "served", ok: true, resources: []*metav1.APIResourceList{{GroupVersion: "resource.nvidia.com/v1beta1", APIResources: []metav1.APIResource{{Name: "computedomains"}}}}},
		{name: "group without computedomains", resources: []*metav1.APIResourceList{{GroupVersion: "resource.nvidia.com/v1beta1", APIResources: []metav1.APIResource{{Name: "computedomaincliques"}}}}},
		{name: "group absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dc := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{Resources: tc.resources}}
			err := preflight(dc)
			if tc.ok != (err == nil) {
				t.Fatalf("preflight = %v", err)
			}
			if err != nil && err.Error() != "network.autoMNNVLEnabled is true but the API server does not serve computedomains in resource.nvidia.com/v1beta1: "+
				"install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD) or set network.autoMNNVLEnabled to false" {
				t.Fatalf("message: %v", err)
			}
		})
	}
}
