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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Pod readiness is driven through the pods' status subresource: envtest has
// no scheduler or kubelet, so a replacement pod stays unready, and the update
// waits, until a spec marks it ready.

// fullLayout is rolloutPCS replica i with its default sizes.
func fullLayout(pcs string, replicas int) map[string]int {
	out := map[string]int{}
	for i := 0; i < replicas; i++ {
		r := apicommon.PodCliqueSetReplicaName(pcs, int32(i))
		out[r+"-fe"], out[r+"-be"] = 3, 2
		for j := 0; j < 2; j++ {
			g := apicommon.ScalingGroupPodCliqueName(r+"-sg", int32(j), "")
			out[g+"leader"], out[g+"worker"] = 1, 2
		}
	}
	return out
}

var _ = Describe("RollingRecreate updates", func() {
	It("RU7: replaces a changed standalone clique one pod at a time and keeps every pod of the unchanged cliques", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, rolloutPCS(ns, "ru", 1))).To(Succeed())
		before := expectRunning(ns, "ru", fullLayout("ru", 1))
		oldHash, oldGen := hashes(ns, "ru", "fe")
		Eventually(func(g Gomega) {
			p := getPCS(ns, "ru")()
			g.Expect(p.Status.CurrentGenerationHash).To(Equal(ptr.To(oldGen)))
			g.Expect(p.Status.UpdateProgress).To(BeNil(), "creating is no update")
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		}).Should(Succeed())
		oldPods := byIndex(before["ru-0-fe"])

		setImage(ns, "ru", "fe", "registry.example/fe:2")
		newHash, newGen := hashes(ns, "ru", "fe")
		Expect(newHash).NotTo(Equal(oldHash))
		for step := 1; step <= 3; step++ {
			By(fmt.Sprintf("step %d: exactly one more old pod replaced, its replacement not ready yet", step))
			Eventually(func(g Gomega) {
				fe := livePods(g, ns, "ru")["ru-0-fe"]
				g.Expect(withHash(fe, newHash)).To(HaveLen(step))
				g.Expect(withHash(fe, oldHash)).To(HaveLen(3 - step))
			}).Should(Succeed())
			Consistently(func(g Gomega) {
				fe := livePods(g, ns, "ru")["ru-0-fe"]
				g.Expect(withHash(fe, oldHash)).To(HaveLen(3-step), "no further old pod goes while one is unavailable")
				g.Expect(notReady(fe)).To(BeNumerically("<=", 1), "at most maxUnavailable=1 pod down")
			}, "1500ms").Should(Succeed())
			if step == 1 {
				p := getPCS(ns, "ru")()
				Expect(currentlyUpdating(p)).To(Equal([]int32{0}))
				Expect(p.Status.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(newGen))
				Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/RollingUpdate"))
				Eventually(func(g Gomega) {
					q := getPCLQ(ns, "ru-0-fe")()
					g.Expect(condition(q.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)).To(Equal("Unknown/UpdateInProgress"))
					g.Expect(condition(q.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/RollingUpdate"))
					g.Expect(q.Status.UpdateProgress).NotTo(BeNil())
					g.Expect(q.Status.UpdateProgress.PodTemplateHash).To(Equal(newHash))
					g.Expect(q.Status.UpdateProgress.ReadyPodsSelectedToUpdate).NotTo(BeNil())
					g.Expect(q.Status.UpdateProgress.ReadyPodsSelectedToUpdate.Current).To(Equal(oldPods[0].Name), "lowest pod index first")
					g.Expect(q.Status.CurrentPodTemplateHash).To(BeNil(), "pods of two templates run")
				}).Should(Succeed())
			}
			Eventually(func(g Gomega) int { return readyNewPods(g, ns, "ru", "ru-0-fe") }).Should(Equal(1))
		}

		By("the update ends; every other pod kept its UID")
		Eventually(func(g Gomega) {
			p := getPCS(ns, "ru")()
			up := p.Status.UpdateProgress
			g.Expect(up).NotTo(BeNil())
			g.Expect(up.UpdateEndedAt).NotTo(BeNil())
			g.Expect(up.CurrentlyUpdating).To(BeEmpty())
			g.Expect([]int32{up.UpdatedPodCliquesCount, up.TotalPodCliquesCount, up.UpdatedPodCliqueScalingGroupsCount, up.TotalPodCliqueScalingGroupsCount}).
				To(Equal([]int32{2, 2, 1, 1}))
			g.Expect(p.Status.CurrentGenerationHash).To(Equal(ptr.To(newGen)))
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(1)))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeReady)).To(Equal("True/AllReplicasAvailable"))
		}).Should(Succeed())
		// The PodClique writes its own status; it may land after the
		// PodCliqueSet's.
		Eventually(func(g Gomega) {
			q := getPCLQ(ns, "ru-0-fe")()
			g.Expect(q.Status.CurrentPodTemplateHash).To(Equal(ptr.To(newHash)))
			g.Expect(q.Status.CurrentPodCliqueSetGenerationHash).To(Equal(ptr.To(newGen)))
			g.Expect(q.Status.UpdatedReplicas).To(Equal(int32(3)))
			g.Expect(q.Status.UpdateProgress).NotTo(BeNil())
			g.Expect(q.Status.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect(q.Status.UpdateProgress.ReadyPodsSelectedToUpdate).To(Equal(&grovecorev1alpha1.PodsSelectedToUpdate{
				Current: oldPods[2].Name, Completed: []string{oldPods[0].Name, oldPods[1].Name},
			}))
			g.Expect(condition(q.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)).To(Equal("False/SufficientReadyPods"))
		}).Should(Succeed())
		after := livePods(Default, ns, "ru")
		for name, pods := range before {
			if name != "ru-0-fe" {
				Expect(uids(after[name])).To(Equal(uids(pods)), "pods of %s kept", name)
			}
		}
		Expect(eventReasons(ns, "ru")()).To(ContainElements(
			HavePrefix("Normal/UpdateStarted: Updating to generation hash "+newGen),
			HavePrefix("Normal/ReplicaUpdateStarted: Updating replica 0"),
			HavePrefix("Normal/UpdateCompleted: All 1 replicas run generation hash "+newGen),
		))
		By("each update event is posted once")
		for _, reason := range []string{"UpdateStarted", "ReplicaUpdateStarted", "UpdateCompleted"} {
			Expect(eventCount(ns, "ru", reason)).To(Equal(1), "%s posted once", reason)
		}
	})

	It("replaces unready old pods at once and ready ones within a percentage maxUnavailable that counts them", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "mu", 1)
		fe := cliqueOf(pcs, "fe")
		fe.Spec.Replicas = 4
		fe.Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromString("50%"))}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := fullLayout("mu", 1)
		layout["mu-0-fe"] = 4
		old := byIndex(expectRunning(ns, "mu", layout)["mu-0-fe"])
		By("pod 1 of fe becomes unready")
		Expect(setPodReady(&old[1], false)).To(Succeed())
		Eventually(func() int32 { return getPCLQ(ns, "mu-0-fe")().Status.ReadyReplicas }).Should(Equal(int32(3)))

		setImage(ns, "mu", "fe", "registry.example/fe:2")
		newHash, _ := hashes(ns, "mu", "fe")
		By("the unready pod 1 and the ready pod 0 go: 50% of 4 is 2, and one was already down")
		survivors := func(g Gomega) []types.UID {
			return uids(withHash(livePods(g, ns, "mu")["mu-0-fe"], old[0].Labels[apicommon.LabelPodTemplateHash]))
		}
		Eventually(survivors).Should(Equal(uids([]corev1.Pod{old[2], old[3]})))
		Consistently(survivors, "1500ms").Should(Equal(uids([]corev1.Pod{old[2], old[3]})), "two replacements are unavailable: no ready pod goes")
		By("the replacements become ready: the last two old pods go together")
		Eventually(func(g Gomega) int { return readyNewPods(g, ns, "mu", "mu-0-fe") }).Should(Equal(2))
		Eventually(survivors).Should(BeEmpty())
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "mu", "mu-0-fe")
			g.Expect(withHash(livePods(g, ns, "mu")["mu-0-fe"], newHash)).To(HaveLen(4))
			g.Expect(getPCS(ns, "mu")().Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
		}).Should(Succeed())
	})

	It("RU8: replaces a scaling group replica by replica, keeping the other replicas on their old template", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "sg", 1)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].Replicas = ptr.To[int32](3)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := fullLayout("sg", 1)
		layout["sg-0-sg-2-leader"], layout["sg-0-sg-2-worker"] = 1, 2
		before := expectRunning(ns, "sg", layout)
		pclqUIDs := func(g Gomega) map[string]types.UID {
			out := map[string]types.UID{}
			for name, p := range livePodCliques(g, ns, "sg") {
				out[name] = p.UID
			}
			return out
		}
		initial := pclqUIDs(Default)
		oldWorker, _ := hashes(ns, "sg", "worker")

		setImage(ns, "sg", "worker", "registry.example/worker:2")
		newWorker, newGen := hashes(ns, "sg", "worker")
		for j := 0; j < 3; j++ {
			replica := apicommon.ScalingGroupPodCliqueName("sg-0-sg", int32(j), "")
			By("group replica " + replica + " is recreated; later ones keep their PodCliques, template and pods")
			Eventually(func(g Gomega) {
				now := pclqUIDs(g)
				for k := 0; k < 3; k++ {
					r := apicommon.ScalingGroupPodCliqueName("sg-0-sg", int32(k), "")
					if k <= j {
						g.Expect(now[r+"leader"]).NotTo(BeElementOf(initial[r+"leader"], ""), "%sleader recreated", r)
						g.Expect(now[r+"worker"]).NotTo(BeElementOf(initial[r+"worker"], ""), "%sworker recreated", r)
					} else {
						g.Expect(now[r+"leader"]).To(Equal(initial[r+"leader"]))
						g.Expect(now[r+"worker"]).To(Equal(initial[r+"worker"]))
					}
				}
			}).Should(Succeed())
			Consistently(func(g Gomega) {
				pods := livePods(g, ns, "sg")
				for k := j + 1; k < 3; k++ {
					w := apicommon.ScalingGroupPodCliqueName("sg-0-sg", int32(k), "worker")
					g.Expect(uids(pods[w])).To(Equal(uids(before[w])), "%s waits for replica %d", w, j)
					q := livePodCliques(g, ns, "sg")[w]
					g.Expect(q.Labels[apicommon.LabelPodTemplateHash]).To(Equal(oldWorker), "%s keeps its template until replaced", w)
				}
			}, "1500ms").Should(Succeed())
			if j == 0 {
				g := getPCSG(ns, "sg-0-sg")()
				Expect(condition(g.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)).To(Equal("Unknown/UpdateInProgress"))
				Expect(condition(g.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/RollingUpdate"))
				Expect(g.Status.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(newGen))
			}
			Eventually(func(g Gomega) {
				readyNewPods(g, ns, "sg", "")
				w := livePods(g, ns, "sg")[replica+"worker"]
				g.Expect(withHash(w, newWorker)).To(HaveLen(2))
				g.Expect(notReady(w)).To(BeZero())
			}).Should(Succeed())
		}

		By("the group reports the update done; standalone cliques kept their pods")
		Eventually(func(g Gomega) {
			s := getPCSG(ns, "sg-0-sg")().Status
			g.Expect(s.CurrentPodCliqueSetGenerationHash).To(Equal(ptr.To(newGen)))
			g.Expect(s.UpdatedReplicas).To(Equal(int32(3)))
			g.Expect(s.UpdateProgress).NotTo(BeNil())
			g.Expect(s.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect([]int32{s.UpdateProgress.UpdatedPodCliquesCount, s.UpdateProgress.TotalPodCliquesCount}).To(Equal([]int32{6, 6}))
			g.Expect(s.UpdateProgress.ReadyReplicaIndicesSelectedToUpdate).To(Equal(&grovecorev1alpha1.PodCliqueScalingGroupReplicaRollingUpdateProgress{
				Current: 2, Completed: []int32{0, 1}}))
			g.Expect(condition(s.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
			g.Expect(getPCS(ns, "sg")().Status.CurrentGenerationHash).To(Equal(ptr.To(newGen)))
		}).Should(Succeed())
		after := livePods(Default, ns, "sg")
		Expect(uids(after["sg-0-fe"])).To(Equal(uids(before["sg-0-fe"])))
		Expect(uids(after["sg-0-be"])).To(Equal(uids(before["sg-0-be"])))

		By("kubectl get shows the update in the printer columns")
		Expect(tableRow("podcliquesets", ns, "sg")).To(And(
			HaveKeyWithValue("Updated", "1"), HaveKeyWithValue("PCLQs-Updated", "2"), HaveKeyWithValue("PCLQs-Total", "2"),
			HaveKeyWithValue("PCSGs-Updated", "1"), HaveKeyWithValue("PCSGs-Total", "1")))
		Expect(tableRow("podcliquescalinggroups", ns, "sg-0-sg")).To(And(
			HaveKeyWithValue("Updated", "3"), HaveKeyWithValue("PCLQs-Updated", "6"), HaveKeyWithValue("PCLQs-Total", "6")))
		Expect(tableRow("podcliques", ns, "sg-0-sg-1-worker")).To(HaveKeyWithValue("Updated", "2"))
	})

	It("replaces an unavailable group replica at once and waits for it before taking an available one", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "sgu", 1)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].Replicas = ptr.To[int32](3)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := fullLayout("sgu", 1)
		layout["sgu-0-sg-2-leader"], layout["sgu-0-sg-2-worker"] = 1, 2
		before := expectRunning(ns, "sgu", layout)
		By("a worker of group replica 1 becomes unready: the replica is unavailable")
		Expect(setPodReady(&before["sgu-0-sg-1-worker"][0], false)).To(Succeed())
		Eventually(func() int32 { return getPCSG(ns, "sgu-0-sg")().Status.AvailableReplicas }).Should(Equal(int32(2)))

		setImage(ns, "sgu", "leader", "registry.example/leader:2")
		kept := func(g Gomega) []string {
			var out []string
			pods := livePods(g, ns, "sgu")
			for _, n := range []string{"sgu-0-sg-0-leader", "sgu-0-sg-1-leader", "sgu-0-sg-2-leader"} {
				if len(pods[n]) == 1 && pods[n][0].UID == before[n][0].UID {
					out = append(out, n)
				}
			}
			return out
		}
		Eventually(kept).Should(Equal([]string{"sgu-0-sg-0-leader", "sgu-0-sg-2-leader"}), "the unavailable replica 1 goes first")
		Consistently(kept, "1500ms").Should(Equal([]string{"sgu-0-sg-0-leader", "sgu-0-sg-2-leader"}), "maxUnavailable 1 is taken by replica 1")
		By("replica 1's new pods turn ready; only then is replica 0 taken")
		Eventually(func(g Gomega) {
			for _, n := range []string{"sgu-0-sg-1-leader", "sgu-0-sg-1-worker"} {
				readyNewPods(g, ns, "sgu", n)
			}
			pods := livePods(g, ns, "sgu")
			g.Expect(pods["sgu-0-sg-1-leader"]).To(HaveLen(1))
			g.Expect(pods["sgu-0-sg-1-leader"][0].UID).NotTo(Equal(before["sgu-0-sg-1-leader"][0].UID))
			g.Expect(pods["sgu-0-sg-1-worker"]).To(HaveLen(2))
			g.Expect(notReady(pods["sgu-0-sg-1-leader"])).To(BeZero())
			g.Expect(notReady(pods["sgu-0-sg-1-worker"])).To(BeZero())
		}).Should(Succeed())
		Eventually(kept).Should(Equal([]string{"sgu-0-sg-2-leader"}))
	})

	It("RU7/RU11: rolls one PodCliqueSet replica at a time, unscheduled replicas first, and scales out with the new template", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "order", 3)
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:1]
		cliqueOf(pcs, "fe").Spec.Replicas = 1
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		By("replicas 0 and 2 run; replica 1 has nothing scheduled")
		var initial map[string][]corev1.Pod
		Eventually(func(g Gomega) {
			initial = livePods(g, ns, "order")
			g.Expect(initial).To(HaveLen(3))
			for _, n := range []string{"order-0-fe", "order-2-fe"} {
				g.Expect(initial[n]).To(HaveLen(1))
				g.Expect(gated(&initial[n][0])).To(BeFalse())
				if !podReady(&initial[n][0]) {
					g.Expect(setPodReady(&initial[n][0], true)).To(Succeed())
				}
			}
			g.Expect(initial["order-1-fe"]).To(HaveLen(1))
		}).Should(Succeed())
		Eventually(func() int32 { return getPCS(ns, "order")().Status.AvailableReplicas }).Should(Equal(int32(2)))

		setImage(ns, "order", "fe", "registry.example/fe:2")
		newHash, _ := hashes(ns, "order", "fe")
		By("replica 1 served nothing: it goes first, and its turn ends once it runs the new template, ready or not")
		Eventually(func(g Gomega) {
			g.Expect(currentlyUpdating(getPCS(ns, "order")())).To(Equal([]int32{0}))
			pods := livePods(g, ns, "order")
			g.Expect(withHash(pods["order-1-fe"], newHash)).To(HaveLen(1))
			g.Expect(uids(pods["order-2-fe"])).To(Equal(uids(initial["order-2-fe"])))
		}).Should(Succeed())
		for _, i := range []int32{0, 2} {
			pclq := apicommon.PodCliqueName("order", i, "fe")
			By("replica " + pclq + " has its turn; the others keep their pods")
			Eventually(func() []int32 { return currentlyUpdating(getPCS(ns, "order")()) }).Should(Equal([]int32{i}))
			Eventually(func(g Gomega) { g.Expect(withHash(livePods(g, ns, "order")[pclq], newHash)).To(HaveLen(1)) }).Should(Succeed())
			Consistently(func(g Gomega) {
				pods := livePods(g, ns, "order")
				for k := int32(0); k < 3; k++ {
					other := apicommon.PodCliqueName("order", k, "fe")
					if k != i && len(withHash(pods[other], newHash)) == 0 {
						g.Expect(uids(pods[other])).To(Equal(uids(initial[other])), "%s waits", other)
					}
				}
			}, "1s").Should(Succeed())
			if i == 0 {
				By("RU11: kubectl scale pcs --replicas=4 mid-update: replica 3 starts on the new template")
				scalePodCliqueSet(ns, "order", 4)
				Eventually(func(g Gomega) {
					q := livePodCliques(g, ns, "order")["order-3-fe"]
					g.Expect(q).NotTo(BeNil())
					g.Expect(q.Labels[apicommon.LabelPodTemplateHash]).To(Equal(newHash))
					g.Expect(withHash(livePods(g, ns, "order")["order-3-fe"], newHash)).To(HaveLen(1))
				}).Should(Succeed())
			}
			Eventually(func(g Gomega) int { return readyNewPods(g, ns, "order", pclq) }).Should(Equal(1))
		}
		replica3 := livePods(Default, ns, "order")["order-3-fe"]
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "order", "")
			p := getPCS(ns, "order")()
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(4)))
		}).Should(Succeed())
		Expect(uids(livePods(Default, ns, "order")["order-3-fe"])).To(Equal(uids(replica3)), "the scaled-out replica was never rolled")
		Expect(tableRow("podcliquesets", ns, "order")).To(And(HaveKeyWithValue("PCLQs-Updated", "4"), HaveKeyWithValue("PCLQs-Total", "4"),
			HaveKeyWithValue("PCSGs-Updated", "0"), HaveKeyWithValue("PCSGs-Total", "0")), "zero counts print as 0")
	})

	It("restarts cleanly when a new template arrives mid-update, keeping the replica in progress", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "again", 2)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:2]
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		expectRunning(ns, "again", map[string]int{"again-0-fe": 3, "again-0-be": 2, "again-1-fe": 3, "again-1-be": 2})
		setImage(ns, "again", "fe", "registry.example/fe:2")
		v2, _ := hashes(ns, "again", "fe")
		Eventually(func(g Gomega) { g.Expect(withHash(livePods(g, ns, "again")["again-0-fe"], v2)).To(HaveLen(1)) }).Should(Succeed())
		first := getPCS(ns, "again")().Status.UpdateProgress.DeepCopy()

		setImage(ns, "again", "fe", "registry.example/fe:3")
		v3, gen3 := hashes(ns, "again", "fe")
		Eventually(func(g Gomega) {
			up := getPCS(ns, "again")().Status.UpdateProgress
			g.Expect(up.PodCliqueSetGenerationHash).To(Equal(gen3))
			g.Expect(up.UpdateStartedAt.Time).NotTo(BeTemporally("<", first.UpdateStartedAt.Time))
			g.Expect(up.CurrentlyUpdating).To(HaveLen(1))
			g.Expect(up.CurrentlyUpdating[0].ReplicaIndex).To(Equal(int32(0)), "the replica in progress keeps its turn")
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "again", "")
			pods := livePods(g, ns, "again")
			for _, n := range []string{"again-0-fe", "again-1-fe"} {
				g.Expect(withHash(pods[n], v3)).To(HaveLen(3), "%s on fe:3", n)
			}
			g.Expect(getPCS(ns, "again")().Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
		}).WithTimeout(60 * time.Second).Should(Succeed())
		Expect(withHash(livePods(Default, ns, "again")["again-0-fe"], v2)).To(BeEmpty())
	})

	It("RU14: scales a scaling group out during its update with the new template", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, rolloutPCS(ns, "ru14", 1))).To(Succeed())
		expectRunning(ns, "ru14", fullLayout("ru14", 1))
		setImage(ns, "ru14", "worker", "registry.example/worker:2")
		newWorker, _ := hashes(ns, "ru14", "worker")
		Eventually(func(g Gomega) {
			g.Expect(withHash(livePods(g, ns, "ru14")["ru14-0-sg-0-worker"], newWorker)).To(HaveLen(2))
		}).Should(Succeed())
		By("kubectl scale pcsg ru14-0-sg --replicas=3 while replica 0 is replaced")
		scaleScalingGroup(ns, "ru14-0-sg", 3)
		var added types.UID
		Eventually(func(g Gomega) {
			q := livePodCliques(g, ns, "ru14")["ru14-0-sg-2-worker"]
			g.Expect(q).NotTo(BeNil())
			g.Expect(q.Labels[apicommon.LabelPodTemplateHash]).To(Equal(newWorker))
			added = q.UID
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "ru14", "")
			s := getPCSG(ns, "ru14-0-sg")().Status
			g.Expect(s.UpdateProgress).NotTo(BeNil())
			g.Expect(s.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect(s.UpdatedReplicas).To(Equal(int32(3)))
		}).Should(Succeed())
		Expect(livePodCliques(Default, ns, "ru14")["ru14-0-sg-2-worker"].UID).To(Equal(added), "the new replica was not replaced again")
		Expect(getPCSG(ns, "ru14-0-sg")().Status.UpdateProgress.ReadyReplicaIndicesSelectedToUpdate).To(
			Equal(&grovecorev1alpha1.PodCliqueScalingGroupReplicaRollingUpdateProgress{Current: 1, Completed: []int32{0}}), "replica 2 was never selected")
	})

	It("reports ProgressDeadlineExceeded on the clique and the PodCliqueSet with a warning, and keeps going", func() {
		ns := newNamespace()
		pcs := rolloutPCS(ns, "late", 1)
		cliqueOf(pcs, "fe").Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{ProgressDeadline: &metav1.Duration{Duration: 2 * time.Second}}
		pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{ProgressDeadline: &metav1.Duration{Duration: 2 * time.Second}}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		expectRunning(ns, "late", fullLayout("late", 1))
		updatePCS(ns, "late", func(p *grovecorev1alpha1.PodCliqueSet) {
			cliqueOf(p, "fe").Spec.PodSpec.Containers[0].Image = "registry.example/fe:2"
			cliqueOf(p, "worker").Spec.PodSpec.Containers[0].Image = "registry.example/worker:2"
		})
		By("the replacements never become ready")
		Eventually(func(g Gomega) {
			q := getPCLQ(ns, "late-0-fe")()
			g.Expect(condition(q.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/ProgressDeadlineExceeded"))
			s := getPCSG(ns, "late-0-sg")()
			g.Expect(condition(s.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/ProgressDeadlineExceeded"))
			p := getPCS(ns, "late")()
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("True/ProgressDeadlineExceeded"))
			g.Expect(conditionMessage(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(And(
				ContainSubstring("PodClique late-0-fe"), ContainSubstring("PodCliqueScalingGroup late-0-sg"), ContainSubstring("exceeded its progressDeadline")))
		}).WithTimeout(20 * time.Second).Should(Succeed())
		Eventually(eventReasons(ns, "late-0-fe")).Should(ContainElement(HavePrefix("Warning/ProgressDeadlineExceeded: No update progress for more than progressDeadline 2s")))
		Eventually(eventReasons(ns, "late-0-sg")).Should(ContainElement(HavePrefix("Warning/ProgressDeadlineExceeded")))
		Eventually(eventReasons(ns, "late")).Should(ContainElement(HavePrefix("Warning/ProgressDeadlineExceeded: PodClique late-0-fe")))

		By("readiness arrives: the update continues and completes")
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "late", "")
			p := getPCS(ns, "late")()
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		}).WithTimeout(60 * time.Second).Should(Succeed())
	})
})

