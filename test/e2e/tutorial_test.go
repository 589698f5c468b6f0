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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const samples = "samples/user-guide/01_core-concepts/"

// The core-concepts tutorial's five examples, with the exact names it shows
// and each of its scaling steps (kubectl scale goes through /scale, as here).
var _ = Describe("Tutorial examples", func() {
	It("Example 1: single-node-aggregated scales its PodClique to 4 and the PodCliqueSet to 3", func() {
		ns := newNamespace("tutorial1")
		createPCS(samples+"single-node-aggregated.yaml", ns)
		expectRunningLayout(ns, "single-node-aggregated", map[string]int{
			"single-node-aggregated-0-model-worker": 2,
		}, fakeNodeName)

		By("kubectl scale pclq single-node-aggregated-0-model-worker --replicas=4")
		scaleTo(pclqRef(ns, "single-node-aggregated-0-model-worker"), 4)
		expectRunningLayout(ns, "single-node-aggregated", map[string]int{
			"single-node-aggregated-0-model-worker": 4,
		}, fakeNodeName)

		By("kubectl scale pcs single-node-aggregated --replicas=3: new replicas start from the template's 2")
		scaleTo(pcsRef(ns, "single-node-aggregated"), 3)
		expectRunningLayout(ns, "single-node-aggregated", map[string]int{
			"single-node-aggregated-0-model-worker": 4,
			"single-node-aggregated-1-model-worker": 2,
			"single-node-aggregated-2-model-worker": 2,
		}, fakeNodeName)
	})

	It("Example 2: single-node-disaggregated runs prefill and decode and replicates both with the PodCliqueSet", func() {
		ns := newNamespace("tutorial2")
		createPCS(samples+"single-node-disaggregated.yaml", ns)
		expectRunningLayout(ns, "single-node-disaggregated", map[string]int{
			"single-node-disaggregated-0-prefill": 3,
			"single-node-disaggregated-0-decode":  2,
		}, fakeNodeName)

		By("kubectl scale pcs single-node-disaggregated --replicas=2")
		scaleTo(pcsRef(ns, "single-node-disaggregated"), 2)
		expectRunningLayout(ns, "single-node-disaggregated", map[string]int{
			"single-node-disaggregated-0-prefill": 3,
			"single-node-disaggregated-0-decode":  2,
			"single-node-disaggregated-1-prefill": 3,
			"single-node-disaggregated-1-decode":  2,
		}, fakeNodeName)
		Eventually(func(g Gomega) []string { return podCliqueNames(g, ns, "single-node-disaggregated") }).Should(Equal([]string{
			"single-node-disaggregated-0-decode", "single-node-disaggregated-0-prefill",
			"single-node-disaggregated-1-decode", "single-node-disaggregated-1-prefill",
		}))
	})

	It("Example 3: multinode-aggregated scales its scaling group to 3 and one worker PodClique to 4", func() {
		ns := newNamespace("tutorial3")
		createPCS(samples+"multi-node-aggregated.yaml", ns)
		expectRunningLayout(ns, "multinode-aggregated", map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1,
			"multinode-aggregated-0-model-instance-0-worker": 3,
			"multinode-aggregated-0-model-instance-1-leader": 1,
			"multinode-aggregated-0-model-instance-1-worker": 3,
		}, fakeNodeName)
		Expect(scalingGroupNames(Default, ns, "multinode-aggregated")).To(Equal([]string{"multinode-aggregated-0-model-instance"}))

		By("kubectl scale pcsg multinode-aggregated-0-model-instance --replicas=3")
		scaleTo(pcsgRef(ns, "multinode-aggregated-0-model-instance"), 3)
		expectRunningLayout(ns, "multinode-aggregated", map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1,
			"multinode-aggregated-0-model-instance-0-worker": 3,
			"multinode-aggregated-0-model-instance-1-leader": 1,
			"multinode-aggregated-0-model-instance-1-worker": 3,
			"multinode-aggregated-0-model-instance-2-leader": 1,
			"multinode-aggregated-0-model-instance-2-worker": 3,
		}, fakeNodeName)
		Expect(podCliqueNames(Default, ns, "multinode-aggregated")).To(Equal([]string{
			"multinode-aggregated-0-model-instance-0-leader", "multinode-aggregated-0-model-instance-0-worker",
			"multinode-aggregated-0-model-instance-1-leader", "multinode-aggregated-0-model-instance-1-worker",
			"multinode-aggregated-0-model-instance-2-leader", "multinode-aggregated-0-model-instance-2-worker",
		}))

		By("kubectl scale pclq multinode-aggregated-0-model-instance-0-worker --replicas=4")
		scaleTo(pclqRef(ns, "multinode-aggregated-0-model-instance-0-worker"), 4)
		expectRunningLayout(ns, "multinode-aggregated", map[string]int{
			"multinode-aggregated-0-model-instance-0-leader": 1,
			"multinode-aggregated-0-model-instance-0-worker": 4,
			"multinode-aggregated-0-model-instance-1-leader": 1,
			"multinode-aggregated-0-model-instance-1-worker": 3,
			"multinode-aggregated-0-model-instance-2-leader": 1,
			"multinode-aggregated-0-model-instance-2-worker": 3,
		}, fakeNodeName)
	})

	It("Example 4: multinode-disaggregated runs 2 prefill and 1 decode multi-node instances (13 pods)", func() {
		ns := newNamespace("tutorial4")
		createPCS(samples+"multi-node-disaggregated.yaml", ns)
		expectRunningLayout(ns, "multinode-disaggregated", map[string]int{
			"multinode-disaggregated-0-prefill-0-pleader": 1,
			"multinode-disaggregated-0-prefill-0-pworker": 4,
			"multinode-disaggregated-0-prefill-1-pleader": 1,
			"multinode-disaggregated-0-prefill-1-pworker": 4,
			"multinode-disaggregated-0-decode-0-dleader":  1,
			"multinode-disaggregated-0-decode-0-dworker":  2,
		}, fakeNodeName)
		Expect(scalingGroupNames(Default, ns, "multinode-disaggregated")).To(Equal([]string{
			"multinode-disaggregated-0-decode", "multinode-disaggregated-0-prefill",
		}))

		By("kubectl scale pcsg multinode-disaggregated-0-decode --replicas=2")
		scaleTo(pcsgRef(ns, "multinode-disaggregated-0-decode"), 2)
		expectRunningLayout(ns, "multinode-disaggregated", map[string]int{
			"multinode-disaggregated-0-prefill-0-pleader": 1,
			"multinode-disaggregated-0-prefill-0-pworker": 4,
			"multinode-disaggregated-0-prefill-1-pleader": 1,
			"multinode-disaggregated-0-prefill-1-pworker": 4,
			"multinode-disaggregated-0-decode-0-dleader":  1,
			"multinode-disaggregated-0-decode-0-dworker":  2,
			"multinode-disaggregated-0-decode-1-dleader":  1,
			"multinode-disaggregated-0-decode-1-dworker":  2,
		}, fakeNodeName)
	})

	It("Example 5: comp-inf-ppln runs the complete pipeline (11 pods)", func() {
		ns := newNamespace("tutorial5")
		createPCS(samples+"complete-inference-pipeline.yaml", ns)
		expectRunningLayout(ns, "comp-inf-ppln", map[string]int{
			"comp-inf-ppln-0-frontend":                 2,
			"comp-inf-ppln-0-vision-encoder":           1,
			"comp-inf-ppln-0-prefill-0-pleader":        1,
			"comp-inf-ppln-0-prefill-0-pworker":        4,
			"comp-inf-ppln-0-decode-cluster-0-dleader": 1,
			"comp-inf-ppln-0-decode-cluster-0-dworker": 2,
		}, fakeNodeName)
		Expect(scalingGroupNames(Default, ns, "comp-inf-ppln")).To(Equal([]string{
			"comp-inf-ppln-0-decode-cluster", "comp-inf-ppln-0-prefill",
		}))
	})
})
