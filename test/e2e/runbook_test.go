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
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/test/cluster"
)

// runbookSample is the PodCliqueSet each runbook situation starts from: one
// clique of 2 pods on the local cluster's fake nodes.
const runbookSample = "samples/user-guide/01_core-concepts/single-node-aggregated.yaml"

// expectRunbookQuotes fails unless docs/troubleshooting.md quotes each text
// (whitespace, line breaks included, collapsed to single spaces), so a spec
// that checks a message the code writes also keeps the runbook's quote true.
func expectRunbookQuotes(quotes ...string) {
	GinkgoHelper()
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "troubleshooting.md"))
	Expect(err).NotTo(HaveOccurred())
	text := strings.Join(strings.Fields(string(page)), " ")
	for _, q := range quotes {
		Expect(text).To(ContainSubstring(q), "docs/troubleshooting.md quotes %q", q)
	}
}

// runbookPCS loads the runbook's sample into namespace ns under name.
func runbookPCS(ns, name string) *grovecorev1alpha1.PodCliqueSet {
	pcs := loadPCS(runbookSample)
	pcs.Name, pcs.Namespace = name, ns
	return pcs
}

// warningEvents returns "reason: note" of the Warning events on one object.
func warningEvents(g Gomega, ns, kind, name string) []string {
	events := &corev1.EventList{}
	g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

// condition renders a condition as "status reason: message", or "absent".
func condition(conds []metav1.Condition, condType string) string {
	c := meta.FindStatusCondition(conds, condType)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

// Each situation of docs/troubleshooting.md ("my PodCliqueSet is not
// Running"), created on the local cluster; every spec checks the message the
// code writes and that the runbook quotes it.
var _ = Describe("Troubleshooting runbook", func() {
	It("step 1: with grove-operator down the apply fails at the webhook", func() {
		ns := newNamespace("runbook1")
		local := &cluster.Local{Root: repoRoot, Dir: localDir}
		Expect(local.Kill(ctx, cluster.GroveOperator)).To(Succeed())
		DeferCleanup(func() {
			// start waits for readyz; under load it can give up while the
			// process is still coming up, so health is what counts.
			if err := local.Start(ctx, cluster.GroveOperator); err != nil {
				GinkgoWriter.Printf("start grove-operator: %v\n", err)
			}
			Eventually(func() error { _, err := local.Status(); return err }).Should(Succeed(), "grove-operator healthy again")
		})

		err := k8s.Create(ctx, runbookPCS(ns, "no-operator"))
		quote := `failed calling webhook "pcs.defaulting.webhooks.grove.io": failed to call webhook: Post`
		Expect(err).To(MatchError(ContainSubstring(quote)))
		expectRunbookQuotes(quote)
	})

	It("steps 2 and 3: a quota refuses a pod: PodCreateFailed, the PodGang not Initialized, the created pod SchedulingGated", func() {
		ns := newNamespace("runbook2")
		quota := &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: "one-pod", Namespace: ns},
			Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}},
		}
		Expect(k8s.Create(ctx, quota)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(quota), quota)).To(Succeed())
			g.Expect(quota.Status.Hard).NotTo(BeEmpty(), "quota controller has seen the quota")
		}).Should(Succeed())
		Expect(k8s.Create(ctx, runbookPCS(ns, "quota"))).To(Succeed())

		Eventually(func(g Gomega) []string {
			return warningEvents(g, ns, "PodClique", "quota-0-model-worker")
		}).Should(ContainElement(And(HavePrefix("PodCreateFailed: Failed to create pods: "), ContainSubstring("exceeded quota"))))
		Eventually(func(g Gomega) string {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "quota-0"}, pg)).To(Succeed())
			return condition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
		}).Should(Equal("False PodGangPodsCreationPending: Waiting for all pods of the PodGang to be created"))
		Eventually(func(g Gomega) []string {
			pclq := &grovecorev1alpha1.PodClique{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "quota-0-model-worker"}, pclq)).To(Succeed())
			var codes []string
			for _, e := range pclq.Status.LastErrors {
				codes = append(codes, string(e.Code))
			}
			return codes
		}).Should(ContainElement("ERR_CREATE_POD"))

		By("the one pod that exists keeps its gate: kubectl shows it SchedulingGated")
		Eventually(func(g Gomega) {
			pods := listPods(g, ns, "quota")
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.SchedulingGates).To(ConsistOf(corev1.PodSchedulingGate{Name: apicommon.PodGangSchedulingGate}))
			g.Expect(condition(podConditions(pods[0]), string(corev1.PodScheduled))).To(HavePrefix("False SchedulingGated"))
		}).Should(Succeed())
		Consistently(func(g Gomega) []corev1.Pod { return bound(listPods(g, ns, "quota")) }).Should(BeEmpty())

		expectRunbookQuotes(
			"Initialized=False PodGangPodsCreationPending: Waiting for all pods of the PodGang to be created",
			`"Failed to create pods: …"`, "(`exceeded quota`)", "`ERR_CREATE_POD`",
			"SchedulingGated", "`grove.io/podgang-pending-creation`",
		)
	})

	It("step 4: a scheduler name that is not an enabled profile is refused at admission", func() {
		ns := newNamespace("runbook4")
		pcs := runbookPCS(ns, "unknown-scheduler")
		pcs.Spec.Template.Cliques[0].Spec.PodSpec.SchedulerName = "my-scheduler"
		quote := `spec.template.cliques[0].spec.podSpec.schedulerName: Unsupported value: "my-scheduler": supported values: "default-scheduler", "grove-scheduler"`
		Expect(k8s.Create(ctx, pcs)).To(MatchError(ContainSubstring(quote)))
		expectRunbookQuotes(quote)
	})

	It("step 5: a gang that does not fit: Scheduled=False Unschedulable says which group lacks what", func() {
		ns := newNamespace("runbook5")
		pcs := runbookPCS(ns, "gpus")
		spec := &pcs.Spec.Template.Cliques[0].Spec
		spec.Replicas, spec.MinAvailable = 4, ptr.To[int32](4)
		spec.PodSpec.Containers[0].Resources.Requests = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), "nvidia.com/gpu": resource.MustParse("1"),
		}
		spec.PodSpec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
		Expect(k8s.Create(ctx, pcs)).To(Succeed())

		want := "False Unschedulable: group gpus-0-model-worker needs 4 pods with 1 nvidia.com/gpu, 500m cpu, 0 fit"
		Eventually(func(g Gomega) string {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gpus-0"}, pg)).To(Succeed())
			return condition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
		}).Should(HavePrefix(want))
		Eventually(func(g Gomega) []string {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gpus-0"}, pg)).To(Succeed())
			return []string{
				condition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized),
				condition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeReady),
			}
		}).Should(Equal([]string{
			"True PodGangPodsCreated: PodGang is fully initialized",
			"False MinimumSetNotReady: 0 of 4 referenced pods Ready; some pod group is below minReplicas",
		}))
		Eventually(func(g Gomega) []string { return warningEvents(g, ns, "PodGang", "gpus-0") }).
			Should(ContainElement(HavePrefix("Unschedulable: group gpus-0-model-worker needs 4 pods with 1 nvidia.com/gpu, 500m cpu, 0 fit")))
		Expect(bound(listPods(Default, ns, "gpus"))).To(BeEmpty(), "nothing of the gang is bound")
		expectRunbookQuotes("Scheduled=False Unschedulable: group gpus-0-model-worker needs 4 pods with 1 nvidia.com/gpu, 500m cpu, 0 fit",
			"Initialized=True PodGangPodsCreated: PodGang is fully initialized",
			"Ready=False MinimumSetNotReady: 0 of 4 referenced pods Ready; some pod group is below minReplicas")
	})

	It("step 6: a deleted ClusterTopologyBinding turns TopologyLevelsUnavailable Unknown ClusterTopologyNotFound", func() {
		ns := newNamespace("runbook6")
		ctb := &grovecorev1alpha1.ClusterTopologyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "runbook-topology"},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
				{Domain: grovecorev1alpha1.TopologyDomainRack, Key: rackKey},
				{Domain: grovecorev1alpha1.TopologyDomainHost, Key: "kubernetes.io/hostname"},
			}},
		}
		Expect(k8s.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, ctb))).To(Succeed()) })
		pcs := runbookPCS(ns, "packed")
		pcs.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{
			TopologyName: ctb.Name,
			Pack:         &grovecorev1alpha1.TopologyPackConstraint{Required: ptr.To(grovecorev1alpha1.TopologyDomainRack)},
		}
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		Eventually(func(g Gomega) string { return pcsTopologyCondition(g, ns, "packed") }).Should(Equal("False/AllClusterTopologyLevelsAvailable"))

		Expect(k8s.Delete(ctx, ctb)).To(Succeed())
		want := `Unknown ClusterTopologyNotFound: ClusterTopologyBinding "runbook-topology" does not exist; left out of the PodGangs: spec.template.topologyConstraint.pack.required=rack`
		Eventually(func(g Gomega) string {
			got := &grovecorev1alpha1.PodCliqueSet{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcs), got)).To(Succeed())
			return condition(got.Status.Conditions, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable)
		}).Should(Equal(want))
		Eventually(func(g Gomega) []string { return warningEvents(g, ns, "PodCliqueSet", "packed") }).
			Should(ContainElement(HavePrefix("ClusterTopologyNotFound: ")))
		expectRunbookQuotes(`"reason":"ClusterTopologyNotFound"`, `does not exist; left out of the PodGangs:`)
	})

	It("step 7: a backend whose API the cluster does not serve posts BackendUnavailable", func() {
		ns := newNamespace("runbook7")
		pcs := runbookPCS(ns, "my-set")
		pcs.Spec.Template.Cliques[0].Spec.PodSpec.SchedulerName = "volcano"
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		quote := "PodGang my-set-0: scheduler backend volcano: the cluster serves no PodGroup (scheduling.volcano.sh/v1beta1)"
		Eventually(func(g Gomega) []string { return warningEvents(g, ns, "PodCliqueSet", "my-set") }).
			Should(ContainElement(HavePrefix("BackendUnavailable: " + quote)))
		expectRunbookQuotes("BackendUnavailable podcliqueset/my-set " + quote)
	})
})

// podConditions converts a pod's conditions for condition().
func podConditions(p corev1.Pod) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(p.Status.Conditions))
	for _, c := range p.Status.Conditions {
		out = append(out, metav1.Condition{Type: string(c.Type), Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return out
}
