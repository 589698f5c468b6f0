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
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

const (
	updateWL  = "test/testdata/e2e/update-wl.yaml"
	twoClique = "test/testdata/e2e/update-two-cliques.yaml"
)

// ---- following pods through a watch -----------------------------------------

// podTracker follows a PodCliqueSet's pods through a watch from the moment
// it starts, so it sees every intermediate state the API server went
// through, and keeps the worst disruption it saw:
//   - per PodClique of desired: desired pods minus ready, non-terminating ones;
//   - "pcs-replicas": PodCliqueSet replicas disrupted at once;
//   - "group-replicas/<pcsg>": replicas of that scaling group disrupted at once.
//
// A replica is disrupted while one of the pods present when tracking began is
// gone or terminating and one of its PodCliques of desired is not back to
// full readiness; replicas created later (scale-out) never count.
type podTracker struct {
	mu      sync.Mutex
	desired map[string]int
	start   map[types.UID]corev1.Pod
	live    map[types.UID]corev1.Pod
	worst   map[string]int
	events  int
	err     error
	cancel  context.CancelFunc
	done    chan struct{}
}

func trackPods(ns, pcsName string, desired map[string]int) *podTracker {
	GinkgoHelper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(localDir, "kubeconfig"))
	Expect(err).NotTo(HaveOccurred())
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	list := &corev1.PodList{}
	Expect(wc.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
	t := &podTracker{desired: desired, start: map[types.UID]corev1.Pod{}, live: map[types.UID]corev1.Pod{}, worst: map[string]int{}, done: make(chan struct{})}
	for _, p := range list.Items {
		t.start[p.UID], t.live[p.UID] = p, p
	}
	wctx, cancel := context.WithCancel(ctx)
	t.cancel = cancel
	opts := append(partOf(ns, pcsName), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	w, err := wc.Watch(wctx, &corev1.PodList{}, opts...)
	Expect(err).NotTo(HaveOccurred())
	t.observe()
	go func() {
		defer close(t.done)
		defer w.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.mu.Lock()
					if wctx.Err() == nil {
						t.err = fmt.Errorf("pod watch closed early after %d events", t.events)
					}
					t.mu.Unlock()
					return
				}
				p, isPod := ev.Object.(*corev1.Pod)
				if !isPod {
					continue
				}
				t.mu.Lock()
				t.events++
				if ev.Type == watch.Deleted {
					delete(t.live, p.UID)
				} else {
					t.live[p.UID] = *p
				}
				t.mu.Unlock()
				t.observe()
			}
		}
	}()
	DeferCleanup(t.stop)
	return t
}

func (t *podTracker) stop() {
	t.cancel()
	<-t.done
}

// observe updates the worst disruptions with the current state.
func (t *podTracker) observe() {
	t.mu.Lock()
	defer t.mu.Unlock()
	ready := map[string]int{}
	for _, p := range t.live {
		if p.DeletionTimestamp == nil && podIsReady(&p) {
			ready[p.Labels[apicommon.LabelPodClique]]++
		}
	}
	down := map[string]bool{}
	for pclq, want := range t.desired {
		n := want - ready[pclq]
		t.worst[pclq] = max(t.worst[pclq], n)
		down[pclq] = n > 0
	}
	pcsReplicas, groupReplicas := map[string]bool{}, map[string]map[string]bool{}
	for uid, p := range t.start {
		if cur, ok := t.live[uid]; ok && cur.DeletionTimestamp == nil {
			continue
		}
		if !t.disrupted(p, down) {
			continue
		}
		pcsReplicas[p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]] = true
		if g := p.Labels[apicommon.LabelPodCliqueScalingGroup]; g != "" {
			if groupReplicas[g] == nil {
				groupReplicas[g] = map[string]bool{}
			}
			groupReplicas[g][p.Labels[apicommon.LabelPodCliqueScalingGroupReplicaIndex]] = true
		}
	}
	t.worst["pcs-replicas"] = max(t.worst["pcs-replicas"], len(pcsReplicas))
	for g, rs := range groupReplicas {
		t.worst["group-replicas/"+g] = max(t.worst["group-replicas/"+g], len(rs))
	}
}

