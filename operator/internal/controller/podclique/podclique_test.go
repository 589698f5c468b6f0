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
	"fmt"
	"sort"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	timeout  = 20 * time.Second
	interval = 100 * time.Millisecond
)

var ctx = context.Background()

// inferencePCS is PodCliqueSet "svc": a standalone frontend (3 pods,
// minAvailable 2) and a scaling group mn = [leader(1), worker(2)] with two
// replicas, one in the base PodGang.
func inferencePCS(ns string) *grovecorev1alpha1.PodCliqueSet {
	spec := func(replicas int32) grovecorev1alpha1.PodCliqueSpec {
		return grovecorev1alpha1.PodCliqueSpec{Replicas: replicas,
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/engine:1"}}}}
	}
	frontend := spec(3)
	frontend.MinAvailable = ptr.To[int32](2)
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
				{Name: "frontend", Spec: frontend}, {Name: "leader", Spec: spec(1)}, {Name: "worker", Spec: spec(2)},
			},
			PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{
				{Name: "mn", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1)},
			},
		}},
	}
}

// podCliqueOf builds the PodClique the PodCliqueSet or scaling-group
// controller would create for a clique (pcsgReplica < 0: standalone).
func podCliqueOf(pcs *grovecorev1alpha1.PodCliqueSet, clique string, pcsgReplica int32) *grovecorev1alpha1.PodClique {
	var tmpl grovecorev1alpha1.PodCliqueTemplateSpec
	for _, c := range pcs.Spec.Template.Cliques {
		if c.Name == clique {
			tmpl = c
		}
	}
	labels := apicommon.DefaultLabels(pcs.Name)
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = "0"
	labels[apicommon.LabelPodCliqueTemplateName] = clique
	labels[apicommon.LabelPodTemplateHash] = "hash-1"
	name := apicommon.PodCliqueName(pcs.Name, 0, clique)
	labels[apicommon.LabelPodGang] = apicommon.BasePodGangName(pcs.Name, 0)
	if pcsgReplica >= 0 {
		pcsg := apicommon.PodCliqueScalingGroupName(pcs.Name, 0, "mn")
		name = apicommon.ScalingGroupPodCliqueName(pcsg, pcsgReplica, clique)
		labels[apicommon.LabelPodCliqueScalingGroup] = pcsg
		labels[apicommon.LabelPodCliqueScalingGroupReplicaIndex] = strconv.Itoa(int(pcsgReplica))
		labels[apicommon.LabelPodGang] = apicommon.PodGangNameForScalingGroupReplica(pcs.Name, 0, pcsg, pcsgReplica, 1)
		if pcsgReplica >= 1 {
			labels[apicommon.LabelBasePodGang] = apicommon.BasePodGangName(pcs.Name, 0)
		}
	}
	labels[apicommon.LabelAppNameKey] = name
	return &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pcs.Namespace, Labels: labels},
		Spec:       tmpl.Spec,
	}
}

func podsOf(pclq *grovecorev1alpha1.PodClique) []corev1.Pod {
	GinkgoHelper()
	list := &corev1.PodList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(pclq.Namespace), client.MatchingLabels{apicommon.LabelPodClique: pclq.Name})).To(Succeed())
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Spec.Hostname < list.Items[j].Spec.Hostname })
	return list.Items
}

// eventReasons lists the reasons of the Events about pclq.
func eventReasons(pclq *grovecorev1alpha1.PodClique) []string {
	GinkgoHelper()
	events := &corev1.EventList{}
	Expect(k8sClient.List(ctx, events, client.InNamespace(pclq.Namespace))).To(Succeed())
	var reasons []string
	for _, e := range events.Items {
		if e.InvolvedObject.Name == pclq.Name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

func hostnames(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Spec.Hostname)
	}
	return out
}

func gated(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		for _, g := range p.Spec.SchedulingGates {
			if g.Name == apicommon.PodGangSchedulingGate {
				out = append(out, p.Spec.Hostname)
			}
		}
	}
	return out
}

// setPodConditions marks a pod scheduled and, optionally, ready, through the
// status subresource (there is no scheduler or kubelet in envtest).
func setPodConditions(pod *corev1.Pod, ready bool) {
	GinkgoHelper()
	readyStatus := corev1.ConditionFalse
	if ready {
		readyStatus = corev1.ConditionTrue
	}
	Eventually(func() error {
		p := &corev1.Pod{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), p); err != nil {
			return err
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: readyStatus},
		}
		return k8sClient.Status().Update(ctx, p)
	}, timeout, interval).Should(Succeed())
}

