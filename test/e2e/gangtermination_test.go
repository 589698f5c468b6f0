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
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

const (
	wl1gt = "test/testdata/e2e/gang-wl1-gt.yaml"
	wl2gt = "test/testdata/e2e/gang-wl2-gt.yaml"
	// gtDelay is the workloads' terminationDelay.
	gtDelay = 10 * time.Second
)

// kubectl runs the local cluster's kubectl, as a user would, and returns its output.
func kubectl(args ...string) string {
	GinkgoHelper()
	bins, err := filepath.Glob(filepath.Join(repoRoot, "bin", "k8s-*", "kubectl"))
	Expect(err).NotTo(HaveOccurred())
	Expect(bins).NotTo(BeEmpty(), "no kubectl under bin/ (make control-plane)")
	cmd := exec.Command(bins[0], append([]string{"--kubeconfig", filepath.Join(localDir, "kubeconfig")}, args...)...)
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl %s:\n%s", strings.Join(args, " "), out)
	GinkgoWriter.Printf("$ kubectl %s\n%s", strings.Join(args, " "), out)
	return string(out)
}

// podUIDsByName maps the live (not terminating) pods of a PodCliqueSet to their UIDs.
func podUIDsByName(g Gomega, ns, pcsName string) map[string]types.UID {
	out := map[string]types.UID{}
	for _, p := range listPods(g, ns, pcsName) {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p.UID
		}
	}
	return out
}

// podCliqueUIDs maps the live PodCliques of a PodCliqueSet to their UIDs.
func podCliqueUIDs(g Gomega, ns, pcsName string) map[string]types.UID {
	list := &grovecorev1alpha1.PodCliqueList{}
	g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
	out := map[string]types.UID{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p.UID
		}
	}
	return out
}

// survivors returns the names whose UID is the same in before and now.
func survivors(before, now map[string]types.UID) []string {
	var out []string
	for n, uid := range before {
		if now[n] == uid {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// withPrefix returns the sorted names of m that start with one of the prefixes.
func withPrefix(m map[string]types.UID, prefixes ...string) []string {
	var out []string
	for n := range m {
		for _, p := range prefixes {
			if strings.HasPrefix(n, p) {
				out = append(out, n)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// podOf returns the first running pod (by name) of a PodClique.
func podOf(ns, pcsName, pclq string) corev1.Pod {
	GinkgoHelper()
	var names []string
	byName := map[string]corev1.Pod{}
	for _, p := range listPods(Default, ns, pcsName) {
		if p.Labels[apicommon.LabelPodClique] == pclq && p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			names = append(names, p.Name)
			byName[p.Name] = p
		}
	}
	Expect(names).NotTo(BeEmpty(), "no bound pod of %s", pclq)
	sort.Strings(names)
	return byName[names[0]]
}

// loseNode cordons the node of a pod and deletes the pod, so its replacement
// finds no room: the pod is lost for as long as the node stays cordoned.
func loseNode(ns string, p corev1.Pod) {
	GinkgoHelper()
	kubectl("cordon", p.Spec.NodeName)
	kubectl("delete", "pod", "-n", ns, p.Name, "--wait=false")
}

// breachSince waits until the PodClique reports MinAvailableBreached=True and
// returns when the breach started.
func breachSince(ns, pclq string) time.Time {
	GinkgoHelper()
	var since time.Time
	Eventually(func(g Gomega) {
		p := &grovecorev1alpha1.PodClique{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pclq}, p)).To(Succeed())
		c := meta.FindStatusCondition(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
		since = c.LastTransitionTime.Time
	}).Should(Succeed())
	return since
}

// expectWasScheduled waits until every PodClique of the PodCliqueSet has had
// minAvailable pods scheduled: only then does a breach count.
func expectWasScheduled(ns, pcsName string, count int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		list := &grovecorev1alpha1.PodCliqueList{}
		g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
		g.Expect(list.Items).To(HaveLen(count))
		for _, p := range list.Items {
			g.Expect(p.Status.WasScheduled).To(BeTrue(), "PodClique %s", p.Name)
		}
	}).Should(Succeed())
}

// terminationEvents returns the gang-termination events of a namespace as
// "Kind/name: message", oldest first, and the time of the first.
func terminationEvents(g Gomega, ns, reason string) ([]string, time.Time) {
	list := &eventsv1.EventList{}
	g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var events []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason {
			events = append(events, e)
		}
	}
	sort.Slice(events, func(i, j int) bool { return events[i].EventTime.Before(&events[j].EventTime) })
	var out []string
	var first time.Time
	for i, e := range events {
		if i == 0 {
			first = e.EventTime.Time
		}
		out = append(out, fmt.Sprintf("%s/%s: %s", e.Regarding.Kind, e.Regarding.Name, e.Note))
	}
	return out, first
}

// conditionStatus reads a condition's status from a list ("" when absent).
func conditionStatus(conds []metav1.Condition, t string) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return c.Status
	}
	return ""
}

