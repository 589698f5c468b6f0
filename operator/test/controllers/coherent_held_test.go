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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var _ = Describe("A scale-out held by a Coherent update", func() {
	It("a scaling group scaled out in a replica still waiting for its turn creates nothing yet, says why in condition PodCliqueCreationHeld and one event, and gets its group replica in the replica's turn", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, coherentPCS(ns, "held", 2))).To(Succeed())
		expectRunning(ns, "held", fullLayout("held", 2))
		setImage(ns, "held", "fe", "registry.example/fe:2")

		By("replica 0 takes its turn; its new pods are left unready, so replica 1 waits with its old template")
		Eventually(eventReasons(ns, "held")).Should(ContainElement(HavePrefix("Normal/CoherentGangsReplaced: Replica 0:")))
		Expect(currentlyUpdating(getPCS(ns, "held")())).To(Equal([]int32{0}))

		By("kubectl scale pcsg held-1-sg --replicas=3")
		scaleScalingGroup(ns, "held-1-sg", 3)
		const msg = "PodCliques held-1-sg-2-leader, held-1-sg-2-worker (group replica 2) wait for PodCliqueSet replica 1's Coherent update: " +
			"PodClique held-1-fe runs an older template; the replica's Coherent update replaces it with its gang"
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getPCSG(ns, "held-1-sg")().Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueCreationHeld)
			g.Expect(c).NotTo(BeNil())
			g.Expect(string(c.Status) + "/" + c.Reason).To(Equal("True/" + grovecorev1alpha1.ConditionReasonCoherentUpdate))
			g.Expect(c.Message).To(Equal(msg))
		}).Should(Succeed())
		Eventually(eventReasons(ns, "held-1-sg")).Should(ContainElement("Normal/PodCliqueCreationHeld: " + msg))
		Consistently(func(g Gomega) map[string]*grovecorev1alpha1.PodClique { return livePodCliques(g, ns, "held") }, "1s").
			ShouldNot(HaveKey("held-1-sg-2-leader"))

		By("once replica 0 is ready, replica 1's turn creates the group replica with its new gang")
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "held", "")
			g.Expect(getPCS(ns, "held")().Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		layout := fullLayout("held", 2)
		layout["held-1-sg-2-leader"], layout["held-1-sg-2-worker"] = 1, 2
		expectRunning(ns, "held", layout)
		c := meta.FindStatusCondition(getPCSG(ns, "held-1-sg")().Status.Conditions, grovecorev1alpha1.ConditionTypePodCliqueCreationHeld)
		Expect(c).NotTo(BeNil())
		Expect(string(c.Status) + "/" + c.Reason + ": " + c.Message).To(Equal("False/" + grovecorev1alpha1.ConditionReasonPodCliquesCreated + ": every member PodClique exists"))
		Expect(eventCount(ns, "held-1-sg", "PodCliqueCreationHeld")).To(Equal(1), "posted when the hold began, not on every pass")
	})
})