// ofSetSvc is the controller reference the PodCliqueSet controller puts on
// the PodGangs of set "svc": a PodClique writes only into its own set's.
var ofSetSvc = []metav1.OwnerReference{{APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodCliqueSet", Name: "svc", UID: "svc-uid", Controller: ptr.To(true)}}

func podGang(ns, name string, groups map[string][]corev1.Pod, minReplicas map[string]int32) *groveschedulerv1alpha1.PodGang {
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: ofSetSvc}}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		group := groveschedulerv1alpha1.PodGroup{Name: g, MinReplicas: minReplicas[g], PodReferences: []groveschedulerv1alpha1.NamespacedName{}}
		for _, p := range groups[g] {
			group.PodReferences = append(group.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: p.Name})
		}
		pg.Spec.PodGroups = append(pg.Spec.PodGroups, group)
	}
	return pg
}

func getPCLQ(pclq *grovecorev1alpha1.PodClique) *grovecorev1alpha1.PodClique {
	GinkgoHelper()
	got := &grovecorev1alpha1.PodClique{}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), got)).To(Succeed())
	return got
}

func conditionOf(pclq *grovecorev1alpha1.PodClique, t string) (metav1.ConditionStatus, string) {
	c := meta.FindStatusCondition(getPCLQ(pclq).Status.Conditions, t)
	if c == nil {
		return "", ""
	}
	return c.Status, c.Reason
}

