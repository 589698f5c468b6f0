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

package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var _ = Describe("Spec drift", func() {
	It("reverts another writer's edit of a managed PodClique's spec at the next reconcile", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onePodPCS(ns, "drift", ""))).To(Succeed())
		image := func(g Gomega) string {
			pclq := &grovecorev1alpha1.PodClique{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "drift-0-c"}, pclq)).To(Succeed())
			return pclq.Spec.PodSpec.Containers[0].Image
		}
		Eventually(image).Should(Equal("nginx"))

		By("kubectl edit changes the pod image and adds a label of its own")
		var edited int64
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			pclq := getPCLQ(ns, "drift-0-c")()
			pclq.Spec.PodSpec.Containers[0].Image = "registry.example/other:2"
			pclq.Labels["team"] = "mine"
			err := k8sClient.Update(ctx, pclq, client.FieldOwner("kubectl-edit"))
			edited = pclq.Generation
			return err
		})).To(Succeed())

		Eventually(image).Should(Equal("nginx"), "the operator's apply takes the image back")
		pclq := getPCLQ(ns, "drift-0-c")()
		Expect(pclq.Generation).To(BeNumerically(">", edited))
		Expect(pclq.Labels).To(HaveKeyWithValue("team", "mine"), "a label Grove does not set stays")
		Expect(writers(pclq)).To(ContainElement("kubectl-edit/Update"), "the editor still holds its label")
		Consistently(image, "2s").Should(Equal("nginx"))
	})
})