// disrupted reports whether the unit a gone start pod belongs to (its
// scaling-group replica, or its PodClique) still has a PodClique down.
func (t *podTracker) disrupted(gone corev1.Pod, down map[string]bool) bool {
	g, gi := gone.Labels[apicommon.LabelPodCliqueScalingGroup], gone.Labels[apicommon.LabelPodCliqueScalingGroupReplicaIndex]
	if g == "" {
		return down[gone.Labels[apicommon.LabelPodClique]]
	}
	for _, p := range t.start {
		if p.Labels[apicommon.LabelPodCliqueScalingGroup] == g && p.Labels[apicommon.LabelPodCliqueScalingGroupReplicaIndex] == gi && down[p.Labels[apicommon.LabelPodClique]] {
			return true
		}
	}
	return false
}

// result returns the worst disruptions seen and fails on a broken watch.
func (t *podTracker) result() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	Expect(t.err).NotTo(HaveOccurred())
	out := map[string]int{}
	for k, v := range t.worst {
		out[k] = v
	}
	GinkgoWriter.Printf("worst disruption over %d pod events: %v\n", t.events, out)
	return out
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ---- helpers -------------------------------------------------------------------

// setCliqueImage changes one clique's image, retrying on conflicts.
func setCliqueImage(ns, pcsName, clique, image string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pcsName}, pcs); err != nil {
			return err
		}
		for i := range pcs.Spec.Template.Cliques {
			if pcs.Spec.Template.Cliques[i].Name == clique {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = image
			}
		}
		return k8s.Update(ctx, pcs)
	})).To(Succeed())
}