var _ = Describe("PodClique controller", func() {
	var (
		ns  string
		pcs *grovecorev1alpha1.PodCliqueSet
	)
	BeforeEach(func() {
		ns = newNamespace()
		pcs = inferencePCS(ns)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
	})

	It("leaves a PodClique whose PodCliqueSet is gone to the garbage collector, without errors or new pods", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))
		Eventually(func() int32 { return getPCLQ(pclq).Status.Replicas }, timeout, interval).Should(BeEquivalentTo(3))
		// envtest runs no garbage collector: the PodClique outlives its set.
		Expect(k8sClient.Delete(ctx, pcs)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), &grovecorev1alpha1.PodCliqueSet{}))
		}, timeout, interval).Should(BeTrue())
		pods := podsOf(pclq)
		Expect(k8sClient.Delete(ctx, &pods[0], client.GracePeriodSeconds(0))).To(Succeed())

		Consistently(func(g Gomega) {
			g.Expect(podsOf(pclq)).To(HaveLen(2))
			g.Expect(getPCLQ(pclq).Status.LastErrors).To(BeEmpty())
		}, 2*time.Second, interval).Should(Succeed())
	})

	It("creates the pods with Grove's labels, hostnames and gate, and reports them gated", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())

		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2"}))
		for _, p := range podsOf(pclq) {
			Expect(p.GenerateName).To(Equal("svc-0-frontend-"))
			Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodGang, "svc-0"))
			Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPartOfKey, "svc"))
			Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelManagedByKey, "grove-operator"))
			Expect(p.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliquePodIndex, p.Spec.Hostname[len("svc-0-frontend-"):]))
			Expect(p.Spec.Subdomain).To(Equal("svc-0"))
			Expect(p.Spec.SchedulerName).To(Equal("grove-scheduler"))
			Expect(p.OwnerReferences).To(ConsistOf(HaveField("Name", "svc-0-frontend")))
		}
		Expect(gated(podsOf(pclq))).To(HaveLen(3))
		Eventually(func(g Gomega) {
			st := getPCLQ(pclq).Status
			g.Expect(st.Replicas).To(BeEquivalentTo(3))
			g.Expect(st.ScheduleGatedReplicas).To(BeEquivalentTo(3))
			g.Expect(st.UpdatedReplicas).To(BeEquivalentTo(3))
			g.Expect(st.HPAPodSelector).To(Equal("app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=svc,grove.io/podclique=svc-0-frontend"))
			g.Expect(st.LastOperation).NotTo(BeNil())
			g.Expect(st.LastOperation.State).To(Equal(grovecorev1alpha1.LastOperationStateProcessing))
			g.Expect(st.LastOperation.Description).To(Equal("3 pods wait for PodGang svc-0"))
		}, timeout, interval).Should(Succeed())
		Expect(getPCLQ(pclq).Finalizers).To(ContainElement(apicommon.FinalizerPodClique))
	})

	It("writes its pods into its own group of the PodGang and lifts their gates", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))

		// A PodGang without the clique's group: nothing is written or lifted.
		other := groveschedulerv1alpha1.PodGroup{Name: "svc-0-other", MinReplicas: 1,
			PodReferences: []groveschedulerv1alpha1.NamespacedName{{Namespace: ns, Name: "someone-else"}}}
		pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "svc-0", Namespace: ns, OwnerReferences: ofSetSvc},
			Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{other}}}
		Expect(k8sClient.Create(ctx, pg)).To(Succeed())
		Consistently(func() []string { return gated(podsOf(pclq)) }, time.Second, interval).Should(HaveLen(3))

		// Once the group exists the PodClique fills in its pod references,
		// leaving the other group alone, and lifts the gates.
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), pg)).To(Succeed())
		pg.Spec.PodGroups = []groveschedulerv1alpha1.PodGroup{other, {Name: pclq.Name, MinReplicas: 2, PodReferences: []groveschedulerv1alpha1.NamespacedName{}}}
		Expect(k8sClient.Update(ctx, pg)).To(Succeed())
		refsOf := func(group string) []string {
			got := &groveschedulerv1alpha1.PodGang{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), got)).To(Succeed())
			var names []string
			for _, g := range got.Spec.PodGroups {
				if g.Name == group {
					for _, r := range g.PodReferences {
						names = append(names, r.Name)
					}
				}
			}
			return names
		}
		podNames := func() []string {
			var names []string
			for _, p := range podsOf(pclq) {
				names = append(names, p.Name)
			}
			sort.Strings(names)
			return names
		}
		Eventually(func() []string { return refsOf(pclq.Name) }, timeout, interval).Should(Equal(podNames()))
		Expect(refsOf("svc-0-other")).To(Equal([]string{"someone-else"}))
		Eventually(func() []string { return gated(podsOf(pclq)) }, timeout, interval).Should(BeEmpty())
		Eventually(func(g Gomega) {
			st := getPCLQ(pclq).Status
			g.Expect(st.ScheduleGatedReplicas).To(BeZero())
			g.Expect(st.LastOperation.State).To(Equal(grovecorev1alpha1.LastOperationStateSucceeded))
		}, timeout, interval).Should(Succeed())

		// Scaling in drops the deleted pod from the group.
		Expect(k8sClient.Patch(ctx, &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: pclq.Name, Namespace: ns}},
			client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":2}}`)))).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(2))
		Eventually(func() []string { return refsOf(pclq.Name) }, timeout, interval).Should(Equal(podNames()))
	})

	It("writes its group's references but leaves the PodGang's Initialized condition to the PodCliqueSet controller", func() {
		leader, worker := podCliqueOf(pcs, "leader", 0), podCliqueOf(pcs, "worker", 0)
		pg := podGang(ns, "svc-0", map[string][]corev1.Pod{leader.Name: nil, worker.Name: nil},
			map[string]int32{leader.Name: 1, worker.Name: 2})
		Expect(k8sClient.Create(ctx, pg)).To(Succeed())
		initialized := func(g Gomega) *metav1.Condition {
			got := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), got)).To(Succeed())
			return meta.FindStatusCondition(got.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
		}

		// Only the leader exists: its references are written. No PodCliqueSet
		// controller runs in this suite.
		Expect(k8sClient.Create(ctx, leader)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), got)).To(Succeed())
			g.Expect(got.Spec.PodGroups[0].PodReferences).To(HaveLen(1))
		}, timeout, interval).Should(Succeed())
		Consistently(initialized, time.Second, interval).Should(BeNil())

		// The worker's write completes the gang; the condition stays the
		// PodCliqueSet controller's to write (one writer per field).
		Expect(k8sClient.Create(ctx, worker)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), got)).To(Succeed())
			g.Expect(got.Spec.PodGroups[1].PodReferences).To(HaveLen(2))
		}, timeout, interval).Should(Succeed())
		Consistently(initialized, time.Second, interval).Should(BeNil())
	})

	It("keeps other controllers' scheduling gates when lifting its own", func() {
		pcs.Spec.Template.Cliques[0].Spec.PodSpec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))
		Expect(k8sClient.Create(ctx, podGang(ns, "svc-0", map[string][]corev1.Pod{pclq.Name: podsOf(pclq)}, map[string]int32{pclq.Name: 2}))).To(Succeed())
		Eventually(func() []string { return gated(podsOf(pclq)) }, timeout, interval).Should(BeEmpty())
		for _, p := range podsOf(pclq) {
			Expect(p.Spec.SchedulingGates).To(Equal([]corev1.PodSchedulingGate{{Name: "example.com/quota"}}))
		}
	})

	It("releases the pods of a scaled PodGang only after the base PodGang is scheduled", func() {
		baseLeader, baseWorker := podCliqueOf(pcs, "leader", 0), podCliqueOf(pcs, "worker", 0)
		scaledLeader, scaledWorker := podCliqueOf(pcs, "leader", 1), podCliqueOf(pcs, "worker", 1)
		for _, p := range []*grovecorev1alpha1.PodClique{baseLeader, baseWorker, scaledLeader, scaledWorker} {
			Expect(k8sClient.Create(ctx, p)).To(Succeed())
		}
		for _, p := range []*grovecorev1alpha1.PodClique{baseLeader, baseWorker, scaledLeader, scaledWorker} {
			Eventually(func() []corev1.Pod { return podsOf(p) }, timeout, interval).Should(HaveLen(int(p.Spec.Replicas)))
		}
		Expect(scaledWorker.Labels).To(HaveKeyWithValue(apicommon.LabelPodGang, "svc-0-mn-0"))
		scaled := podGang(ns, "svc-0-mn-0",
			map[string][]corev1.Pod{scaledLeader.Name: podsOf(scaledLeader), scaledWorker.Name: podsOf(scaledWorker)},
			map[string]int32{scaledLeader.Name: 1, scaledWorker.Name: 2})
		Expect(k8sClient.Create(ctx, scaled)).To(Succeed())
		base := podGang(ns, "svc-0",
			map[string][]corev1.Pod{baseLeader.Name: podsOf(baseLeader), baseWorker.Name: podsOf(baseWorker)},
			map[string]int32{baseLeader.Name: 1, baseWorker.Name: 2})
		Expect(k8sClient.Create(ctx, base)).To(Succeed())

		Eventually(func() []string { return gated(podsOf(baseWorker)) }, timeout, interval).Should(BeEmpty())
		Consistently(func() []string { return gated(podsOf(scaledWorker)) }, 2*time.Second, interval).Should(HaveLen(2))

		// The base gang's leader is scheduled, its workers not yet: still held.
		setPodConditions(&podsOf(baseLeader)[0], false)
		Consistently(func() []string { return gated(podsOf(scaledLeader)) }, 2*time.Second, interval).Should(HaveLen(1))
		for _, p := range podsOf(baseWorker) {
			setPodConditions(&p, false)
		}
		Eventually(func() []string { return append(gated(podsOf(scaledLeader)), gated(podsOf(scaledWorker))...) }, timeout, interval).Should(BeEmpty())
	})

	It("reports scheduled, ready and lost pods in status and conditions", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(3))
		Eventually(func() metav1.ConditionStatus {
			s, _ := conditionOf(pclq, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			return s
		}, timeout, interval).Should(Equal(metav1.ConditionTrue))
		_, reason := conditionOf(pclq, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
		Expect(reason).To(Equal(grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable))

		for _, p := range podsOf(pclq) {
			setPodConditions(&p, true)
		}
		Eventually(func(g Gomega) {
			st := getPCLQ(pclq).Status
			g.Expect(st.ScheduledReplicas).To(BeEquivalentTo(3))
			g.Expect(st.ReadyReplicas).To(BeEquivalentTo(3))
			s, r := conditionOf(pclq, grovecorev1alpha1.ConditionTypePodCliqueScheduled)
			g.Expect([]string{string(s), r}).To(Equal([]string{"True", grovecorev1alpha1.ConditionReasonSufficientScheduledPods}))
			s, r = conditionOf(pclq, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			g.Expect([]string{string(s), r}).To(Equal([]string{"False", grovecorev1alpha1.ConditionReasonSufficientReadyPods}))
		}, timeout, interval).Should(Succeed())

		// Two pods are lost: replacements are created, unscheduled, and the
		// clique falls below minAvailable.
		pods := podsOf(pclq)
		lost := map[string]bool{pods[0].Name: true, pods[1].Name: true}
		Expect(k8sClient.Delete(ctx, &pods[0])).To(Succeed())
		Expect(k8sClient.Delete(ctx, &pods[1])).To(Succeed())
		Eventually(func(g Gomega) {
			current := podsOf(pclq)
			g.Expect(current).To(HaveLen(3))
			for _, p := range current {
				g.Expect(lost).NotTo(HaveKey(p.Name))
			}
			g.Expect(hostnames(current)).To(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2"}))
			st := getPCLQ(pclq).Status
			g.Expect(st.ScheduledReplicas).To(BeEquivalentTo(1))
			s, r := conditionOf(pclq, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
			g.Expect([]string{string(s), r}).To(Equal([]string{"True", grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable}))
			s, r = conditionOf(pclq, grovecorev1alpha1.ConditionTypePodCliqueScheduled)
			g.Expect([]string{string(s), r}).To(Equal([]string{"False", grovecorev1alpha1.ConditionReasonInsufficientScheduledPods}))
		}, timeout, interval).Should(Succeed())

		// The last scheduled pod is lost too.
		for _, p := range podsOf(pclq) {
			if p.Status.Phase == corev1.PodRunning {
				Expect(k8sClient.Delete(ctx, &p)).To(Succeed())
			}
		}
		Eventually(func() []string { return eventReasons(pclq) }, timeout, interval).Should(ContainElements(ReasonAllScheduledReplicasLost, "PodCreateSuccessful"))
	})

	It("scales in by deleting unscheduled pods and the highest indices first", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 4, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(pclq) }, timeout, interval).Should(HaveLen(4))
		pods := podsOf(pclq)
		// Pods 0 and 3 run; 1 and 2 were never scheduled.
		setPodConditions(&pods[0], true)
		setPodConditions(&pods[3], true)
		Expect(hostnames(pods)).To(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2", "svc-0-frontend-3"}))
		Eventually(func() int32 { return getPCLQ(pclq).Status.ReadyReplicas }, timeout, interval).Should(BeEquivalentTo(2))

		Expect(k8sClient.Patch(ctx, &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: pclq.Name, Namespace: ns}},
			client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":1}}`)))).To(Succeed())
		// Unscheduled 1 and 2 go first, then the higher of the two running pods.
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).Should(Equal([]string{"svc-0-frontend-0"}))
		Consistently(func() []corev1.Pod { return podsOf(pclq) }, time.Second, interval).Should(HaveLen(1))

		// Scaling out fills the lowest free indices.
		Expect(k8sClient.Patch(ctx, &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: pclq.Name, Namespace: ns}},
			client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":3}}`)))).To(Succeed())
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2"}))
	})

	It("leaves exactly the desired pods when the manager restarts in the middle of creating 200", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		pclq.Spec.Replicas, pclq.Spec.MinAvailable = 200, ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() int { return len(podsOf(pclq)) }, timeout, 10*time.Millisecond).Should(BeNumerically(">=", 20))
		stopMgr()
		created := len(podsOf(pclq))
		GinkgoWriter.Printf("manager stopped with %d of 200 pods created\n", created)
		Expect(created).To(BeNumerically("<", 200), "the manager must be stopped before it created every pod")
		stopMgr = startManager()

		Eventually(func() int { return len(podsOf(pclq)) }, 60*time.Second, interval).Should(Equal(200))
		Consistently(func() int { return len(podsOf(pclq)) }, 2*time.Second, interval).Should(Equal(200))
		want := make([]string, 200)
		for i := range want {
			want[i] = fmt.Sprintf("svc-0-frontend-%d", i)
		}
		sort.Strings(want)
		Expect(hostnames(podsOf(pclq))).To(Equal(want))
	})

	It("injects grove-initc into pods of cliques with dependencies and leaves AnyOrder pods alone", func() {
		explicit := inferencePCS(ns)
		explicit.Name = "ordered"
		explicit.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit)
		explicit.Spec.Template.Cliques[2].Spec.StartsAfter = []string{"leader"}
		explicit.Spec.Template.Cliques[2].Spec.PodSpec.ServiceAccountName = "engine"
		explicit.Spec.Template.Cliques[2].Spec.PodSpec.InitContainers = []corev1.Container{{Name: "fetch-weights", Image: "registry.example/fetch:1"}}
		Expect(k8sClient.Create(ctx, explicit)).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "engine", Namespace: ns}})).To(Succeed())
		worker := podCliqueOf(explicit, "worker", 0)
		worker.Spec.StartsAfter = []string{"ordered-0-mn-0-leader"}
		Expect(k8sClient.Create(ctx, worker)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(worker) }, timeout, interval).Should(HaveLen(2))
		for _, p := range podsOf(worker) {
			Expect(p.Spec.InitContainers).To(HaveLen(2))
			Expect(p.Spec.InitContainers[0].Name).To(Equal("fetch-weights"), "grove-initc comes after the user's init containers")
			initc := p.Spec.InitContainers[1]
			Expect(initc.Name).To(Equal(apicommon.InitContainerName))
			Expect(initc.Image).To(Equal("ghcr.io/grove-project/grove-initc:v0.0.0-dev"))
			Expect(initc.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent))
			Expect(initc.Args).To(Equal([]string{"--podcliques=ordered-0-mn-0-leader:1"}))
			Expect(initc.VolumeMounts).To(ContainElements(
				And(HaveField("Name", "pod-info-vol"), HaveField("MountPath", apicommon.PodInfoMountPath), HaveField("ReadOnly", true)),
				And(HaveField("Name", "sa-token-secret-vol"), HaveField("MountPath", apicommon.ServiceAccountTokenMountPath), HaveField("ReadOnly", true)),
			))
			var volumes []string
			for _, v := range p.Spec.Volumes {
				volumes = append(volumes, v.Name)
			}
			Expect(volumes).To(ContainElements("pod-info-vol", "sa-token-secret-vol"))
			Expect(p.Annotations).To(HaveKeyWithValue(apicommon.AnnotationStartsAfter, "ordered-0-mn-0-leader"))
			Expect(p.Spec.ServiceAccountName).To(Equal("engine"), "the user's ServiceAccount is untouched")
		}

		anyOrder := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, anyOrder)).To(Succeed())
		Eventually(func() []corev1.Pod { return podsOf(anyOrder) }, timeout, interval).Should(HaveLen(3))
		for _, p := range podsOf(anyOrder) {
			Expect(p.Spec.InitContainers).To(BeEmpty())
			Expect(p.Annotations).NotTo(HaveKey(apicommon.AnnotationStartsAfter))
			for _, v := range p.Spec.Volumes {
				Expect(v.Name).NotTo(BeElementOf("pod-info-vol", "sa-token-secret-vol"))
			}
		}
	})

	It("keeps a deleted PodClique until its pods are gone, so its name and hostnames are never held twice", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []string { return hostnames(podsOf(pclq)) }, timeout, interval).
			Should(Equal([]string{"svc-0-frontend-0", "svc-0-frontend-1", "svc-0-frontend-2"}))
		Eventually(func() []string { return getPCLQ(pclq).Finalizers }, timeout, interval).Should(ContainElement(apicommon.FinalizerPodClique))
		// A finalizer of the test's own keeps one pod terminating, as a
		// kubelet that has not confirmed the pod's end yet would.
		const holdPod = "test.grove.io/hold"
		slow := podsOf(pclq)[1]
		Expect(k8sClient.Patch(ctx, &slow, client.RawPatch(types.MergePatchType,
			[]byte(fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, holdPod))))).To(Succeed())

		Expect(k8sClient.Delete(ctx, pclq)).To(Succeed())
		// envtest runs no garbage collector: the controller itself deletes the pods.
		Eventually(func(g Gomega) {
			pods := podsOf(pclq)
			g.Expect(hostnames(pods)).To(Equal([]string{"svc-0-frontend-1"}))
			g.Expect(pods[0].DeletionTimestamp).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())
		Consistently(func() []string { return getPCLQ(pclq).Finalizers }, 2*time.Second, interval).Should(ContainElement(apicommon.FinalizerPodClique))

		Expect(k8sClient.Patch(ctx, &slow, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`)))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), &grovecorev1alpha1.PodClique{}))
		}, timeout, interval).Should(BeTrue())
		Expect(podsOf(pclq)).To(BeEmpty())
		// The pods' creation is announced; their removal with the deleted
		// PodClique is not (an Event per PodClique of a deleted set).
		Eventually(func() []string { return eventReasons(pclq) }, timeout, interval).Should(ContainElement("PodCreateSuccessful"))
		Consistently(func() []string { return eventReasons(pclq) }, time.Second, interval).ShouldNot(ContainElement("PodDeleteSuccessful"))
	})

	It("releases the PodClique when it is deleted", func() {
		pclq := podCliqueOf(pcs, "frontend", -1)
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Eventually(func() []string { return getPCLQ(pclq).Finalizers }, timeout, interval).Should(ContainElement(apicommon.FinalizerPodClique))
		Expect(k8sClient.Delete(ctx, pclq)).To(Succeed())
		Eventually(func() bool {
			return client.IgnoreNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), &grovecorev1alpha1.PodClique{})) == nil &&
				k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), &grovecorev1alpha1.PodClique{}) != nil
		}, timeout, interval).Should(BeTrue())
	})
})
