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
	"os"
	"sort"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const workloadGang = "test/testdata/e2e/workload-gang.yaml"

// workloadAPIRepetitions is how often WA3 races two gangs (E2E_WORKLOAD_API_REPETITIONS).
func workloadAPIRepetitions() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_WORKLOAD_API_REPETITIONS")); err == nil && n > 0 {
		return n
	}
	return 20
}

// The default-scheduler backend with gangScheduling: Grove translates each
// PodGang into a Workload and PodGroups of the Kubernetes Workload API and
// stock kube-scheduler v1.37 (feature gate GenericWorkload, started by
// hack/local-cluster) gang-schedules them. The specs share the 1-pod node
// pool of the gang specs.
var _ = Describe("Workload API backend on stock kube-scheduler", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("WA1: a gang that fits binds fully; its Workload and PodGroup go with the PodGang", func() {
		ns := newNamespace("wa1")
		schedulableGangNodes(4, gangPoolSize)
		pcs := createPCS(workloadGang, ns)
		expectDistinctNodes(expectRunningLayout(ns, "workload-gang", map[string]int{"workload-gang-0-worker": 4}, gangNode))
		Eventually(workloadObjects(ns)).Should(Equal([]string{
			"PodGroup workload-gang-0-worker: template workload-gang-0/workload-gang-0-worker, minCount 4, PodGroupInitiallyScheduled=True",
			"Workload workload-gang-0: templates [workload-gang-0-worker:4]",
		}))
		Eventually(func(g Gomega) {
			for _, p := range listPods(g, ns, "workload-gang") {
				g.Expect(p.Spec.SchedulerName).To(Equal("default-scheduler"))
				g.Expect(p.Spec.SchedulingGroup).NotTo(BeNil(), "pod %s has no schedulingGroup", p.Name)
				g.Expect(ptr.Deref(p.Spec.SchedulingGroup.PodGroupName, "")).To(Equal("workload-gang-0-worker"))
			}
		}).Should(Succeed())
		expectPodGangScheduled(ns, "workload-gang-0", metav1.ConditionTrue)

		By("deleting the PodCliqueSet: the garbage collector removes the Workload and PodGroup with the PodGang")
		Expect(k8s.Delete(ctx, pcs)).To(Succeed())
		Eventually(workloadObjects(ns)).Should(BeEmpty())
	})

	It("WA2: a gang that does not fit binds nothing, and binds fully once it fits", func() {
		ns := newNamespace("wa2")
		schedulableGangNodes(3, gangPoolSize)
		createPCS(workloadGang, ns)
		expectGangReleased(ns, "workload-gang", 4, "workload-gang-0")
		Eventually(workloadObjects(ns)).Should(HaveLen(2))
		expectBoundExactly(ns, "workload-gang", map[string]int{})
		expectPodGangScheduled(ns, "workload-gang-0", metav1.ConditionFalse)

		By("uncordoning the 4th node")
		schedulableGangNodes(4, gangPoolSize)
		expectDistinctNodes(expectRunningLayout(ns, "workload-gang", map[string]int{"workload-gang-0-worker": 4}, gangNode))
		expectPodGangScheduled(ns, "workload-gang-0", metav1.ConditionTrue)
	})

	It("WA3: two gangs racing for 6 nodes never end partially bound: one binds 4 pods, the other none", func() {
		schedulableGangNodes(6, gangPoolSize)
		reps := workloadAPIRepetitions()
		for rep := 1; rep <= reps; rep++ {
			By(fmt.Sprintf("repetition %d of %d", rep, reps))
			a, b := newNamespace(fmt.Sprintf("wa3-%02d-a", rep)), newNamespace(fmt.Sprintf("wa3-%02d-b", rep))
			createPCS(workloadGang, a)
			createPCS(workloadGang, b)
			boundIn := func(g Gomega, ns string) int { return len(bound(listPods(g, ns, "workload-gang"))) }
			Eventually(func(g Gomega) []int {
				n := []int{boundIn(g, a), boundIn(g, b)}
				if n[0] < n[1] {
					n[0], n[1] = n[1], n[0]
				}
				return n
			}).Should(Equal([]int{4, 0}))
			Consistently(func(g Gomega) []int { return []int{boundIn(g, a) + boundIn(g, b), min(boundIn(g, a), boundIn(g, b))} }).
				Should(Equal([]int{4, 0}), "repetition %d ended partially bound", rep)
			for _, ns := range []string{a, b} {
				Expect(k8s.Delete(ctx, pcsRef(ns, "workload-gang"))).To(Succeed())
			}
			Eventually(func(g Gomega) int { return len(listPods(g, a, "workload-gang")) + len(listPods(g, b, "workload-gang")) }).Should(BeZero())
		}
	})

	It("WA4: scaling the clique adds pods to the PodGroup; minCount stays the clique's minAvailable", func() {
		ns := newNamespace("wa4")
		schedulableGangNodes(6, gangPoolSize)
		createPCS(workloadGang, ns)
		expectRunningLayout(ns, "workload-gang", map[string]int{"workload-gang-0-worker": 4}, gangNode)

		By("kubectl scale pclq workload-gang-0-worker --replicas=6")
		scaleTo(pclqRef(ns, "workload-gang-0-worker"), 6)
		expectDistinctNodes(expectRunningLayout(ns, "workload-gang", map[string]int{"workload-gang-0-worker": 6}, gangNode))
		Eventually(workloadObjects(ns)).Should(Equal([]string{
			"PodGroup workload-gang-0-worker: template workload-gang-0/workload-gang-0-worker, minCount 4, PodGroupInitiallyScheduled=True",
			"Workload workload-gang-0: templates [workload-gang-0-worker:4]",
		}))
		Eventually(func(g Gomega) []string {
			var groups []string
			for _, p := range listPods(g, ns, "workload-gang") {
				groups = append(groups, ptr.Deref(ptr.Deref(p.Spec.SchedulingGroup, corev1.PodSchedulingGroup{}).PodGroupName, "none"))
			}
			return groups
		}).Should(HaveEach("workload-gang-0-worker"))
	})
})

