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
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// gtOptions shape the gang-termination workload.
type gtOptions struct {
	replicas, feReplicas, feMin, sgReplicas, sgMin int32
	delay                                          time.Duration
}

// gtPCS is PodCliqueSet name: a standalone clique fe and a scaling group
// mn = [ldr (1 pod), wkr (2 pods, minAvailable 2)], written out fully because
// the suite runs without the defaulting webhook.
func gtPCS(ns, name string, o gtOptions) *grovecorev1alpha1.PodCliqueSet {
	clique := func(n string, replicas, minAvailable int32) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: n, Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName: n, Replicas: replicas, MinAvailable: ptr.To(minAvailable),
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: n, Image: "registry.example/model:1"}}},
		}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: o.replicas,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques:          []grovecorev1alpha1.PodCliqueTemplateSpec{clique("fe", o.feReplicas, o.feMin), clique("ldr", 1, 1), clique("wkr", 2, 2)},
				TerminationDelay: &metav1.Duration{Duration: o.delay},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "mn", CliqueNames: []string{"ldr", "wkr"}, Replicas: ptr.To(o.sgReplicas), MinAvailable: ptr.To(o.sgMin),
				}},
			},
		},
	}
}

// podCliqueUIDs maps the live PodCliques of a PodCliqueSet to their UIDs.
func podCliqueUIDs(ns, pcs string) map[string]types.UID {
	list := &grovecorev1alpha1.PodCliqueList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	out := map[string]types.UID{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p.UID
		}
	}
	return out
}

// pick returns the entries of m whose names are listed.
func pick(m map[string]types.UID, names ...string) map[string]types.UID {
	out := map[string]types.UID{}
	for _, n := range names {
		out[n] = m[n]
	}
	return out
}

// runPods plays scheduler and kubelet until the PodCliqueSet has want live
// pods, all released by Grove and marked scheduled and ready; pods of
// PodCliques that no longer exist are deleted as the garbage collector would
// (envtest runs none). It returns the pods' UIDs by name.
func runPods(ns, pcs string, want int) map[string]types.UID {
	GinkgoHelper()
	uids := map[string]types.UID{}
	Eventually(func(g Gomega) {
		uids = map[string]types.UID{}
		var gated []string
		for _, p := range collectOrphans(g, ns, pcs) {
			uids[p.Name] = p.UID
			if len(p.Spec.SchedulingGates) > 0 {
				gated = append(gated, p.Name)
				continue
			}
			if podConditionTrue(p, corev1.PodReady) {
				continue
			}
			now := metav1.Now()
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			}
			g.Expect(k8sClient.Status().Update(ctx, p)).To(Succeed())
		}
		g.Expect(gated).To(BeEmpty(), "pods still gated")
		g.Expect(uids).To(HaveLen(want))
	}).Should(Succeed())
	return uids
}

// collectOrphans deletes the pods of PodCliques that no longer exist, as the
// garbage collector would (envtest runs none), and returns the other live pods.
// Pods are listed before PodCliques: a pod's PodClique exists before the pod,
// so a pod of a PodClique created meanwhile is never taken for an orphan.
func collectOrphans(g Gomega, ns, pcs string) []*corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	owners := map[types.UID]bool{}
	for _, uid := range podCliqueUIDs(ns, pcs) {
		owners[uid] = true
	}
	var live []*corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if ref := metav1.GetControllerOf(p); ref == nil || !owners[ref.UID] {
			g.Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, p, client.GracePeriodSeconds(0)))).To(Succeed())
			continue
		}
		live = append(live, p)
	}
	return live
}

func podConditionTrue(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// expectAllScheduledOnce waits until every live PodClique of the PodCliqueSet
// reports that minAvailable pods were scheduled.
func expectAllScheduledOnce(ns, pcs string, count int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		list := &grovecorev1alpha1.PodCliqueList{}
		g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		n := 0
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			n++
			g.Expect(p.Status.WasScheduled).To(BeTrue(), "PodClique %s wasScheduled", p.Name)
			g.Expect(meta.IsStatusConditionFalse(p.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)).To(BeTrue(), "PodClique %s breached", p.Name)
		}
		g.Expect(n).To(Equal(count))
	}).Should(Succeed())
}

// deleteOnePod deletes the first pod (by name) of a PodClique at once, as a
// lost node would, and returns its name.
func deleteOnePod(ns, pclq string) string {
	GinkgoHelper()
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodClique: pclq})).To(Succeed())
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	Expect(names).NotTo(BeEmpty())
	sort.Strings(names)
	Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names[0]}}, client.GracePeriodSeconds(0))).To(Succeed())
	return names[0]
}

