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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

var _ = Describe("Topology constraints in PodGangs", func() {
	It("translates PodCliqueSet, scaling-group and clique constraints into node label keys of the named ClusterTopologyBinding", func() {
		ns := newNamespace()
		zone, rack, host := grovecorev1alpha1.TopologyDomainZone, grovecorev1alpha1.TopologyDomainRack, grovecorev1alpha1.TopologyDomainHost
		ct := &grovecorev1alpha1.ClusterTopologyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "dc-" + ns},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
				{Domain: zone, Key: "topology.kubernetes.io/zone"},
				{Domain: rack, Key: "example.com/rack"},
				{Domain: host, Key: "kubernetes.io/hostname"},
			}},
		}
		podSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}
		pcs := &grovecorev1alpha1.PodCliqueSet{
			ObjectMeta: metav1.ObjectMeta{Name: "topo", Namespace: ns},
			Spec: grovecorev1alpha1.PodCliqueSetSpec{
				Replicas: 1,
				Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
					TopologyConstraint: &grovecorev1alpha1.TopologyConstraint{TopologyName: ct.Name, Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: &zone}},
					Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
						{Name: "fe", TopologyConstraint: &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Preferred: &host}},
							Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "fe", Replicas: 1, PodSpec: podSpec}},
						{Name: "wk", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "wk", Replicas: 1, PodSpec: podSpec}},
					},
					PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
						Name: "sg", CliqueNames: []string{"wk"}, Replicas: ptr.To[int32](2),
						TopologyConstraint: &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: &rack}},
					}},
				},
			},
		}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(podGangs(ns, "topo")).Should(Equal([]string{"topo-0", "topo-0-sg-0"}))
		Expect(podGang(ns, "topo-0").Spec.TopologyConstraint).To(BeNil(), "no ClusterTopologyBinding yet: nothing to translate with")

		By("creating the ClusterTopologyBinding the constraints name")
		Expect(k8sClient.Create(ctx, ct)).To(Succeed())
		Eventually(func() map[string]string { return podGang(ns, "topo-0").Annotations }).Should(HaveKeyWithValue("grove.io/topology-name", ct.Name))

		base := podGang(ns, "topo-0")
		Expect(base.Annotations).To(HaveKeyWithValue("grove.io/topology-name", ct.Name))
		Expect(base.Spec.TopologyConstraint).To(Equal(&groveschedulerv1alpha1.TopologyConstraint{
			PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To("topology.kubernetes.io/zone")},
		}))
		Expect(base.Spec.PodGroups[0].Name).To(Equal("topo-0-fe"))
		Expect(base.Spec.PodGroups[0].TopologyConstraint).To(Equal(&groveschedulerv1alpha1.TopologyConstraint{
			PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Preferred: ptr.To("kubernetes.io/hostname")},
		}))
		Expect(base.Spec.TopologyConstraintGroupConfigs).To(Equal([]groveschedulerv1alpha1.TopologyConstraintGroupConfig{{
			Name: "topo-0-sg-0", PodGroupNames: []string{"topo-0-sg-0-wk"},
			TopologyConstraint: &groveschedulerv1alpha1.TopologyConstraint{
				PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To("example.com/rack")},
			},
		}}))
		scaled := podGang(ns, "topo-0-sg-0")
		Expect(scaled.Spec.TopologyConstraint).To(Equal(&groveschedulerv1alpha1.TopologyConstraint{
			PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To("example.com/rack")},
		}), "a scaled PodGang takes its scaling group's constraint")
	})
})
