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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	volcanov1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/coscheduling"
	"github.com/grove-project/grove/operator/internal/backend/kai"
)

// The translating scheduler backends: each PodGang gets exactly the backend
// objects its pod groups call for, pods join them, scaling adds and changes
// them, and the scheduler's verdict comes back as the PodGang's Scheduled
// condition. The CRDs are the backends' own (operator/test/backendcrds); the
// API server runs with the Workload API enabled.
//
// The file name makes Ginkgo register these specs last: run before the
// rolling-update specs, the extra gangs (whose pods never run in envtest)
// have made RU7, RU8 and RU14 miss their 30 s deadlines in full-suite runs.
var _ = Describe("Scheduler backends", func() {
	tutorials := []string{
		"tutorial-single-node-aggregated.yaml", "tutorial-single-node-disaggregated.yaml",
		"tutorial-multinode-aggregated.yaml", "tutorial-multinode-disaggregated.yaml",
		"tutorial-complete-inference-pipeline.yaml",
	}
	type backendCase struct {
		scheduler string
		// objects renders the backend objects in a namespace; want renders
		// what the namespace's PodGangs call for, in the same form.
		objects, want func(ns string) []string
		// podJoins says how a pod joins its gang on this backend.
		podJoins func(p *corev1.Pod) string
		// simple1 is the rendering for simple1 after its scaling group is
		// scaled to 2.
		simple1 []string
	}
	cases := []backendCase{
		{
			scheduler: "default-scheduler", objects: workloadAPIObjects, want: wantWorkloadAPIObjects,
			podJoins: func(p *corev1.Pod) string {
				if p.Spec.SchedulingGroup == nil {
					return "no schedulingGroup"
				}
				return "podGroupName=" + ptr.Deref(p.Spec.SchedulingGroup.PodGroupName, "")
			},
			simple1: []string{
				"PodGroup simple1-0-pca: workload simple1-0/simple1-0-pca, gang minCount 2, owner PodGang/simple1-0",
				"PodGroup simple1-0-pcd: workload simple1-0/simple1-0-pcd, gang minCount 1, owner PodGang/simple1-0",
				"PodGroup simple1-0-sga-0-pcb: workload simple1-0/simple1-0-sga-0-pcb, gang minCount 1, owner PodGang/simple1-0",
				"PodGroup simple1-0-sga-0-pcc: workload simple1-0/simple1-0-sga-0-pcc, gang minCount 1, owner PodGang/simple1-0",
				"PodGroup simple1-0-sga-1-pcb: workload simple1-0-sga-0/simple1-0-sga-1-pcb, gang minCount 1, owner PodGang/simple1-0-sga-0",
				"PodGroup simple1-0-sga-1-pcc: workload simple1-0-sga-0/simple1-0-sga-1-pcc, gang minCount 1, owner PodGang/simple1-0-sga-0",
				"Workload simple1-0-sga-0: controllerRef scheduler.grove.io/PodGang/simple1-0-sga-0, templates [simple1-0-sga-1-pcb:1 simple1-0-sga-1-pcc:1], owner PodGang/simple1-0-sga-0",
				"Workload simple1-0: controllerRef scheduler.grove.io/PodGang/simple1-0, templates [simple1-0-pca:2 simple1-0-pcd:1 simple1-0-sga-0-pcb:1 simple1-0-sga-0-pcc:1], owner PodGang/simple1-0",
			},
		},
		{
			scheduler: "scheduler-plugins-scheduler", objects: coschedulingObjects, want: wantCoschedulingObjects,
			podJoins: func(p *corev1.Pod) string {
				return coscheduling.PodGroupLabel + "=" + p.Labels[coscheduling.PodGroupLabel]
			},
			simple1: []string{
				"PodGroup simple1-0-sga-0: minMember 2, scheduleTimeoutSeconds 60, owner PodGang/simple1-0-sga-0",
				"PodGroup simple1-0: minMember 5, scheduleTimeoutSeconds 60, owner PodGang/simple1-0",
			},
		},
		{
			scheduler: "volcano", objects: volcanoObjects, want: wantVolcanoObjects,
			podJoins: func(p *corev1.Pod) string {
				return "group-name=" + p.Annotations["scheduling.k8s.io/group-name"] + " task-spec=" + p.Annotations["volcano.sh/task-spec"]
			},
			simple1: []string{
				"PodGroup simple1-0-sga-0: minMember 2, minTaskMember [simple1-0-sga-1-pcb:1 simple1-0-sga-1-pcc:1], queue inference, owner PodGang/simple1-0-sga-0",
				"PodGroup simple1-0: minMember 5, minTaskMember [simple1-0-pca:2 simple1-0-pcd:1 simple1-0-sga-0-pcb:1 simple1-0-sga-0-pcc:1], queue inference, owner PodGang/simple1-0",
			},
		},
		{
			scheduler: "kai-scheduler", objects: kaiObjects, want: wantKAIObjects,
			podJoins: func(p *corev1.Pod) string {
				return "pod-group-name=" + p.Annotations[kai.PodGroupAnnotation] + " subgroup=" + p.Labels[kai.SubGroupLabel]
			},
			simple1: []string{
				"PodGroup simple1-0-sga-0: minMember 2, queue inference, subGroups [simple1-0-sga-1-pcb:1 simple1-0-sga-1-pcc:1], owner PodGang/simple1-0-sga-0",
				"PodGroup simple1-0: minMember 5, queue inference, subGroups [simple1-0-pca:2 simple1-0-pcd:1 simple1-0-sga-0-pcb:1 simple1-0-sga-0-pcc:1], owner PodGang/simple1-0",
			},
		},
	}
	wantJoin := map[string]func(p *corev1.Pod) string{
		"default-scheduler":           func(p *corev1.Pod) string { return "podGroupName=" + p.Labels[apicommon.LabelPodClique] },
		"scheduler-plugins-scheduler": func(p *corev1.Pod) string { return coscheduling.PodGroupLabel + "=" + p.Labels[apicommon.LabelPodGang] },
		"volcano": func(p *corev1.Pod) string {
			return "group-name=" + p.Labels[apicommon.LabelPodGang] + " task-spec=" + p.Labels[apicommon.LabelPodClique]
		},
		"kai-scheduler": func(p *corev1.Pod) string {
			return "pod-group-name=" + p.Labels[apicommon.LabelPodGang] + " subgroup=" + p.Labels[apicommon.LabelPodClique]
		},
	}

	for _, bc := range cases {
		Context(bc.scheduler, func() {
			It("translates simple1 into exactly its objects, adds those of a scaled gang and joins every pod", func() {
				ns := backendNamespace()
				Expect(k8sClient.Create(ctx, withScheduler(loadFixture("simple1.yaml", ns), bc.scheduler))).To(Succeed())
				Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0"}))
				Expect(podGang(ns, "simple1-0").Labels).To(HaveKeyWithValue(apicommon.LabelSchedulerName, bc.scheduler))

				By("kubectl scale pcsg simple1-0-sga --replicas=2")
				scaleScalingGroup(ns, "simple1-0-sga", 2)
				Eventually(podGangs(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-0-sga-0"}))
				Eventually(func() []string { return bc.objects(ns) }).Should(Equal(bc.simple1))

				By("every pod names the backend's scheduler and joins its gang")
				Eventually(podCounts(ns, "simple1")).Should(HaveLen(6))
				expectPodsJoined(ns, bc.scheduler, bc.podJoins, wantJoin[bc.scheduler])
			})

			It("translates the five tutorial samples: every PodGang has exactly the objects it calls for", func() {
				namespaces := make([]string, len(tutorials))
				for i, file := range tutorials {
					namespaces[i] = backendNamespace()
					Expect(k8sClient.Create(ctx, withScheduler(loadFixture(file, namespaces[i]), bc.scheduler))).To(Succeed())
				}
				for i, ns := range namespaces {
					By(tutorials[i])
					Eventually(func(g Gomega) {
						want := bc.want(ns)
						g.Expect(want).NotTo(BeEmpty())
						g.Expect(bc.objects(ns)).To(Equal(want))
					}).Should(Succeed())
					expectPodsJoined(ns, bc.scheduler, bc.podJoins, wantJoin[bc.scheduler])
				}
			})
		})
	}

	It("default-scheduler: a gang of more pod groups than a Workload holds is reported on the PodGang and the PodCliqueSet", func() {
		ns := backendNamespace()
		pcs := withScheduler(loadFixture("tutorial-single-node-aggregated.yaml", ns), "default-scheduler")
		base := pcs.Spec.Template.Cliques[0]
		pcs.Spec.Template.Cliques = nil
		for i := range 9 {
			c := base.DeepCopy()
			c.Name = fmt.Sprintf("c%d", i)
			c.Spec.RoleName = c.Name
			pcs.Spec.Template.Cliques = append(pcs.Spec.Template.Cliques, *c)
		}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		gang := pcs.Name + "-0"
		Eventually(scheduledCondition(ns, gang)).Should(Equal("False/BackendMappingFailed/scheduler backend default-scheduler: PodGang " + gang + " has 9 pod groups; a Workload holds at most 8"))
		Eventually(func() []string { return workloadAPIObjects(ns) }).Should(BeEmpty())
		Eventually(warningEvents(ns, pcs.Name)).Should(ContainElement("BackendMappingFailed: PodGang " + gang +
			": scheduler backend default-scheduler: PodGang " + gang + " has 9 pod groups; a Workload holds at most 8"))
	})

	It("default-scheduler: kube-scheduler's verdict and the pods' placement become the PodGang's status", func() {
		ns := backendNamespace()
		Expect(k8sClient.Create(ctx, withScheduler(loadFixture("tutorial-single-node-disaggregated.yaml", ns), "default-scheduler"))).To(Succeed())
		const gang = "single-node-disaggregated-0"
		Eventually(func() []string { return workloadAPIObjects(ns) }).Should(HaveLen(3))
		Eventually(scheduledCondition(ns, gang)).Should(Equal("False/SchedulingPending/kube-scheduler has not placed PodGroups single-node-disaggregated-0-decode, single-node-disaggregated-0-prefill"))

		By("kube-scheduler finds the decode PodGroup unschedulable")
		setPodGroupCondition(ns, "single-node-disaggregated-0-decode", metav1.ConditionFalse, "Unschedulable", "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")
		Eventually(scheduledCondition(ns, gang)).Should(Equal("False/Unschedulable/PodGroup single-node-disaggregated-0-decode: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu."))
		Expect(podGang(ns, gang).Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending))

		By("both PodGroups are placed and every pod is bound")
		setPodGroupCondition(ns, "single-node-disaggregated-0-decode", metav1.ConditionTrue, "Scheduled", "")
		setPodGroupCondition(ns, "single-node-disaggregated-0-prefill", metav1.ConditionTrue, "Scheduled", "")
		bindPods(ns, "single-node-disaggregated")
		Eventually(scheduledCondition(ns, gang)).Should(Equal("True/PodGroupsScheduled/kube-scheduler placed all 2 PodGroups"))
		Eventually(func() groveschedulerv1alpha1.PodGangPhase { return podGang(ns, gang).Status.Phase }).Should(Equal(groveschedulerv1alpha1.PodGangPhaseStarting))

		By("the pods turn Ready")
		setPodsStatus(ns, "single-node-disaggregated", "", true, true)
		Eventually(func() groveschedulerv1alpha1.PodGangPhase { return podGang(ns, gang).Status.Phase }).Should(Equal(groveschedulerv1alpha1.PodGangPhaseRunning))
		Expect(meta.IsStatusConditionTrue(podGang(ns, gang).Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeReady)).To(BeTrue())
		By("the status counts the gang's minimum and its bound pods (3 prefill + 2 decode)")
		st := podGang(ns, gang).Status
		Expect([]int32{st.MinimumPods, st.BoundPods}).To(Equal([]int32{5, 5}))
	})

	It("volcano: the queue comes from the PodCliqueSet's annotation and Volcano's Unschedulable condition becomes the PodGang's reason", func() {
		ns := backendNamespace()
		pcs := withScheduler(loadFixture("tutorial-single-node-aggregated.yaml", ns), "volcano")
		pcs.Annotations = map[string]string{apicommon.AnnotationVolcanoQueue: "team-a"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(func() []string { return volcanoObjects(ns) }).Should(Equal([]string{
			"PodGroup single-node-aggregated-0: minMember 2, minTaskMember [single-node-aggregated-0-model-worker:2], queue team-a, owner PodGang/single-node-aggregated-0",
		}))
		pg := &volcanov1beta1.PodGroup{}
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "single-node-aggregated-0"}, pg)).To(Succeed())
			pg.Status.Phase = volcanov1beta1.PodGroupPending
			pg.Status.Conditions = []volcanov1beta1.PodGroupCondition{{
				Type: volcanov1beta1.PodGroupUnschedulableType, Status: corev1.ConditionTrue, Reason: "NotEnoughResources",
				Message: "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending", LastTransitionTime: metav1.Now(),
			}}
			// Volcano's PodGroup CRD has no status subresource.
			return k8sClient.Update(ctx, pg)
		})).To(Succeed())
		Eventually(scheduledCondition(ns, "single-node-aggregated-0")).Should(Equal(
			"False/NotEnoughResources/PodGroup single-node-aggregated-0: 2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending"))
	})

	It("kai-scheduler: the queue comes from the PodCliqueSet's label, scaling updates the PodGroup, and the PodGroup goes with its PodGang", func() {
		ns := backendNamespace()
		pcs := withScheduler(loadFixture("simple1.yaml", ns), "kai-scheduler")
		pcs.Labels = map[string]string{apicommon.KAIQueue: "team-a"}
		pcs.Annotations = map[string]string{apicommon.KAIQueue: "team-b"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(func() []string { return kaiObjects(ns) }).Should(Equal([]string{
			"PodGroup simple1-0: minMember 5, queue team-a, subGroups [simple1-0-pca:2 simple1-0-pcd:1 simple1-0-sga-0-pcb:1 simple1-0-sga-0-pcc:1], owner PodGang/simple1-0",
		}))

		By("kubectl scale pcsg simple1-0-sga --replicas=0: the scaling group leaves the gang")
		scaleScalingGroup(ns, "simple1-0-sga", 0)
		Eventually(func() []string { return kaiObjects(ns) }).Should(Equal([]string{
			"PodGroup simple1-0: minMember 3, queue team-a, subGroups [simple1-0-pca:2 simple1-0-pcd:1], owner PodGang/simple1-0",
		}))

		By("kubectl scale pcsg simple1-0-sga --replicas=2: it comes back, with a scaled gang of its own")
		scaleScalingGroup(ns, "simple1-0-sga", 2)
		Eventually(func() []string { return kaiObjects(ns) }).Should(Equal([]string{
			"PodGroup simple1-0-sga-0: minMember 2, queue team-a, subGroups [simple1-0-sga-1-pcb:1 simple1-0-sga-1-pcc:1], owner PodGang/simple1-0-sga-0",
			"PodGroup simple1-0: minMember 5, queue team-a, subGroups [simple1-0-pca:2 simple1-0-pcd:1 simple1-0-sga-0-pcb:1 simple1-0-sga-0-pcc:1], owner PodGang/simple1-0",
		}))

		By("the PodGroup is controlled by its PodGang, so Kubernetes' garbage collector deletes it with the gang (envtest runs none)")
		kpg := kaiPodGroup(ns, "simple1-0-sga-0")
		ref := metav1.GetControllerOf(kpg)
		Expect(ref).NotTo(BeNil())
		Expect(ref.UID).To(Equal(podGang(ns, "simple1-0-sga-0").UID))
		Expect(ptr.Deref(ref.BlockOwnerDeletion, false)).To(BeTrue())
	})

	It("kai-scheduler: KAI's UnschedulableOnNodePool condition and running count become the PodGang's Scheduled condition", func() {
		ns := backendNamespace()
		Expect(k8sClient.Create(ctx, withScheduler(loadFixture("tutorial-single-node-disaggregated.yaml", ns), "kai-scheduler"))).To(Succeed())
		const gang = "single-node-disaggregated-0"
		Eventually(func() []string { return kaiObjects(ns) }).Should(HaveLen(1))
		Eventually(scheduledCondition(ns, gang)).Should(Equal("False/SchedulingPending/KAI has not placed PodGroup single-node-disaggregated-0 yet"))

		By("KAI finds the gang unschedulable")
		setKAIStatus(ns, gang, map[string]any{"phase": "Pending", "schedulingConditions": []any{map[string]any{
			"type": "UnschedulableOnNodePool", "nodePool": "default", "status": "True", "transitionID": "0",
			"lastTransitionTime": "2026-01-01T00:00:00Z",
			"reasons":            []any{map[string]any{"reason": "Unschedulable", "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}},
		}}})
		Eventually(scheduledCondition(ns, gang)).Should(Equal(
			"False/Unschedulable/PodGroup single-node-disaggregated-0 is unschedulable on node pool default: Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu."))
		Expect(podGang(ns, gang).Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending))

		By("KAI runs the gang's minimum set")
		minMember, _, _ := unstructured.NestedInt64(kaiPodGroup(ns, gang).Object, "spec", "minMember")
		setKAIStatus(ns, gang, map[string]any{"phase": "Running", "running": minMember})
		Eventually(scheduledCondition(ns, gang)).Should(Equal(fmt.Sprintf(
			"True/PodGroupRunning/PodGroup single-node-disaggregated-0 has %d of minMember %d pods running or succeeded", minMember, minMember)))
	})

	It("kai-scheduler: topology constraints name the KAI Topology of the ClusterTopologyBinding, a scaling-group replica is a parent subGroup", func() {
		ns := backendNamespace()
		ctb := topologyBinding("kai-" + ns)
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, ctb))).To(Succeed()) })
		noRack := kaiTopology("kai-norack-"+ns, "topology.kubernetes.io/zone", "kubernetes.io/hostname")
		full := kaiTopology("kai-full-"+ns, "topology.kubernetes.io/zone", "example.com/rack", "kubernetes.io/hostname")
		pcs := withScheduler(topologyPCS(ns, packConstraint(ctb.Name, &zone, nil), packConstraint(ctb.Name, &rack, &host), packConstraint(ctb.Name, nil, &host)), "kai-scheduler")
		pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable = ptr.To[int32](1)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		bindTo := func(ref string) {
			GinkgoHelper()
			Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ctb), ctb)).To(Succeed())
				ctb.Spec.SchedulerTopologyBindings = []grovecorev1alpha1.SchedulerTopologyBinding{{SchedulerName: "kai-scheduler", TopologyReference: ref}}
				return k8sClient.Update(ctx, ctb)
			})).To(Succeed())
		}
		const failed = "False/BackendMappingFailed/scheduler backend kai-scheduler: "

		By("the binding names no KAI Topology: the gang reports it")
		Eventually(scheduledCondition(ns, "topo-0")).Should(Equal(failed + "ClusterTopologyBinding " + ctb.Name +
			" names no KAI Topology: set spec.schedulerTopologyBindings[] {schedulerName: kai-scheduler, topologyReference: <KAI Topology name>}"))
		Expect(kaiObjects(ns)).To(BeEmpty())

		By("the binding names a KAI Topology that does not exist")
		bindTo("kai-absent-" + ns)
		Eventually(scheduledCondition(ns, "topo-0")).Should(Equal(failed + "KAI Topology kai-absent-" + ns + ", named by ClusterTopologyBinding " + ctb.Name + ", does not exist"))

		By("the binding names a KAI Topology without the rack level")
		bindTo(noRack)
		Eventually(scheduledCondition(ns, "topo-0")).Should(Equal(failed + "KAI Topology " + noRack +
			" has no level example.com/rack (its levels: topology.kubernetes.io/zone, kubernetes.io/hostname)"))
		Expect(kaiObjects(ns)).To(BeEmpty())

		By("the binding names a KAI Topology with every level")
		bindTo(full)
		Eventually(func() []string { return kaiObjects(ns) }).Should(Equal([]string{
			"PodGroup topo-0-sg-0: minMember 1, queue inference, topology " + full + "[required=example.com/rack,preferred=kubernetes.io/hostname], " +
				"subGroups [topo-0-sg-1-wk:1], owner PodGang/topo-0-sg-0",
			"PodGroup topo-0: minMember 2, queue inference, topology " + full + "[required=topology.kubernetes.io/zone], " +
				"subGroups [topo-0-fe:1 " + full + "[preferred=kubernetes.io/hostname] topo-0-sg-0-wk:1^topo-0-sg-0 topo-0-sg-0:0 " + full +
				"[required=example.com/rack,preferred=kubernetes.io/hostname]], owner PodGang/topo-0",
		}))
		Eventually(scheduledCondition(ns, "topo-0")).Should(Equal("False/SchedulingPending/KAI has not placed PodGroup topo-0 yet"))
	})
})

