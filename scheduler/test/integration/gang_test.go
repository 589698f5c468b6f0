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

package integration

import (
	"io"
	"math/rand"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
	"github.com/grove-project/grove/scheduler/test/harness"
)

const (
	gpu     = "nvidia.com/gpu"
	rackKey = "topology.test/rack"
)

func gpus(n string) corev1.ResourceList { return harness.Resources("cpu", "100m", gpu, n) }

// createRacks creates five 2-GPU nodes in the pool: rack-small with two of
// them, rack-large with three, and returns the node names of each rack.
func createRacks(pool string) (small, large map[string]bool) {
	names := createNodes(pool, 5, harness.Resources("cpu", "8", "pods", "110", gpu, "2"), func(i int) map[string]string {
		if i < 2 {
			return map[string]string{rackKey: "rack-small"}
		}
		return map[string]string{rackKey: "rack-large"}
	})
	small, large = map[string]bool{}, map[string]bool{}
	for i, n := range names {
		if i < 2 {
			small[n] = true
		} else {
			large[n] = true
		}
	}
	return small, large
}

// expectAllBoundWithin waits until every pod is bound and checks that each
// landed on one of the nodes of the named domain.
func expectAllBoundWithin(ns string, pods []*corev1.Pod, nodes map[string]bool, domain string) {
	var bound map[string]string
	Eventually(func() int { bound = boundPods(ns, allNames(pods)); return len(bound) }, 20*time.Second, 100*time.Millisecond).Should(Equal(len(pods)))
	for pod, node := range bound {
		Expect(nodes).To(HaveKey(node), "pod %s landed on %s outside %s", pod, node, domain)
	}
}

