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
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// Preflight checks, for network.autoMNNVLEnabled, that the API server serves
// computedomains in resource.nvidia.com/v1beta1 (the CRD of NVIDIA's DRA
// driver for GPUs). Its error says what is missing and how to go on.
func Preflight(cfg *rest.Config) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("MNNVL preflight: %w", err)
	}
	return preflight(dc)
}

func preflight(dc discovery.ServerResourcesInterface) error {
	gv := GVK.GroupVersion().String()
	list, err := dc.ServerResourcesForGroupVersion(gv)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("MNNVL preflight: discovering %s: %w", gv, err)
	}
	if list == nil || !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == Resource }) {
		return fmt.Errorf("network.autoMNNVLEnabled is true but the API server does not serve %s in %s: "+
			"install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD) or set network.autoMNNVLEnabled to false", Resource, gv)
	}
	return nil
}
