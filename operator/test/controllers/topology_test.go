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
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

var (
	zone, rack, host = grovecorev1alpha1.TopologyDomainZone, grovecorev1alpha1.TopologyDomainRack, grovecorev1alpha1.TopologyDomainHost
	numa             = grovecorev1alpha1.TopologyDomainNuma
)

// topologyBinding is a zone/rack/host binding; every spec names its own.
func topologyBinding(name string) *grovecorev1alpha1.ClusterTopologyBinding {
	return &grovecorev1alpha1.ClusterTopologyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
			{Domain: zone, Key: "topology.kubernetes.io/zone"},
			{Domain: rack, Key: "example.com/rack"},
			{Domain: host, Key: "kubernetes.io/hostname"},
		}},
	}
}

func packConstraint(name string, required, preferred *grovecorev1alpha1.TopologyDomain) *grovecorev1alpha1.TopologyConstraint {
	return &grovecorev1alpha1.TopologyConstraint{TopologyName: name, Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: required, Preferred: preferred}}
}

func packKeys(required, preferred *string) *groveschedulerv1alpha1.TopologyConstraint {
	return &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: required, Preferred: preferred}}
}

// topologyPCS has a standalone clique fe and a scaling group sg of clique wk
// with 2 replicas (minAvailable 1), so one base and one scaled PodGang.
func topologyPCS(ns string, set, group, fe *grovecorev1alpha1.TopologyConstraint) *grovecorev1alpha1.PodCliqueSet {
	podSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "topo", Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				TopologyConstraint: set,
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
					{Name: "fe", TopologyConstraint: fe, Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "fe", Replicas: 1, PodSpec: podSpec}},
					{Name: "wk", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "wk", Replicas: 1, PodSpec: podSpec}},
				},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "sg", CliqueNames: []string{"wk"}, Replicas: ptr.To[int32](2), TopologyConstraint: group,
				}},
			},
		},
	}
}

// topologyCondition returns the PodCliqueSet's TopologyLevelsUnavailable
// condition as status/reason/message, "absent" when it has none.
func topologyCondition(ns, name string) func() string {
	return func() string {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pcs)).To(Succeed())
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable)
		if c == nil {
			return "absent"
		}
		return string(c.Status) + "/" + c.Reason + ": " + c.Message
	}
}

// gangConstraints renders the translated constraints of a PodGang: the
// gang's, each group config's, each pod group's and, on a scaled PodGang, the
// PodCliqueSet-level one it shares with its base PodGang.
func gangConstraints(ns, name string) func() map[string]*groveschedulerv1alpha1.TopologyConstraint {
	return func() map[string]*groveschedulerv1alpha1.TopologyConstraint {
		pg := &groveschedulerv1alpha1.PodGang{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg); err != nil {
			return nil
		}
		out := map[string]*groveschedulerv1alpha1.TopologyConstraint{"gang": pg.Spec.TopologyConstraint}
		for _, gc := range pg.Spec.TopologyConstraintGroupConfigs {
			out["config/"+gc.Name] = gc.TopologyConstraint
		}
		for _, g := range pg.Spec.PodGroups {
			out["group/"+g.Name] = g.TopologyConstraint
		}
		if b := pg.Spec.BasePodGang; b != nil {
			out["base/"+b.Name] = b.TopologyConstraint
		}
		return out
	}
}

