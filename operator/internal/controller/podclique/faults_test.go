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

package podclique

import (
	"context"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
)

// faultyAPI wraps the controller's client: it can make pod creates in one
// namespace lose their answer (the create succeeds, or not, and the client
// sees a cut connection) and hide chosen pods from the controller's cached
// reads for a while, as a lagging informer would.
type faultyAPI struct {
	mu        sync.Mutex
	namespace string
	// loseAnswers is how many of the next pod creates lose their answer;
	// createOnLoss says whether such a create still makes the pod.
	loseAnswers  int
	createOnLoss bool
	// hideNew hides each pod created from now on for this long.
	hideNew time.Duration
	hidden  map[types.UID]time.Time
	// staleGates keeps showing a pod whose gate was removed as it was
	// before (with the gate, at its earlier resourceVersion), for this long;
	// gatePatches counts the removals per pod.
	staleGates  time.Duration
	ungatedAt   map[types.UID]time.Time
	gatedAt     map[types.UID]string
	gatePatches map[types.UID]int
	// podCliqueStatusPatches counts the PodClique status writes and
	// podCliqueStatusConflicts those the API server refused with a conflict.
	podCliqueStatusPatches, podCliqueStatusConflicts int
	// staleStatus keeps showing a PodClique as it was before each status
	// write of the controller, for this long, as a lagging cache would.
	staleStatus time.Duration
	staleCopies map[types.NamespacedName]staleCopy
}

type staleCopy struct {
	pclq  *grovecorev1alpha1.PodClique
	until time.Time
}

func (f *faultyAPI) set(mutate func(f *faultyAPI)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mutate(f)
}

func (f *faultyAPI) wrap(c client.WithWatch) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			p, isPod := obj.(*corev1.Pod)
			f.mu.Lock()
			lose := isPod && p.Namespace == f.namespace && f.loseAnswers > 0
			if lose {
				f.loseAnswers--
			}
			createOnLoss, hide := f.createOnLoss, f.hideNew
			f.mu.Unlock()
			if lose && !createOnLoss {
				return &url.Error{Op: "Post", URL: "https://127.0.0.1/api/v1/pods", Err: io.ErrUnexpectedEOF}
			}
			if err := c.Create(ctx, obj, opts...); err != nil {
				return err
			}
			if isPod && p.Namespace == f.namespace && hide > 0 {
				f.set(func(f *faultyAPI) { f.hidden[p.UID] = time.Now().Add(hide) })
			}
			if lose {
				return &url.Error{Op: "Post", URL: "https://127.0.0.1/api/v1/pods", Err: io.ErrUnexpectedEOF}
			}
			return nil
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			p, isPod := obj.(*corev1.Pod)
			if !isPod || p.Namespace != f.namespace {
				return c.Patch(ctx, obj, patch, opts...)
			}
			data, err := patch.Data(obj)
			if err != nil {
				return err
			}
			uid, version := p.UID, p.ResourceVersion
			if err := c.Patch(ctx, obj, patch, opts...); err != nil {
				return err
			}
			if strings.Contains(string(data), apicommon.PodGangSchedulingGate) {
				f.set(func(f *faultyAPI) {
					f.gatePatches[uid]++
					if f.staleGates > 0 {
						f.ungatedAt[uid], f.gatedAt[uid] = time.Now(), version
					}
				})
			}
			return nil
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, subResource string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			pclq, isPodClique := obj.(*grovecorev1alpha1.PodClique)
			if !isPodClique || subResource != "status" || pclq.Namespace != f.namespace {
				return c.SubResource(subResource).Patch(ctx, obj, patch, opts...)
			}
			f.mu.Lock()
			stale := f.staleStatus
			f.mu.Unlock()
			before := &grovecorev1alpha1.PodClique{}
			if stale > 0 {
				if err := c.Get(ctx, client.ObjectKeyFromObject(pclq), before); err != nil {
					return err
				}
			}
			err := c.SubResource(subResource).Patch(ctx, obj, patch, opts...)
			f.set(func(f *faultyAPI) {
				f.podCliqueStatusPatches++
				if apierrors.IsConflict(err) {
					f.podCliqueStatusConflicts++
				}
				if err == nil && stale > 0 {
					f.staleCopies[client.ObjectKeyFromObject(pclq)] = staleCopy{pclq: before, until: time.Now().Add(stale)}
				}
			})
			return err
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			pclq, isPodClique := obj.(*grovecorev1alpha1.PodClique)
			if !isPodClique {
				return nil
			}
			f.mu.Lock()
			old, ok := f.staleCopies[key]
			f.mu.Unlock()
			if ok && time.Now().Before(old.until) {
				old.pclq.DeepCopyInto(pclq)
			}
			return nil
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := c.List(ctx, list, opts...); err != nil {
				return err
			}
			pods, ok := list.(*corev1.PodList)
			if !ok {
				return nil
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			kept := pods.Items[:0]
			for _, p := range pods.Items {
				if at, ungated := f.ungatedAt[p.UID]; ungated && time.Since(at) < f.staleGates {
					p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: apicommon.PodGangSchedulingGate})
					p.ResourceVersion = f.gatedAt[p.UID]
				}
				if until, hidden := f.hidden[p.UID]; !hidden || time.Now().After(until) {
					kept = append(kept, p)
				}
			}
			pods.Items = kept
			return nil
		},
	})
}

