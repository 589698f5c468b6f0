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
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	topoRack = "test/testdata/e2e/topology-rack.yaml"
	// rackKey is the rack level's node label key in hack/local-cluster's
	// ClusterTopologyBinding grove-topology (5 fake nodes per rack).
	rackKey = "example.com/rack"
)

// rackOf returns the rack label of a node.
func rackOf(g Gomega, nodeName string) string {
	node := &corev1.Node{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Name: nodeName}, node)).To(Succeed())
	return node.Labels[rackKey]
}

// racksOf maps the racks the pods run in to their pod names.
func racksOf(pods []corev1.Pod) map[string][]string {
	GinkgoHelper()
	out := map[string][]string{}
	for _, p := range pods {
		r := rackOf(Default, p.Spec.NodeName)
		Expect(r).NotTo(BeEmpty(), "node %s has no rack label", p.Spec.NodeName)
		out[r] = append(out[r], p.Name)
	}
	return out
}

// pcsTopologyCondition renders a PodCliqueSet's TopologyLevelsUnavailable
// condition as status/reason.
func pcsTopologyCondition(g Gomega, ns, name string) string {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pcs)).To(Succeed())
	c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason
}

// Topology-aware scheduling on the local cluster's fake nodes, labelled by
// hack/local-cluster with zone/block/rack/host and named by the
// ClusterTopologyBinding grove-topology.
var _ = Describe("Topology-aware scheduling", func() {
	It("TAS3: a required rack puts every pod of the gang in one rack, and the PodCliqueSet reports its levels available", func() {
		ns := newNamespace("tas-rack")
		pcs := createPCS(topoRack, ns)
		pods := expectRunningLayout(ns, pcs.Name, map[string]int{"topo-rack-0-worker": 4}, fakeNodeName)
		expectDistinctNodes(pods)
		racks := map[string][]string{}
		for _, p := range pods {
			r := rackOf(Default, p.Spec.NodeName)
			racks[r] = append(racks[r], p.Name)
		}
		Expect(racks).To(HaveLen(1), "pods per rack: %v", racks)
		Expect(racks).NotTo(HaveKey(""), "nodes without a rack label")

		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "topo-rack-0"}, pg)).To(Succeed())
		Expect(pg.Spec.TopologyConstraint).To(Equal(&groveschedulerv1alpha1.TopologyConstraint{
			PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey)},
		}))
		Expect(pg.Annotations).To(HaveKeyWithValue(apicommon.AnnotationTopologyName, "grove-topology"))
		Eventually(func(g Gomega) string { return pcsTopologyCondition(g, ns, pcs.Name) }).
			Should(Equal("False/" + grovecorev1alpha1.ConditionReasonAllClusterTopologyLevelsAvailable))
	})

	It("TAS preferred host: a gang no single host can hold falls back to several hosts of its required rack", func() {
		ns := newNamespace("tas-pref")
		pcs := loadPCS(topoRack)
		pcs.Namespace = ns
		pcs.Spec.Template.TopologyConstraint.Pack.Preferred = ptr.To[grovecorev1alpha1.TopologyDomain]("host")
		pcs.Spec.Template.Cliques[0].Spec.Replicas = 3
		pcs.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](3)
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		pods := expectRunningLayout(ns, pcs.Name, map[string]int{"topo-rack-0-worker": 3}, fakeNodeName)
		expectDistinctNodes(pods)
		Expect(racksOf(pods)).To(HaveLen(1), "one rack: %v", racksOf(pods))
		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "topo-rack-0"}, pg)).To(Succeed())
		Expect(pg.Spec.TopologyConstraint).To(Equal(&groveschedulerv1alpha1.TopologyConstraint{
			PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey), Preferred: ptr.To("kubernetes.io/hostname")},
		}))
	})

	It("TAS packing: a PodCliqueSet-level required rack holds each replica's base and scaled gangs, and its two replicas take one rack each", func() {
		ns := newNamespace("tas-pack")
		pcs := loadPCS(topoRack)
		pcs.Namespace = ns
		pcs.Spec.Replicas = 2
		// Per replica: fe (2 pods) and scaling-group replica 0 (1 pod) in the
		// base PodGang, replicas 1 and 2 in two scaled PodGangs. Five
		// one-per-host pods fill a 5-host rack, so the second replica cannot
		// share the first one's rack.
		fe := *pcs.Spec.Template.Cliques[0].DeepCopy()
		fe.Name, fe.Spec.RoleName, fe.Spec.Replicas, fe.Spec.MinAvailable = "fe", "fe", 2, ptr.To[int32](2)
		w := *fe.DeepCopy()
		w.Name, w.Spec.RoleName, w.Spec.Replicas, w.Spec.MinAvailable = "w", "w", 1, ptr.To[int32](1)
		pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{fe, w}
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
			Name: "sg", CliqueNames: []string{"w"}, Replicas: ptr.To[int32](3), MinAvailable: ptr.To[int32](1),
		}}
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		layout := map[string]int{}
		for i := 0; i < 2; i++ {
			r := fmt.Sprintf("topo-rack-%d", i)
			layout[r+"-fe"] = 2
			for j := 0; j < 3; j++ {
				layout[fmt.Sprintf("%s-sg-%d-w", r, j)] = 1
			}
		}
		pods := expectRunningLayout(ns, pcs.Name, layout, fakeNodeName)
		expectDistinctNodes(pods)
		perReplica := map[string][]corev1.Pod{}
		for _, p := range pods {
			i := p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]
			perReplica[i] = append(perReplica[i], p)
		}
		Expect(perReplica).To(HaveLen(2))
		Expect(racksOf(perReplica["0"])).To(HaveLen(1), "replica 0, base and scaled gangs: %v", racksOf(perReplica["0"]))
		Expect(racksOf(perReplica["1"])).To(HaveLen(1), "replica 1, base and scaled gangs: %v", racksOf(perReplica["1"]))
		Expect(racksOf(pods)).To(HaveLen(2), "one rack per replica: %v", racksOf(pods))

		By("each scaled PodGang names its replica's base PodGang and the rack it shares")
		for _, name := range []string{"topo-rack-0-sg-0", "topo-rack-0-sg-1", "topo-rack-1-sg-0", "topo-rack-1-sg-1"} {
			pg := &groveschedulerv1alpha1.PodGang{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
			Expect(pg.Spec.BasePodGang).To(Equal(&groveschedulerv1alpha1.BasePodGangReference{
				Name:               name[:len("topo-rack-0")],
				TopologyConstraint: &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey)}},
			}), name)
		}
	})

	It("TAS13: a required rack no rack can hold binds no pod, and the PodGang names the rack level", func() {
		ns := newNamespace("tas-unfit")
		pcs := loadPCS(topoRack)
		pcs.Namespace = ns
		// Six one-per-host pods: the 40 fake nodes could hold them, a 5-host rack cannot.
		pcs.Spec.Template.Cliques[0].Spec.Replicas = 6
		pcs.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](6)
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		expectGangReleased(ns, pcs.Name, 6, "topo-rack-0")
		expectUnschedulable(ns, pcs.Name, "topo-rack-0")
		Eventually(func(g Gomega) {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "topo-rack-0"}, pg)).To(Succeed())
			cond := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond.Message).To(ContainSubstring(`does not fit in any single "` + rackKey + `" domain`))
		}).Should(Succeed())
		Consistently(func(g Gomega) []corev1.Pod { return bound(listPods(g, ns, pcs.Name)) }).Should(BeEmpty())
	})

	It("TAS20: a deleted binding turns the condition Unknown/ClusterTopologyNotFound and empties the PodGang's keys; recreated, the keys return", func() {
		ns := newNamespace("tas-binding")
		grove := &grovecorev1alpha1.ClusterTopologyBinding{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: "grove-topology"}, grove)).To(Succeed())
		ctb := &grovecorev1alpha1.ClusterTopologyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec:       grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: grove.Spec.Levels},
		}
		Expect(k8s.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, ctb))).To(Succeed()) })
		Eventually(func(g Gomega) metav1.ConditionStatus {
			got := &grovecorev1alpha1.ClusterTopologyBinding{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(ctb), got)).To(Succeed())
			c := meta.FindStatusCondition(got.Status.Conditions, grovecorev1alpha1.ConditionTypeNodesLabelled)
			g.Expect(c).NotTo(BeNil())
			return c.Status
		}).Should(Equal(metav1.ConditionTrue), "every level of the local cluster's topology is on its fake nodes")

		pcs := loadPCS(topoRack)
		pcs.Namespace = ns
		pcs.Spec.Template.TopologyConstraint.TopologyName = ctb.Name
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		gangKeys := func(g Gomega) *groveschedulerv1alpha1.TopologyConstraint {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "topo-rack-0"}, pg)).To(Succeed())
			return pg.Spec.TopologyConstraint
		}
		rackConstraint := &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey)}}
		Eventually(gangKeys).Should(Equal(rackConstraint))
		Eventually(func(g Gomega) string { return pcsTopologyCondition(g, ns, pcs.Name) }).
			Should(Equal("False/" + grovecorev1alpha1.ConditionReasonAllClusterTopologyLevelsAvailable))

		By("deleting the binding")
		Expect(k8s.Delete(ctx, ctb)).To(Succeed())
		Eventually(func(g Gomega) string { return pcsTopologyCondition(g, ns, pcs.Name) }).
			Should(Equal("Unknown/" + grovecorev1alpha1.ConditionReasonClusterTopologyNotFound))
		Eventually(gangKeys).Should(BeNil())
		Eventually(func(g Gomega) []string {
			events := &eventsv1.EventList{}
			g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var msgs []string
			for _, e := range events.Items {
				if e.Reason == grovecorev1alpha1.ConditionReasonClusterTopologyNotFound && e.Regarding.Name == pcs.Name {
					msgs = append(msgs, e.Note)
				}
			}
			return msgs
		}).Should(ContainElement(`ClusterTopologyBinding "` + ctb.Name + `" does not exist; left out of the PodGangs: spec.template.topologyConstraint.pack.required=rack`))

		By("creating the binding again")
		ctb = &grovecorev1alpha1.ClusterTopologyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec:       grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: grove.Spec.Levels},
		}
		Expect(k8s.Create(ctx, ctb)).To(Succeed())
		Eventually(func(g Gomega) string { return pcsTopologyCondition(g, ns, pcs.Name) }).
			Should(Equal("False/" + grovecorev1alpha1.ConditionReasonAllClusterTopologyLevelsAvailable))
		Eventually(gangKeys).Should(Equal(rackConstraint))
	})
})
