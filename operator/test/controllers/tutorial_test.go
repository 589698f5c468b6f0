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
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The five examples of the core-concepts tutorial: every manifest must give
// exactly the PodCliques, scaling groups, PodGangs, Services and pods the
// tutorial shows, before and after its kubectl scale steps.
var _ = Describe("Core-concepts tutorial", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("example 1, single-node aggregated: one clique, scaled as a PodClique and as a PodCliqueSet", func() {
		const pcs = "single-node-aggregated"
		Expect(k8sClient.Create(ctx, loadFixture("tutorial-single-node-aggregated.yaml", ns))).To(Succeed())

		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{"single-node-aggregated-0-model-worker": 2}))
		Expect(podCliques(ns, pcs)()).To(Equal([]string{"single-node-aggregated-0-model-worker"}))
		Eventually(scalingGroups(ns, pcs)).Should(BeEmpty())
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"single-node-aggregated-0"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"single-node-aggregated-0"}))

		By("kubectl scale pclq single-node-aggregated-0-model-worker --replicas=4")
		scalePodClique(ns, "single-node-aggregated-0-model-worker", 4)
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{"single-node-aggregated-0-model-worker": 4}))

		By("kubectl scale pcs single-node-aggregated --replicas=3")
		scalePodCliqueSet(ns, pcs, 3)
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"single-node-aggregated-0-model-worker": 4, // the PodClique-level scale persists
			"single-node-aggregated-1-model-worker": 2,
			"single-node-aggregated-2-model-worker": 2,
		}))
		Expect(podCliques(ns, pcs)()).To(Equal([]string{
			"single-node-aggregated-0-model-worker", "single-node-aggregated-1-model-worker", "single-node-aggregated-2-model-worker",
		}))
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"single-node-aggregated-0", "single-node-aggregated-1", "single-node-aggregated-2"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"single-node-aggregated-0", "single-node-aggregated-1", "single-node-aggregated-2"}))
		Eventually(groupSummary(ns, "single-node-aggregated-0")).Should(Equal([]string{"single-node-aggregated-0-model-worker/2/4"}))
	})

	It("example 2, single-node disaggregated: prefill and decode, scaled as a PodCliqueSet", func() {
		const pcs = "single-node-disaggregated"
		Expect(k8sClient.Create(ctx, loadFixture("tutorial-single-node-disaggregated.yaml", ns))).To(Succeed())
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"single-node-disaggregated-0-decode": 2, "single-node-disaggregated-0-prefill": 3,
		}))
		Expect(podCliques(ns, pcs)()).To(Equal([]string{"single-node-disaggregated-0-decode", "single-node-disaggregated-0-prefill"}))
		Eventually(scalingGroups(ns, pcs)).Should(BeEmpty())
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"single-node-disaggregated-0"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"single-node-disaggregated-0"}))

		By("kubectl scale pcs single-node-disaggregated --replicas=2")
		scalePodCliqueSet(ns, pcs, 2)
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"single-node-disaggregated-0-decode": 2, "single-node-disaggregated-0-prefill": 3,
			"single-node-disaggregated-1-decode": 2, "single-node-disaggregated-1-prefill": 3,
		}))
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"single-node-disaggregated-0", "single-node-disaggregated-1"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"single-node-disaggregated-0", "single-node-disaggregated-1"}))
		Eventually(groupSummary(ns, "single-node-disaggregated-1")).Should(Equal([]string{
			"single-node-disaggregated-1-prefill/3/3", "single-node-disaggregated-1-decode/2/2",
		}))
	})

	It("example 3, multi-node aggregated: a leader/worker scaling group, scaled as a group and as a member PodClique", func() {
		const pcs = "multinode-aggregated"
		Expect(k8sClient.Create(ctx, loadFixture("tutorial-multinode-aggregated.yaml", ns))).To(Succeed())
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1, "multinode-aggregated-0-model-instance-0-worker": 3,
			"multinode-aggregated-0-model-instance-1-leader": 1, "multinode-aggregated-0-model-instance-1-worker": 3,
		}))
		Eventually(scalingGroups(ns, pcs)).Should(Equal([]string{"multinode-aggregated-0-model-instance"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"multinode-aggregated-0"}))
		// minAvailable defaults to 1: replica 0 is in the base PodGang, replica 1 in the first scaled one.
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"multinode-aggregated-0", "multinode-aggregated-0-model-instance-0"}))
		Eventually(groupSummary(ns, "multinode-aggregated-0")).Should(Equal([]string{
			"multinode-aggregated-0-model-instance-0-leader/1/1", "multinode-aggregated-0-model-instance-0-worker/3/3",
		}))
		Eventually(groupSummary(ns, "multinode-aggregated-0-model-instance-0")).Should(Equal([]string{
			"multinode-aggregated-0-model-instance-1-leader/1/1", "multinode-aggregated-0-model-instance-1-worker/3/3",
		}))

		By("kubectl scale pcsg multinode-aggregated-0-model-instance --replicas=3")
		scaleScalingGroup(ns, "multinode-aggregated-0-model-instance", 3)
		Eventually(podCliques(ns, pcs)).Should(Equal([]string{
			"multinode-aggregated-0-model-instance-0-leader", "multinode-aggregated-0-model-instance-0-worker",
			"multinode-aggregated-0-model-instance-1-leader", "multinode-aggregated-0-model-instance-1-worker",
			"multinode-aggregated-0-model-instance-2-leader", "multinode-aggregated-0-model-instance-2-worker",
		}))
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1, "multinode-aggregated-0-model-instance-0-worker": 3,
			"multinode-aggregated-0-model-instance-1-leader": 1, "multinode-aggregated-0-model-instance-1-worker": 3,
			"multinode-aggregated-0-model-instance-2-leader": 1, "multinode-aggregated-0-model-instance-2-worker": 3,
		}))
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{
			"multinode-aggregated-0", "multinode-aggregated-0-model-instance-0", "multinode-aggregated-0-model-instance-1",
		}))

		By("kubectl scale pclq multinode-aggregated-0-model-instance-0-worker --replicas=4")
		scalePodClique(ns, "multinode-aggregated-0-model-instance-0-worker", 4)
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1, "multinode-aggregated-0-model-instance-0-worker": 4,
			"multinode-aggregated-0-model-instance-1-leader": 1, "multinode-aggregated-0-model-instance-1-worker": 3,
			"multinode-aggregated-0-model-instance-2-leader": 1, "multinode-aggregated-0-model-instance-2-worker": 3,
		}))
		Eventually(groupSummary(ns, "multinode-aggregated-0")).Should(Equal([]string{
			"multinode-aggregated-0-model-instance-0-leader/1/1", "multinode-aggregated-0-model-instance-0-worker/3/4",
		}))
	})

	It("example 4, multi-node disaggregated: two scaling groups", func() {
		const pcs = "multinode-disaggregated"
		Expect(k8sClient.Create(ctx, loadFixture("tutorial-multinode-disaggregated.yaml", ns))).To(Succeed())
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"multinode-disaggregated-0-decode-0-dleader": 1, "multinode-disaggregated-0-decode-0-dworker": 2,
			"multinode-disaggregated-0-prefill-0-pleader": 1, "multinode-disaggregated-0-prefill-0-pworker": 4,
			"multinode-disaggregated-0-prefill-1-pleader": 1, "multinode-disaggregated-0-prefill-1-pworker": 4,
		}))
		Eventually(scalingGroups(ns, pcs)).Should(Equal([]string{"multinode-disaggregated-0-decode", "multinode-disaggregated-0-prefill"}))
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"multinode-disaggregated-0", "multinode-disaggregated-0-prefill-0"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"multinode-disaggregated-0"}))
		Eventually(groupSummary(ns, "multinode-disaggregated-0")).Should(Equal([]string{
			"multinode-disaggregated-0-prefill-0-pleader/1/1", "multinode-disaggregated-0-prefill-0-pworker/4/4",
			"multinode-disaggregated-0-decode-0-dleader/1/1", "multinode-disaggregated-0-decode-0-dworker/2/2",
		}))
	})

	It("example 5, complete inference pipeline: standalone cliques next to two scaling groups", func() {
		const pcs = "comp-inf-ppln"
		Expect(k8sClient.Create(ctx, loadFixture("tutorial-complete-inference-pipeline.yaml", ns))).To(Succeed())
		Eventually(podCounts(ns, pcs)).Should(Equal(map[string]int{
			"comp-inf-ppln-0-decode-cluster-0-dleader": 1, "comp-inf-ppln-0-decode-cluster-0-dworker": 2,
			"comp-inf-ppln-0-frontend":          2,
			"comp-inf-ppln-0-prefill-0-pleader": 1, "comp-inf-ppln-0-prefill-0-pworker": 4,
			"comp-inf-ppln-0-vision-encoder": 1,
		}))
		Eventually(scalingGroups(ns, pcs)).Should(Equal([]string{"comp-inf-ppln-0-decode-cluster", "comp-inf-ppln-0-prefill"}))
		Eventually(podGangs(ns, pcs)).Should(Equal([]string{"comp-inf-ppln-0"}))
		Eventually(services(ns, pcs)).Should(Equal([]string{"comp-inf-ppln-0"}))
		Eventually(groupSummary(ns, "comp-inf-ppln-0")).Should(Equal([]string{
			"comp-inf-ppln-0-frontend/2/2", "comp-inf-ppln-0-vision-encoder/1/1",
			"comp-inf-ppln-0-prefill-0-pleader/1/1", "comp-inf-ppln-0-prefill-0-pworker/4/4",
			"comp-inf-ppln-0-decode-cluster-0-dleader/1/1", "comp-inf-ppln-0-decode-cluster-0-dworker/2/2",
		}))
		var svc corev1.Service
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "comp-inf-ppln-0"}, &svc)).To(Succeed())
		Expect(svc.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
		Expect(svc.Spec.PublishNotReadyAddresses).To(BeTrue())
		Expect(svc.Spec.Selector).To(Equal(map[string]string{
			"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": "comp-inf-ppln",
			"grove.io/podcliqueset-replica-index": "0",
		}))
	})
})