// distinctHostnames fails when two pods share a hostname.
func distinctHostnames(pods []corev1.Pod) bool {
	seen := map[string]bool{}
	for _, p := range pods {
		if seen[p.Spec.Hostname] {
			return false
		}
		seen[p.Spec.Hostname] = true
	}
	return true
}

// ownedPod builds a pod of pclq with pod index idx, as if an earlier
// controller (or a lost create) had made it.
func ownedPod(pclq *grovecorev1alpha1.PodClique, idx string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: pclq.Name + "-", Namespace: pclq.Namespace,
			Labels: map[string]string{
				apicommon.LabelPodClique: pclq.Name, apicommon.LabelPodCliquePodIndex: idx,
				apicommon.LabelPodTemplateHash: pclq.Labels[apicommon.LabelPodTemplateHash],
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodClique",
				Name: pclq.Name, UID: pclq.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{Hostname: pclq.Name + "-" + idx, Containers: []corev1.Container{{Name: "main", Image: "registry.example/engine:1"}}},
	}
}

func uids(pods []corev1.Pod) []types.UID {
	out := make([]types.UID, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.UID)
	}
	return out
}

var _ = Describe("PodClique controller under API faults", Ordered, func() {
	const expectationTimeout = 2 * time.Second
	var (
		faults  *faultyAPI
		stopOwn context.CancelFunc
		ns      string
		pcs     *grovecorev1alpha1.PodCliqueSet
	)
	BeforeAll(func() {
		// This container runs its own manager, whose client injects faults.
		stopMgr()
		faults = &faultyAPI{hidden: map[types.UID]time.Time{}, ungatedAt: map[types.UID]time.Time{}, gatedAt: map[types.UID]string{}, gatePatches: map[types.UID]int{},
			staleCopies: map[types.NamespacedName]staleCopy{}}
		stopOwn = startManagerWith(faults.wrap, expectationTimeout)
		DeferCleanup(func() {
			stopOwn()
			stopMgr = startManager()
		})
	})
	BeforeEach(func() {
		ns = newNamespace()
		pcs = inferencePCS(ns)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		faults.set(func(f *faultyAPI) {
			f.namespace, f.loseAnswers, f.createOnLoss, f.hideNew, f.staleGates = ns, 0, false, 0, 0
			f.podCliqueStatusPatches, f.podCliqueStatusConflicts, f.staleStatus = 0, 0, 0
		})
	})

	It("never gives a pod index twice when a create's answer is lost and the cache lags", func() {
		// The first create makes its pod but the controller sees a cut
		// connection, and the cache shows that pod only 4s later: long after
		// the retry, and past the expectations' deadline.
		faults.set(func(f *faultyAPI) { f.loseAnswers, f.createOnLoss, f.hideNew = 1, true, 4*time.Second })
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 2, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())

		Consistently(func(g Gomega) {
			pods := podsOf(pclq)
			g.Expect(len(pods)).To(BeNumerically("<=", 2))
			g.Expect(distinctHostnames(pods)).To(BeTrue(), "pods share a hostname: %v", hostnames(pods))
		}, 6*time.Second, 50*time.Millisecond).Should(Succeed())
		Expect(hostnames(podsOf(pclq))).To(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1"}))
		for _, p := range podsOf(pclq) {
			Expect(p.Labels[apicommon.LabelPodCliquePodIndex]).To(Equal(p.Spec.Hostname[len("svc-0-frontend-"):]))
		}
	})

	It("frees the index of a create whose answer was lost once the API server shows no such pod", func() {
		faults.set(func(f *faultyAPI) { f.loseAnswers, f.createOnLoss = 1, false })
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 2, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())

		// Index 0 stays reserved until the deadline, then a live list shows
		// the create made nothing and the pod is created.
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1"}))
		Consistently(func() []corev1.Pod { return podsOf(pclq) }, time.Second, interval).Should(HaveLen(2))
	})

	It("replaces a pod that was created and deleted before the cache showed it", func() {
		faults.set(func(f *faultyAPI) { f.hideNew = time.Hour })
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 1, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(1))
		first := podsOf(pclq)[0]
		faults.set(func(f *faultyAPI) { f.hideNew = 0 })
		Expect(k8sClient.Delete(ctx, &first)).To(Succeed())

		Eventually(func(g Gomega) {
			pods := podsOf(pclq)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].UID).NotTo(Equal(first.UID))
			g.Expect(pods[0].Spec.Hostname).To(Equal("svc-0-frontend-0"))
		}, timeout, interval).Should(Succeed())
	})

	It("reports pods that become Ready together in one status write", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 4, ptr.To[int32](4)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(4))
		statusPatches := func() int {
			faults.mu.Lock()
			defer faults.mu.Unlock()
			return faults.podCliqueStatusPatches
		}
		// Wait until the PodClique has reported its four pods and writes no more.
		Eventually(func() int32 { return getPCLQ(pclq).Status.Replicas }, timeout, interval).Should(BeEquivalentTo(4))
		settled := statusPatches()
		Consistently(statusPatches, time.Second, interval).Should(Equal(settled))

		for _, p := range podsOf(pclq) {
			setPodConditions(&p, true)
		}
		Eventually(func() int32 { return getPCLQ(pclq).Status.ReadyReplicas }, timeout, interval).Should(BeEquivalentTo(4))
		Consistently(statusPatches, time.Second, interval).Should(Equal(settled+1),
			"the four pods' updates arrived within the batch and were written at once")
	})

	It("waits for the cache to show its own status write instead of writing over it", func() {
		faults.set(func(f *faultyAPI) { f.staleStatus = 2 * time.Second })
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 3, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))
		// Each pod turns Ready after the batch of the one before, so every
		// reconcile after the first reads a PodClique older than the last write.
		for _, p := range podsOf(pclq) {
			setPodConditions(&p, true)
			time.Sleep(700 * time.Millisecond)
		}
		Eventually(func() int32 { return getPCLQ(pclq).Status.ReadyReplicas }, timeout, interval).Should(BeEquivalentTo(3))
		faults.mu.Lock()
		defer faults.mu.Unlock()
		Expect(faults.podCliqueStatusConflicts).To(BeZero(), "status writes from a PodClique older than the controller's last write")
		Expect(faults.podCliqueStatusPatches).To(BeNumerically(">=", 2))
	})

	It("removes each pod's scheduling gate once and reports it lifted while the cache still shows the gate", func() {
		const lag = 4 * time.Second
		faults.set(func(f *faultyAPI) { f.staleGates = lag })
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))
		pg := podGang(ns, "svc-0", map[string][]corev1.Pod{pclq.Name: nil}, map[string]int32{pclq.Name: 3})
		Expect(k8sClient.Create(ctx, pg)).To(Succeed())

		patches := func() []int {
			var out []int
			for _, p := range podsOf(pclq) {
				faults.mu.Lock()
				out = append(out, faults.gatePatches[p.UID])
				faults.mu.Unlock()
			}
			return out
		}
		start := time.Now()
		Eventually(patches, timeout, interval).Should(Equal([]int{1, 1, 1}))
		// Well inside the lag the status already counts the pods ungated, and
		// every later reconcile (pod events, status events) sends no second
		// removal although the controller's reads still show the gates.
		Eventually(func(g Gomega) {
			st := getPCLQ(pclq).Status
			g.Expect(st.ScheduleGatedReplicas).To(BeZero())
			g.Expect(st.LastOperation.Description).To(Equal("3 pods released to the scheduler"))
		}, timeout, interval).Should(Succeed())
		Expect(time.Since(start)).To(BeNumerically("<", lag), "the status was written before the controller's reads showed the gates gone")
		Consistently(patches, lag, interval).Should(Equal([]int{1, 1, 1}))
		Expect(gated(podsOf(pclq))).To(BeEmpty())
	})

	It("replaces pods that share an index, one ready pod at a time, keeping the oldest", func() {
		// Two pairs of ready pods share indices 0 and 1 while 2 and 3 are
		// missing: the state a lost create left behind before the fix.
		stopOwn()
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 4, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		pclq = getPCLQ(pclq)
		var olders, newers []types.UID
		for _, idx := range []string{"0", "1"} {
			for i := range 2 {
				p := ownedPod(pclq, idx)
				Expect(k8sClient.Create(ctx, p)).To(Succeed())
				setPodConditions(p, true)
				if i == 0 {
					olders = append(olders, p.UID)
				} else {
					newers = append(newers, p.UID)
				}
				time.Sleep(1100 * time.Millisecond) // creationTimestamp has second precision
			}
		}
		stopOwn = startManagerWith(faults.wrap, expectationTimeout)

		// The newer pod of index 0 goes and index 2 is filled; that of index 1 waits,
		// since the replacement is not ready and maxUnavailable is 1.
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-1", "svc-0-frontend-2"}))
		Consistently(func() []corev1.Pod { return podsOf(pclq) }, 2*time.Second, interval).Should(HaveLen(4))
		Expect(uids(podsOf(pclq))).To(ContainElements(olders))

		for _, p := range podsOf(pclq) {
			if p.Spec.Hostname == "svc-0-frontend-2" {
				setPodConditions(&p, true)
			}
		}
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2", "svc-0-frontend-3"}))
		Expect(uids(podsOf(pclq))).To(ContainElements(olders))
		Expect(uids(podsOf(pclq))).NotTo(ContainElements(newers[0]))
		Expect(uids(podsOf(pclq))).NotTo(ContainElements(newers[1]))

		events := &corev1.EventList{}
		Expect(k8sClient.List(ctx, events, client.InNamespace(ns))).To(Succeed())
		var reasons []string
		for _, e := range events.Items {
			reasons = append(reasons, e.Reason)
		}
		Expect(reasons).To(ContainElement(pod.ReasonDuplicatePodIndex))
	})
})