// Gang termination (reference GT1, GT3, GT5, GT6) on the pool of 1-pod
// nodes, terminationDelay 10s. A lost pod is a pod deleted with kubectl after
// its node was cordoned, so its replacement cannot schedule. Which pods
// survived is asserted by UID.
var _ = Describe("Gang termination", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("GT1: a lost pod of a clique with minAvailable = replicas recreates the whole PodCliqueSet replica after terminationDelay", func() {
		ns := newNamespace("gt1")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1gt, ns)
		expectRunningLayout(ns, "gang-wl1-gt", gangLayout("gang-wl1-gt", 0, 2), gangNode)
		expectWasScheduled(ns, "gang-wl1-gt", 5)
		pclqsBefore := podCliqueUIDs(Default, ns, "gang-wl1-gt")
		podsBefore := podUIDsByName(Default, ns, "gang-wl1-gt")

		By("losing a pc-a pod: its replacement stays Pending, pc-a is breached")
		loseNode(ns, podOf(ns, "gang-wl1-gt", "gang-wl1-gt-0-pc-a"))
		breached := breachSince(ns, "gang-wl1-gt-0-pc-a")
		Consistently(func(g Gomega) map[string]types.UID { return podCliqueUIDs(g, ns, "gang-wl1-gt") }).
			WithTimeout(gtDelay - 3*time.Second).Should(Equal(pclqsBefore))

		By("after terminationDelay every PodClique and every pod of the replica is new")
		Eventually(func(g Gomega) []string { return survivors(pclqsBefore, podCliqueUIDs(g, ns, "gang-wl1-gt")) }).Should(BeEmpty())
		var recreated time.Time
		Eventually(func(g Gomega) []string {
			var msgs []string
			msgs, recreated = terminationEvents(g, ns, "PodCliqueSetReplicaDeleteSuccessful")
			return msgs
		}).Should(Equal([]string{
			"PodCliqueSet/gang-wl1-gt: Deleted the 5 PodCliques of PodCliqueSet replica 0 to recreate it: PodClique gang-wl1-gt-0-pc-a had MinAvailableBreached=True (ScheduledReplicasBelowMinAvailable) for longer than terminationDelay 10s",
		}))
		waited := recreated.Sub(breached)
		AddReportEntry("GT1 breach to recreation", waited.String())
		Expect(waited).To(And(BeNumerically(">=", gtDelay), BeNumerically("<=", gtDelay+3*time.Second)))
		Eventually(func(g Gomega) {
			pods := podUIDsByName(g, ns, "gang-wl1-gt")
			g.Expect(pods).To(HaveLen(10))
			g.Expect(survivors(podsBefore, pods)).To(BeEmpty())
		}).Should(Succeed())

		By("with one node cordoned the new 10-pod gang does not fit: nothing binds, GangTerminationInProgress stays")
		expectBoundExactly(ns, "gang-wl1-gt", map[string]int{})
		Expect(conditionStatus(getPCSConditions(ns, "gang-wl1-gt"), grovecorev1alpha1.ConditionTypeGangTerminationInProgress)).To(Equal(metav1.ConditionTrue))

		By("uncordoning the lost node: the recreated replica runs and the condition goes")
		schedulableGangNodes(10, gangPoolSize)
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl1-gt", gangLayout("gang-wl1-gt", 0, 2), gangNode))
		Eventually(func() metav1.ConditionStatus {
			return conditionStatus(getPCSConditions(ns, "gang-wl1-gt"), grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
		}).Should(BeEmpty())
	})

	It("GT3: a clique with minAvailable 1 of 2 survives one lost pod and recreates the replica only when it loses the last", func() {
		ns := newNamespace("gt3")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl2gt, ns)
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
		expectWasScheduled(ns, "gang-wl2-gt", 5)
		pclqsBefore := podCliqueUIDs(Default, ns, "gang-wl2-gt")
		podsBefore := podUIDsByName(Default, ns, "gang-wl2-gt")

		By("losing one pc-a pod: one is still scheduled, so no breach and nothing is recreated")
		first := podOf(ns, "gang-wl2-gt", "gang-wl2-gt-0-pc-a")
		loseNode(ns, first)
		Consistently(func(g Gomega) {
			p := &grovecorev1alpha1.PodClique{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gang-wl2-gt-0-pc-a"}, p)).To(Succeed())
			g.Expect(conditionStatus(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)).To(Equal(metav1.ConditionFalse))
			g.Expect(podCliqueUIDs(g, ns, "gang-wl2-gt")).To(Equal(pclqsBefore))
		}).WithTimeout(gtDelay + 5*time.Second).Should(Succeed())
		Expect(survivors(podsBefore, podUIDsByName(Default, ns, "gang-wl2-gt"))).To(HaveLen(9))

		By("losing the other pc-a pod: breached, and after terminationDelay the replica is recreated")
		loseNode(ns, podOf(ns, "gang-wl2-gt", "gang-wl2-gt-0-pc-a"))
		breached := breachSince(ns, "gang-wl2-gt-0-pc-a")
		Eventually(func(g Gomega) []string { return survivors(pclqsBefore, podCliqueUIDs(g, ns, "gang-wl2-gt")) }).Should(BeEmpty())
		var recreated time.Time
		Eventually(func(g Gomega) []string {
			var msgs []string
			msgs, recreated = terminationEvents(g, ns, "PodCliqueSetReplicaDeleteSuccessful")
			return msgs
		}).Should(Equal([]string{
			"PodCliqueSet/gang-wl2-gt: Deleted the 5 PodCliques of PodCliqueSet replica 0 to recreate it: PodClique gang-wl2-gt-0-pc-a had MinAvailableBreached=True (ScheduledReplicasBelowMinAvailable) for longer than terminationDelay 10s",
		}))
		Expect(recreated.Sub(breached)).To(BeNumerically(">=", gtDelay))
		AddReportEntry("GT3 breach to recreation", recreated.Sub(breached).String())
		Eventually(func(g Gomega) []string { return survivors(podsBefore, podUIDsByName(g, ns, "gang-wl2-gt")) }).Should(BeEmpty())

		By("uncordoning the lost nodes: all 10 new pods run")
		schedulableGangNodes(10, gangPoolSize)
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
	})

	It("GT5: a breached scaling-group replica is recreated alone while the group meets its minAvailable; pc-a and the other replica survive", func() {
		ns := newNamespace("gt5")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl2gt, ns)
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
		expectWasScheduled(ns, "gang-wl2-gt", 5)
		pclqsBefore := podCliqueUIDs(Default, ns, "gang-wl2-gt")
		podsBefore := podUIDsByName(Default, ns, "gang-wl2-gt")
		untouched := []string{"gang-wl2-gt-0-pc-a", "gang-wl2-gt-0-sg-x-0-"}

		By("losing the pc-b pod of sg-x replica 1")
		loseNode(ns, podOf(ns, "gang-wl2-gt", "gang-wl2-gt-0-sg-x-1-pc-b"))
		breached := breachSince(ns, "gang-wl2-gt-0-sg-x-1-pc-b")
		Eventually(func(g Gomega) []string {
			return survivors(pclqsBefore, podCliqueUIDs(g, ns, "gang-wl2-gt"))
		}).Should(Equal([]string{"gang-wl2-gt-0-pc-a", "gang-wl2-gt-0-sg-x-0-pc-b", "gang-wl2-gt-0-sg-x-0-pc-c"}))
		var recreated time.Time
		Eventually(func(g Gomega) []string {
			var msgs []string
			msgs, recreated = terminationEvents(g, ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")
			return msgs
		}).Should(Equal([]string{
			"PodCliqueScalingGroup/gang-wl2-gt-0-sg-x: Deleted the 2 PodCliques of replica 1 to recreate it: PodClique gang-wl2-gt-0-sg-x-1-pc-b had MinAvailableBreached=True (ScheduledReplicasBelowMinAvailable) for longer than terminationDelay 10s",
		}))
		Expect(recreated.Sub(breached)).To(BeNumerically(">=", gtDelay))
		AddReportEntry("GT5 breach to recreation", recreated.Sub(breached).String())
		pcsEvents, _ := terminationEvents(Default, ns, "PodCliqueSetReplicaDeleteSuccessful")
		Expect(pcsEvents).To(BeEmpty())
		Eventually(func(g Gomega) []string {
			return survivors(podsBefore, podUIDsByName(g, ns, "gang-wl2-gt"))
		}).Should(Equal(withPrefix(podsBefore, untouched...)))

		By("uncordoning the lost node: the recreated replica runs, the six other pods are still the original ones")
		schedulableGangNodes(10, gangPoolSize)
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
		Expect(survivors(podsBefore, podUIDsByName(Default, ns, "gang-wl2-gt"))).To(Equal(withPrefix(podsBefore, untouched...)))
		Eventually(func() metav1.ConditionStatus {
			g := &grovecorev1alpha1.PodCliqueScalingGroup{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gang-wl2-gt-0-sg-x"}, g)).To(Succeed())
			return conditionStatus(g.Status.Conditions, grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
		}).Should(BeEmpty())
	})

	It("GT6: a pod deleted from a scaled PodGang without a breach is just replaced", func() {
		ns := newNamespace("gt6")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl2gt, ns)
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
		expectWasScheduled(ns, "gang-wl2-gt", 5)
		pclqsBefore := podCliqueUIDs(Default, ns, "gang-wl2-gt")
		podsBefore := podUIDsByName(Default, ns, "gang-wl2-gt")

		victim := podOf(ns, "gang-wl2-gt", "gang-wl2-gt-0-sg-x-1-pc-c")
		Expect(victim.Labels[apicommon.LabelPodGang]).To(Equal(apicommon.ScaledPodGangName("gang-wl2-gt-0-sg-x", 1, 1)))
		kubectl("delete", "pod", "-n", ns, victim.Name, "--wait=false")
		expectRunningLayout(ns, "gang-wl2-gt", gangLayout("gang-wl2-gt", 0, 2), gangNode)
		Consistently(func(g Gomega) {
			g.Expect(podCliqueUIDs(g, ns, "gang-wl2-gt")).To(Equal(pclqsBefore))
			msgs, _ := terminationEvents(g, ns, "PodCliqueSetReplicaDeleteSuccessful")
			g.Expect(msgs).To(BeEmpty())
			msgs, _ = terminationEvents(g, ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")
			g.Expect(msgs).To(BeEmpty())
		}).WithTimeout(gtDelay + 5*time.Second).Should(Succeed())
		pods := podUIDsByName(Default, ns, "gang-wl2-gt")
		Expect(pods).To(HaveLen(10))
		Expect(survivors(podsBefore, pods)).To(HaveLen(9))
		Expect(pods).NotTo(HaveKey(victim.Name))
	})
})

func getPCSConditions(ns, name string) []metav1.Condition {
	GinkgoHelper()
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pcs)).To(Succeed())
	return pcs.Status.Conditions
}
