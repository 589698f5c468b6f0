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
	. "github.com/onsi/gomega/gstruct"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/hash"
)

// The reference's worked naming example (simple1), scaled out at the
// scaling-group and PodCliqueSet level and back in.
var _ = Describe("simple1 naming example", func() {
	var (
		ns  string
		pcs *grovecorev1alpha1.PodCliqueSet
	)
	BeforeEach(func() {
		ns = newNamespace()
		pcs = loadFixture("simple1.yaml", ns)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
	})

	templateHash := func(clique string) string {
		for i := range pcs.Spec.Template.Cliques {
			if pcs.Spec.Template.Cliques[i].Name == clique {
				h, err := hash.PodTemplateHash(&pcs.Spec.Template.Cliques[i], "")
				Expect(err).NotTo(HaveOccurred())
				return h
			}
		}
		Fail("no clique " + clique)
		return ""
	}

	It("creates the reference's objects with exact labels and owners, and scales at every level", func() {
		Eventually(podCliques(ns, "simple1")).Should(Equal([]string{
			"simple1-0-pca", "simple1-0-pcd", "simple1-0-sga-0-pcb", "simple1-0-sga-0-pcc",
		}))
		Expect(scalingGroups(ns, "simple1")()).To(Equal([]string{"simple1-0-sga"}))
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
		// Services and HPAs are synced after the PodGangs, in a later component group.
		Eventually(services(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
		Eventually(hpas(ns, "simple1")).Should(Equal([]string{"simple1-0-pca"}))

		By("standalone PodClique: template labels, Grove labels, finalizer, PodCliqueSet as controller")
		revision, err := hash.GenerationHash(pcs)
		Expect(err).NotTo(HaveOccurred())
		pca := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "simple1-0-pca"}, pca)).To(Succeed())
		Expect(pca.Labels).To(Equal(map[string]string{
			"team":                                  "inference",
			"app.kubernetes.io/managed-by":          "grove-operator",
			"app.kubernetes.io/part-of":             "simple1",
			"app.kubernetes.io/name":                "simple1-0-pca",
			"app.kubernetes.io/component":           "pcs-podclique",
			"grove.io/podcliqueset-replica-index":   "0",
			"grove.io/podgang":                      "simple1-0",
			"grove.io/pod-template-hash":            templateHash("pca"),
			"grove.io/podclique-template-name":      "pca",
			"grove.io/podcliqueset-generation-hash": revision,
		}))
		Expect(pca.Finalizers).To(Equal([]string{"grove.io/podclique.grove.io"}))
		Expect(metav1.GetControllerOf(pca)).To(PointTo(MatchFields(IgnoreExtras, Fields{
			"Kind": Equal("PodCliqueSet"), "Name": Equal("simple1"), "UID": Equal(pcs.UID),
		})))
		Expect(pca.Spec.MinAvailable).To(Equal(ptr.To[int32](2)), "minAvailable defaults to replicas")

		By("scaling-group member: group labels, PodCliqueScalingGroup as controller")
		pcc := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "simple1-0-sga-0-pcc"}, pcc)).To(Succeed())
		Expect(pcc.Labels).To(Equal(map[string]string{
			"app.kubernetes.io/managed-by":                 "grove-operator",
			"app.kubernetes.io/part-of":                    "simple1",
			"app.kubernetes.io/name":                       "simple1-0-sga-0-pcc",
			"app.kubernetes.io/component":                  "pcsg-podclique",
			"grove.io/podcliqueset-replica-index":          "0",
			"grove.io/podcliquescalinggroup":               "simple1-0-sga",
			"grove.io/podcliquescalinggroup-replica-index": "0",
			"grove.io/podgang":                             "simple1-0",
			"grove.io/pod-template-hash":                   templateHash("pcc"),
			"grove.io/podclique-template-name":             "pcc",
			"grove.io/podcliqueset-generation-hash":        revision,
		}))
		Expect(metav1.GetControllerOf(pcc)).To(PointTo(MatchFields(IgnoreExtras, Fields{
			"Kind": Equal("PodCliqueScalingGroup"), "Name": Equal("simple1-0-sga"),
		})))

		By("PodGang: labels, owner, one group per PodClique with its pods")
		Eventually(groupSummary(ns, "simple1-0")).Should(Equal([]string{
			"simple1-0-pca/2/2", "simple1-0-pcd/1/1", "simple1-0-sga-0-pcb/1/1", "simple1-0-sga-0-pcc/1/2",
		}))
		// The revision label follows the PodCliques, which may appear after the PodGang.
		Eventually(func() map[string]string { return podGang(ns, "simple1-0").Labels }).Should(Equal(map[string]string{
			"app.kubernetes.io/managed-by":          "grove-operator",
			"app.kubernetes.io/part-of":             "simple1",
			"app.kubernetes.io/name":                "simple1-0",
			"app.kubernetes.io/component":           "podgang",
			"grove.io/scheduler-name":               "grove-scheduler",
			"grove.io/podcliqueset-replica-index":   "0",
			"grove.io/podcliqueset-generation-hash": revision,
		}))
		pg := podGang(ns, "simple1-0")
		Expect(metav1.IsControlledBy(pg, pcs)).To(BeTrue())

		By("kubectl scale pcsg simple1-0-sga --replicas=2")
		scaleScalingGroup(ns, "simple1-0-sga", 2)
		Eventually(podCliques(ns, "simple1")).Should(Equal([]string{
			"simple1-0-pca", "simple1-0-pcd", "simple1-0-sga-0-pcb", "simple1-0-sga-0-pcc", "simple1-0-sga-1-pcb", "simple1-0-sga-1-pcc",
		}))
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-0-sga-0"}))
		Eventually(groupSummary(ns, "simple1-0-sga-0")).Should(Equal([]string{"simple1-0-sga-1-pcb/1/1", "simple1-0-sga-1-pcc/1/2"}))
		scaled := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "simple1-0-sga-1-pcc"}, scaled)).To(Succeed())
		Expect(scaled.Labels).To(HaveKeyWithValue("grove.io/podgang", "simple1-0-sga-0"))
		Expect(scaled.Labels).To(HaveKeyWithValue("grove.io/base-podgang", "simple1-0"))

		By("kubectl scale pcs simple1 --replicas=2")
		scalePodCliqueSet(ns, "simple1", 2)
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-0-sga-0", "simple1-1"}))
		Eventually(podCliques(ns, "simple1")).Should(Equal([]string{
			"simple1-0-pca", "simple1-0-pcd", "simple1-0-sga-0-pcb", "simple1-0-sga-0-pcc", "simple1-0-sga-1-pcb", "simple1-0-sga-1-pcc",
			"simple1-1-pca", "simple1-1-pcd", "simple1-1-sga-0-pcb", "simple1-1-sga-0-pcc",
		}))
		Expect(scalingGroups(ns, "simple1")()).To(Equal([]string{"simple1-0-sga", "simple1-1-sga"}))
		Eventually(services(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-1"}))
		Eventually(hpas(ns, "simple1")).Should(Equal([]string{"simple1-0-pca", "simple1-1-pca"}))

		By("scale-in of the PodCliqueSet removes the Services, HPAs, PodGangs and children of index 1")
		scalePodCliqueSet(ns, "simple1", 1)
		Eventually(services(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
		Eventually(hpas(ns, "simple1")).Should(Equal([]string{"simple1-0-pca"}))
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-0-sga-0"}))
		Eventually(scalingGroups(ns, "simple1")).Should(Equal([]string{"simple1-0-sga"}))
		Eventually(podCliques(ns, "simple1")).Should(Equal([]string{
			"simple1-0-pca", "simple1-0-pcd", "simple1-0-sga-0-pcb", "simple1-0-sga-0-pcc", "simple1-0-sga-1-pcb", "simple1-0-sga-1-pcc",
		}))

		By("scale-in of the scaling group removes its replica's PodCliques and scaled PodGang")
		scaleScalingGroup(ns, "simple1-0-sga", 1)
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
		Eventually(podCliques(ns, "simple1")).Should(Equal([]string{
			"simple1-0-pca", "simple1-0-pcd", "simple1-0-sga-0-pcb", "simple1-0-sga-0-pcc",
		}))
		// Pods of removed PodCliques go with garbage collection, which envtest does not run.
	})

	It("propagates template replicas changes but keeps a kubectl scale until then (decision 3)", func() {
		Eventually(podCliques(ns, "simple1")).Should(ContainElement("simple1-0-pcd"))
		scalePodClique(ns, "simple1-0-pcd", 3)
		replicasOf := func(name string) func() int32 {
			return func() int32 {
				p := &grovecorev1alpha1.PodClique{}
				Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
				return p.Spec.Replicas
			}
		}
		By("an unrelated template change does not undo the kubectl scale")
		updatePCS(ns, "simple1", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[3].Spec.PodSpec.Containers[0].Image = "nginx:1.27"
		})
		Consistently(replicasOf("simple1-0-pcd"), "2s").Should(Equal(int32(3)))
		By("a changed template replicas value wins")
		updatePCS(ns, "simple1", func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.Cliques[3].Spec.Replicas = 2 })
		Eventually(replicasOf("simple1-0-pcd")).Should(Equal(int32(2)))
		By("the autoscaled clique keeps its live replicas even when the template changes")
		scalePodClique(ns, "simple1-0-pca", 3)
		updatePCS(ns, "simple1", func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.Cliques[0].Spec.Replicas = 1 })
		Consistently(replicasOf("simple1-0-pca"), "2s").Should(Equal(int32(3)))
	})

	It("reports status: PodGang Initialized, counts and conditions following pods, mirrored PodGang status", func() {
		Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
		Eventually(func() []metav1.Condition { return podGang(ns, "simple1-0").Status.Conditions }).Should(ContainElement(MatchFields(IgnoreExtras, Fields{
			"Type": Equal("Initialized"), "Status": Equal(metav1.ConditionTrue), "Reason": Equal("PodGangPodsCreated"),
		})))
		Expect(podGang(ns, "simple1-0").Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending))

		genHash, err := hash.GenerationHash(pcs)
		Expect(err).NotTo(HaveOccurred())
		Eventually(getPCS(ns, "simple1")).Should(WithTransform(func(p *grovecorev1alpha1.PodCliqueSet) grovecorev1alpha1.PodCliqueSetStatus { return p.Status },
			MatchFields(IgnoreExtras, Fields{
				"Replicas":              Equal(int32(1)),
				"AvailableReplicas":     Equal(int32(0)),
				"HPAPodSelector":        Equal("app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=simple1"),
				"CurrentGenerationHash": Equal(&genHash),
				"ObservedGeneration":    Equal(ptr.To[int64](1)),
				"LastOperation": PointTo(MatchFields(IgnoreExtras, Fields{
					"Type": Equal(grovecorev1alpha1.LastOperationTypeReconcile), "State": Equal(grovecorev1alpha1.LastOperationStateSucceeded),
				})),
			})))

		By("all pods scheduled and ready: the replica becomes available and updated")
		setPodsStatus(ns, "simple1", "", true, true)
		Eventually(getPCSG(ns, "simple1-0-sga")).Should(WithTransform(func(g *grovecorev1alpha1.PodCliqueScalingGroup) grovecorev1alpha1.PodCliqueScalingGroupStatus {
			return g.Status
		},
			MatchFields(IgnoreExtras, Fields{
				"Replicas": Equal(int32(1)), "ScheduledReplicas": Equal(int32(1)), "AvailableReplicas": Equal(int32(1)), "UpdatedReplicas": Equal(int32(1)),
				"Selector": Equal(ptr.To("app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=simple1,grove.io/podcliquescalinggroup=simple1-0-sga")),
				"Conditions": ContainElement(MatchFields(IgnoreExtras, Fields{
					"Type": Equal("MinAvailableBreached"), "Status": Equal(metav1.ConditionFalse), "Reason": Equal("SufficientAvailablePodCliqueScalingGroupReplicas"),
				})),
			})))
		Eventually(func() [2]int32 {
			p := getPCS(ns, "simple1")()
			return [2]int32{p.Status.AvailableReplicas, p.Status.UpdatedReplicas}
		}).Should(Equal([2]int32{1, 1}))

		By("the scheduler writes the PodGang status: the PodCliqueSet mirrors it and the operator keeps it")
		pg := podGang(ns, "simple1-0")
		base := pg.DeepCopy()
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
		pg.Status.Conditions = append(pg.Status.Conditions, metav1.Condition{
			Type: "Scheduled", Status: metav1.ConditionTrue, Reason: "Scheduled", Message: "all pod groups placed", LastTransitionTime: metav1.Now(),
		})
		Expect(k8sClient.Status().Patch(ctx, pg, client.MergeFrom(base))).To(Succeed())
		Eventually(func() []grovecorev1alpha1.PodGangStatus { return getPCS(ns, "simple1")().Status.PodGangStatuses }).Should(ConsistOf(
			MatchFields(IgnoreExtras, Fields{
				"Name": Equal("simple1-0"), "Phase": Equal(groveschedulerv1alpha1.PodGangPhaseRunning),
				"Conditions": ContainElements(
					MatchFields(IgnoreExtras, Fields{"Type": Equal("Initialized"), "Status": Equal(metav1.ConditionTrue)}),
					MatchFields(IgnoreExtras, Fields{"Type": Equal("Scheduled"), "Status": Equal(metav1.ConditionTrue)}),
				),
			})))

		By("a member pod is lost (not ready): the scaling group breaches and the replica is no longer available")
		setPodsStatus(ns, "simple1", "simple1-0-sga-0-pcb", true, false)
		Eventually(func() int32 { return getPCSG(ns, "simple1-0-sga")().Status.AvailableReplicas }).Should(Equal(int32(0)))
		Eventually(func() int32 { return getPCS(ns, "simple1")().Status.AvailableReplicas }).Should(Equal(int32(0)))
		Expect(podGang(ns, "simple1-0").Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhaseRunning), "the operator never overwrites the scheduler's phase")
		Expect(podGang(ns, "simple1-0").Status.Conditions).To(ContainElement(MatchFields(IgnoreExtras, Fields{"Type": Equal("Scheduled")})))
	})
})
