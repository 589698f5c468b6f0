//go:build e2e

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
package e2e

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A test DRA driver: the local cluster's nodes are kwok's, with no kubelet
// and no driver to publish devices, so the specs publish them. Each node gets
// one ResourceSlice of fakeGPUDriver with gpusPerNode devices gpu-0… carrying
// the attributes a GPU driver publishes (index, model, memory), and the
// DeviceClass fakeGPUClass selects every device of the driver. The
// kube-scheduler plugin DynamicResources allocates claims from them as from
// a real driver's; kwok starts the pods without preparing devices.
const (
	fakeGPUDriver = "gpu.example.com"
	fakeGPUClass  = "gpu.example.com"
)

// publishFakeGPUs publishes gpusPerNode devices on each named node and the
// DeviceClass, and removes them when the spec ends.
func publishFakeGPUs(nodes []string, gpusPerNode int) {
	GinkgoHelper()
	class := &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: fakeGPUClass},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", fakeGPUDriver)},
		}}},
	}
	Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, class))).To(Succeed())
	DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, class))).To(Succeed()) })
	for _, node := range nodes {
		slice := &resourcev1.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: node + "-" + fakeGPUDriver},
			Spec: resourcev1.ResourceSliceSpec{
				Driver:   fakeGPUDriver,
				Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
				NodeName: ptr.To(node),
			},
		}
		for i := 0; i < gpusPerNode; i++ {
			slice.Spec.Devices = append(slice.Spec.Devices, resourcev1.Device{
				Name: fmt.Sprintf("gpu-%d", i),
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
					"index": {IntValue: ptr.To(int64(i))},
					"model": {StringValue: ptr.To("fake-h100")},
				},
				Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
					"memory": {Value: resource.MustParse("80Gi")},
				},
			})
		}
		Expect(k8s.Create(ctx, slice)).To(Succeed(), "publishing the fake GPUs of node %s", node)
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, slice))).To(Succeed()) })
	}
}

// fakeNodes returns the names of the local cluster's fake nodes.
func fakeNodes() []string {
	GinkgoHelper()
	nodes := &corev1.NodeList{}
	Expect(k8s.List(ctx, nodes)).To(Succeed())
	var names []string
	for _, n := range nodes.Items {
		if fakeNodeName.MatchString(n.Name) {
			names = append(names, n.Name)
		}
	}
	Expect(names).NotTo(BeEmpty())
	return names
}