var _ = Describe("Topology constraints in PodGangs and the TopologyLevelsUnavailable condition", func() {
	It("names a missing binding: Unknown/ClusterTopologyNotFound and no keys; the binding is created: False and the PodGangs carry the keys; it changes and goes: the PodGangs follow", func() {
		ns := newNamespace()
		ctb := topologyBinding("dc-" + ns)
		pcs := topologyPCS(ns, packConstraint(ctb.Name, &zone, nil), packConstraint("", &rack, nil), packConstraint("", nil, &host))
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(podGangs(ns, "topo")).Should(Equal([]string{"topo-0", "topo-0-sg-0"}))
		notFound := "Unknown/ClusterTopologyNotFound: ClusterTopologyBinding \"" + ctb.Name + "\" does not exist; left out of the PodGangs: " +
			"spec.template.topologyConstraint.pack.required=zone, spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required=rack, " +
			"spec.template.cliques[0].topologyConstraint.pack.preferred=host"
		Eventually(topologyCondition(ns, "topo")).Should(Equal(notFound))
		Expect(gangConstraints(ns, "topo-0")()).To(Equal(map[string]*groveschedulerv1alpha1.TopologyConstraint{
			"gang": nil, "group/topo-0-fe": nil, "group/topo-0-sg-0-wk": nil,
		}))
		Expect(podGang(ns, "topo-0").Annotations).NotTo(HaveKey("grove.io/topology-name"))
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "ClusterTopologyNotFound")) }).
			Should(ConsistOf("PodCliqueSet/topo: " + notFound[len("Unknown/ClusterTopologyNotFound: "):]))

		By("creating the ClusterTopologyBinding the constraints name")
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ctb))).To(Succeed()) })
		available := "False/AllClusterTopologyLevelsAvailable: every topology domain is a level of ClusterTopologyBinding \"" + ctb.Name + "\""
		Eventually(topologyCondition(ns, "topo")).Should(Equal(available))
		Eventually(gangConstraints(ns, "topo-0")).Should(Equal(map[string]*groveschedulerv1alpha1.TopologyConstraint{
			"gang":                 packKeys(ptr.To("topology.kubernetes.io/zone"), nil),
			"config/topo-0-sg-0":   packKeys(ptr.To("example.com/rack"), nil),
			"group/topo-0-fe":      packKeys(nil, ptr.To("kubernetes.io/hostname")),
			"group/topo-0-sg-0-wk": nil,
		}))
		Expect(podGang(ns, "topo-0").Annotations).To(HaveKeyWithValue("grove.io/topology-name", ctb.Name))
		// The replica's PodGangs are applied side by side: topo-0 done says nothing of topo-0-sg-0.
		Eventually(gangConstraints(ns, "topo-0-sg-0")).Should(Equal(map[string]*groveschedulerv1alpha1.TopologyConstraint{
			"gang": packKeys(ptr.To("example.com/rack"), nil), "group/topo-0-sg-1-wk": nil,
			"base/topo-0": packKeys(ptr.To("topology.kubernetes.io/zone"), nil),
		}), "a scaled PodGang takes its scaling group's constraint and names its base PodGang with the PodCliqueSet's")
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "AllClusterTopologyLevelsAvailable")) }).
			Should(ConsistOf("PodCliqueSet/topo: " + available[len("False/AllClusterTopologyLevelsAvailable: "):]))

		By("changing the rack level's key")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ctb), ctb)).To(Succeed())
		ctb.Spec.Levels[1].Key = "example.com/rack-v2"
		Expect(k8sClient.Update(ctx, ctb)).To(Succeed())
		Eventually(gangConstraints(ns, "topo-0-sg-0")).Should(HaveKeyWithValue("gang", packKeys(ptr.To("example.com/rack-v2"), nil)))
		Eventually(gangConstraints(ns, "topo-0")).Should(HaveKeyWithValue("config/topo-0-sg-0", packKeys(ptr.To("example.com/rack-v2"), nil)))

		By("deleting the ClusterTopologyBinding")
		Expect(k8sClient.Delete(ctx, ctb)).To(Succeed())
		Eventually(topologyCondition(ns, "topo")).Should(Equal(notFound))
		Eventually(gangConstraints(ns, "topo-0-sg-0")).Should(Equal(map[string]*groveschedulerv1alpha1.TopologyConstraint{"gang": nil, "group/topo-0-sg-1-wk": nil, "base/topo-0": nil}))
		Eventually(func() map[string]string { return podGang(ns, "topo-0").Annotations }).ShouldNot(HaveKey("grove.io/topology-name"))
	})

	It("keeps what translates and reports True/ClusterTopologyLevelsUnavailable for domains that are no level", func() {
		ns := newNamespace()
		ctb := topologyBinding("dc-" + ns)
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ctb))).To(Succeed()) })
		block := grovecorev1alpha1.TopologyDomainBlock
		Expect(k8sClient.Create(ctx, topologyPCS(ns, packConstraint(ctb.Name, &block, &rack), nil, packConstraint("", nil, &numa)))).To(Succeed())
		want := "True/ClusterTopologyLevelsUnavailable: domains that are not levels of ClusterTopologyBinding \"" + ctb.Name +
			"\" (levels: zone, rack, host) are left out of the PodGangs: spec.template.topologyConstraint.pack.required=block, " +
			"spec.template.cliques[0].topologyConstraint.pack.preferred=numa"
		Eventually(topologyCondition(ns, "topo")).Should(Equal(want))
		Eventually(gangConstraints(ns, "topo-0")).Should(Equal(map[string]*groveschedulerv1alpha1.TopologyConstraint{
			"gang": packKeys(nil, ptr.To("example.com/rack")), "group/topo-0-fe": nil, "group/topo-0-sg-0-wk": nil,
		}), "the preferred rack translates and stays; the required block does not")
		Eventually(func() []eventsv1.Event { return eventsWithReason(ns, "ClusterTopologyLevelsUnavailable") }).Should(ConsistOf(
			And(HaveField("Type", corev1.EventTypeWarning), HaveField("Note", want[len("True/ClusterTopologyLevelsUnavailable: "):]))))
	})

	It("reports Unknown/TopologyNameMissing when no constraint names a binding", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, topologyPCS(ns, nil, packConstraint("", &rack, nil), nil))).To(Succeed())
		Eventually(topologyCondition(ns, "topo")).Should(Equal("Unknown/TopologyNameMissing: no topology constraint names a ClusterTopologyBinding (topologyName); " +
			"left out of the PodGangs: spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required=rack"))
		Eventually(gangConstraints(ns, "topo-0")).Should(HaveKeyWithValue("gang", BeNil()), "the PodGang, once created, has no gang constraint")
		Expect(podGang(ns, "topo-0").Spec.TopologyConstraintGroupConfigs).To(BeEmpty())
	})

	It("reports False/AllClusterTopologyLevelsAvailable without constraints", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, topologyPCS(ns, nil, nil, nil))).To(Succeed())
		Eventually(topologyCondition(ns, "topo")).Should(Equal("False/AllClusterTopologyLevelsAvailable: No topology constraints defined"))
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "AllClusterTopologyLevelsAvailable")) }).
			Should(ConsistOf("PodCliqueSet/topo: No topology constraints defined"))
	})

	It("reports Unknown/TopologyAwareSchedulingDisabled when the operator does not translate constraints, and no condition without constraints", func() {
		By("restarting the manager with topology-aware scheduling disabled")
		stopMgr()
		<-mgrDone
		stopMgr, mgrDone = startManager(restCfg, func(c *config.OperatorConfiguration) { c.TopologyAwareScheduling.Enabled = ptr.To(false) })
		DeferCleanup(func() {
			stopMgr()
			<-mgrDone
			stopMgr, mgrDone = startManager(restCfg)
		})
		ns := newNamespace()
		ctb := topologyBinding("dc-" + ns)
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ctb))).To(Succeed()) })
		Expect(k8sClient.Create(ctx, topologyPCS(ns, packConstraint(ctb.Name, &rack, nil), nil, nil))).To(Succeed())
		Eventually(topologyCondition(ns, "topo")).Should(Equal("Unknown/TopologyAwareSchedulingDisabled: topology-aware scheduling is disabled in the operator configuration; " +
			"left out of the PodGangs: spec.template.topologyConstraint.pack.required=rack"))
		Eventually(gangConstraints(ns, "topo-0")).Should(HaveKeyWithValue("gang", BeNil()), "the PodGang, once created, has no gang constraint")

		plain := topologyPCS(ns, nil, nil, nil)
		plain.Name = "plain"
		Expect(k8sClient.Create(ctx, plain)).To(Succeed())
		Eventually(podGangs(ns, "plain")).Should(HaveLen(2))
		Consistently(topologyCondition(ns, "plain"), "1s").Should(Equal("absent"))
	})
})