var _ = Describe("PodClique status while a lost create waits for its deadline", Ordered, func() {
	// A deadline as long as the real one, so the create whose answer was lost
	// stays reserved through the whole spec, as after an API server outage.
	const expectationTimeout = time.Minute
	var (
		faults  *faultyAPI
		stopOwn context.CancelFunc
	)
	BeforeAll(func() {
		stopMgr()
		faults = &faultyAPI{hidden: map[types.UID]time.Time{}, ungatedAt: map[types.UID]time.Time{}, gatedAt: map[types.UID]string{}, gatePatches: map[types.UID]int{},
			staleCopies: map[types.NamespacedName]staleCopy{}}
		stopOwn = startManagerWith(faults.wrap, expectationTimeout)
		DeferCleanup(func() {
			stopOwn()
			stopMgr = startManager()
		})
	})

	It("reports the pods that exist and turn Ready without waiting for the lost create", func() {
		ns := newNamespace()
		pcs := inferencePCS(ns)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		faults.set(func(f *faultyAPI) { f.namespace, f.loseAnswers, f.createOnLoss = ns, 1, false })
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 2, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())

		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).Should(HaveLen(1))
		setPodConditions(&podsOf(pclq)[0], true)
		// The held-back status write is bounded (statusHoldBack): the Ready pod
		// is reported long before the lost create's deadline.
		Eventually(func(g Gomega) {
			got := &grovecorev1alpha1.PodClique{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), got)).To(Succeed())
			g.Expect(got.Status.Replicas).To(Equal(int32(1)))
			g.Expect(got.Status.ReadyReplicas).To(Equal(int32(1)))
		}, 15*time.Second, interval).Should(Succeed())
		Expect(hostnames(podsOf(pclq))).To(HaveLen(1), "the lost create's index is still reserved")
	})
})