// breachedSince waits until the PodClique reports MinAvailableBreached=True
// with the reason and returns when the breach started.
func breachedSince(ns, pclq, reason string) time.Time {
	GinkgoHelper()
	var since time.Time
	Eventually(func(g Gomega) {
		c := meta.FindStatusCondition(getPCLQ(ns, pclq)().Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(reason))
		since = c.LastTransitionTime.Time
	}).Should(Succeed())
	return since
}

// eventsWithReason lists the events.k8s.io/v1 Events of a namespace with the
// reason (the API the operator writes), oldest first.
func eventsWithReason(ns, reason string) []eventsv1.Event {
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].EventTime.Before(&out[j].EventTime) })
	return out
}

func eventMessages(events []eventsv1.Event) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, fmt.Sprintf("%s/%s: %s", e.Regarding.Kind, e.Regarding.Name, e.Note))
	}
	return out
}

// conditionOf returns a condition's status and reason ("" when absent).
func conditionOf(conds []metav1.Condition, t string) (metav1.ConditionStatus, string) {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return c.Status, c.Reason
	}
	return "", ""
}

// expectRecreatedAfterDelay checks that the termination event came no
// earlier than delay after the breach started and not much later: the
// reconcile is requeued for the moment the delay expires. Event and
// condition times have second precision.
func expectRecreatedAfterDelay(e eventsv1.Event, breached time.Time, delay time.Duration) {
	GinkgoHelper()
	waited := e.EventTime.Sub(breached)
	Expect(waited).To(And(BeNumerically(">=", delay), BeNumerically("<=", delay+2*time.Second)), "recreated %s after the breach", waited)
}