// setStrategy switches a PodCliqueSet's update strategy.
func setStrategy(ns, pcsName string, s grovecorev1alpha1.UpdateStrategyType) {
	GinkgoHelper()
	patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"updateStrategy":{"type":%q}}}`, s)))
	Expect(k8s.Patch(ctx, pcsRef(ns, pcsName), patch)).To(Succeed())
}

// podsByClique groups pods by PodClique, sorted by name.
func podsByClique(pods []corev1.Pod) map[string][]corev1.Pod {
	out := map[string][]corev1.Pod{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out[p.Labels[apicommon.LabelPodClique]] = append(out[p.Labels[apicommon.LabelPodClique]], p)
		}
	}
	return out
}

// podUIDs returns the sorted UIDs of pods.
func podUIDs(pods []corev1.Pod) []types.UID {
	out := make([]types.UID, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.UID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// images returns the image of every pod of a PodClique.
func images(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Spec.Containers[0].Image)
	}
	sort.Strings(out)
	return out
}

// expectUpdateDone waits until the PodCliqueSet's update ended and every
// replica runs its templates and is available.
func expectUpdateDone(ns, pcsName string, replicas int32) *grovecorev1alpha1.PodCliqueSet {
	GinkgoHelper()
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pcsName}, pcs)).To(Succeed())
		up := pcs.Status.UpdateProgress
		g.Expect(up).NotTo(BeNil())
		g.Expect(up.UpdateEndedAt).NotTo(BeNil(), "updateEndedAt")
		g.Expect(pcs.Status.CurrentGenerationHash).To(HaveValue(Equal(up.PodCliqueSetGenerationHash)))
		g.Expect(pcs.Status.UpdatedReplicas).To(Equal(replicas))
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Reason).To(Equal(grovecorev1alpha1.ConditionReasonUpdateCompleted))
	}).WithTimeout(3 * time.Minute).Should(Succeed())
	return pcs
}

// updateLayout is update-wl.yaml's running layout: per replica pc-a 2,
// sg-x-{0,1}-pc-b 1 and sg-x-{0,1}-pc-c 2.
func updateLayout(replicas int) map[string]int {
	out := map[string]int{}
	for i := 0; i < replicas; i++ {
		r := fmt.Sprintf("upd-%d", i)
		out[r+"-pc-a"] = 2
		for j := 0; j < 2; j++ {
			out[fmt.Sprintf("%s-sg-x-%d-pc-b", r, j)] = 1
			out[fmt.Sprintf("%s-sg-x-%d-pc-c", r, j)] = 2
		}
	}
	return out
}

// withClique keeps the entries of a layout whose PodClique ends in -<clique>.
func withClique(layout map[string]int, clique string) map[string]int {
	out := map[string]int{}
	for k, v := range layout {
		if strings.HasSuffix(k, "-"+clique) {
			out[k] = v
		}
	}
	return out
}

// ---- RollingRecreate on the general fake nodes ----------------------------------

var _ = Describe("RollingRecreate updates", func() {
	It("RU7: replaces a standalone clique one pod at a time, one PodCliqueSet replica at a time; the scaling groups keep their pods", func() {
		ns := newNamespace("ru7")
		createPCS(updateWL, ns)
		layout := updateLayout(2)
		before := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		tracker := trackPods(ns, "upd", layout)

		setCliqueImage(ns, "upd", "pc-a", "registry.example/pc-a:2")
		expectUpdateDone(ns, "upd", 2)
		after := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		worst := tracker.result()
		for name := range withClique(layout, "pc-a") {
			Expect(worst[name]).To(Equal(1), "%s: one pod down at a time (and one was)", name)
			Expect(images(after[name])).To(Equal([]string{"registry.example/pc-a:2", "registry.example/pc-a:2"}))
			for _, p := range after[name] {
				Expect(podUIDs(before[name])).NotTo(ContainElement(p.UID), "%s replaced", p.Name)
			}
		}
		Expect(worst["pcs-replicas"]).To(Equal(1), "one PodCliqueSet replica at a time")
		for name := range layout {
			if _, isA := withClique(layout, "pc-a")[name]; !isA {
				Expect(podUIDs(after[name])).To(Equal(podUIDs(before[name])), "%s kept its pods", name)
			}
		}
	})

	It("RU8: replaces a scaling group one group replica at a time; the standalone clique keeps its pods", func() {
		ns := newNamespace("ru8")
		createPCS(updateWL, ns)
		layout := updateLayout(2)
		before := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		tracker := trackPods(ns, "upd", layout)

		setCliqueImage(ns, "upd", "pc-c", "registry.example/pc-c:2")
		expectUpdateDone(ns, "upd", 2)
		after := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		worst := tracker.result()
		Expect(worst["group-replicas/upd-0-sg-x"]).To(Equal(1), "one group replica at a time")
		Expect(worst["group-replicas/upd-1-sg-x"]).To(Equal(1), "one group replica at a time")
		Expect(worst["pcs-replicas"]).To(Equal(1), "one PodCliqueSet replica at a time")
		for name := range layout {
			if _, isA := withClique(layout, "pc-a")[name]; isA {
				Expect(podUIDs(after[name])).To(Equal(podUIDs(before[name])), "%s kept its pods", name)
				continue
			}
			// pc-b's template did not change, but a group replica is replaced whole.
			for _, p := range after[name] {
				Expect(podUIDs(before[name])).NotTo(ContainElement(p.UID), "%s recreated with its group replica", p.Name)
			}
		}
		for name := range withClique(layout, "pc-c") {
			Expect(images(after[name])).To(Equal([]string{"registry.example/pc-c:2", "registry.example/pc-c:2"}))
		}
	})

	It("replaces only the changed clique of a two-clique PodCliqueSet, never more than maxUnavailable=2 down", func() {
		ns := newNamespace("two")
		createPCS(twoClique, ns)
		layout := map[string]int{"two-0-frontend": 4, "two-0-decode": 3}
		before := podsByClique(expectRunningLayout(ns, "two", layout, fakeNodeName))
		tracker := trackPods(ns, "two", layout)

		setCliqueImage(ns, "two", "frontend", "registry.example/frontend:2")
		expectUpdateDone(ns, "two", 1)
		after := podsByClique(expectRunningLayout(ns, "two", layout, fakeNodeName))
		worst := tracker.result()
		Expect(worst["two-0-frontend"]).To(And(BeNumerically(">=", 1), BeNumerically("<=", 2)), "frontend: at most maxUnavailable=2 pods down")
		Expect(worst["two-0-decode"]).To(BeZero(), "decode never lost a pod")
		Expect(podUIDs(after["two-0-decode"])).To(Equal(podUIDs(before["two-0-decode"])))
		Expect(images(after["two-0-frontend"])).To(HaveEach("registry.example/frontend:2"))
		for _, p := range after["two-0-frontend"] {
			Expect(podUIDs(before["two-0-frontend"])).NotTo(ContainElement(p.UID))
		}
	})
})

// ---- RollingRecreate without spare capacity (the gang pool) -----------------------

var _ = Describe("RollingRecreate updates without spare capacity", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("RU10: takes exactly one pod down, its replacement waits Pending, and uncordoning completes the update", func() {
		ns := newNamespace("ru10")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1, ns)
		layout := gangLayout("gang-wl1", 0, 2)
		before := podsByClique(expectRunningLayout(ns, "gang-wl1", layout, gangNode))
		tracker := trackPods(ns, "gang-wl1", layout)

		By("cordoning every node, then changing pc-a's image")
		schedulableGangNodes(0, gangPoolSize)
		setCliqueImage(ns, "gang-wl1", "pc-a", "registry.example/pc-a:2")
		oneDown := func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "gang-wl1"))
			pcA := pods["gang-wl1-0-pc-a"]
			g.Expect(pcA).To(HaveLen(2))
			g.Expect(images(pcA)).To(Equal([]string{"busybox", "registry.example/pc-a:2"}))
			for _, p := range pcA {
				if p.Spec.Containers[0].Image == "registry.example/pc-a:2" {
					g.Expect(p.Spec.NodeName).To(BeEmpty(), "the replacement has no node to go to")
					g.Expect(p.Spec.SchedulingGates).To(BeEmpty(), "the replacement is released to the scheduler")
				} else {
					g.Expect(podUIDs(before["gang-wl1-0-pc-a"])).To(ContainElement(p.UID))
				}
			}
			for name, ps := range before {
				if name != "gang-wl1-0-pc-a" {
					g.Expect(podUIDs(pods[name])).To(Equal(podUIDs(ps)), "%s kept its pods", name)
				}
			}
		}
		Eventually(oneDown).Should(Succeed())
		Consistently(oneDown).Should(Succeed())

		By("uncordoning the ten nodes")
		schedulableGangNodes(10, gangPoolSize)
		expectUpdateDone(ns, "gang-wl1", 1)
		after := podsByClique(expectRunningLayout(ns, "gang-wl1", layout, gangNode))
		Expect(images(after["gang-wl1-0-pc-a"])).To(Equal([]string{"registry.example/pc-a:2", "registry.example/pc-a:2"}))
		Expect(tracker.result()["gang-wl1-0-pc-a"]).To(Equal(1), "exactly one pod down at a time")
	})

	It("RU11: scaling the PodCliqueSet out during an update creates the new replica from the new template", func() {
		ns := newNamespace("ru11")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1, ns)
		expectRunningLayout(ns, "gang-wl1", gangLayout("gang-wl1", 0, 2), gangNode)
		schedulableGangNodes(0, gangPoolSize)
		setCliqueImage(ns, "gang-wl1", "pc-a", "registry.example/pc-a:2")
		Eventually(func(g Gomega) {
			g.Expect(images(podsByClique(listPods(g, ns, "gang-wl1"))["gang-wl1-0-pc-a"])).To(ContainElement("registry.example/pc-a:2"))
		}).Should(Succeed())

		By("kubectl scale pcs gang-wl1 --replicas=2 while replica 0 waits for capacity")
		scaleTo(pcsRef(ns, "gang-wl1"), 2)
		var replica1 []types.UID
		Eventually(func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "gang-wl1"))
			g.Expect(images(pods["gang-wl1-1-pc-a"])).To(Equal([]string{"registry.example/pc-a:2", "registry.example/pc-a:2"}))
			var all []corev1.Pod
			for name, ps := range pods {
				if strings.HasPrefix(name, "gang-wl1-1-") {
					all = append(all, ps...)
				}
			}
			g.Expect(all).To(HaveLen(10))
			replica1 = podUIDs(all)
		}).Should(Succeed())

		By("uncordoning twenty nodes: both replicas run the new template, replica 1's pods were never replaced")
		schedulableGangNodes(20, gangPoolSize)
		expectUpdateDone(ns, "gang-wl1", 2)
		full := gangLayout("gang-wl1", 0, 2)
		for k, v := range gangLayout("gang-wl1", 1, 2) {
			full[k] = v
		}
		pods := podsByClique(expectRunningLayout(ns, "gang-wl1", full, gangNode))
		var now []corev1.Pod
		for name, ps := range pods {
			if strings.HasPrefix(name, "gang-wl1-1-") {
				now = append(now, ps...)
			}
		}
		Expect(podUIDs(now)).To(Equal(replica1))
		Expect(images(pods["gang-wl1-0-pc-a"])).To(Equal([]string{"registry.example/pc-a:2", "registry.example/pc-a:2"}))
	})

	It("RU14: scaling a group out during its update creates the new group replica from the new template, replaced once", func() {
		ns := newNamespace("ru14")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1, ns)
		layout := gangLayout("gang-wl1", 0, 2)
		before := podsByClique(expectRunningLayout(ns, "gang-wl1", layout, gangNode))
		tracker := trackPods(ns, "gang-wl1", layout)
		// The update judges each group replica by its PodCliques' status, which
		// reports the running pods a moment after they run: a replica not yet
		// reported available is replaced at once, outside the budget.
		Eventually(func(g Gomega) int32 {
			pcsg := pcsgRef(ns, "gang-wl1-0-sg-x")
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcsg), pcsg)).To(Succeed())
			return pcsg.Status.AvailableReplicas
		}).Should(Equal(int32(2)))
		schedulableGangNodes(0, gangPoolSize)
		setCliqueImage(ns, "gang-wl1", "pc-c", "registry.example/pc-c:2")
		By("group replica 0 goes first; replica 1 keeps its pods")
		Eventually(func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "gang-wl1"))
			g.Expect(images(pods["gang-wl1-0-sg-x-0-pc-c"])).To(HaveEach("registry.example/pc-c:2"))
			g.Expect(podUIDs(pods["gang-wl1-0-sg-x-1-pc-c"])).To(Equal(podUIDs(before["gang-wl1-0-sg-x-1-pc-c"])))
		}).Should(Succeed())

		By("kubectl scale pcsg gang-wl1-0-sg-x --replicas=3")
		scaleTo(pcsgRef(ns, "gang-wl1-0-sg-x"), 3)
		var added []types.UID
		Eventually(func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "gang-wl1"))
			g.Expect(pods["gang-wl1-0-sg-x-2-pc-c"]).To(HaveLen(3))
			g.Expect(images(pods["gang-wl1-0-sg-x-2-pc-c"])).To(HaveEach("registry.example/pc-c:2"))
			added = podUIDs(append(pods["gang-wl1-0-sg-x-2-pc-b"], pods["gang-wl1-0-sg-x-2-pc-c"]...))
			g.Expect(added).To(HaveLen(4))
		}).Should(Succeed())
		Consistently(func(g Gomega) []types.UID {
			return podUIDs(podsByClique(listPods(g, ns, "gang-wl1"))["gang-wl1-0-sg-x-1-pc-c"])
		}).Should(Equal(podUIDs(before["gang-wl1-0-sg-x-1-pc-c"])), "replica 1 waits while two group replicas are unavailable")

		By("uncordoning fourteen nodes")
		schedulableGangNodes(14, gangPoolSize)
		expectUpdateDone(ns, "gang-wl1", 1)
		full := gangLayout("gang-wl1", 0, 3)
		pods := podsByClique(expectRunningLayout(ns, "gang-wl1", full, gangNode))
		Expect(podUIDs(append(pods["gang-wl1-0-sg-x-2-pc-b"], pods["gang-wl1-0-sg-x-2-pc-c"]...))).To(Equal(added), "the new group replica was not replaced again")
		Expect(images(pods["gang-wl1-0-sg-x-1-pc-c"])).To(HaveEach("registry.example/pc-c:2"))
		Expect(podUIDs(pods["gang-wl1-0-pc-a"])).To(Equal(podUIDs(before["gang-wl1-0-pc-a"])))
		Expect(tracker.result()["group-replicas/gang-wl1-0-sg-x"]).To(Equal(1), "one group replica replaced at a time")
	})
})

// ---- OnDelete ---------------------------------------------------------------------

var _ = Describe("OnDelete updates", func() {
	onDeletePCS := func(ns string) {
		pcs := loadPCS(updateWL)
		pcs.Namespace = ns
		pcs.Spec.Replicas = 1
		pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.OnDeleteStrategyType}
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
	}

	It("OD1-OD3: deletes nothing, recreates deleted pods from the new template and scales in outdated pods first", func() {
		ns := newNamespace("od")
		onDeletePCS(ns)
		layout := updateLayout(1)
		before := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		setCliqueImage(ns, "upd", "pc-a", "registry.example/pc-a:2")

		By("OD1: no pod is replaced; the update record ends when it starts")
		Eventually(func(g Gomega) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "upd"}, pcs)).To(Succeed())
			up := pcs.Status.UpdateProgress
			g.Expect(up).NotTo(BeNil())
			g.Expect(up.UpdateEndedAt).To(HaveValue(Equal(up.UpdateStartedAt)))
			c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(grovecorev1alpha1.ConditionReasonOnDelete))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "upd"))
			for name, ps := range before {
				g.Expect(podUIDs(pods[name])).To(Equal(podUIDs(ps)), "%s kept its pods", name)
			}
		}).Should(Succeed())

		By("OD2: a deleted pc-a pod comes back with the new image")
		victim := before["upd-0-pc-a"][0]
		Expect(k8s.Delete(ctx, &victim)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := podsByClique(listPods(g, ns, "upd"))["upd-0-pc-a"]
			g.Expect(images(pods)).To(Equal([]string{"registry.example/pc-a:1", "registry.example/pc-a:2"}))
			pclq := &grovecorev1alpha1.PodClique{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "upd-0-pc-a"}, pclq)).To(Succeed())
			g.Expect(pclq.Status.UpdatedReplicas).To(Equal(int32(1)))
			g.Expect(pclq.Status.ReadyReplicas).To(Equal(int32(2)))
		}).Should(Succeed())

		By("OD3: kubectl scale pclq upd-0-pc-a --replicas=1 removes the outdated pod")
		scaleTo(pclqRef(ns, "upd-0-pc-a"), 1)
		Eventually(func(g Gomega) []string {
			return images(podsByClique(listPods(g, ns, "upd"))["upd-0-pc-a"])
		}).Should(Equal([]string{"registry.example/pc-a:2"}))
	})

	It("OD9: switches OnDelete → RollingRecreate → OnDelete at runtime", func() {
		ns := newNamespace("od9")
		onDeletePCS(ns)
		layout := updateLayout(1)
		before := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		setCliqueImage(ns, "upd", "pc-a", "registry.example/pc-a:2")
		Consistently(func(g Gomega) []types.UID {
			return podUIDs(podsByClique(listPods(g, ns, "upd"))["upd-0-pc-a"])
		}).Should(Equal(podUIDs(before["upd-0-pc-a"])))

		By("RollingRecreate: the outdated pods are replaced")
		setStrategy(ns, "upd", grovecorev1alpha1.RollingRecreateStrategyType)
		expectUpdateDone(ns, "upd", 1)
		pods := podsByClique(expectRunningLayout(ns, "upd", layout, fakeNodeName))
		Expect(images(pods["upd-0-pc-a"])).To(Equal([]string{"registry.example/pc-a:2", "registry.example/pc-a:2"}))

		By("OnDelete again: a new image replaces nothing")
		setStrategy(ns, "upd", grovecorev1alpha1.OnDeleteStrategyType)
		setCliqueImage(ns, "upd", "pc-a", "registry.example/pc-a:3")
		Consistently(func(g Gomega) []types.UID {
			return podUIDs(podsByClique(listPods(g, ns, "upd"))["upd-0-pc-a"])
		}).Should(Equal(podUIDs(pods["upd-0-pc-a"])))
		for name, ps := range before {
			if name != "upd-0-pc-a" {
				Expect(podUIDs(pods[name])).To(Equal(podUIDs(ps)), "%s kept its pods", name)
			}
		}
	})
})