// backendNamespace is a namespace whose Grove objects and pods are deleted
// when the spec ends: pods of these gangs never run in envtest, and dozens of
// such PodCliqueSets left behind would keep the suite's controllers busy
// during later specs.
func backendNamespace() string {
	GinkgoHelper()
	ns := newNamespace()
	DeferCleanup(func() {
		for _, obj := range []client.Object{&grovecorev1alpha1.PodCliqueSet{}, &grovecorev1alpha1.PodCliqueScalingGroup{},
			&grovecorev1alpha1.PodClique{}, &groveschedulerv1alpha1.PodGang{}} {
			Expect(k8sClient.DeleteAllOf(ctx, obj, client.InNamespace(ns))).To(Succeed())
		}
		Eventually(func() int {
			// Bound pods wait for a kubelet envtest does not run; no grace.
			Expect(k8sClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.GracePeriodSeconds(0))).To(Succeed())
			pclqs := &grovecorev1alpha1.PodCliqueList{}
			Expect(k8sClient.List(ctx, pclqs, client.InNamespace(ns))).To(Succeed())
			pcss := &grovecorev1alpha1.PodCliqueSetList{}
			Expect(k8sClient.List(ctx, pcss, client.InNamespace(ns))).To(Succeed())
			return len(pclqs.Items) + len(pcss.Items)
		}).Should(BeZero())
	})
	return ns
}

