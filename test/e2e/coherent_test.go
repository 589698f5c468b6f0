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
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	coherentDisagg = "test/testdata/e2e/coherent-disagg.yaml"
	coherentGang   = "test/testdata/e2e/coherent-gang.yaml"
	// samplePeriod is how often the revision sampler looks.
	samplePeriod = 500 * time.Millisecond
)

// disaggLayout is coherent-disagg.yaml's running layout with the given replicas.
func disaggLayout(pcsName string, replicas int) map[string]int {
	out := map[string]int{}
	for i := 0; i < replicas; i++ {
		out[fmt.Sprintf("%s-%d-prefill", pcsName, i)] = 3
		out[fmt.Sprintf("%s-%d-decode", pcsName, i)] = 3
	}
	return out
}

// createDisagg creates coherent-disagg.yaml with the given replicas and update strategy.
func createDisagg(ns string, replicas int32, strategy grovecorev1alpha1.PodCliqueSetUpdateStrategy) {
	GinkgoHelper()
	pcs := loadPCS(coherentDisagg)
	pcs.Namespace = ns
	pcs.Spec.Replicas = replicas
	pcs.Spec.UpdateStrategy = &strategy
	Expect(k8s.Create(ctx, pcs)).To(Succeed())
}

// expectEveryPodReady waits until every PodClique of the PodCliqueSet reports
// all its pods ready and the set reports every replica available. A Coherent
// update counts a replica whose status has not caught up with its pods as
// down, and picks such a replica first: specs that expect an order start
// from a status that shows the pods they see.
func expectEveryPodReady(ns, pcsName string, replicas int32) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		list := &grovecorev1alpha1.PodCliqueList{}
		g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
		g.Expect(list.Items).NotTo(BeEmpty())
		for _, p := range list.Items {
			g.Expect(p.Status.ReadyReplicas).To(Equal(p.Spec.Replicas), "PodClique %s readyReplicas", p.Name)
		}
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pcsName}, pcs)).To(Succeed())
		g.Expect(pcs.Status.AvailableReplicas).To(Equal(replicas), "availableReplicas")
	}).Should(Succeed())
}

// setImages changes the images of several cliques in one write: one new revision.
func setImages(ns, pcsName string, images map[string]string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pcsName}, pcs); err != nil {
			return err
		}
		for i := range pcs.Spec.Template.Cliques {
			if img, ok := images[pcs.Spec.Template.Cliques[i].Name]; ok {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = img
			}
		}
		return k8s.Update(ctx, pcs)
	})).To(Succeed())
}

// revisionSampler looks at a PodCliqueSet every samplePeriod while an update
// runs and keeps what the update specs assert:
//   - mixed: PodGangs seen referencing, or claimed (grove.io/podgang) by,
//     pods of more than one revision (grove.io/podcliqueset-generation-hash);
//   - minAvailable: the fewest replicas seen fully available (every PodClique
//     of the layout with all its pods ready and not terminating).
type revisionSampler struct {
	ns, pcs  string
	layout   map[string]int
	replicas int
	stopCh   chan struct{}
	wg       sync.WaitGroup

	mu           sync.Mutex
	samples      int
	mixed        []string
	minAvailable int
	errs         []error
}

// sampleRevisions starts sampling; stop ends it.
func sampleRevisions(ns, pcsName string, layout map[string]int, replicas int) *revisionSampler {
	s := &revisionSampler{ns: ns, pcs: pcsName, layout: layout, replicas: replicas, stopCh: make(chan struct{}), minAvailable: replicas}
	s.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer s.wg.Done()
		t := time.NewTicker(samplePeriod)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stopCh:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *revisionSampler) sample() {
	pods := &corev1.PodList{}
	gangs := &groveschedulerv1alpha1.PodGangList{}
	err := k8s.List(ctx, pods, partOf(s.ns, s.pcs)...)
	if err == nil {
		err = k8s.List(ctx, gangs, partOf(s.ns, s.pcs)...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errs = append(s.errs, err)
		return
	}
	s.samples++
	byName := map[string]*corev1.Pod{}
	claims := map[string]map[string]bool{}
	ready := map[string]int{}
	for i := range pods.Items {
		p := &pods.Items[i]
		byName[p.Name] = p
		gang := p.Labels[apicommon.LabelPodGang]
		if claims[gang] == nil {
			claims[gang] = map[string]bool{}
		}
		claims[gang][p.Labels[apicommon.LabelPodCliqueSetGenerationHash]] = true
		if p.DeletionTimestamp == nil && podIsReady(p) {
			ready[p.Labels[apicommon.LabelPodClique]]++
		}
	}
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
			s.mixed = append(s.mixed, fmt.Sprintf("%s: references revisions %v, claimed by pods of revisions %v", pg.Name, sortedSet(refs), sortedSet(claims[pg.Name])))
		}
	}
	available := 0
	for i := 0; i < s.replicas; i++ {
		full := true
		prefix := fmt.Sprintf("%s-%d-", s.pcs, i)
		for pclq, n := range s.layout {
			if strings.HasPrefix(pclq, prefix) && ready[pclq] < n {
				full = false
			}
		}
		if full {
			available++
		}
	}
	s.minAvailable = min(s.minAvailable, available)
}

