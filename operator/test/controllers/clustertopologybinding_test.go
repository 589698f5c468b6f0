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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

var _ = Describe("ClusterTopologyBinding status", func() {
	It("counts the nodes and domains of each level in NodesLabelled and follows node label changes", func() {
		// Nodes are cluster-wide: keys unique to this spec keep other specs' nodes out of the counts.
		ns := newNamespace()
		prefix := ns + ".test.grove.io/"
		zoneKey, rackKey, hostKey := prefix+"zone", prefix+"rack", prefix+"host"
		node := func(name, zone, rack string) *corev1.Node {
			return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name,
				Labels: map[string]string{zoneKey: zone, rackKey: rack}}}
		}
		nodes := []*corev1.Node{node("n1", "z1", "r1"), node("n2", "z1", "r2"), node("n3", "z2", "r3")}
		for _, n := range nodes {
			Expect(k8sClient.Create(ctx, n)).To(Succeed())
		}
		DeferCleanup(func() {
			for _, n := range nodes {
				Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, n))).To(Succeed())
			}
		})
		ctb := &grovecorev1alpha1.ClusterTopologyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
				{Domain: "zone", Key: zoneKey}, {Domain: "rack", Key: rackKey}, {Domain: "host", Key: hostKey},
			}},
		}
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ctb))).To(Succeed()) })

		condition := func() metav1.Condition {
			got := &grovecorev1alpha1.ClusterTopologyBinding{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ctb), got)).To(Succeed())
			c := meta.FindStatusCondition(got.Status.Conditions, grovecorev1alpha1.ConditionTypeNodesLabelled)
			if c == nil || got.Status.ObservedGeneration != got.Generation {
				return metav1.Condition{}
			}
			return metav1.Condition{Status: c.Status, Reason: c.Reason, Message: c.Message}
		}
		Eventually(condition).Should(Equal(metav1.Condition{
			Status: metav1.ConditionFalse, Reason: grovecorev1alpha1.ConditionReasonLevelsNotLabelled,
			Message: "no node carries the label key of level host; zone (" + zoneKey + "): 3 nodes, 2 domains; rack (" + rackKey +
				"): 3 nodes, 3 domains; host (" + hostKey + "): 0 nodes, 0 domains",
		}))
		Eventually(func() []string {
			return eventMessages(eventsWithReason("default", grovecorev1alpha1.ConditionReasonLevelsNotLabelled))
		}).
			Should(ContainElement(HavePrefix("ClusterTopologyBinding/" + ctb.Name + ": no node carries the label key of level host")))

		By("labelling one node with the host key")
		base := nodes[0].DeepCopy()
		nodes[0].Labels[hostKey] = nodes[0].Name
		Expect(k8sClient.Patch(ctx, nodes[0], client.MergeFrom(base))).To(Succeed())
		Eventually(condition).Should(Equal(metav1.Condition{
			Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			Message: "zone (" + zoneKey + "): 3 nodes, 2 domains; rack (" + rackKey + "): 3 nodes, 3 domains; host (" + hostKey + "): 1 nodes, 1 domains",
		}))
		Eventually(func() []string {
			return eventMessages(eventsWithReason("default", grovecorev1alpha1.ConditionReasonAllLevelsLabelled))
		}).
			Should(ContainElement(HavePrefix("ClusterTopologyBinding/" + ctb.Name + ": zone (")))

		By("deleting the node of zone z2")
		Expect(k8sClient.Delete(ctx, nodes[2])).To(Succeed())
		Eventually(condition).Should(Equal(metav1.Condition{
			Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			Message: "zone (" + zoneKey + "): 2 nodes, 1 domains; rack (" + rackKey + "): 2 nodes, 2 domains; host (" + hostKey + "): 1 nodes, 1 domains",
		}))

		By("removing the rack level from the spec")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ctb), ctb)).To(Succeed())
		ctb.Spec.Levels = []grovecorev1alpha1.TopologyLevel{{Domain: "zone", Key: zoneKey}, {Domain: "host", Key: hostKey}}
		Expect(k8sClient.Update(ctx, ctb)).To(Succeed())
		Eventually(condition).Should(Equal(metav1.Condition{
			Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			Message: "zone (" + zoneKey + "): 2 nodes, 1 domains; host (" + hostKey + "): 1 nodes, 1 domains",
		}))
	})
})