// withScheduler hands every clique of the PodCliqueSet to one scheduler.
func withScheduler(pcs *grovecorev1alpha1.PodCliqueSet, scheduler string) *grovecorev1alpha1.PodCliqueSet {
	for i := range pcs.Spec.Template.Cliques {
		pcs.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = scheduler
	}
	return pcs
}

// expectPodsJoined checks every pod of the namespace: the backend's
// schedulerName and the way it joins its gang.
func expectPodsJoined(ns, scheduler string, got, want func(*corev1.Pod) string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		g.Expect(pods.Items).NotTo(BeEmpty())
		for i := range pods.Items {
			p := &pods.Items[i]
			g.Expect(p.Spec.SchedulerName).To(Equal(scheduler), p.Name)
			g.Expect(got(p)).To(Equal(want(p)), p.Name)
		}
	}).Should(Succeed())
}

func ownerOf(obj metav1.Object) string {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return "none"
}

func podGangsIn(ns string) []groveschedulerv1alpha1.PodGang {
	GinkgoHelper()
	list := &groveschedulerv1alpha1.PodGangList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	return list.Items
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

func workloadAPIObjects(ns string) []string {
	GinkgoHelper()
	var out []string
	workloads := &schedulingv1beta1.WorkloadList{}
	Expect(k8sClient.List(ctx, workloads, client.InNamespace(ns))).To(Succeed())
	for _, w := range workloads.Items {
		var ts []string
		for _, t := range w.Spec.PodGroupTemplates {
			ts = append(ts, fmt.Sprintf("%s:%d", t.Name, gangMin(t.SchedulingPolicy)))
		}
		ref := w.Spec.ControllerRef
		out = append(out, fmt.Sprintf("Workload %s: controllerRef %s/%s/%s, templates [%s], owner %s", w.Name, ref.APIGroup, ref.Kind, ref.Name, strings.Join(sorted(ts), " "), ownerOf(&w)))
	}
	groups := &schedulingv1beta1.PodGroupList{}
	Expect(k8sClient.List(ctx, groups, client.InNamespace(ns))).To(Succeed())
	for _, g := range groups.Items {
		out = append(out, fmt.Sprintf("PodGroup %s: workload %s/%s, gang minCount %d, owner %s", g.Name, g.Spec.WorkloadRef.WorkloadName, g.Spec.WorkloadRef.TemplateName, gangMin(g.Spec.SchedulingPolicy), ownerOf(&g)))
	}
	return sorted(out)
}

func gangMin(p schedulingv1beta1.PodGroupSchedulingPolicy) int32 {
	if p.Gang == nil {
		return 0
	}
	return p.Gang.MinCount
}

func wantWorkloadAPIObjects(ns string) []string {
	var out []string
	for _, pg := range podGangsIn(ns) {
		var ts []string
		for _, g := range pg.Spec.PodGroups {
			ts = append(ts, fmt.Sprintf("%s:%d", g.Name, g.MinReplicas))
			out = append(out, fmt.Sprintf("PodGroup %s: workload %s/%s, gang minCount %d, owner PodGang/%s", g.Name, pg.Name, g.Name, g.MinReplicas, pg.Name))
		}
		out = append(out, fmt.Sprintf("Workload %s: controllerRef scheduler.grove.io/PodGang/%s, templates [%s], owner PodGang/%s", pg.Name, pg.Name, strings.Join(sorted(ts), " "), pg.Name))
	}
	return sorted(out)
}

func coschedulingObjects(ns string) []string {
	GinkgoHelper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(coscheduling.PodGroupGVK.GroupVersion().WithKind("PodGroupList"))
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, u := range list.Items {
		minMember, _, _ := unstructured.NestedInt64(u.Object, "spec", "minMember")
		timeout, _, _ := unstructured.NestedInt64(u.Object, "spec", "scheduleTimeoutSeconds")
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, scheduleTimeoutSeconds %d, owner %s", u.GetName(), minMember, timeout, ownerOf(&u)))
	}
	return sorted(out)
}

func wantCoschedulingObjects(ns string) []string {
	var out []string
	for _, pg := range podGangsIn(ns) {
		var n int32
		for _, g := range pg.Spec.PodGroups {
			n += g.MinReplicas
		}
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, scheduleTimeoutSeconds 60, owner PodGang/%s", pg.Name, n, pg.Name))
	}
	return sorted(out)
}

func volcanoObjects(ns string) []string {
	GinkgoHelper()
	list := &volcanov1beta1.PodGroupList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, g := range list.Items {
		var tasks []string
		for name, n := range g.Spec.MinTaskMember {
			tasks = append(tasks, fmt.Sprintf("%s:%d", name, n))
		}
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, minTaskMember [%s], queue %s, owner %s", g.Name, g.Spec.MinMember, strings.Join(sorted(tasks), " "), g.Spec.Queue, ownerOf(&g)))
	}
	return sorted(out)
}

func wantVolcanoObjects(ns string) []string {
	var out []string
	for _, pg := range podGangsIn(ns) {
		var n int32
		var tasks []string
		for _, g := range pg.Spec.PodGroups {
			n += g.MinReplicas
			tasks = append(tasks, fmt.Sprintf("%s:%d", g.Name, g.MinReplicas))
		}
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, minTaskMember [%s], queue inference, owner PodGang/%s", pg.Name, n, strings.Join(sorted(tasks), " "), pg.Name))
	}
	return sorted(out)
}

// kaiObjects renders the KAI PodGroups of a namespace: each subGroup as
// name:minMember, ^parent when it has one, and its topology constraint.
func kaiObjects(ns string) []string {
	GinkgoHelper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(kai.PodGroupGVK.GroupVersion().WithKind("PodGroupList"))
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, u := range list.Items {
		spec := kai.PodGroupSpec{}
		raw, _, _ := unstructured.NestedMap(u.Object, "spec")
		Expect(k8sruntime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec)).To(Succeed())
		var groups []string
		for _, g := range spec.SubGroups {
			s := fmt.Sprintf("%s:%d", g.Name, g.MinMember)
			if g.Parent != nil {
				s += "^" + *g.Parent
			}
			if g.TopologyConstraint != nil {
				s += " " + kaiConstraint(g.TopologyConstraint)
			}
			groups = append(groups, s)
		}
		topology := ""
		if spec.TopologyConstraint != nil {
			topology = ", topology " + kaiConstraint(spec.TopologyConstraint)
		}
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, queue %s%s, subGroups [%s], owner %s", u.GetName(), spec.MinMember, spec.Queue, topology, strings.Join(sorted(groups), " "), ownerOf(&u)))
	}
	return sorted(out)
}