// stop ends sampling and returns the samples taken, the gangs seen mixed and
// the fewest fully available replicas.
func (s *revisionSampler) stop() (samples int, mixed []string, minAvailable int) {
	GinkgoHelper()
	close(s.stopCh)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	Expect(s.errs).To(BeEmpty(), "the sampler could not list")
	return s.samples, s.mixed, s.minAvailable
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// generationHash reads the generation hash every replica of the PodCliqueSet runs.
func generationHash(ns, pcsName string) string {
	GinkgoHelper()
	var h string
	Eventually(func(g Gomega) {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pcsName}, pcs)).To(Succeed())
		g.Expect(pcs.Status.ObservedGeneration).To(HaveValue(Equal(pcs.Generation)))
		g.Expect(pcs.Status.CurrentGenerationHash).NotTo(BeNil())
		h = *pcs.Status.CurrentGenerationHash
	}).Should(Succeed())
	return h
}

// expectRevision checks that every pod and PodGang of the set carries revision h.
func expectRevision(ns, pcsName, h string, gangs ...string) {
	GinkgoHelper()
	for _, p := range listPods(Default, ns, pcsName) {
		Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, h), "pod %s", p.Name)
	}
	for _, name := range gangs {
		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
		Expect(pg.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetGenerationHash, h), "PodGang %s", name)
	}
}