var _ = Describe("Gang termination", func() {
	const delay = 4 * time.Second
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	all := func(replica int) []string {
		r := fmt.Sprintf("gt-%d", replica)
		return []string{r + "-fe", r + "-mn-0-ldr", r + "-mn-0-wkr", r + "-mn-1-ldr", r + "-mn-1-wkr"}
	}

	It("recreates the whole PodCliqueSet replica when a standalone clique stays breached longer than terminationDelay", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 2, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 1, delay: delay}))).To(Succeed())
		runPods(ns, "gt", 16)
		expectAllScheduledOnce(ns, "gt", 10)
		before := podCliqueUIDs(ns, "gt")

		By("a lost fe pod: the replacement stays pending, so fe is breached")
		deleteOnePod(ns, "gt-0-fe")
		breached := breachedSince(ns, "gt-0-fe", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		fe := getPCLQ(ns, "gt-0-fe")()
		Expect(fe.Status.Replicas).To(BeEquivalentTo(2), "the replacement pod exists")
		Expect(fe.Status.ScheduledReplicas).To(BeEquivalentTo(1))

		By("within terminationDelay nothing is recreated")
		Consistently(func() map[string]types.UID { return podCliqueUIDs(ns, "gt") }, delay/2).Should(Equal(before))

		By("after terminationDelay every PodClique of replica 0 is new, replica 1 is untouched")
		Eventually(func(g Gomega) {
			now := podCliqueUIDs(ns, "gt")
			for _, n := range all(0) {
				g.Expect(now).To(HaveKey(n))
				g.Expect(now[n]).NotTo(Equal(before[n]), "PodClique %s recreated", n)
			}
			g.Expect(pick(now, all(1)...)).To(Equal(pick(before, all(1)...)))
		}).Should(Succeed())
		events := eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")
		Expect(eventMessages(events)).To(Equal([]string{
			"PodCliqueSet/gt: Deleted the 5 PodCliques of PodCliqueSet replica 0 to recreate it: PodClique gt-0-fe had MinAvailableBreached=True (ScheduledReplicasBelowMinAvailable) for longer than terminationDelay 4s",
		}))
		expectRecreatedAfterDelay(events[0], breached, delay)
		Eventually(func() []metav1.Condition { return getPCS(ns, "gt")().Status.Conditions }).Should(ContainElement(SatisfyAll(
			HaveField("Type", grovecorev1alpha1.ConditionTypeGangTerminationInProgress), HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", grovecorev1alpha1.ConditionReasonGangTerminationActive), HaveField("Message", ContainSubstring("Recreating replica 0 (PodClique gt-0-fe")),
		)))

		By("the recreated PodCliques were never scheduled, so they are not recreated again while pending")
		recreated := podCliqueUIDs(ns, "gt")
		Consistently(func() map[string]types.UID { return podCliqueUIDs(ns, "gt") }, delay+time.Second).Should(Equal(recreated))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(HaveLen(1))

		By("once the new pods are scheduled the replica is back and the condition goes")
		runPods(ns, "gt", 16)
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCS(ns, "gt")().Status.Conditions, grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
			return s
		}).Should(BeEmpty())
		Expect(podCliqueUIDs(ns, "gt")).To(Equal(recreated))
	})

	It("recreates only the breached scaling-group replica while the group still meets its minAvailable", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 1, delay: delay}))).To(Succeed())
		runPods(ns, "gt", 8)
		expectAllScheduledOnce(ns, "gt", 5)
		before := podCliqueUIDs(ns, "gt")

		deleteOnePod(ns, "gt-0-mn-1-wkr")
		breached := breachedSince(ns, "gt-0-mn-1-wkr", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		Consistently(func() map[string]types.UID { return podCliqueUIDs(ns, "gt") }, delay/2).Should(Equal(before))

		Eventually(func(g Gomega) {
			now := podCliqueUIDs(ns, "gt")
			for _, n := range []string{"gt-0-mn-1-ldr", "gt-0-mn-1-wkr"} {
				g.Expect(now).To(HaveKey(n))
				g.Expect(now[n]).NotTo(Equal(before[n]), "PodClique %s recreated", n)
			}
		}).Should(Succeed())
		Expect(pick(podCliqueUIDs(ns, "gt"), "gt-0-fe", "gt-0-mn-0-ldr", "gt-0-mn-0-wkr")).To(Equal(pick(before, "gt-0-fe", "gt-0-mn-0-ldr", "gt-0-mn-0-wkr")))
		events := eventsWithReason(ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")
		Expect(eventMessages(events)).To(Equal([]string{
			"PodCliqueScalingGroup/gt-0-mn: Deleted the 2 PodCliques of replica 1 to recreate it: PodClique gt-0-mn-1-wkr had MinAvailableBreached=True (ScheduledReplicasBelowMinAvailable) for longer than terminationDelay 4s",
		}))
		expectRecreatedAfterDelay(events[0], breached, delay)
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())
		Eventually(func() []metav1.Condition { return getPCSG(ns, "gt-0-mn")().Status.Conditions }).Should(ContainElement(SatisfyAll(
			HaveField("Type", grovecorev1alpha1.ConditionTypeGangTerminationInProgress), HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", grovecorev1alpha1.ConditionReasonGangTerminationActive), HaveField("Message", ContainSubstring("Recreating replica 1 (PodClique gt-0-mn-1-wkr")),
		)))

		runPods(ns, "gt", 8)
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCSG(ns, "gt-0-mn")().Status.Conditions, grovecorev1alpha1.ConditionTypeGangTerminationInProgress)
			return s
		}).Should(BeEmpty())
		Expect(eventsWithReason(ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")).To(HaveLen(1))
	})

	It("recreates the PodCliqueSet replica when a breached scaling-group replica leaves the group below its minAvailable", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 2, delay: delay}))).To(Succeed())
		runPods(ns, "gt", 8)
		expectAllScheduledOnce(ns, "gt", 5)
		before := podCliqueUIDs(ns, "gt")

		deleteOnePod(ns, "gt-0-mn-0-wkr")
		breachedSince(ns, "gt-0-mn-0-wkr", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCSG(ns, "gt-0-mn")().Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			return s
		}).Should(Equal(metav1.ConditionTrue))

		Eventually(func(g Gomega) {
			now := podCliqueUIDs(ns, "gt")
			for _, n := range all(0) {
				g.Expect(now).To(HaveKey(n))
				g.Expect(now[n]).NotTo(Equal(before[n]), "PodClique %s recreated", n)
			}
		}).Should(Succeed())
		Expect(eventMessages(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful"))).To(Equal([]string{
			"PodCliqueSet/gt: Deleted the 5 PodCliques of PodCliqueSet replica 0 to recreate it: PodCliqueScalingGroup gt-0-mn (PodClique gt-0-mn-0-wkr) had MinAvailableBreached=True (InsufficientAvailablePodCliqueScalingGroupReplicas) for longer than terminationDelay 4s",
		}))
		Expect(eventsWithReason(ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")).To(BeEmpty())
	})

	It("waits until a tolerant clique loses its last scheduled pod (GT3)", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 1, feReplicas: 2, feMin: 1, sgReplicas: 1, sgMin: 1, delay: delay}))).To(Succeed())
		runPods(ns, "gt", 5)
		expectAllScheduledOnce(ns, "gt", 3)
		before := podCliqueUIDs(ns, "gt")

		By("one of two fe pods lost: minAvailable 1 still scheduled, no breach")
		first := deleteOnePod(ns, "gt-0-fe")
		Eventually(func() int32 { return getPCLQ(ns, "gt-0-fe")().Status.ScheduledReplicas }).Should(BeEquivalentTo(1))
		Consistently(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCLQ(ns, "gt-0-fe")().Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			return s
		}, delay+time.Second).Should(Equal(metav1.ConditionFalse))
		Expect(podCliqueUIDs(ns, "gt")).To(Equal(before))

		By("the last scheduled fe pod lost: breached, and the replica is recreated after the delay")
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodClique: "gt-0-fe"})).To(Succeed())
		for _, p := range pods.Items {
			if p.Name != first && podConditionTrue(&p, corev1.PodScheduled) {
				Expect(k8sClient.Delete(ctx, &p, client.GracePeriodSeconds(0))).To(Succeed())
			}
		}
		breached := breachedSince(ns, "gt-0-fe", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		Eventually(func() types.UID { return podCliqueUIDs(ns, "gt")["gt-0-fe"] }).ShouldNot(Or(Equal(before["gt-0-fe"]), BeEmpty()))
		events := eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")
		Expect(events).To(HaveLen(1))
		expectRecreatedAfterDelay(events[0], breached, delay)
	})

	It("never recreates cliques that were never scheduled", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 2, sgMin: 1, delay: 2 * time.Second}))).To(Succeed())
		Eventually(podCliques(ns, "gt")).Should(Equal(all(0)))
		breachedSince(ns, "gt-0-fe", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCSG(ns, "gt-0-mn")().Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			return s
		}).Should(Equal(metav1.ConditionTrue))
		before := podCliqueUIDs(ns, "gt")
		Consistently(func() map[string]types.UID { return podCliqueUIDs(ns, "gt") }, 5*time.Second).Should(Equal(before))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())
		Expect(eventsWithReason(ns, "PodCliqueScalingGroupReplicaDeleteSuccessful")).To(BeEmpty())
		Expect(getPCLQ(ns, "gt-0-fe")().Status.WasScheduled).To(BeFalse())
	})

	It("is suspended while a rolling update runs and acts once it ended", func() {
		Expect(k8sClient.Create(ctx, gtPCS(ns, "gt", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 1, sgMin: 1, delay: delay}))).To(Succeed())
		runPods(ns, "gt", 5)
		expectAllScheduledOnce(ns, "gt", 3)
		before := podCliqueUIDs(ns, "gt")

		// A new frontend image: the rollout replaces one ready pod, and its
		// replacement stays unready (envtest runs no kubelet), so the clique
		// is below minAvailable for as long as the update runs.
		updatePCS(ns, "gt", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "registry.example/model:2"
		})
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(getPCLQ(ns, "gt-0-fe")().Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			return s
		}).Should(Equal(metav1.ConditionUnknown))
		Expect(getPCS(ns, "gt")().Status.UpdateProgress).NotTo(BeNil())
		Expect(getPCS(ns, "gt")().Status.UpdateProgress.UpdateEndedAt).To(BeNil())
		Consistently(func() map[string]types.UID { return podCliqueUIDs(ns, "gt") }, delay+2*time.Second).Should(Equal(before))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(BeEmpty())

		// The replacements become ready; the update ends.
		Eventually(func(g Gomega) {
			runPods(ns, "gt", 5)
			up := getPCS(ns, "gt")().Status.UpdateProgress
			g.Expect(up).NotTo(BeNil())
			g.Expect(up.UpdateEndedAt).NotTo(BeNil())
		}, 30*time.Second).Should(Succeed())

		// A breach after the update counts again.
		deleteOnePod(ns, "gt-0-fe")
		breachedSince(ns, "gt-0-fe", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable)
		Eventually(func() types.UID { return podCliqueUIDs(ns, "gt")["gt-0-fe"] }).ShouldNot(Or(Equal(before["gt-0-fe"]), BeEmpty()))
		Expect(eventsWithReason(ns, "PodCliqueSetReplicaDeleteSuccessful")).To(HaveLen(1))
	})
})