func kaiConstraint(tc *kai.TopologyConstraint) string {
	var parts []string
	if tc.RequiredTopologyLevel != "" {
		parts = append(parts, "required="+tc.RequiredTopologyLevel)
	}
	if tc.PreferredTopologyLevel != "" {
		parts = append(parts, "preferred="+tc.PreferredTopologyLevel)
	}
	return tc.Topology + "[" + strings.Join(parts, ",") + "]"
}

// wantKAIObjects is what the namespace's PodGangs without topology call for:
// one subGroup per pod group.
func wantKAIObjects(ns string) []string {
	var out []string
	for _, pg := range podGangsIn(ns) {
		var n int32
		var groups []string
		for _, g := range pg.Spec.PodGroups {
			n += g.MinReplicas
			groups = append(groups, fmt.Sprintf("%s:%d", g.Name, g.MinReplicas))
		}
		out = append(out, fmt.Sprintf("PodGroup %s: minMember %d, queue inference, subGroups [%s], owner PodGang/%s", pg.Name, n, strings.Join(sorted(groups), " "), pg.Name))
	}
	return sorted(out)
}

// kaiTopology creates a KAI Topology with the given node label keys as its
// levels, deleted when the spec ends, and returns its name.
func kaiTopology(name string, keys ...string) string {
	GinkgoHelper()
	levels := make([]any, len(keys))
	for i, k := range keys {
		levels[i] = map[string]any{"nodeLabel": k}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"levels": levels}}}
	u.SetGroupVersionKind(kai.TopologyGVK)
	u.SetName(name)
	Expect(k8sClient.Create(ctx, u)).To(Succeed())
	DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, u))).To(Succeed()) })
	return name
}