var _ = Describe("Coherent updates", func() {
	coherent := grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.CoherentStrategyType}
	v2 := map[string]string{"prefill": "registry.example/prefill:2", "decode": "registry.example/decode:2"}

	It("sampled every 0.5 s: no PodGang ever holds pods of two revisions, prefill and decode switch together, and never fewer than replicas − maxUnavailable replicas are fully available (#697)", func() {
		ns := newNamespace("coh")
		createDisagg(ns, 3, coherent)
		layout := disaggLayout("disagg", 3)
		before := podsByClique(expectRunningLayout(ns, "disagg", layout, fakeNodeName))
		oldGen := generationHash(ns, "disagg")
		expectRevision(ns, "disagg", oldGen, "disagg-0", "disagg-1", "disagg-2")
		sampler := sampleRevisions(ns, "disagg", layout, 3)
		expectEveryPodReady(ns, "disagg", 3)

		setImages(ns, "disagg", v2)
		expectUpdateDone(ns, "disagg", 3)
		after := podsByClique(expectRunningLayout(ns, "disagg", layout, fakeNodeName))
		samples, mixed, minAvailable := sampler.stop()
		AddReportEntry("Coherent samples / fewest fully available replicas", fmt.Sprintf("%d / %d of 3", samples, minAvailable))
		Expect(samples).To(BeNumerically(">=", 4), "the update was sampled")
		Expect(mixed).To(BeEmpty(), "no gang held two revisions")
		Expect(minAvailable).To(Equal(2), "maxUnavailable 1: one replica down at a time, and one was")
		newGen := generationHash(ns, "disagg")
		Expect(newGen).NotTo(Equal(oldGen))
		By("the PodGangs keep their names and carry the new revision; every pod is new")
		expectRevision(ns, "disagg", newGen, "disagg-0", "disagg-1", "disagg-2")
		for pclq, pods := range after {
			clique := pclq[strings.LastIndex(pclq, "-")+1:]
			Expect(images(pods)).To(HaveEach(v2[clique]), pclq)
			Expect(podUIDs(pods)).NotTo(ContainElements(podUIDs(before[pclq])), pclq)
		}
	})

	It("the same sampler sees RollingRecreate put two revisions in one PodGang (so the check above can fail)", func() {
		ns := newNamespace("rr")
		createDisagg(ns, 2, grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.RollingRecreateStrategyType})
		layout := disaggLayout("disagg", 2)
		expectRunningLayout(ns, "disagg", layout, fakeNodeName)
		sampler := sampleRevisions(ns, "disagg", layout, 2)
		setImages(ns, "disagg", v2)
		expectUpdateDone(ns, "disagg", 2)
		expectRunningLayout(ns, "disagg", layout, fakeNodeName)
		_, mixed, _ := sampler.stop()
		AddReportEntry("RollingRecreate mixed gangs seen", strings.Join(mixed, "\n"))
		Expect(mixed).NotTo(BeEmpty(), "RollingRecreate replaces pods one by one inside the gang")
	})

	It("#697: with maxUnavailable 2 of 4 replicas, two replicas are replaced at once and never more than two are down", func() {
		ns := newNamespace("coh2")
		createDisagg(ns, 4, grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.CoherentStrategyType, MaxUnavailable: ptrTo(intstr.FromInt32(2))})
		layout := disaggLayout("disagg", 4)
		expectRunningLayout(ns, "disagg", layout, fakeNodeName)
		sampler := sampleRevisions(ns, "disagg", layout, 4)
		expectEveryPodReady(ns, "disagg", 4)
		var most int
		stopWatch := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(watched)
			for {
				pcs := &grovecorev1alpha1.PodCliqueSet{}
				if k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disagg"}, pcs) == nil && pcs.Status.UpdateProgress != nil {
					most = max(most, len(pcs.Status.UpdateProgress.CurrentlyUpdating))
				}
				select {
				case <-stopWatch:
					return
				case <-time.After(samplePeriod):
				}
			}
		}()
		setImages(ns, "disagg", v2)
		expectUpdateDone(ns, "disagg", 4)
		expectRunningLayout(ns, "disagg", layout, fakeNodeName)
		close(stopWatch)
		<-watched
		_, mixed, minAvailable := sampler.stop()
		Expect(mixed).To(BeEmpty())
		Expect(minAvailable).To(Equal(2), "4 replicas − maxUnavailable 2, and two were down at once")
		Expect(most).To(Equal(2), "two replicas in turn at once")
	})

	It("#400: a second update applied while the first is half done ends with every pod on the second revision", func() {
		ns := newNamespace("twice")
		createDisagg(ns, 3, coherent)
		layout := disaggLayout("disagg", 3)
		expectRunningLayout(ns, "disagg", layout, fakeNodeName)
		sampler := sampleRevisions(ns, "disagg", layout, 3)
		expectEveryPodReady(ns, "disagg", 3)
		setImages(ns, "disagg", v2)
		By("waiting until the first update replaced one replica and works on the next")
		Eventually(func(g Gomega) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disagg"}, pcs)).To(Succeed())
			up := pcs.Status.UpdateProgress
			g.Expect(up).NotTo(BeNil())
			g.Expect(up.UpdateEndedAt).To(BeNil(), "the first update is still running")
			g.Expect(pcs.Status.UpdatedReplicas).To(BeNumerically(">=", 1))
			g.Expect(up.CurrentlyUpdating).NotTo(BeEmpty())
		}).WithPolling(200 * time.Millisecond).Should(Succeed())
		v3 := map[string]string{"prefill": "registry.example/prefill:3", "decode": "registry.example/decode:3"}
		setImages(ns, "disagg", v3)
		expectUpdateDone(ns, "disagg", 3)
		pods := podsByClique(expectRunningLayout(ns, "disagg", layout, fakeNodeName))
		_, mixed, _ := sampler.stop()
		Expect(mixed).To(BeEmpty())
		for pclq, ps := range pods {
			clique := pclq[strings.LastIndex(pclq, "-")+1:]
			Expect(images(ps)).To(HaveEach(v3[clique]), pclq)
		}
		expectRevision(ns, "disagg", generationHash(ns, "disagg"), "disagg-0", "disagg-1", "disagg-2")
		Expect(listPods(Default, ns, "disagg")).To(HaveLen(18), "no pod of the first update is left")
	})
})

