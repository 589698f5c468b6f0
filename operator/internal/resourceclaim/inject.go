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

package resourceclaim

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Inject adds each named claim to the pod: an entry of spec.resourceClaims
// that names the ResourceClaim, and a resources.claims entry in every
// container and init container, so each of them may use the devices. Entries
// already there are kept as they are.
func Inject(pod *corev1.Pod, names []string) {
	for _, n := range names {
		if !slices.ContainsFunc(pod.Spec.ResourceClaims, func(c corev1.PodResourceClaim) bool { return c.Name == n }) {
			pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: n, ResourceClaimName: &n})
		}
		for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for i := range cs {
				r := &cs[i].Resources
				if !slices.ContainsFunc(r.Claims, func(c corev1.ResourceClaim) bool { return c.Name == n }) {
					r.Claims = append(r.Claims, corev1.ResourceClaim{Name: n})
				}
			}
		}
	}
}
