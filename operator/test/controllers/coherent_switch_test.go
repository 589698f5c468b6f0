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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// setStrategy switches a PodCliqueSet's updateStrategy type.
func setStrategy(ns, pcs string, t grovecorev1alpha1.UpdateStrategyType) {
	updatePCS(ns, pcs, func(p *grovecorev1alpha1.PodCliqueSet) {
		p.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: t}
	})
}

// gangsMixing returns gangRevisions' findings for the named PodGangs only.
func gangsMixing(g Gomega, ns, pcs string, gangs ...string) []string {
	var out []string
	for _, m := range gangRevisions(g, ns, pcs) {
		for _, name := range gangs {
			if strings.HasPrefix(m, name+" ") {
				out = append(out, m)
			}
		}
	}
	return out
}

// recordSane checks a PodCliqueSet's open or ended update record while an
// update towards genHash runs: one record for genHash (a strategy switch
// opens none), at most one replica in turn, only existing replicas, no
// replica twice, and no turn or message left once it ended.
func recordSane(g Gomega, p *grovecorev1alpha1.PodCliqueSet, genHash string) {
	rec := p.Status.UpdateProgress
	g.Expect(rec).NotTo(BeNil())
	g.Expect(rec.PodCliqueSetGenerationHash).To(Equal(genHash), "a strategy switch keeps the update's record")
	cu := currentlyUpdating(p)
	g.Expect(len(cu)).To(BeNumerically("<=", 1), "maxUnavailable 1 and RollingRecreate: one replica at a time")
	for _, i := range cu {
		g.Expect(i).To(BeNumerically("<", p.Spec.Replicas))
	}
	if rec.UpdateEndedAt != nil {
		g.Expect(cu).To(BeEmpty(), "an ended record has no replica in turn")
	}
}

// holdFinalizer keeps a deleted pod terminating, as a kubelet does for the
// pod's grace period, until the spec releases it.
const holdFinalizer = "example.com/hold"

// setHold adds or removes holdFinalizer on every pod of the given PodCliques.
func setHold(ns, pcs string, hold bool, pclqs ...string) {
	GinkgoHelper()
	list := &corev1.PodList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	for i := range list.Items {
		p := &list.Items[i]
		if !slices.Contains(pclqs, p.Labels[apicommon.LabelPodClique]) {
			continue
		}
		base := p.DeepCopy()
		if hold {
			p.Finalizers = append(p.Finalizers, holdFinalizer)
		} else {
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == holdFinalizer })
		}
		Expect(client.IgnoreNotFound(k8sClient.Patch(ctx, p, client.MergeFrom(base)))).To(Succeed())
	}
}