// workloadObjects renders the Workloads and PodGroups of a namespace.
func workloadObjects(ns string) func(g Gomega) []string {
	return func(g Gomega) []string {
		var out []string
		workloads := &schedulingv1beta1.WorkloadList{}
		g.Expect(k8s.List(ctx, workloads, client.InNamespace(ns))).To(Succeed())
		for _, w := range workloads.Items {
			ts := ""
			for i, t := range w.Spec.PodGroupTemplates {
				if i > 0 {
					ts += " "
				}
				ts += fmt.Sprintf("%s:%d", t.Name, ptr.Deref(t.SchedulingPolicy.Gang, schedulingv1beta1.GangSchedulingPolicy{}).MinCount)
			}
			out = append(out, fmt.Sprintf("Workload %s: templates [%s]", w.Name, ts))
		}
		groups := &schedulingv1beta1.PodGroupList{}
		g.Expect(k8s.List(ctx, groups, client.InNamespace(ns))).To(Succeed())
		for _, pg := range groups.Items {
			state := "none"
			if c := meta.FindStatusCondition(pg.Status.Conditions, "PodGroupInitiallyScheduled"); c != nil {
				state = string(c.Status)
			}
			out = append(out, fmt.Sprintf("PodGroup %s: template %s/%s, minCount %d, PodGroupInitiallyScheduled=%s", pg.Name,
				pg.Spec.WorkloadRef.WorkloadName, pg.Spec.WorkloadRef.TemplateName,
				ptr.Deref(pg.Spec.SchedulingPolicy.Gang, schedulingv1beta1.GangSchedulingPolicy{}).MinCount, state))
		}
		sort.Strings(out)
		return out
	}
}

// A backend whose scheduler the cluster lacks (the local cluster enables the
// volcano profile but installs no Volcano) is reported on its gangs and its
// PodCliqueSet, and does not hold up other PodCliqueSets.
var _ = Describe("Scheduler backend missing from the cluster", func() {
	It("BE1: a volcano PodCliqueSet without Volcano reports BackendUnavailable; a grove-scheduler one beside it runs", func() {
		ns := newNamespace("be1")
		volcano := loadPCS("samples/user-guide/01_core-concepts/single-node-aggregated.yaml")
		volcano.Name, volcano.Namespace = "on-volcano", ns
		for i := range volcano.Spec.Template.Cliques {
			volcano.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "volcano"
		}
		Expect(k8s.Create(ctx, volcano)).To(Succeed())
		grove := loadPCS("samples/user-guide/01_core-concepts/single-node-aggregated.yaml")
		grove.Namespace = ns
		Expect(k8s.Create(ctx, grove)).To(Succeed())

		Eventually(func(g Gomega) string {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "on-volcano-0"}, pg)).To(Succeed())
			c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
			g.Expect(c).NotTo(BeNil())
			return string(c.Status) + "/" + c.Reason + "/" + c.Message
		}).Should(HavePrefix("False/BackendUnavailable/scheduler backend volcano: the cluster serves no PodGroup (scheduling.volcano.sh/v1beta1)"))
		Eventually(func(g Gomega) []string {
			events := &corev1.EventList{}
			g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				if e.InvolvedObject.Kind == "PodCliqueSet" && e.InvolvedObject.Name == "on-volcano" && e.Type == corev1.EventTypeWarning {
					reasons = append(reasons, e.Reason)
				}
			}
			return reasons
		}).Should(ContainElement("BackendUnavailable"))
		expectRunningLayout(ns, grove.Name, map[string]int{grove.Name + "-0-model-worker": 2}, fakeNodeName)
	})
})