var _ = Describe("Coherent updates without spare capacity", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("#840: new pods that stay Pending report ProgressDeadlineExceeded without taking a second replica, and the update completes when capacity comes", func() {
		ns := newNamespace("c840")
		schedulableGangNodes(8, gangPoolSize)
		createPCS(coherentGang, ns)
		layout := map[string]int{"coh-gang-0-prefill": 2, "coh-gang-0-decode": 2, "coh-gang-1-prefill": 2, "coh-gang-1-decode": 2}
		before := podsByClique(expectRunningLayout(ns, "coh-gang", layout, gangNode))
		expectEveryPodReady(ns, "coh-gang", 2)

		By("cordoning every node, then changing both images")
		schedulableGangNodes(0, gangPoolSize)
		setImages(ns, "coh-gang", map[string]string{"prefill": "registry.example/prefill:2", "decode": "registry.example/decode:2"})
		Eventually(func(g Gomega) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "coh-gang"}, pcs)).To(Succeed())
			c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(grovecorev1alpha1.ConditionReasonProgressDeadlineExceeded))
			g.Expect(c.Message).To(ContainSubstring("replica 0 ("))
			g.Expect(pcs.Status.UpdateProgress.CurrentlyUpdating).To(HaveLen(1))
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		pods := podsByClique(listPods(Default, ns, "coh-gang"))
		for _, n := range []string{"coh-gang-0-prefill", "coh-gang-0-decode"} {
			Expect(pods[n]).To(HaveLen(2))
			for _, p := range pods[n] {
				Expect(p.Spec.NodeName).To(BeEmpty(), "the new revision has no node to go to")
			}
		}
		for _, n := range []string{"coh-gang-1-prefill", "coh-gang-1-decode"} {
			Expect(podUIDs(pods[n])).To(Equal(podUIDs(before[n])), "the budget is used: replica 1 keeps running")
		}

		By("uncordoning the eight nodes completes the update")
		schedulableGangNodes(8, gangPoolSize)
		expectUpdateDone(ns, "coh-gang", 2)
		after := podsByClique(expectRunningLayout(ns, "coh-gang", layout, gangNode))
		for n, ps := range after {
			Expect(podUIDs(ps)).NotTo(ContainElements(podUIDs(before[n])), n)
		}
	})

	It("#789: a breach that persists deletes the replica once after terminationDelay, not again while the recreated replica waits for capacity, and a later breach once more", func() {
		ns := newNamespace("c789")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl1gt, ns)
		layout := gangLayout("gang-wl1-gt", 0, 2)
		expectRunningLayout(ns, "gang-wl1-gt", layout, gangNode)
		expectWasScheduled(ns, "gang-wl1-gt", 5)

		// Every PodClique UID of pc-a seen, with when it was first seen:
		// one per creation of the replica.
		var mu sync.Mutex
		seen := map[types.UID]time.Time{}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			for {
				p := &grovecorev1alpha1.PodClique{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gang-wl1-gt-0-pc-a"}, p); err == nil {
					mu.Lock()
					if _, ok := seen[p.UID]; !ok {
						seen[p.UID] = time.Now()
					}
					mu.Unlock()
				}
				select {
				case <-stop:
					return
				case <-time.After(samplePeriod):
				}
			}
		}()
		creations := func() []time.Time {
			mu.Lock()
			defer mu.Unlock()
			var out []time.Time
			for _, t := range seen {
				out = append(out, t)
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
			return out
		}

		By("losing a pc-a pod for good: one recreation after terminationDelay")
		loseNode(ns, podOf(ns, "gang-wl1-gt", "gang-wl1-gt-0-pc-a"))
		breachSince(ns, "gang-wl1-gt-0-pc-a")
		Eventually(func() int { return len(creations()) }).WithTimeout(gtDelay + 20*time.Second).Should(Equal(2))
		By("the recreated 10-pod gang does not fit on 9 nodes: it is not deleted again over three terminationDelays")
		Consistently(func() int { return len(creations()) }).WithTimeout(3 * gtDelay).Should(Equal(2))

		By("capacity back: the replica runs; a second lost pod recreates it once more")
		schedulableGangNodes(10, gangPoolSize)
		expectRunningLayout(ns, "gang-wl1-gt", layout, gangNode)
		expectWasScheduled(ns, "gang-wl1-gt", 5)
		loseNode(ns, podOf(ns, "gang-wl1-gt", "gang-wl1-gt-0-pc-a"))
		Eventually(func() int { return len(creations()) }).WithTimeout(gtDelay + 20*time.Second).Should(Equal(3))
		Consistently(func() int { return len(creations()) }).WithTimeout(gtDelay).Should(Equal(3))
		close(stop)
		<-done
		// The operator counts terminationDelay from the breach condition's
		// lastTransitionTime, which has whole seconds: a recreation may come
		// up to a second before terminationDelay has passed by the sampler's
		// clock (seen: 9.64 s after the first sample on a loaded machine).
		c := creations()
		for k := 1; k < len(c); k++ {
			Expect(c[k].Sub(c[k-1])).To(BeNumerically(">=", gtDelay-time.Second), "at most one deletion per terminationDelay")
		}
	})
})

// ptrTo returns a pointer to v.
func ptrTo[T any](v T) *T { return &v }
