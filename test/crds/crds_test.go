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

package crds

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/model:1"}}}
}

// leaderWorker is the tutorial's multi-node aggregated example.
func leaderWorker(name string) *grovecorev1alpha1.PodCliqueSet {
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
					{Name: "leader", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "leader", Replicas: 1, PodSpec: podSpec()}},
					{Name: "worker", Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "worker", Replicas: 3, PodSpec: podSpec()}},
				},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{
					{Name: "model-instance", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To[int32](2)},
				},
			},
		},
	}
}

// expectInvalid asserts the API server refused the object as invalid with a
// message containing every fragment (typically the field path and the rule).
func expectInvalid(err error, fragments ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected an Invalid error, got: %v", err)
	for _, f := range fragments {
		Expect(err.Error()).To(ContainSubstring(f))
	}
}

var _ = Describe("Grove CRDs", func() {
	Describe("valid objects", func() {
		It("accepts a PodCliqueSet and applies the CRD defaults", func() {
			pcs, err := clients.GroveV1alpha1().PodCliqueSets("default").Create(ctx, leaderWorker("accepted"), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(pcs.Spec.Template.StartupType).To(HaveValue(Equal(grovecorev1alpha1.CliqueStartupTypeAnyOrder)))
			Expect(pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable).To(HaveValue(BeEquivalentTo(1)))
			Expect(pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].Replicas).To(HaveValue(BeEquivalentTo(2)))
		})

		It("accepts a PodClique", func() {
			pclq := &grovecorev1alpha1.PodClique{
				ObjectMeta: metav1.ObjectMeta{Name: "accepted-0-frontend", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueSpec{RoleName: "frontend", Replicas: 2, MinAvailable: ptr.To[int32](1), PodSpec: podSpec()},
			}
			_, err := clients.GroveV1alpha1().PodCliques("default").Create(ctx, pclq, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		})

		It("accepts a PodCliqueScalingGroup and defaults minAvailable to 1", func() {
			pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "accepted-0-model-instance", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2, CliqueNames: []string{"leader", "worker"}},
			}
			created, err := clients.GroveV1alpha1().PodCliqueScalingGroups("default").Create(ctx, pcsg, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(created.Spec.MinAvailable).To(HaveValue(BeEquivalentTo(1)))
		})

		It("accepts a cluster-scoped ClusterTopologyBinding", func() {
			ct := &grovecorev1alpha1.ClusterTopologyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "datacenter"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
					{Domain: "zone", Key: "topology.kubernetes.io/zone"},
					{Domain: "rack", Key: "example.com/rack"},
					{Domain: "host", Key: "kubernetes.io/hostname"},
				}},
			}
			created, err := clients.GroveV1alpha1().ClusterTopologyBindings().Create(ctx, ct, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(created.Namespace).To(BeEmpty())
		})

		It("serves ClusterTopologyBinding as clustertopologybindings, short name ct, and no ClusterTopology kind", func() {
			resources, err := clients.Discovery().ServerResourcesForGroupVersion("grove.io/v1alpha1")
			Expect(err).NotTo(HaveOccurred())
			kinds := map[string]metav1.APIResource{}
			for _, r := range resources.APIResources {
				kinds[r.Kind+"/"+r.Name] = r
			}
			Expect(kinds).To(HaveKey("ClusterTopologyBinding/clustertopologybindings"))
			ctb := kinds["ClusterTopologyBinding/clustertopologybindings"]
			Expect(ctb.Namespaced).To(BeFalse())
			Expect(ctb.ShortNames).To(Equal([]string{"ct"}))
			Expect(kinds).To(HaveKey("ClusterTopologyBinding/clustertopologybindings/status"))
			for k := range kinds {
				Expect(k).NotTo(HavePrefix("ClusterTopology/"))
			}
		})

		It("rejects duplicate domains, duplicate keys and duplicate scheduler bindings, naming the field", func() {
			level := func(d, k string) grovecorev1alpha1.TopologyLevel {
				return grovecorev1alpha1.TopologyLevel{Domain: grovecorev1alpha1.TopologyDomain(d), Key: k}
			}
			ctbs := clients.GroveV1alpha1().ClusterTopologyBindings()
			_, err := ctbs.Create(ctx, &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "dup-domain"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("zone", "a/rack")}}}, metav1.CreateOptions{})
			expectInvalid(err, "spec.levels", "domains must be unique")
			_, err = ctbs.Create(ctx, &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "dup-key"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("rack", "a/zone")}}}, metav1.CreateOptions{})
			expectInvalid(err, "spec.levels", "keys must be unique")
			_, err = ctbs.Create(ctx, &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "dup-binding"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{
					Levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone")},
					SchedulerTopologyBindings: []grovecorev1alpha1.SchedulerTopologyBinding{
						{SchedulerName: "kai-scheduler", TopologyReference: "a"}, {SchedulerName: "kai-scheduler", TopologyReference: "b"}},
				}}, metav1.CreateOptions{})
			expectInvalid(err, "spec.schedulerTopologyBindings[1]", "Duplicate value")
		})

		It("accepts a PodGang and lets its status be written through the status subresource", func() {
			pg := &groveschedulerv1alpha1.PodGang{
				ObjectMeta: metav1.ObjectMeta{Name: "accepted-0", Namespace: "default"},
				Spec: groveschedulerv1alpha1.PodGangSpec{
					PodGroups: []groveschedulerv1alpha1.PodGroup{{
						Name:          "accepted-0-frontend",
						MinReplicas:   1,
						PodReferences: []groveschedulerv1alpha1.NamespacedName{{Namespace: "default", Name: "accepted-0-frontend-abcde"}},
					}},
					TopologyConstraint: &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To("example.com/rack")}},
				},
			}
			created, err := clients.SchedulerV1alpha1().PodGangs("default").Create(ctx, pg, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			created.Status.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
			created.Status.PlacementScore = ptr.To(0.75)
			updated, err := clients.SchedulerV1alpha1().PodGangs("default").UpdateStatus(ctx, created, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(updated.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhaseRunning))
			Expect(updated.Status.PlacementScore).To(HaveValue(Equal(0.75)))
		})

		It("keeps a scaled PodGang's basePodGang and refuses one without a name", func() {
			scaled := func(name, base string) *groveschedulerv1alpha1.PodGang {
				return &groveschedulerv1alpha1.PodGang{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
					Spec: groveschedulerv1alpha1.PodGangSpec{
						PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: name + "-worker", MinReplicas: 1, PodReferences: []groveschedulerv1alpha1.NamespacedName{}}},
						BasePodGang: &groveschedulerv1alpha1.BasePodGangReference{Name: base,
							TopologyConstraint: &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To("example.com/rack")}}},
					},
				}
			}
			created, err := clients.SchedulerV1alpha1().PodGangs("default").Create(ctx, scaled("accepted-0-sg-0", "accepted-0"), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(created.Spec.BasePodGang.Name).To(Equal("accepted-0"))
			Expect(created.Spec.BasePodGang.TopologyConstraint.PackConstraint.Required).To(HaveValue(Equal("example.com/rack")))
			_, err = clients.SchedulerV1alpha1().PodGangs("default").Create(ctx, scaled("nameless-0-sg-0", ""), metav1.CreateOptions{})
			expectInvalid(err, "spec.basePodGang.name", "should be at least 1 chars long")
		})
	})

	Describe("the scale subresource", func() {
		It("scales a PodCliqueSet", func() {
			pcs, err := clients.GroveV1alpha1().PodCliqueSets("default").Create(ctx, leaderWorker("scalable"), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			scale, err := clients.GroveV1alpha1().PodCliqueSets("default").GetScale(ctx, pcs.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(scale.Spec.Replicas).To(BeEquivalentTo(1))
			scale.Spec.Replicas = 3
			_, err = clients.GroveV1alpha1().PodCliqueSets("default").UpdateScale(ctx, pcs.Name, scale, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
			got, err := clients.GroveV1alpha1().PodCliqueSets("default").Get(ctx, pcs.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Spec.Replicas).To(BeEquivalentTo(3))
		})

		It("scales a PodClique and reports the selector published in status", func() {
			pclqs := clients.GroveV1alpha1().PodCliques("default")
			pclq, err := pclqs.Create(ctx, &grovecorev1alpha1.PodClique{
				ObjectMeta: metav1.ObjectMeta{Name: "scalable-0-worker", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: 2, PodSpec: podSpec()},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			pclq.Status.Replicas = 2
			pclq.Status.HPAPodSelector = "app.kubernetes.io/part-of=scalable,grove.io/podclique=scalable-0-worker"
			_, err = pclqs.UpdateStatus(ctx, pclq, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())

			scale, err := pclqs.GetScale(ctx, pclq.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(scale.Status.Replicas).To(BeEquivalentTo(2))
			Expect(scale.Status.Selector).To(Equal("app.kubernetes.io/part-of=scalable,grove.io/podclique=scalable-0-worker"))
			_, err = pclqs.UpdateScale(ctx, pclq.Name, &autoscalingv1.Scale{
				ObjectMeta: metav1.ObjectMeta{Name: pclq.Name, Namespace: "default", ResourceVersion: scale.ResourceVersion},
				Spec:       autoscalingv1.ScaleSpec{Replicas: 4},
			}, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
			got, err := pclqs.Get(ctx, pclq.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Spec.Replicas).To(BeEquivalentTo(4))
		})

		It("scales a PodCliqueScalingGroup", func() {
			pcsgs := clients.GroveV1alpha1().PodCliqueScalingGroups("default")
			pcsg, err := pcsgs.Create(ctx, &grovecorev1alpha1.PodCliqueScalingGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "scalable-0-model-instance", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2, CliqueNames: []string{"leader", "worker"}},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			scale, err := pcsgs.GetScale(ctx, pcsg.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			scale.Spec.Replicas = 3
			_, err = pcsgs.UpdateScale(ctx, pcsg.Name, scale, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
			got, err := pcsgs.Get(ctx, pcsg.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Spec.Replicas).To(BeEquivalentTo(3))
		})

		It("refuses to scale a PodClique below its minAvailable", func() {
			pclqs := clients.GroveV1alpha1().PodCliques("default")
			pclq, err := pclqs.Create(ctx, &grovecorev1alpha1.PodClique{
				ObjectMeta: metav1.ObjectMeta{Name: "scalable-0-decode", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: 3, MinAvailable: ptr.To[int32](2), PodSpec: podSpec()},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			scale, err := pclqs.GetScale(ctx, pclq.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			scale.Spec.Replicas = 1
			_, err = pclqs.UpdateScale(ctx, pclq.Name, scale, metav1.UpdateOptions{})
			expectInvalid(err, "spec.replicas", "replicas must be 0 or greater than or equal to minAvailable")
		})

		It("scales a PodClique to zero and back through /scale", func() {
			pclqs := clients.GroveV1alpha1().PodCliques("default")
			pclq, err := pclqs.Create(ctx, &grovecorev1alpha1.PodClique{
				ObjectMeta: metav1.ObjectMeta{Name: "scalable-0-prefill", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: 3, MinAvailable: ptr.To[int32](2), PodSpec: podSpec()},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			for _, replicas := range []int32{0, 2} {
				scale, err := pclqs.GetScale(ctx, pclq.Name, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				scale.Spec.Replicas = replicas
				_, err = pclqs.UpdateScale(ctx, pclq.Name, scale, metav1.UpdateOptions{})
				Expect(err).NotTo(HaveOccurred(), "scaling to %d", replicas)
				got, err := pclqs.Get(ctx, pclq.Name, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				Expect(got.Spec.Replicas).To(Equal(replicas))
			}
		})

		It("scales a PodCliqueScalingGroup to zero and back, never to a value below its minAvailable", func() {
			pcsgs := clients.GroveV1alpha1().PodCliqueScalingGroups("default")
			pcsg, err := pcsgs.Create(ctx, &grovecorev1alpha1.PodCliqueScalingGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "scalable-0-parked", Namespace: "default"},
				Spec:       grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 3, MinAvailable: ptr.To[int32](2), CliqueNames: []string{"leader", "worker"}},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			scaleTo := func(replicas int32) error {
				scale, err := pcsgs.GetScale(ctx, pcsg.Name, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				scale.Spec.Replicas = replicas
				_, err = pcsgs.UpdateScale(ctx, pcsg.Name, scale, metav1.UpdateOptions{})
				return err
			}
			Expect(scaleTo(0)).To(Succeed())
			expectInvalid(scaleTo(1), "spec.replicas", "replicas must be 0 or greater than or equal to minAvailable")
			Expect(scaleTo(2)).To(Succeed())
			got, err := pcsgs.Get(ctx, pcsg.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Spec.Replicas).To(BeEquivalentTo(2))
		})
	})

	Describe("validation", func() {
		create := func(mutate func(*grovecorev1alpha1.PodCliqueSet)) error {
			pcs := leaderWorker("invalid")
			mutate(pcs)
			_, err := clients.GroveV1alpha1().PodCliqueSets("default").Create(ctx, pcs, metav1.CreateOptions{})
			return err
		}

		DescribeTable("rejects a PodCliqueSet with a message naming the field",
			func(mutate func(*grovecorev1alpha1.PodCliqueSet), fragments ...string) {
				expectInvalid(create(mutate), fragments...)
			},
			Entry("negative replicas",
				func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Replicas = -1 },
				"spec.replicas", "should be greater than or equal to 0"),
			Entry("negative clique replicas",
				func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.Cliques[1].Spec.Replicas = -2 },
				"spec.template.cliques[1].spec.replicas", "should be greater than or equal to 0"),
			Entry("duplicate clique names",
				func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.Cliques[1].Name = "leader" },
				"spec.template.cliques[1]", "Duplicate value"),
			Entry("a pack constraint with neither required nor preferred",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: "datacenter", Pack: &grovecorev1alpha1.TopologyPackConstraint{}}
				},
				"spec.template.topologyConstraint.pack", "pack must set required or preferred"),
			Entry("a topology constraint without pack",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.Cliques[0].TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: "datacenter"}
				},
				"spec.template.cliques[0].topologyConstraint.pack", "Required value"),
			Entry("an unknown cliqueStartupType",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupType("CliqueStartupTypeRandom"))
				},
				"spec.template.cliqueStartupType", `Unsupported value: "CliqueStartupTypeRandom"`),
			Entry("minAvailable greater than replicas",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.Cliques[1].Spec.MinAvailable = ptr.To[int32](4)
				},
				"spec.template.cliques[1].spec.replicas", "replicas must be 0 or greater than or equal to minAvailable"),
			Entry("a scaling group naming an unknown clique",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.PodCliqueScalingGroupConfigs[0].CliqueNames = []string{"leader", "workers"}
				},
				"spec.template.podCliqueScalingGroups", "must be a clique defined in cliques"),
			Entry("a clique in two scaling groups",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.PodCliqueScalingGroupConfigs = append(p.Spec.Template.PodCliqueScalingGroupConfigs,
						grovecorev1alpha1.PodCliqueScalingGroupConfig{Name: "extra", CliqueNames: []string{"worker"}})
				},
				"spec.template.podCliqueScalingGroups", "a clique may belong to at most one scaling group"),
			Entry("scaling group minAvailable greater than replicas",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable = ptr.To[int32](3)
				},
				"spec.template.podCliqueScalingGroups[0].minAvailable", "minAvailable must be less than or equal to replicas"),
			Entry("an unknown update strategy",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: "Replace"}
				},
				"spec.updateStrategy.type", `Unsupported value: "Replace"`),
			Entry("a clique name that is not a DNS label",
				func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.Cliques[0].Name = "Leader_1" },
				"spec.template.cliques[0].name", "should match"),
			Entry("autoscaling maxReplicas below minReplicas",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.Cliques[0].Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](3), MaxReplicas: 2}
				},
				"spec.template.cliques[0].spec.autoScalingConfig", "maxReplicas must be greater than or equal to minReplicas"),
			Entry("a clique maxUnavailable of 0",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.Cliques[0].Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(0))}
				},
				"spec.template.cliques[0].spec.rollingUpdate.maxUnavailable", "maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"),
			Entry("a scaling group maxUnavailable above 100%",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromString("101%"))}
				},
				"spec.template.podCliqueScalingGroups[0].rollingUpdate.maxUnavailable", "maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"),
			Entry("a progressDeadline of 0",
				func(p *grovecorev1alpha1.PodCliqueSet) {
					p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{ProgressDeadline: &metav1.Duration{}}
				},
				"spec.template.podCliqueScalingGroups[0].rollingUpdate.progressDeadline", "progressDeadline must be greater than 0"),
		)

		It("rejects a PodClique and a PodCliqueScalingGroup with a bad rollingUpdate, naming the field", func() {
			pclq := &grovecorev1alpha1.PodClique{
				ObjectMeta: metav1.ObjectMeta{Name: "budget-0-frontend", Namespace: "default"},
				Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "frontend", Replicas: 2, PodSpec: podSpec(),
					RollingUpdate: &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromString("all"))}},
			}
			_, err := clients.GroveV1alpha1().PodCliques("default").Create(ctx, pclq, metav1.CreateOptions{})
			expectInvalid(err, "spec.rollingUpdate.maxUnavailable", "maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%")
			pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "budget-0-model", Namespace: "default"},
				Spec: grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2, CliqueNames: []string{"leader"},
					RollingUpdate: &grovecorev1alpha1.RollingUpdateConfig{ProgressDeadline: &metav1.Duration{Duration: -time.Second}}},
			}
			_, err = clients.GroveV1alpha1().PodCliqueScalingGroups("default").Create(ctx, pcsg, metav1.CreateOptions{})
			expectInvalid(err, "spec.rollingUpdate.progressDeadline", "progressDeadline must be greater than 0")
		})

		It("accepts the corrected twin of every rejected PodCliqueSet", func() {
			Expect(create(func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Name = "corrected"
				p.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: "datacenter",
					Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: ptr.To[grovecorev1alpha1.TopologyDomain]("rack")}}
				p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit)
				p.Spec.Template.Cliques[1].Spec.MinAvailable = ptr.To[int32](3)
				p.Spec.Template.Cliques[1].Spec.StartsAfter = []string{"leader"}
				p.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.OnDeleteStrategyType}
				p.Spec.Template.Cliques[0].Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(2))}
				p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{
					MaxUnavailable: ptr.To(intstr.FromString("100%")), ProgressDeadline: &metav1.Duration{Duration: 10 * time.Minute}}
			})).To(Succeed())
		})

		It("rejects a ClusterTopologyBinding with duplicate domains or keys", func() {
			ct := &grovecorev1alpha1.ClusterTopologyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "duplicated"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
					{Domain: "rack", Key: "example.com/rack"},
					{Domain: "rack", Key: "example.com/rack"},
				}},
			}
			_, err := clients.GroveV1alpha1().ClusterTopologyBindings().Create(ctx, ct, metav1.CreateOptions{})
			expectInvalid(err, "spec.levels", "domains must be unique", "keys must be unique")
		})

		It("rejects a ClusterTopologyBinding without levels", func() {
			ct := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}
			_, err := clients.GroveV1alpha1().ClusterTopologyBindings().Create(ctx, ct, metav1.CreateOptions{})
			expectInvalid(err, "spec.levels")
		})
	})
})