var _ = Describe("OnDelete updates", func() {
	onDelete := func(ns, name string) *grovecorev1alpha1.PodCliqueSet {
		pcs := rolloutPCS(ns, name, 1)
		pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.OnDeleteStrategyType}
		return pcs
	}

	It("OD1-OD3: records the template, deletes nothing, recreates deleted pods from it and scales in outdated pods first", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onDelete(ns, "od"))).To(Succeed())
		before := expectRunning(ns, "od", fullLayout("od", 1))
		pclqUID := func(name string) types.UID { return getPCLQ(ns, name)().UID }
		workerUID := pclqUID("od-0-sg-0-worker")

		updatePCS(ns, "od", func(p *grovecorev1alpha1.PodCliqueSet) {
			cliqueOf(p, "fe").Spec.PodSpec.Containers[0].Image = "registry.example/fe:2"
			cliqueOf(p, "worker").Spec.PodSpec.Containers[0].Image = "registry.example/worker:2"
		})
		feHash, gen := hashes(ns, "od", "fe")
		workerHash, _ := hashes(ns, "od", "worker")
		By("OD1: the specs change in place; no pod or PodClique is replaced")
		Eventually(func(g Gomega) {
			g.Expect(getPCLQ(ns, "od-0-fe")().Labels[apicommon.LabelPodTemplateHash]).To(Equal(feHash))
			w := getPCLQ(ns, "od-0-sg-0-worker")()
			g.Expect(w.Labels[apicommon.LabelPodTemplateHash]).To(Equal(workerHash))
			g.Expect(w.Spec.PodSpec.Containers[0].Image).To(Equal("registry.example/worker:2"))
			p := getPCS(ns, "od")()
			g.Expect(p.Status.UpdateProgress).NotTo(BeNil())
			g.Expect(p.Status.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(gen))
			g.Expect(p.Status.UpdateProgress.UpdateEndedAt).To(Equal(ptr.To(p.Status.UpdateProgress.UpdateStartedAt)))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/OnDelete"))
			q := getPCLQ(ns, "od-0-fe")().Status
			g.Expect(q.UpdateProgress).NotTo(BeNil())
			g.Expect(q.UpdateProgress.UpdateEndedAt).To(Equal(ptr.To(q.UpdateProgress.UpdateStartedAt)))
			g.Expect(q.UpdatedReplicas).To(BeZero())
			sg := getPCSG(ns, "od-0-sg")().Status
			g.Expect(sg.UpdateProgress).NotTo(BeNil())
			g.Expect(sg.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(gen))
			g.Expect(sg.UpdateProgress.UpdateEndedAt).To(Equal(ptr.To(sg.UpdateProgress.UpdateStartedAt)))
			g.Expect(condition(sg.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/OnDelete"))
			g.Expect(sg.CurrentPodCliqueSetGenerationHash).To(BeNil(), "workers of the old template run")
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			pods := livePods(g, ns, "od")
			for name, ps := range before {
				g.Expect(uids(pods[name])).To(Equal(uids(ps)), "pods of %s kept", name)
			}
		}, "2s").Should(Succeed())
		Expect(pclqUID("od-0-sg-0-worker")).To(Equal(workerUID))

		By("OD2: a deleted pod comes back with the new template")
		gone := before["od-0-fe"][0]
		Expect(k8sClient.Delete(ctx, &gone)).To(Succeed())
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "od", "od-0-fe")
			fe := livePods(g, ns, "od")["od-0-fe"]
			g.Expect(fe).To(HaveLen(3))
			g.Expect(withHash(fe, feHash)).To(HaveLen(1))
			g.Expect(notReady(fe)).To(BeZero())
			g.Expect(getPCLQ(ns, "od-0-fe")().Status.UpdatedReplicas).To(Equal(int32(1)))
		}).Should(Succeed())

		By("OD3: scaling in removes an outdated pod, not the new one")
		newPod := withHash(livePods(Default, ns, "od")["od-0-fe"], feHash)[0]
		scalePodClique(ns, "od-0-fe", 2)
		Eventually(func(g Gomega) {
			fe := livePods(g, ns, "od")["od-0-fe"]
			g.Expect(fe).To(HaveLen(2))
			g.Expect(uids(withHash(fe, feHash))).To(Equal([]types.UID{newPod.UID}))
		}).Should(Succeed())

		By("deleting the remaining old pods converges the PodCliqueSet")
		Eventually(func(g Gomega) {
			for name, pods := range livePods(g, ns, "od") {
				if name != "od-0-fe" && name != "od-0-sg-0-worker" && name != "od-0-sg-1-worker" {
					continue
				}
				for i := range pods {
					if pods[i].Labels[apicommon.LabelPodTemplateHash] != getPCLQ(ns, name)().Labels[apicommon.LabelPodTemplateHash] {
						g.Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &pods[i]))).To(Succeed())
					}
				}
			}
			readyNewPods(g, ns, "od", "")
			p := getPCS(ns, "od")()
			g.Expect(p.Status.CurrentGenerationHash).To(Equal(ptr.To(gen)))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		}).Should(Succeed())
	})

	It("OD9: switching OnDelete → RollingRecreate rolls what is left; switching back stops replacing", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onDelete(ns, "od9"))).To(Succeed())
		before := expectRunning(ns, "od9", fullLayout("od9", 1))
		setImage(ns, "od9", "fe", "registry.example/fe:2")
		feHash, gen := hashes(ns, "od9", "fe")
		Eventually(func() string { return getPCLQ(ns, "od9-0-fe")().Labels[apicommon.LabelPodTemplateHash] }).Should(Equal(feHash))
		Consistently(func(g Gomega) []types.UID { return uids(livePods(g, ns, "od9")["od9-0-fe"]) }, "1s").Should(Equal(uids(before["od9-0-fe"])))

		By("switching to RollingRecreate: one pod is replaced")
		updatePCS(ns, "od9", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovecorev1alpha1.RollingRecreateStrategyType
		})
		Eventually(func(g Gomega) {
			fe := livePods(g, ns, "od9")["od9-0-fe"]
			g.Expect(withHash(fe, feHash)).To(HaveLen(1))
			p := getPCS(ns, "od9")()
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", BeNil()))
			g.Expect(currentlyUpdating(p)).To(Equal([]int32{0}))
		}).Should(Succeed())

		By("switching back to OnDelete mid-update: nothing more is replaced")
		updatePCS(ns, "od9", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovecorev1alpha1.OnDeleteStrategyType
		})
		Eventually(func(g Gomega) {
			p := getPCS(ns, "od9")()
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/OnDelete"))
		}).Should(Succeed())
		Eventually(func(g Gomega) int { return readyNewPods(g, ns, "od9", "od9-0-fe") }).Should(Equal(1))
		Consistently(func(g Gomega) {
			fe := livePods(g, ns, "od9")["od9-0-fe"]
			g.Expect(fe).To(HaveLen(3))
			g.Expect(withHash(fe, feHash)).To(HaveLen(1), "two old pods stay under OnDelete")
		}, "2s").Should(Succeed())

		By("and RollingRecreate again finishes the job")
		updatePCS(ns, "od9", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovecorev1alpha1.RollingRecreateStrategyType
		})
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "od9", "")
			g.Expect(withHash(livePods(g, ns, "od9")["od9-0-fe"], feHash)).To(HaveLen(3))
			p := getPCS(ns, "od9")()
			g.Expect(p.Status.CurrentGenerationHash).To(Equal(ptr.To(gen)))
			g.Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		}).Should(Succeed())
		Expect(uids(livePods(Default, ns, "od9")["od9-0-be"])).To(Equal(uids(before["od9-0-be"])))
	})
})