var _ = Describe("Gang scheduling of PodGangs", func() {
	It("binds every pod of a gang that fits, only after its PodGang references the pods, and reports Starting then Running", func() {
		ns := newNamespace("fits")
		createNodes(ns, 2, harness.Resources("cpu", "8", "pods", "110", gpu, "4"), nil)
		groups := []group{
			{name: "prefill", pods: 2, min: 2, requests: gpus("2")},
			{name: "decode", pods: 2, min: 2, requests: gpus("2")},
		}
		pods := gangPods(ns, ns, "inference", "", groups...)
		createPods(pods)

		By("holding the pods while their PodGang does not exist")
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*time.Second, 200*time.Millisecond).Should(Equal(0))

		// grove-scheduler turns NominatedNodeNameForExpectation off: the pods
		// that wait at Permit for the rest of their gang get no status patch.
		watch := watchPods(ns)
		createPodGang(newPodGang(ns, "inference", "", "", groups...))
		Eventually(func() int { return len(boundPods(ns, allNames(pods))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(4))
		Expect(watch.nominatedPods()).To(BeEmpty(), "pods that got a nominatedNodeName while waiting at Permit")

		Eventually(func(g Gomega) {
			pg := podGang(ns, "inference")
			g.Expect(pg.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhaseStarting))
			c := expectCondition(g, pg, groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled)
			g.Expect(c.Message).To(Equal("every pod group has its minReplicas bound; 4 of 4 referenced pods bound"))
			g.Expect(pg.Status.PlacementScore).NotTo(BeNil())
			g.Expect(*pg.Status.PlacementScore).To(Equal(1.0))
			expectCondition(g, pg, groveschedulerv1alpha1.PodGangConditionTypeReady, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonMinimumSetNotReady)
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())

		By("marking the pods Ready as a kubelet would")
		for _, name := range allNames(pods) {
			p, err := kube.CoreV1().Pods(ns).Get(suiteCtx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()})
			_, err = kube.CoreV1().Pods(ns).UpdateStatus(suiteCtx, p, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		Eventually(func(g Gomega) {
			pg := podGang(ns, "inference")
			g.Expect(pg.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhaseRunning))
			expectCondition(g, pg, groveschedulerv1alpha1.PodGangConditionTypeReady, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetReady)
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
	})

	It("binds a gang's pod once a change of its PodGang's spec references it", func() {
		ns := newNamespace("refs")
		createNodes(ns, 1, harness.Resources("cpu", "8", "pods", "110", gpu, "4"), nil)
		groups := []group{{name: "worker", pods: 1, min: 1, requests: gpus("1")}}
		pods := gangPods(ns, ns, "late", "", groups...)
		createPods(pods)
		pg := newPodGang(ns, "late", "", "", groups...)
		refs := pg.Spec.PodGroups[0].PodReferences
		pg.Spec.PodGroups[0].PodReferences = nil

		By("holding the pod while its PodGang references none of its pods")
		createPodGang(pg)
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*time.Second, 200*time.Millisecond).Should(Equal(0))

		By("referencing the pod: nothing else happens in the cluster, yet the pod is queued again and binds")
		Eventually(func() error {
			live := podGang(ns, "late")
			live.Spec.PodGroups[0].PodReferences = refs
			_, err := grove.SchedulerV1alpha1().PodGangs(ns).Update(suiteCtx, live, metav1.UpdateOptions{})
			return err
		}, 5*time.Second, 100*time.Millisecond).Should(Succeed())
		Eventually(func() int { return len(boundPods(ns, allNames(pods))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(1))
	})

	It("binds no pod of a gang that does not fit and says why on the PodGang", func() {
		ns := newNamespace("nofit")
		createNodes(ns, 2, harness.Resources("cpu", "8", "pods", "110", gpu, "4"), nil)
		groups := []group{
			{name: "prefill", pods: 1, min: 1, requests: gpus("1")},
			{name: "decode", pods: 4, min: 4, requests: gpus("4")},
		}
		pods := createGang(ns, "big", "", "", groups...)

		Eventually(func(g Gomega) {
			pg := podGang(ns, "big")
			g.Expect(pg.Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending))
			c := expectCondition(g, pg, groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(MatchRegexp(`^group decode needs 4 pods with 4 nvidia\.com/gpu, 100m cpu, 1 fit: 1/\d+ nodes are available, with room for 1 pods: `+
				`(\d+ node\(s\) didn't match Pod's node affinity/selector, )?1 Insufficient nvidia\.com/gpu$`), "the other specs' nodes are excluded by the node selector")
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Equal(0))
		Expect(eventReasons(ns, "big")).To(ContainElement("Unschedulable"))
	})

	It("never leaves a partial gang or two stuck gangs when two gangs fit alone but not together (20 randomized repetitions)", func() {
		ns := newNamespace("contend")
		createNodes(ns, 4, harness.Resources("cpu", "8", "pods", "110", gpu, "2"), nil)
		groups := []group{
			{name: "leader", pods: 1, min: 1, requests: gpus("1")},
			{name: "worker", pods: 4, min: 4, requests: gpus("1")},
		}
		rng := rand.New(rand.NewSource(GinkgoRandomSeed()))
		for rep := 0; rep < 20; rep++ {
			repNS := newNamespace("contend-rep")
			a, b := gangPods(repNS, ns, "gang-a", "", groups...), gangPods(repNS, ns, "gang-b", "", groups...)
			all := append(append([]*corev1.Pod{}, a...), b...)
			rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			gangs := []*groveschedulerv1alpha1.PodGang{newPodGang(repNS, "gang-a", "", "", groups...), newPodGang(repNS, "gang-b", "", "", groups...)}
			rng.Shuffle(len(gangs), func(i, j int) { gangs[i], gangs[j] = gangs[j], gangs[i] })
			// Interleave pod and PodGang creation at random points.
			cut := rng.Intn(len(all) + 1)
			createPods(all[:cut])
			createPodGang(gangs[0])
			time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
			createPodGang(gangs[1])
			createPods(all[cut:])

			var boundA, boundB int
			Eventually(func() bool {
				boundA, boundB = len(boundPods(repNS, allNames(a))), len(boundPods(repNS, allNames(b)))
				return (boundA == 5 && boundB == 0) || (boundA == 0 && boundB == 5)
			}, 30*time.Second, 100*time.Millisecond).Should(BeTrue(), "repetition %d: gang-a %d bound, gang-b %d bound", rep, boundA, boundB)
			// Past a Permit timeout the outcome must still hold: nothing partial appears later.
			Consistently(func() []int {
				return []int{len(boundPods(repNS, allNames(a))), len(boundPods(repNS, allNames(b)))}
			}, (permitTimeoutSeconds+1)*time.Second, 250*time.Millisecond).Should(Equal([]int{boundA, boundB}), "repetition %d", rep)
			Expect(kube.CoreV1().Pods(repNS).DeleteCollection(suiteCtx, metav1.DeleteOptions{}, metav1.ListOptions{})).To(Succeed())
			Eventually(func() int {
				list, err := kube.CoreV1().Pods(repNS).List(suiteCtx, metav1.ListOptions{})
				Expect(err).NotTo(HaveOccurred())
				return len(list.Items)
			}, 10*time.Second, 100*time.Millisecond).Should(Equal(0))
		}
	})

	It("binds best-effort pods beyond minReplicas after the minimum set, as capacity allows", func() {
		ns := newNamespace("extras")
		createNodes(ns, 1, harness.Resources("cpu", "8", "pods", "110", gpu, "3"), nil)
		groups := []group{{name: "worker", pods: 4, min: 2, requests: gpus("1")}}
		pods := createGang(ns, "elastic", "", "", groups...)

		Eventually(func() int { return len(boundPods(ns, allNames(pods))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(3))
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*time.Second, 200*time.Millisecond).Should(Equal(3))
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "elastic"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled)
			g.Expect(c.Message).To(Equal("every pod group has its minReplicas bound; 3 of 4 referenced pods bound"))
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())

		By("adding capacity for the last best-effort pod")
		createNodes(ns+"-more", 1, harness.Resources("cpu", "8", "pods", "110", gpu, "1"), func(int) map[string]string { return map[string]string{poolLabel: ns} })
		Eventually(func() int { return len(boundPods(ns, allNames(pods))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(4))
	})

	It("preempts a lower-priority gang entirely for a higher-priority gang and never preempts equal priority", func() {
		createPriorityClass("grove-test-low", 100)
		createPriorityClass("grove-test-high", 1000)
		ns := newNamespace("preempt")
		createNodes(ns, 2, harness.Resources("cpu", "8", "pods", "110", gpu, "4"), nil)

		lowGroups := []group{{name: "worker", pods: 4, min: 3, requests: gpus("2")}}
		low := createGang(ns, "low", "grove-test-low", "", lowGroups...)
		Eventually(func() int { return len(boundPods(ns, allNames(low))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(4))

		highGroups := []group{{name: "engine", pods: 1, min: 1, requests: gpus("4")}}
		high := createGang(ns, "high", "grove-test-high", "", highGroups...)

		Eventually(func() int { return len(boundPods(ns, allNames(high))) }, 30*time.Second, 100*time.Millisecond).Should(Equal(1))
		By("removing every pod of the victim gang, not just the two that free the GPUs")
		Eventually(func() int {
			list, err := kube.CoreV1().Pods(ns).List(suiteCtx, metav1.ListOptions{LabelSelector: "grove.io/podgang=low"})
			Expect(err).NotTo(HaveOccurred())
			return len(list.Items)
		}, 10*time.Second, 100*time.Millisecond).Should(Equal(0))
		Eventually(func() []string { return eventReasons(ns, "low") }, 10*time.Second, 200*time.Millisecond).Should(ContainElement("Preempted"))
		Eventually(func() []string { return eventReasons(ns, "high") }, 10*time.Second, 200*time.Millisecond).Should(ContainElement("Preempting"))

		By("leaving an equal-priority gang pending instead of preempting")
		peerGroups := []group{{name: "engine", pods: 2, min: 2, requests: gpus("4")}}
		peer := createGang(ns, "peer", "grove-test-high", "", peerGroups...)
		Consistently(func() []int {
			return []int{len(boundPods(ns, allNames(high))), len(boundPods(ns, allNames(peer)))}
		}, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Equal([]int{1, 0}))
	})

	It("packs a gang with a required topology constraint into one domain", func() {
		ns := newNamespace("topo")
		_, large := createRacks(ns)
		groups := []group{{name: "worker", pods: 5, min: 5, requests: gpus("1")}}
		pods := createGang(ns, "packed", "", rackKey, groups...)
		expectAllBoundWithin(ns, pods, large, "rack-large")

		By("rejecting a gang no single rack can hold")
		// 5 GPUs are free in total (4 in rack-small, 1 in rack-large), but no single rack holds 5.
		tooBig := []group{{name: "worker", pods: 5, min: 5, requests: gpus("1")}}
		rest := createGang(ns, "spill", "", rackKey, tooBig...)
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "spill"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(HavePrefix(`podgang spill does not fit in any single "topology.test/rack" domain`))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func() int { return len(boundPods(ns, allNames(rest))) }, 2*time.Second, 250*time.Millisecond).Should(Equal(0))
	})

	It("keeps a gang with a preferred topology constraint inside one domain when one can hold it", func() {
		ns := newNamespace("prefer")
		small, _ := createRacks(ns)
		groups := []group{{name: "worker", pods: 4, min: 4, requests: gpus("1")}}
		pods := gangPods(ns, ns, "soft", "", groups...)
		createPods(pods)
		pg := newPodGang(ns, "soft", "", "", groups...)
		preferred := rackKey
		pg.Spec.TopologyConstraint = &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Preferred: &preferred}}
		createPodGang(pg)
		// rack-small (2 nodes, 4 GPUs) is the tightest domain that holds the gang;
		// spreading scores alone would have used the emptier rack-large nodes too.
		expectAllBoundWithin(ns, pods, small, "rack-small")
		Eventually(func(g Gomega) {
			score := podGang(ns, "soft").Status.PlacementScore
			g.Expect(score).NotTo(BeNil())
			g.Expect(*score).To(Equal(1.0))
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
	})

	It("requeues a rejected gang pod only for the cluster events that can make its gang schedulable", func() {
		ns := newNamespace("hints")
		createNodes(ns, 1, harness.Resources("cpu", "8", "pods", "110", gpu, "1"), nil)
		groups := []group{{name: "worker", pods: 2, min: 2, requests: gpus("1")}}
		pods := createGang(ns, "waiting", "", "", groups...)
		Eventually(func(g Gomega) {
			expectCondition(g, podGang(ns, "waiting"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())

		// New nodes become usable when their not-ready taint is lifted (see harness.CreateNodes).
		const untainted = "NodeUpdateNodeTaint"
		queued, skipped := hintRuns(untainted, "Queue"), hintRuns(untainted, "QueueSkip")
		By("adding a node outside the gang's pool: the hint skips it")
		createNodes(ns+"-elsewhere", 1, harness.Resources("cpu", "8", "pods", "110", gpu, "4"), nil)
		Eventually(func() uint64 { return hintRuns(untainted, "QueueSkip") }, 10*time.Second, 200*time.Millisecond).Should(BeNumerically(">", skipped))
		Consistently(func() uint64 { return hintRuns(untainted, "Queue") }, 2*time.Second, 200*time.Millisecond).Should(Equal(queued))
		Expect(boundPods(ns, allNames(pods))).To(BeEmpty())

		By("adding a node in the gang's pool: the hint queues the gang's pods and they bind")
		createNodes(ns+"-more", 1, harness.Resources("cpu", "8", "pods", "110", gpu, "1"), func(int) map[string]string { return map[string]string{poolLabel: ns} })
		Eventually(func() int { return len(boundPods(ns, allNames(pods))) }, 20*time.Second, 100*time.Millisecond).Should(Equal(2))
		Eventually(func() uint64 { return hintRuns(untainted, "Queue") }, 10*time.Second, 200*time.Millisecond).Should(BeNumerically(">", queued))
	})

	It("schedules ordinary pods that belong to no PodGang", func() {
		ns := newNamespace("plain")
		createNodes(ns, 1, harness.Resources("cpu", "2", "pods", "110"), nil)
		var names []string
		for _, name := range []string{"web-0", "web-1", "web-2"} {
			createPods([]*corev1.Pod{harness.NewPod(harness.PodSpec{
				Namespace: ns, Name: name, SchedulerName: schedulerName,
				Requests: harness.Resources("cpu", "500m"), NodeSelector: map[string]string{poolLabel: ns},
			})})
			names = append(names, name)
		}
		Eventually(func() int { return len(boundPods(ns, names)) }, 20*time.Second, 100*time.Millisecond).Should(Equal(3))
	})

	It("exports grove_ metrics in the legacy registry and on the plain HTTP endpoint", func() {
		value, err := testutil.GetCounterMetricValue(metrics.GangAttempts.WithLabelValues(metrics.ResultScheduled))
		Expect(err).NotTo(HaveOccurred())
		Expect(value).To(BeNumerically(">", 0))

		families, err := legacyregistry.DefaultGatherer.Gather()
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, f := range families {
			names = append(names, f.GetName())
		}
		Expect(names).To(ContainElements(
			"grove_gang_scheduling_attempts_total",
			"grove_gang_scheduling_attempt_duration_seconds",
			"grove_gangs_waiting_at_permit",
			"grove_podgang_time_to_minimum_set_bound_seconds",
		))

		ln, err := metrics.Listen("127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		go func() { _ = metrics.Serve(suiteCtx, ln) }()
		resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
		Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(ContainSubstring(`grove_gang_scheduling_attempts_total{result="scheduled"}`))
		Expect(strings.Count(string(body), "grove_podgang_time_to_minimum_set_bound_seconds_count")).To(Equal(1))
	})
})