func kaiPodGroup(ns, name string) *unstructured.Unstructured {
	GinkgoHelper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kai.PodGroupGVK)
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	return u
}

// setKAIStatus plays KAI: it writes a KAI PodGroup's status.
func setKAIStatus(ns, name string, status map[string]any) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := kaiPodGroup(ns, name)
		u.Object["status"] = status
		return k8sClient.Status().Update(ctx, u)
	})).To(Succeed())
}

// scheduledCondition renders a PodGang's Scheduled condition as status/reason/message.
func scheduledCondition(ns, name string) func() string {
	return func() string {
		pg := &groveschedulerv1alpha1.PodGang{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
		if c == nil {
			return "no Scheduled condition"
		}
		return fmt.Sprintf("%s/%s/%s", c.Status, c.Reason, c.Message)
	}
}

// setPodGroupCondition plays kube-scheduler: it sets a Workload API
// PodGroup's PodGroupInitiallyScheduled condition.
func setPodGroupCondition(ns, name string, status metav1.ConditionStatus, reason, message string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		g := &schedulingv1beta1.PodGroup{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, g); err != nil {
			return err
		}
		meta.SetStatusCondition(&g.Status.Conditions, metav1.Condition{Type: "PodGroupInitiallyScheduled", Status: status, Reason: reason, Message: message})
		return k8sClient.Status().Update(ctx, g)
	})).To(Succeed())
}

// bindPods binds every pod of a PodCliqueSet to a node, as a scheduler does.
func bindPods(ns, pcs string) {
	GinkgoHelper()
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	Expect(pods.Items).NotTo(BeEmpty())
	for i := range pods.Items {
		p := &pods.Items[i]
		Eventually(func() []corev1.PodSchedulingGate {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			return p.Spec.SchedulingGates
		}).Should(BeEmpty(), "pod %s is still gated", p.Name)
		binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-0"}}
		Expect(k8sClient.SubResource("binding").Create(ctx, p, binding)).To(Succeed())
	}
}

// warningEvents renders the Warning events about a PodCliqueSet as "reason: message".
func warningEvents(ns, name string) func() []string {
	return func() []string {
		events := &corev1.EventList{}
		Expect(k8sClient.List(ctx, events, client.InNamespace(ns))).To(Succeed())
		var out []string
		for _, e := range events.Items {
			if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Kind == "PodCliqueSet" && e.InvolvedObject.Name == name {
				out = append(out, e.Reason+": "+e.Message)
			}
		}
		return out
	}
}
