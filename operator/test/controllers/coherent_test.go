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
	"sort"
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
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// coherentPCS is rolloutPCS under updateStrategy Coherent: fe and be
// (prefill and decode, say) and scaling-group replica 0 in base PodGang
// <name>-<i>, scaling-group replica 1 in scaled PodGang <name>-<i>-sg-0.
func coherentPCS(ns, name string, replicas int32) *grovecorev1alpha1.PodCliqueSet {
	pcs := rolloutPCS(ns, name, replicas)
	pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.CoherentStrategyType}
	return pcs
}

// setImages changes the images of several cliques in one write: one new revision.
func setImages(ns, pcs string, images map[string]string) {
	updatePCS(ns, pcs, func(p *grovecorev1alpha1.PodCliqueSet) {
		for c, img := range images {
			cliqueOf(p, c).Spec.PodSpec.Containers[0].Image = img
		}
	})
}

// gangRevisions samples every PodGang of a PodCliqueSet and returns, for
// each gang that references or is claimed by pods of more than one revision
// (grove.io/podcliqueset-generation-hash), a description; empty when none
// mixes.
func gangRevisions(g Gomega, ns, pcs string) []string {
	pods := &corev1.PodList{}
	g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	byName := map[string]*corev1.Pod{}
	claims := map[string]map[string]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		byName[p.Name] = p
		gang := p.Labels[apicommon.LabelPodGang]
		if claims[gang] == nil {
			claims[gang] = map[string]bool{}
		}
		claims[gang][p.Labels[apicommon.LabelPodCliqueSetGenerationHash]] = true
	}
	gangs := &groveschedulerv1alpha1.PodGangList{}
	g.Expect(k8sClient.List(ctx, gangs, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	var mixed []string
	for _, pg := range gangs.Items {
		refs := map[string]bool{}
		for _, grp := range pg.Spec.PodGroups {
			for _, ref := range grp.PodReferences {
				if p, ok := byName[ref.Name]; ok {
					refs[p.Labels[apicommon.LabelPodCliqueSetGenerationHash]] = true
				}
			}
		}
		if len(refs) > 1 || len(claims[pg.Name]) > 1 {
			mixed = append(mixed, fmt.Sprintf("%s references %v, claimed by %v", pg.Name, keys(refs), keys(claims[pg.Name])))
		}
	}
	return mixed
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = Describe("Coherent updates", func() {
	It("replaces each replica's gangs whole, one replica at a time: no PodGang ever holds pods of two revisions, fe and be switch together", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, coherentPCS(ns, "coh", 2))).To(Succeed())
		before := expectRunning(ns, "coh", fullLayout("coh", 2))
		_, oldGen := hashes(ns, "coh", "fe")
		By("the first revision keeps the tutorial's PodGang names and carries its generation hash")
		for _, name := range []string{"coh-0", "coh-0-sg-0", "coh-1", "coh-1-sg-0"} {
			pg := &groveschedulerv1alpha1.PodGang{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
			Expect(pg.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, oldGen), name)
		}

		setImages(ns, "coh", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		_, newGen := hashes(ns, "coh", "fe")
		var turns [][]int32
		var inScope, messages []string
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "coh", "")
			Expect(gangRevisions(Default, ns, "coh")).To(BeEmpty(), "no gang mixes revisions")
			p := getPCS(ns, "coh")()
			cu := currentlyUpdating(p)
			Expect(len(cu)).To(BeNumerically("<=", 1), "maxUnavailable 1: one replica at a time")
			if len(cu) > 0 && (len(turns) == 0 || turns[len(turns)-1][0] != cu[0]) {
				turns = append(turns, cu)
			}
			if up := p.Status.UpdateProgress; up != nil && up.PodCliqueSetGenerationHash == newGen {
				inScope = append(up.InScopeStandalonePodCliques, up.InScopePodCliqueScalingGroups...)
				for _, c := range up.CurrentlyUpdating {
					messages = append(messages, c.Message)
				}
			}
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
			g.Expect(p.Status.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(newGen))
			g.Expect(p.Status.UpdatedReplicas).To(Equal(int32(2)))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		Expect(turns).To(Equal([][]int32{{0}, {1}}))
		Expect(inScope).To(Equal([]string{"be", "fe"}), "fe and be changed; the scaling group did not")
		Expect(messages).To(ContainElement(ContainSubstring("replacing the gangs of the old revision")))

		after := expectRunning(ns, "coh", fullLayout("coh", 2))
		for i := 0; i < 2; i++ {
			r := apicommon.PodCliqueSetReplicaName("coh", int32(i))
			for _, n := range []string{r + "-fe", r + "-be", r + "-sg-0-leader", r + "-sg-0-worker"} {
				Expect(uids(after[n])).NotTo(ContainElements(uids(before[n])), "%s is in the base PodGang with changed cliques: recreated", n)
				for _, p := range after[n] {
					Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, newGen))
				}
			}
			for _, n := range []string{r + "-sg-1-leader", r + "-sg-1-worker"} {
				Expect(uids(after[n])).To(Equal(uids(before[n])), "%s is in a scaled PodGang of unchanged cliques: kept", n)
			}
			pg := &groveschedulerv1alpha1.PodGang{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: r}, pg)).To(Succeed())
			Expect(pg.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, newGen))
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: r + "-sg-0"}, pg)).To(Succeed())
			Expect(pg.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, oldGen), "the unchanged gang keeps its revision")
		}
		Eventually(eventReasons(ns, "coh")).Should(ContainElement(HavePrefix("Normal/CoherentGangsReplaced: Replica 1: deleted the PodCliques")))
		Expect(condition(getPCS(ns, "coh")().Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
	})

	It("a second template mid-update supersedes the first: every pod ends on the second revision, none is orphaned", func() {
		ns := newNamespace()
		pcs := coherentPCS(ns, "twice", 2)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:2]
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := map[string]int{"twice-0-fe": 3, "twice-0-be": 2, "twice-1-fe": 3, "twice-1-be": 2}
		expectRunning(ns, "twice", layout)
		setImages(ns, "twice", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		Eventually(func() []int32 { return currentlyUpdating(getPCS(ns, "twice")()) }).Should(Equal([]int32{0}))
		setImages(ns, "twice", map[string]string{"fe": "registry.example/fe:3", "be": "registry.example/be:3"})
		_, gen3 := hashes(ns, "twice", "fe")
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "twice", "")
			Expect(gangRevisions(Default, ns, "twice")).To(BeEmpty())
			p := getPCS(ns, "twice")()
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
			g.Expect(p.Status.UpdateProgress.PodCliqueSetGenerationHash).To(Equal(gen3))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		pods := expectRunning(ns, "twice", layout)
		for n, ps := range pods {
			for _, p := range ps {
				Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, gen3), n)
			}
		}
		all := &corev1.PodList{}
		Expect(k8sClient.List(ctx, all, client.InNamespace(ns))).To(Succeed())
		Expect(all.Items).To(HaveLen(10), "no pod of an earlier revision is left")
	})

	It("switching OnDelete → Coherent replaces the gangs whose pods still run the older template, though their PodCliques already carry the new one", func() {
		ns := newNamespace()
		pcs := coherentPCS(ns, "switch", 1)
		pcs.Spec.UpdateStrategy.Type = grovecorev1alpha1.OnDeleteStrategyType
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:2]
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := map[string]int{"switch-0-fe": 3, "switch-0-be": 2}
		before := expectRunning(ns, "switch", layout)
		setImage(ns, "switch", "fe", "registry.example/fe:2")
		newHash, newGen := hashes(ns, "switch", "fe")
		Eventually(func(g Gomega) {
			g.Expect(livePodCliques(g, ns, "switch")["switch-0-fe"].Labels).To(HaveKeyWithValue(apicommon.LabelPodTemplateHash, newHash))
		}).Should(Succeed())
		Consistently(func(g Gomega) []types.UID { return uids(livePods(g, ns, "switch")["switch-0-fe"]) }, "1s").Should(Equal(uids(before["switch-0-fe"])))

		updatePCS(ns, "switch", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovecorev1alpha1.CoherentStrategyType
		})
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "switch", "")
			Expect(gangRevisions(Default, ns, "switch")).To(BeEmpty())
			p := getPCS(ns, "switch")()
			g.Expect(p.Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
			g.Expect(p.Status.CurrentGenerationHash).To(HaveValue(Equal(newGen)))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		after := expectRunning(ns, "switch", layout)
		Expect(withHash(after["switch-0-fe"], newHash)).To(HaveLen(3))
		Expect(uids(after["switch-0-be"])).NotTo(ContainElements(uids(before["switch-0-be"])), "be shares the gang: recreated with it")
	})

	It("takes maxUnavailable replicas at once and reports ProgressDeadlineExceeded while new pods do not become ready", func() {
		ns := newNamespace()
		pcs := coherentPCS(ns, "slow", 3)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:1]
		pcs.Spec.UpdateStrategy.MaxUnavailable = ptr.To(intstr.FromInt32(2))
		pcs.Spec.UpdateStrategy.ProgressDeadline = &metav1.Duration{Duration: 3 * time.Second}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		expectRunning(ns, "slow", map[string]int{"slow-0-fe": 3, "slow-1-fe": 3, "slow-2-fe": 3})
		setImage(ns, "slow", "fe", "registry.example/fe:2")
		By("two replicas are taken; the new pods are left unready")
		Eventually(func() []int32 { return currentlyUpdating(getPCS(ns, "slow")()) }).Should(Equal([]int32{0, 1}))
		Consistently(func() []int32 { return currentlyUpdating(getPCS(ns, "slow")()) }, "2s").Should(Equal([]int32{0, 1}))
		Eventually(func() string {
			return condition(getPCS(ns, "slow")().Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
		}).Should(Equal("True/ProgressDeadlineExceeded"))
		Expect(conditionMessage(getPCS(ns, "slow")().Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(
			ContainSubstring("replica 0 ("))
		Eventually(eventReasons(ns, "slow")).Should(ContainElement(HavePrefix("Warning/ProgressDeadlineExceeded: ")))
		By("once the pods become ready, the update completes")
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "slow", "")
			g.Expect(getPCS(ns, "slow")().Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
		}).WithTimeout(time.Minute).Should(Succeed())
		Expect(condition(getPCS(ns, "slow")().Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)).To(Equal("False/UpdateCompleted"))
	})
})