var _ = Describe("Switching updateStrategy in the middle of an update", func() {
	It("Coherent → RollingRecreate: the replica whose gang Coherent replaced comes up whole on the new revision, the next one rolls pod by pod, and the record carries on", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, coherentPCS(ns, "c2r", 2))).To(Succeed())
		before := expectRunning(ns, "c2r", fullLayout("c2r", 2))
		setImages(ns, "c2r", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		feHash, newGen := hashes(ns, "c2r", "fe")
		beHash, _ := hashes(ns, "c2r", "be")

		By("Coherent deletes replica 0's base gang and creates it again on the new revision; its new pods are left unready")
		Eventually(eventReasons(ns, "c2r")).Should(ContainElement(HavePrefix("Normal/CoherentGangsReplaced: Replica 0:")))
		Eventually(func(g Gomega) {
			pods := livePods(g, ns, "c2r")
			g.Expect(withHash(pods["c2r-0-fe"], feHash)).To(HaveLen(3))
			g.Expect(withHash(pods["c2r-0-be"], beHash)).To(HaveLen(2))
		}).Should(Succeed())
		Expect(currentlyUpdating(getPCS(ns, "c2r")())).To(Equal([]int32{0}))

		setStrategy(ns, "c2r", grovecorev1alpha1.RollingRecreateStrategyType)
		var turns []int32
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "c2r", "")
			Expect(gangsMixing(Default, ns, "c2r", "c2r-0", "c2r-0-sg-0")).To(BeEmpty(), "the gangs Coherent replaced never mix")
			p := getPCS(ns, "c2r")()
			recordSane(Default, p, newGen)
			if cu := currentlyUpdating(p); len(cu) > 0 && (len(turns) == 0 || turns[len(turns)-1] != cu[0]) {
				turns = append(turns, cu[0])
			}
			g.Expect(p.Status.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(2)))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		Expect(turns).To(Equal([]int32{0, 1}), "replica 0 keeps its turn, then replica 1")

		after := expectRunning(ns, "c2r", fullLayout("c2r", 2))
		for _, n := range []string{"c2r-0-fe", "c2r-1-fe"} {
			Expect(withHash(after[n], feHash)).To(HaveLen(3), "%s: no pod of the old template left", n)
		}
		for _, n := range []string{"c2r-0-be", "c2r-1-be"} {
			Expect(withHash(after[n], beHash)).To(HaveLen(2), "%s: no pod of the old template left", n)
		}
		By("replica 0's unchanged scaling-group members went with their gang; replica 1's, rolled pod by pod, stayed")
		Expect(uids(after["c2r-0-sg-0-leader"])).NotTo(ContainElements(uids(before["c2r-0-sg-0-leader"])))
		Expect(uids(after["c2r-1-sg-0-leader"])).To(Equal(uids(before["c2r-1-sg-0-leader"])))
		Expect(uids(after["c2r-1-sg-0-worker"])).To(Equal(uids(before["c2r-1-sg-0-worker"])))
		Expect(eventCount(ns, "c2r", "CoherentGangsReplaced")).To(Equal(1), "only replica 0's gangs were replaced whole")
		Expect(eventCount(ns, "c2r", "UpdateStarted")).To(Equal(1), "the switch opened no second record")
		Expect(condition(getPCS(ns, "c2r")().Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		Expect(getPCS(ns, "c2r")().Status.CurrentGenerationHash).To(HaveValue(Equal(newGen)))
	})

	It("RollingRecreate → Coherent: the replica RollingRecreate left with two revisions in its gang is replaced whole, the next one coherently, and the record carries on", func() {
		ns := newNamespace()
		pcs := coherentPCS(ns, "r2c", 2)
		pcs.Spec.UpdateStrategy.Type = grovecorev1alpha1.RollingRecreateStrategyType
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		before := expectRunning(ns, "r2c", fullLayout("r2c", 2))
		_, oldGen := hashes(ns, "r2c", "fe")
		setImages(ns, "r2c", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		feHash, newGen := hashes(ns, "r2c", "fe")
		beHash, _ := hashes(ns, "r2c", "be")

		By("RollingRecreate replaces one fe pod of replica 0; the new pod is left unready, so gang r2c-0 holds two revisions")
		Eventually(func(g Gomega) {
			g.Expect(withHash(livePods(g, ns, "r2c")["r2c-0-fe"], feHash)).NotTo(BeEmpty())
		}).Should(Succeed())
		Expect(gangsMixing(Default, ns, "r2c", "r2c-0")).NotTo(BeEmpty(), "RollingRecreate mixes revisions in a gang")

		setStrategy(ns, "r2c", grovecorev1alpha1.CoherentStrategyType)
		By("from the switch on, replica 1's gangs never mix")
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "r2c", "")
			Expect(gangsMixing(Default, ns, "r2c", "r2c-1", "r2c-1-sg-0", "r2c-1-sg-1")).To(BeEmpty())
			p := getPCS(ns, "r2c")()
			recordSane(Default, p, newGen)
			g.Expect(p.Status.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(2)))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		Expect(gangRevisions(Default, ns, "r2c")).To(BeEmpty(), "no gang ends with two revisions")

		after := expectRunning(ns, "r2c", fullLayout("r2c", 2))
		for i := 0; i < 2; i++ {
			r := apicommon.PodCliqueSetReplicaName("r2c", int32(i))
			Expect(withHash(after[r+"-fe"], feHash)).To(HaveLen(3))
			Expect(withHash(after[r+"-be"], beHash)).To(HaveLen(2))
			for _, n := range []string{r + "-fe", r + "-be", r + "-sg-0-leader", r + "-sg-0-worker"} {
				Expect(uids(after[n])).NotTo(ContainElements(uids(before[n])), "%s shares the base gang with changed cliques: recreated whole", n)
				for _, p := range after[n] {
					Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, newGen), n)
				}
			}
			Expect(uids(after[r+"-sg-1-leader"])).To(Equal(uids(before[r+"-sg-1-leader"])), "a scaled gang of unchanged cliques is kept")
			for _, p := range after[r+"-sg-1-leader"] {
				Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, oldGen))
			}
		}
		Eventually(eventReasons(ns, "r2c")).Should(ContainElement(HavePrefix("Normal/CoherentGangsReplaced: Replica 1: deleted the PodCliques")))
		Expect(eventCount(ns, "r2c", "UpdateStarted")).To(Equal(1), "the switch opened no second record")
		p := getPCS(ns, "r2c")()
		Expect(condition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
		Expect(p.Status.CurrentGenerationHash).To(Equal(ptr.To(newGen)))
	})
	It("Coherent → RollingRecreate while the replaced gang's old pods still terminate: each PodClique comes back on the new template once its own old pods are gone, and none is left half replaced", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, coherentPCS(ns, "c2rd", 2))).To(Succeed())
		expectRunning(ns, "c2rd", fullLayout("c2rd", 2))
		base := []string{"c2rd-0-fe", "c2rd-0-be", "c2rd-0-sg-0-leader", "c2rd-0-sg-0-worker"}
		setHold(ns, "c2rd", true, base...)
		setImages(ns, "c2rd", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		feHash, newGen := hashes(ns, "c2rd", "fe")
		beHash, _ := hashes(ns, "c2rd", "be")

		By("Coherent deletes replica 0's base gang; its pods stay terminating")
		Eventually(func(g Gomega) {
			all := &grovecorev1alpha1.PodCliqueList{}
			g.Expect(k8sClient.List(ctx, all, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "c2rd"})).To(Succeed())
			deleting := []string{}
			for _, p := range all.Items {
				if p.DeletionTimestamp != nil {
					deleting = append(deleting, p.Name)
				}
			}
			g.Expect(deleting).To(ConsistOf(base))
		}).Should(Succeed())
		setStrategy(ns, "c2rd", grovecorev1alpha1.RollingRecreateStrategyType)

		By("fe's old pods go first: fe comes back on the new template at once, beside be's terminating old pods")
		setHold(ns, "c2rd", false, "c2rd-0-fe")
		Eventually(func(g Gomega) {
			readyNewPods(g, ns, "c2rd", "c2rd-0-fe")
			g.Expect(withHash(livePods(g, ns, "c2rd")["c2rd-0-fe"], feHash)).To(HaveLen(3))
		}).Should(Succeed())
		Expect(livePodCliques(Default, ns, "c2rd")).NotTo(HaveKey("c2rd-0-be"), "be's PodClique waits for its old pods")
		Expect(currentlyUpdating(getPCS(ns, "c2rd")())).To(Equal([]int32{0}), "replica 0 keeps its turn")

		setHold(ns, "c2rd", false, base[1:]...)
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "c2rd", "")
			p := getPCS(ns, "c2rd")()
			recordSane(Default, p, newGen)
			g.Expect(p.Status.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(2)))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		after := expectRunning(ns, "c2rd", fullLayout("c2rd", 2))
		for i := 0; i < 2; i++ {
			r := apicommon.PodCliqueSetReplicaName("c2rd", int32(i))
			Expect(withHash(after[r+"-fe"], feHash)).To(HaveLen(3), r)
			Expect(withHash(after[r+"-be"], beHash)).To(HaveLen(2), r)
		}
		Expect(gangsMixing(Default, ns, "c2rd", "c2rd-0", "c2rd-0-sg-0")).To(BeEmpty(), "once the old pods are gone, replica 0's gangs hold one revision")
		all := &corev1.PodList{}
		Expect(k8sClient.List(ctx, all, client.InNamespace(ns))).To(Succeed())
		Expect(all.Items).To(HaveLen(2*(3+2+2*(1+2))), "no pod of the old revision is left")
	})
})
