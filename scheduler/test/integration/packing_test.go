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

package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/test/harness"
)

// replicaGang creates the pods and the PodGang of one gang of PodCliqueSet
// "pcs" with the required rack constraint; base (if any) makes it a scaled
// gang of that base PodGang sharing the rack constraint, as the operator
// writes them.
func replicaGang(ns, name, base string, groups ...group) []*corev1.Pod {
	pods, pg := familyGang(ns, "pcs", name, "", groups...)
	key := rackKey
	required := &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: &key}}
	pg.Spec.TopologyConstraint = required
	if base != "" {
		pg.Spec.BasePodGang = &groveschedulerv1alpha1.BasePodGangReference{Name: base, TopologyConstraint: required.DeepCopy()}
	}
	createPods(pods)
	createPodGang(pg)
	return pods
}

var _ = Describe("Packing a PodCliqueSet replica's gangs into the domain of its required constraint", func() {
	It("places a scaled gang in its base gang's rack, or binds nothing and says which rack it waits for, while another replica uses another rack", func() {
		ns := newNamespace("packing")
		node := harness.Resources("cpu", "8", "pods", "110", gpu, "2")
		// rack-a: two 2-GPU nodes; rack-b: one, so the smallest-first search
		// picks rack-b for any gang that fits there.
		rackA := map[string]bool{}
		for _, n := range createNodes(ns, 2, node, func(int) map[string]string { return map[string]string{rackKey: "rack-a"} }) {
			rackA[n] = true
		}
		rackB := map[string]bool{}
		for _, n := range createNodes(ns+"-b", 1, node, func(int) map[string]string { return map[string]string{poolLabel: ns, rackKey: "rack-b"} }) {
			rackB[n] = true
		}
		one := gpus("1")

		By("placing replica 0's base gang, which only rack-a holds")
		base := replicaGang(ns, "pcs-0", "", group{name: "a", pods: 3, min: 3, requests: one})
		expectAllBoundWithin(ns, base, rackA, "rack-a")

		By("placing a scaled gang of replica 0 that rack-b would hold: it goes to rack-a")
		scaled := replicaGang(ns, "pcs-0-sg-0", "pcs-0", group{name: "c", pods: 1, min: 1, requests: one})
		expectAllBoundWithin(ns, scaled, rackA, "rack-a")

		By("a second scaled gang of replica 0 finds rack-a full: nothing binds and its PodGang names the base and the rack")
		waiting := replicaGang(ns, "pcs-0-sg-1", "pcs-0", group{name: "c", pods: 1, min: 1, requests: one})
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "pcs-0-sg-1"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(Equal("waits for room in " + rackKey + "=rack-a, the domain base PodGang " + ns + "/pcs-0 holds: group c needs 1 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu"))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(boundCount(ns, waiting), 2*time.Second, 200*time.Millisecond).Should(Equal(0))

		By("replica 1's base gang is free to use rack-b")
		other := replicaGang(ns, "pcs-1", "", group{name: "a", pods: 2, min: 2, requests: one})
		expectAllBoundWithin(ns, other, rackB, "rack-b")
		Expect(boundCount(ns, waiting)()).To(Equal(0), "the waiting scaled gang never takes rack-b")

		By("adding a node to rack-a: the waiting scaled gang binds there")
		moreA := createNodes(ns+"-a2", 1, node, func(int) map[string]string { return map[string]string{poolLabel: ns, rackKey: "rack-a"} })
		rackA[moreA[0]] = true
		expectAllBoundWithin(ns, waiting, rackA, "rack-a")
		Eventually(func(g Gomega) {
			expectCondition(g, podGang(ns, "pcs-0-sg-1"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled)
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
	})
})
