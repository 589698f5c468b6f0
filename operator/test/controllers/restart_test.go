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
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var _ = Describe("Manager restart", func() {
	It("restarting the manager while a 600-pod PodCliqueSet is being created leaves exactly the desired pods", func() {
		ns := newNamespace()
		pcs := &grovecorev1alpha1.PodCliqueSet{
			ObjectMeta: metav1.ObjectMeta{Name: "restart", Namespace: ns},
			Spec: grovecorev1alpha1.PodCliqueSetSpec{
				Replicas: 300,
				Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{
					Name: "worker",
					Spec: grovecorev1alpha1.PodCliqueSpec{
						RoleName: "worker", Replicas: 2,
						PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "w", Image: "nginx"}}},
					},
				}}},
			},
		}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		total := func() int {
			n := 0
			for _, c := range podCounts(ns, "restart")() {
				n += c
			}
			return n
		}
		Eventually(total).Should(BeNumerically(">=", 20))

		By("stopping the manager mid-creation and starting a new one")
		stopMgr()
		<-mgrDone
		stoppedAt := total()
		// Restarted before the check, so that a failed check does not leave
		// the specs after this one without a manager.
		stopMgr, mgrDone = startManager(restCfg)
		Expect(stoppedAt).To(BeNumerically("<", 600), "the manager was stopped before it finished")

		want := map[string]int{}
		for i := 0; i < 300; i++ {
			want[apicommon.PodCliqueName("restart", int32(i), "worker")] = 2
		}
		Eventually(podCounts(ns, "restart"), "60s").Should(Equal(want))
		Consistently(podCounts(ns, "restart"), "3s").Should(Equal(want), "no duplicate pods appear later")

		By("every PodClique's pods have distinct hostnames <pclq>-0 and <pclq>-1")
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		hostnames := map[string]bool{}
		for i := range pods.Items {
			hostnames[pods.Items[i].Spec.Hostname] = true
		}
		for pclq := range want {
			Expect(hostnames).To(HaveKey(fmt.Sprintf("%s-0", pclq)))
			Expect(hostnames).To(HaveKey(fmt.Sprintf("%s-1", pclq)))
		}
		Eventually(podGangs(ns, "restart"), "60s").Should(HaveLen(300))
	})
})
