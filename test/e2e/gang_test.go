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
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	wl1    = "test/testdata/e2e/gang-wl1.yaml"
	wl2    = "test/testdata/e2e/gang-wl2.yaml"
	wl2x14 = "test/testdata/e2e/gang-wl2-14.yaml"
	// gangPoolSize is the number of 1-pod fake nodes the gang specs share.
	gangPoolSize = 20
)

// gangLayout is the full layout of the gang workloads' PodCliqueSet replica i
// with sgReplicas scaling-group replicas.
func gangLayout(pcsName string, replica, sgReplicas int) map[string]int {
	r := pcsName + "-" + strconv.Itoa(replica)
	layout := map[string]int{r + "-pc-a": 2}
	for j := 0; j < sgReplicas; j++ {
		layout[r+"-sg-x-"+strconv.Itoa(j)+"-pc-b"] = 1
		layout[r+"-sg-x-"+strconv.Itoa(j)+"-pc-c"] = 3
	}
	return layout
}

// boundPerClique counts the bound pods of each PodClique of a PodCliqueSet.
func boundPerClique(g Gomega, ns, pcsName string) map[string]int {
	return podsPerClique(bound(listPods(g, ns, pcsName)))
}

// expectGangReleased waits until the PodCliqueSet has total pods and every pod
// of the PodGang podGang has lost its scheduling gate, so the scheduler is
// really considering them; afterwards an unbound pod is a scheduling decision.
func expectGangReleased(ns, pcsName string, total int, podGang string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pods := listPods(g, ns, pcsName)
		g.Expect(pods).To(HaveLen(total))
		n := 0
		for _, p := range pods {
			if p.Labels[apicommon.LabelPodGang] != podGang {
				continue
			}
			n++
			g.Expect(p.Spec.SchedulingGates).To(BeEmpty(), "pod %s of PodGang %s still gated", p.Name, podGang)
		}
		g.Expect(n).To(BeNumerically(">", 0), "no pods labelled with PodGang %s", podGang)
	}).Should(Succeed())
}

// expectUnschedulable waits until the scheduler reported at least one pod of
// the PodGang as Unschedulable.
func expectUnschedulable(ns, pcsName, podGang string) {
	GinkgoHelper()
	Eventually(func(g Gomega) bool {
		for _, p := range listPods(g, ns, pcsName) {
			if p.Labels[apicommon.LabelPodGang] != podGang {
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					return true
				}
			}
		}
		return false
	}).Should(BeTrue(), "no pod of PodGang %s reported Unschedulable", podGang)
}

// expectBoundExactly waits until exactly the given pods per PodClique are
// bound and checks that this stays so: with the remaining capacity nothing
// else may be bound (no partial gang, minimum sets first).
func expectBoundExactly(ns, pcsName string, want map[string]int) {
	GinkgoHelper()
	Eventually(func(g Gomega) map[string]int { return boundPerClique(g, ns, pcsName) }).Should(Equal(want))
	Consistently(func(g Gomega) map[string]int { return boundPerClique(g, ns, pcsName) }).Should(Equal(want))
}

// expectPodGangScheduled waits until grove-scheduler reports the PodGang's
// condition Scheduled with the given status and, when scheduled, phase Running
// (kwok marks bound pods Ready at once).
func expectPodGangScheduled(ns, name string, scheduled metav1.ConditionStatus) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pg := &groveschedulerv1alpha1.PodGang{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
		cond := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
		g.Expect(cond).NotTo(BeNil(), "PodGang %s has no %s condition", name, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
		g.Expect(cond.Status).To(Equal(scheduled), "PodGang %s condition %s: %s/%s", name, cond.Type, cond.Reason, cond.Message)
		if scheduled == metav1.ConditionTrue {
			g.Expect(pg.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhaseRunning))
		} else {
			g.Expect(pg.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending))
		}
	}).Should(Succeed())
}

// expectDistinctNodes checks that no two pods share a node (one pod per gang node).
func expectDistinctNodes(pods []corev1.Pod) {
	GinkgoHelper()
	seen := map[string]string{}
	for _, p := range pods {
		Expect(seen).NotTo(HaveKey(p.Spec.NodeName), "pods %s and %s share node %s", seen[p.Spec.NodeName], p.Name, p.Spec.NodeName)
		seen[p.Spec.NodeName] = p.Name
	}
}

