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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var _ = Describe("Scale to zero", func() {
	const delay = 2 * time.Second
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	// statusOf reads a PodClique's or scaling group's condition as "status/reason".
	pclqCondition := func(name, t string) func() string {
		return func() string {
			s, r := conditionOf(getPCLQ(ns, name)().Status.Conditions, t)
			return string(s) + "/" + r
		}
	}
	pcsgCondition := func(name, t string) func() string {
		return func() string {
			s, r := conditionOf(getPCSG(ns, name)().Status.Conditions, t)
			return string(s) + "/" + r
		}
	}
	available := func() int32 { return getPCS(ns, "z")().Status.AvailableReplicas }

	It("parks a standalone clique at zero: its group leaves the PodGang, the rest keeps running, and it rejoins when scaled up", func() {
		pcs := gtPCS(ns, "z", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 1, delay: delay})
		pcs.Spec.Template.Cliques[0].Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](0), MaxReplicas: 4}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		runPods(ns, "z", 8)
		expectAllScheduledOnce(ns, "z", 5)
		Eventually(available).Should(BeEquivalentTo(1))

		By("the HPA of an autoscaler that may park the clique gets minReplicas 1")
		hpa := &autoscalingv2.HorizontalPodAutoscaler{}
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "z-0-fe"}, hpa) }).Should(Succeed())
		Expect(hpa.Spec.MinReplicas).To(Equal(ptr.To[int32](1)))
		Expect(hpa.Spec.MaxReplicas).To(BeEquivalentTo(4))

		By("kubectl scale pclq z-0-fe --replicas=0")
		others := pick(podCliqueUIDs(ns, "z"), "z-0-mn-0-ldr", "z-0-mn-0-wkr", "z-0-mn-1-ldr", "z-0-mn-1-wkr")
		scalePodClique(ns, "z-0-fe", 0)
		Eventually(podCounts(ns, "z")).Should(Equal(map[string]int{"z-0-mn-0-ldr": 1, "z-0-mn-0-wkr": 2, "z-0-mn-1-ldr": 1, "z-0-mn-1-wkr": 2}))
		Eventually(groupSummary(ns, "z-0")).Should(Equal([]string{"z-0-mn-0-ldr/1/1", "z-0-mn-0-wkr/2/2"}))
		Eventually(pclqCondition("z-0-fe", grovecorev1alpha1.ConditionTypeMinAvailableBreached)).Should(Equal("False/ScaledToZero"))
		Expect(pclqCondition("z-0-fe", grovecorev1alpha1.ConditionTypePodCliqueScheduled)()).To(Equal("False/ScaledToZero"))
		Expect(getPCLQ(ns, "z-0-fe")().Status.WasScheduled).To(BeFalse())
		Consistently(available, 2*delay).Should(BeEquivalentTo(1), "the rest of the replica stays available")
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())
		Expect(pick(podCliqueUIDs(ns, "z"), "z-0-mn-0-ldr", "z-0-mn-0-wkr", "z-0-mn-1-ldr", "z-0-mn-1-wkr")).To(Equal(others))

		By("back to 2: the group rejoins; pending new pods are breached but never trigger gang termination")
		scalePodClique(ns, "z-0-fe", 2)
		Eventually(groupSummary(ns, "z-0")).Should(Equal([]string{"z-0-fe/2/2", "z-0-mn-0-ldr/1/1", "z-0-mn-0-wkr/2/2"}))
		Eventually(pclqCondition("z-0-fe", grovecorev1alpha1.ConditionTypeMinAvailableBreached)).Should(Equal("True/ScheduledReplicasBelowMinAvailable"))
		fe := podCliqueUIDs(ns, "z")["z-0-fe"]
		Consistently(func() types.UID { return podCliqueUIDs(ns, "z")["z-0-fe"] }, 2*delay).Should(Equal(fe))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())
		runPods(ns, "z", 8)
		Eventually(pclqCondition("z-0-fe", grovecorev1alpha1.ConditionTypeMinAvailableBreached)).Should(Equal("False/SufficientReadyPods"))
		Eventually(available).Should(BeEquivalentTo(1))
	})

	It("parks a scaling group at zero: its PodCliques and groups go, the standalone clique keeps running, and scaled up it comes back", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "z", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 2, delay: delay}))).To(Succeed())
		runPods(ns, "z", 8)
		expectAllScheduledOnce(ns, "z", 5)
		fe := podCliqueUIDs(ns, "z")["z-0-fe"]

		By("kubectl scale pcsg z-0-mn --replicas=0")
		scaleScalingGroup(ns, "z-0-mn", 0)
		Eventually(podCliques(ns, "z")).Should(Equal([]string{"z-0-fe"}))
		Eventually(func(g Gomega) { g.Expect(collectOrphans(g, ns, "z")).To(HaveLen(2)) }).Should(Succeed())
		Eventually(groupSummary(ns, "z-0")).Should(Equal([]string{"z-0-fe/2/2"}))
		Eventually(podGangs(ns, "z")).Should(Equal([]string{"z-0"}))
		Eventually(pcsgCondition("z-0-mn", grovecorev1alpha1.ConditionTypeMinAvailableBreached)).Should(Equal("False/ScaledToZero"))
		Expect(getPCSG(ns, "z-0-mn")().Status.Replicas).To(BeEquivalentTo(0))
		Consistently(available, 2*delay).Should(BeEquivalentTo(1))
		Expect(podCliqueUIDs(ns, "z")["z-0-fe"]).To(Equal(fe))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())

		By("a value between 0 and minAvailable is refused, naming minAvailable")
		scale, err := clientset.GroveV1alpha1().PodCliqueScalingGroups(ns).GetScale(ctx, "z-0-mn", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		scale.Spec.Replicas = 1
		_, err = clientset.GroveV1alpha1().PodCliqueScalingGroups(ns).UpdateScale(ctx, "z-0-mn", scale, metav1.UpdateOptions{})
		Expect(err).To(MatchError(ContainSubstring("replicas must be 0 or greater than or equal to minAvailable")))
		Expect(err).To(MatchError(ContainSubstring("spec.replicas")))

		By("back to 2: PodCliques and groups return and schedule")
		scaleScalingGroup(ns, "z-0-mn", 2)
		Eventually(podCliques(ns, "z")).Should(Equal([]string{"z-0-fe", "z-0-mn-0-ldr", "z-0-mn-0-wkr", "z-0-mn-1-ldr", "z-0-mn-1-wkr"}))
		Eventually(groupSummary(ns, "z-0")).Should(Equal([]string{
			"z-0-fe/2/2", "z-0-mn-0-ldr/1/1", "z-0-mn-0-wkr/2/2", "z-0-mn-1-ldr/1/1", "z-0-mn-1-wkr/2/2",
		}))
		runPods(ns, "z", 8)
		Eventually(pcsgCondition("z-0-mn", grovecorev1alpha1.ConditionTypeMinAvailableBreached)).Should(Equal("False/SufficientAvailablePodCliqueScalingGroupReplicas"))
		Eventually(available).Should(BeEquivalentTo(1))
		Expect(podCliqueUIDs(ns, "z")["z-0-fe"]).To(Equal(fe))
	})
})