// Gang scenarios of the reference catalogue on a pool of 1-pod nodes:
// cordoned nodes starve a gang, uncordoning releases it. The specs share the
// pool (Ordered) but are independent, so one failure does not skip the rest.
var _ = Describe("Gang scheduling", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("GS1: a 10-pod gang stays entirely Pending with 9 nodes and schedules at once on the 10th", func() {
		ns := newNamespace("gs1")
		schedulableGangNodes(9, gangPoolSize)
		createPCS(wl1, ns)
		expectGangReleased(ns, "gang-wl1", 10, apicommon.BasePodGangName("gang-wl1", 0))
		expectUnschedulable(ns, "gang-wl1", apicommon.BasePodGangName("gang-wl1", 0))
		expectBoundExactly(ns, "gang-wl1", map[string]int{})

		By("uncordoning the 10th node")
		schedulableGangNodes(10, gangPoolSize)
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2), gangNode))
	})

	It("PodGang status: grove-scheduler reports Scheduled=False while the gang is starved, then Scheduled=True and phase Running", func() {
		ns := newNamespace("pgstatus")
		schedulableGangNodes(9, gangPoolSize)
		createPCS(wl1, ns)
		expectGangReleased(ns, "gang-wl1", 10, apicommon.BasePodGangName("gang-wl1", 0))
		expectPodGangScheduled(ns, apicommon.BasePodGangName("gang-wl1", 0), metav1.ConditionFalse)

		By("uncordoning the 10th node")
		schedulableGangNodes(10, gangPoolSize)
		expectRunningLayout(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2), gangNode)
		expectPodGangScheduled(ns, apicommon.BasePodGangName("gang-wl1", 0), metav1.ConditionTrue)
	})

	It("GS3: after scaling the PodCliqueSet to 2, replica 1's gang waits for 10 free nodes and never binds partially", func() {
		ns := newNamespace("gs3")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1, ns)
		expectRunningLayout(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2), gangNode)

		By("kubectl scale pcs gang-wl1 --replicas=2 with no free node")
		scaleTo(pcsRef(ns, "gang-wl1"), 2)
		expectGangReleased(ns, "gang-wl1", 20, apicommon.BasePodGangName("gang-wl1", 1))
		expectBoundExactly(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2))

		By("uncordoning 9 of the 10 nodes replica 1 needs")
		schedulableGangNodes(19, gangPoolSize)
		expectBoundExactly(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2))

		By("uncordoning the 10th")
		schedulableGangNodes(20, gangPoolSize)
		full := gangLayout("gang-wl1", 0, 2)
		for k, v := range gangLayout("gang-wl1", 1, 2) {
			full[k] = v
		}
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl1", full, gangNode))
	})

	It("GS5: with minimums of 1, one more node schedules exactly the base minimum set, then the rest follows", func() {
		ns := newNamespace("gs5")
		schedulableGangNodes(2, gangPoolSize)
		createPCS(wl2, ns)
		expectGangReleased(ns, "gang-wl2", 10, apicommon.BasePodGangName("gang-wl2", 0))
		expectUnschedulable(ns, "gang-wl2", apicommon.BasePodGangName("gang-wl2", 0))
		expectBoundExactly(ns, "gang-wl2", map[string]int{})

		By("uncordoning a 3rd node: the base minimum set (pc-a 1, sg-x-0-pc-b 1, sg-x-0-pc-c 1)")
		schedulableGangNodes(3, gangPoolSize)
		expectBoundExactly(ns, "gang-wl2", map[string]int{
			"gang-wl2-0-pc-a": 1, "gang-wl2-0-sg-x-0-pc-b": 1, "gang-wl2-0-sg-x-0-pc-c": 1,
		})

		By("uncordoning 10 nodes")
		schedulableGangNodes(10, gangPoolSize)
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl2", gangLayout("gang-wl2", 0, 2), gangNode))
	})

	It("GS8: 14 pods go base minimum set first, then the scaled gangs' minimum sets, then the remainder", func() {
		ns := newNamespace("gs8")
		createPCS(wl2x14, ns)
		expectGangReleased(ns, "gang-wl2-14", 14, apicommon.BasePodGangName("gang-wl2-14", 0))
		expectBoundExactly(ns, "gang-wl2-14", map[string]int{})

		By("uncordoning 3 nodes: the base minimum set")
		schedulableGangNodes(3, gangPoolSize)
		expectBoundExactly(ns, "gang-wl2-14", map[string]int{
			"gang-wl2-14-0-pc-a": 1, "gang-wl2-14-0-sg-x-0-pc-b": 1, "gang-wl2-14-0-sg-x-0-pc-c": 1,
		})

		By("uncordoning 4 more: the minimum sets of the scaled gangs sg-x-1 and sg-x-2")
		schedulableGangNodes(7, gangPoolSize)
		expectBoundExactly(ns, "gang-wl2-14", map[string]int{
			"gang-wl2-14-0-pc-a": 1, "gang-wl2-14-0-sg-x-0-pc-b": 1, "gang-wl2-14-0-sg-x-0-pc-c": 1,
			"gang-wl2-14-0-sg-x-1-pc-b": 1, "gang-wl2-14-0-sg-x-1-pc-c": 1,
			"gang-wl2-14-0-sg-x-2-pc-b": 1, "gang-wl2-14-0-sg-x-2-pc-c": 1,
		})

		By("uncordoning 14 nodes: the remaining 7 pods")
		schedulableGangNodes(14, gangPoolSize)
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl2-14", gangLayout("gang-wl2-14", 0, 3), gangNode))
	})
})
