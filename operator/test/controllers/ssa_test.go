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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// memoryMetric is a metric a user writes into an autoScalingConfig.
func memoryMetric() autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceMemory,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("1Gi"))},
		},
	}
}

func getHPA(ns, name string) func(g Gomega) *autoscalingv2.HorizontalPodAutoscaler {
	return func(g Gomega) *autoscalingv2.HorizontalPodAutoscaler {
		h := &autoscalingv2.HorizontalPodAutoscaler{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, h)).To(Succeed())
		return h
	}
}

// metricNames lists an HPA's metrics as "<type>/<resource name>".
func metricNames(h *autoscalingv2.HorizontalPodAutoscaler) []string {
	var out []string
	for _, m := range h.Spec.Metrics {
		name := ""
		if m.Resource != nil {
			name = string(m.Resource.Name)
		}
		out = append(out, string(m.Type)+"/"+name)
	}
	return out
}

// managers lists the field managers of an object's main resource as "<manager>/<operation>".
func managers(obj client.Object) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		if e.Subresource == "" {
			out = append(out, e.Manager+"/"+string(e.Operation))
		}
	}
	return out
}

// asOlderGrove returns entries as Grove up to e430b4b left them: what the
// PodCliqueSet controller applies under the manager of its plain create
// (grove-operator, an Update), and its apply entry gone.
func asOlderGrove(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		if e.Subresource == "" && e.Manager == childsync.PodCliqueSetFieldManager {
			e.Manager, e.Operation = childsync.CreateFieldManager, metav1.ManagedFieldsOperationUpdate
		}
		out = append(out, e)
	}
	return out
}

// removeMetrics drops every metric from the autoScalingConfig of clique pca.
func removeMetrics(ns string) {
	Eventually(func() error {
		pcs := getPCS(ns, "simple1")()
		cliqueOf(pcs, "pca").Spec.AutoScalingConfig.Metrics = nil
		return k8sClient.Update(ctx, pcs)
	}).Should(Succeed())
}

var _ = Describe("Children written by server-side apply", func() {
	It("removes the metrics a user removed from autoScalingConfig from the HPA, and does not write a converged HPA", func() {
		ns := newNamespace()
		pcs := orderedSimple1(ns)
		cliqueOf(pcs, "pca").Spec.AutoScalingConfig.Metrics = []autoscalingv2.MetricSpec{memoryMetric()}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(func(g Gomega) []string { return metricNames(getHPA(ns, "simple1-0-pca")(g)) }).Should(Equal([]string{"Resource/memory"}))
		Expect(managers(getHPA(ns, "simple1-0-pca")(Default))).To(ContainElement(childsync.PodCliqueSetFieldManager + "/Apply"))

		By("a sync of every replica, queued by the reconcile trigger, leaves every applied child unwritten")
		applied := func(g Gomega) map[string]string {
			out := map[string]string{}
			for _, obj := range []client.Object{
				&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0-pca"}},
				&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0"}},
				&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcServiceAccountName("simple1")}},
				&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcRoleName("simple1")}},
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcRoleBindingName("simple1")}},
				&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcTokenSecretName("simple1")}},
			} {
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: obj.GetName()}, obj)).To(Succeed())
				out[fmt.Sprintf("%T/%s", obj, obj.GetName())] = obj.GetResourceVersion()
			}
			return out
		}
		before := applied(Default)
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			p.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "unchanged"}
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Consistently(applied, 3*time.Second).Should(Equal(before))

		By("removing the metric from the template removes it from the HPA (the API server's default CPU metric remains)")
		removeMetrics(ns)
		Eventually(func(g Gomega) []string { return metricNames(getHPA(ns, "simple1-0-pca")(g)) }).Should(Equal([]string{"Resource/cpu"}))
	})

	It("takes over the fields an older Grove wrote without server-side apply, and still removes them", func() {
		ns := newNamespace()
		pcs := orderedSimple1(ns)
		cliqueOf(pcs, "pca").Spec.AutoScalingConfig.Metrics = []autoscalingv2.MetricSpec{memoryMetric()}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(func(g Gomega) []string { return metricNames(getHPA(ns, "simple1-0-pca")(g)) }).Should(Equal([]string{"Resource/memory"}))

		By("the HPA's fields are recorded as an older Grove left them: one Update entry of grove-operator")
		Eventually(func(g Gomega) {
			h := getHPA(ns, "simple1-0-pca")(g)
			var legacy metav1.ManagedFieldsEntry
			for _, e := range h.ManagedFields {
				if e.Manager == childsync.PodCliqueSetFieldManager && e.Subresource == "" {
					legacy = *e.DeepCopy()
				}
			}
			g.Expect(legacy.FieldsV1).NotTo(BeNil())
			legacy.Manager, legacy.Operation = "grove-operator", metav1.ManagedFieldsOperationUpdate
			h.ManagedFields = []metav1.ManagedFieldsEntry{legacy}
			g.Expect(k8sClient.Update(ctx, h)).To(Succeed())
			g.Expect(managers(getHPA(ns, "simple1-0-pca")(g))).To(Equal([]string{"grove-operator/Update"}))
		}).Should(Succeed())

		By("the next sync moves them to the PodCliqueSet controller's manager, so removing the metric removes it")
		removeMetrics(ns)
		Eventually(func(g Gomega) {
			h := getHPA(ns, "simple1-0-pca")(g)
			g.Expect(metricNames(h)).To(Equal([]string{"Resource/cpu"}))
			g.Expect(managers(h)).To(Equal([]string{childsync.PodCliqueSetFieldManager + "/Apply"}))
		}).Should(Succeed())
	})

	It("leaves an object with a child's name and labels that another controller owns alone, and says why", func() {
		ns := newNamespace()
		other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-owner", Namespace: ns}}
		Expect(k8sClient.Create(ctx, other)).To(Succeed())
		// With the labels of a Grove child, the operator's cache holds it whole.
		labels := childsync.Labels("simple1", "simple1-0", apicommon.LabelComponentHeadlessService)
		labels[apicommon.LabelPodCliqueSetReplicaIndex] = "0"
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "simple1-0", Namespace: ns, Labels: labels, OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "ConfigMap", Name: other.Name, UID: other.UID, Controller: ptr.To(true),
			}}},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "mine"}},
		}
		Expect(k8sClient.Create(ctx, svc)).To(Succeed())
		Expect(k8sClient.Create(ctx, loadFixture("simple1.yaml", ns))).To(Succeed())
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, childsync.ReasonChildNameTaken)) }).Should(ContainElement(
			"PodCliqueSet/simple1: Not controlled by this owner, left untouched: Service simple1-0 (controlled by ConfigMap other-owner)"))
		live := &corev1.Service{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(svc), live)).To(Succeed())
		Expect(live.Spec.Selector).To(Equal(map[string]string{"app": "mine"}))
		Expect(live.UID).To(Equal(svc.UID), "not deleted and recreated")
		Expect(managers(live)).NotTo(ContainElement(childsync.PodCliqueSetFieldManager + "/Apply"))
		Expect(services(ns, "simple1")()).To(Equal([]string{"simple1-0"}))
	})

	It("takes over PodCliques an older Grove wrote, removes a label dropped from the template, and keeps a kubectl scale", func() {
		ns := newNamespace()
		pcs := loadFixture("simple1.yaml", ns)
		cliqueOf(pcs, "pcd").Labels = map[string]string{"example.com/tier": "decode"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		getPCLQ := func(g Gomega) *grovecorev1alpha1.PodClique {
			q := &grovecorev1alpha1.PodClique{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "simple1-0-pcd"}, q)).To(Succeed())
			return q
		}
		Eventually(func(g Gomega) map[string]string { return getPCLQ(g).Labels }).Should(HaveKeyWithValue("example.com/tier", "decode"))
		Expect(managers(getPCLQ(Default))).To(Equal([]string{childsync.PodCliqueSetFieldManager + "/Apply"}), "created by the controller's apply")

		By("kubectl scale pclq simple1-0-pcd --replicas=3")
		scalePodClique(ns, "simple1-0-pcd", 3)

		By("the fields are recorded as an older Grove left them: everything but the scale under grove-operator")
		Eventually(func(g Gomega) {
			q := getPCLQ(g)
			q.ManagedFields = asOlderGrove(q.ManagedFields)
			g.Expect(k8sClient.Update(ctx, q)).To(Succeed())
			g.Expect(managers(getPCLQ(g))).To(Equal([]string{childsync.CreateFieldManager + "/Update"}))
		}).Should(Succeed())

		By("dropping the label from the template removes it; the scale stays")
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			cliqueOf(p, "pcd").Labels = nil
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			q := getPCLQ(g)
			g.Expect(q.Labels).NotTo(HaveKey("example.com/tier"))
			g.Expect(q.Spec.Replicas).To(Equal(int32(3)))
			g.Expect(managers(q)).To(ContainElement(childsync.PodCliqueSetFieldManager + "/Apply"))
			g.Expect(managers(q)).NotTo(ContainElement(childsync.CreateFieldManager + "/Update"))
		}).Should(Succeed())
		Consistently(func(g Gomega) int32 { return getPCLQ(g).Spec.Replicas }, 2*time.Second).Should(Equal(int32(3)))

		By("a new template value of replicas replaces the scale")
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			cliqueOf(p, "pcd").Spec.Replicas = 2
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func(g Gomega) int32 { return getPCLQ(g).Spec.Replicas }).Should(Equal(int32(2)))
	})

	It("takes over every child an older Grove wrote without replacing a pod", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, loadFixture("simple1.yaml", ns))).To(Succeed())
		full := []string{"simple1-0-pca/2/2", "simple1-0-pcd/1/1", "simple1-0-sga-0-pcb/1/1", "simple1-0-sga-0-pcc/1/2"}
		Eventually(groupSummary(ns, "simple1-0")).Should(Equal(full))
		podUIDs := func() map[string]types.UID {
			pods := &corev1.PodList{}
			Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "simple1"})).To(Succeed())
			out := map[string]types.UID{}
			for i := range pods.Items {
				out[pods.Items[i].Name] = pods.Items[i].UID
			}
			return out
		}
		before := podUIDs()
		Expect(before).To(HaveLen(6))

		By("every applied child's fields recorded as Grove up to e430b4b left them")
		children := []client.Object{
			&grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0-pca"}},
			&grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0-pcd"}},
			&grovecorev1alpha1.PodCliqueScalingGroup{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0-sga"}},
			&groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0"}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0"}},
		}
		for _, obj := range children {
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: obj.GetName()}, obj)).To(Succeed())
				obj.SetManagedFields(asOlderGrove(obj.GetManagedFields()))
				g.Expect(k8sClient.Update(ctx, obj)).To(Succeed())
			}).Should(Succeed())
		}

		By("the next sync of every replica takes them over")
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			p.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "takeover"}
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		for _, obj := range children {
			Eventually(func(g Gomega) []string {
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: obj.GetName()}, obj)).To(Succeed())
				return managers(obj)
			}).Should(And(ContainElement(childsync.PodCliqueSetFieldManager+"/Apply"), Not(ContainElement(childsync.CreateFieldManager+"/Update"))),
				fmt.Sprintf("%T %s", obj, obj.GetName()))
		}
		Consistently(podUIDs, 3*time.Second).Should(Equal(before), "no pod replaced")
		Expect(groupSummary(ns, "simple1-0")()).To(Equal(full))
	})

	It("restores a label another writer removed from a PodClique it had found converged", func() {
		ns := newNamespace()
		pcs := loadFixture("simple1.yaml", ns)
		cliqueOf(pcs, "pcd").Labels = map[string]string{"example.com/tier": "decode"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		key := types.NamespacedName{Namespace: ns, Name: "simple1-0-pcd"}
		getPCLQ := func(g Gomega) *grovecorev1alpha1.PodClique {
			q := &grovecorev1alpha1.PodClique{}
			g.Expect(k8sClient.Get(ctx, key, q)).To(Succeed())
			return q
		}
		By("the PodCliqueSet syncs again on every count its PodClique reports, each time over the same converged child")
		Eventually(func(g Gomega) {
			q := getPCLQ(g)
			g.Expect(q.Labels).To(HaveKeyWithValue("example.com/tier", "decode"))
			g.Expect(q.Status.Replicas).To(Equal(q.Spec.Replicas))
		}).Should(Succeed())
		applied := getPCLQ(Default).ResourceVersion

		By("kubectl label pclq simple1-0-pcd example.com/tier-")
		Eventually(func() error {
			q := getPCLQ(Default)
			delete(q.Labels, "example.com/tier")
			return k8sClient.Update(ctx, q)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			q := getPCLQ(g)
			g.Expect(q.ResourceVersion).NotTo(Equal(applied))
			g.Expect(q.Labels).To(HaveKeyWithValue("example.com/tier", "decode"))
		}).Should(Succeed())
	})

	It("applies PodGangs: a label the PodCliqueSet drops leaves the PodGang, and the pod references the PodCliques wrote stay theirs", func() {
		ns := newNamespace()
		pcs := loadFixture("simple1.yaml", ns)
		pcs.Labels = map[string]string{"example.com/team": "serving"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		full := []string{"simple1-0-pca/2/2", "simple1-0-pcd/1/1", "simple1-0-sga-0-pcb/1/1", "simple1-0-sga-0-pcc/1/2"}
		Eventually(groupSummary(ns, "simple1-0")).Should(Equal(full))
		Expect(podGang(ns, "simple1-0").Labels).To(HaveKeyWithValue("example.com/team", "serving"))

		By("the label goes from the PodCliqueSet (a metadata change: the reconcile trigger brings the sync), and from its PodGang; every group keeps its references")
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			p.Labels = nil
			p.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "1"}
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func() map[string]string { return podGang(ns, "simple1-0").Labels }).ShouldNot(HaveKey("example.com/team"))
		Consistently(groupSummary(ns, "simple1-0"), 2*time.Second).Should(Equal(full))

		By("the PodCliqueSet controller's apply owns the groups but not their references; the PodCliques' manager owns those")
		pg := podGang(ns, "simple1-0")
		Expect(managers(pg)).To(ContainElements(childsync.PodCliqueSetFieldManager+"/Apply", childsync.PodCliqueFieldManager+"/Update"))
		for _, e := range pg.ManagedFields {
			if e.Subresource != "" {
				continue
			}
			switch e.Manager {
			case childsync.PodCliqueSetFieldManager:
				Expect(e.FieldsV1.GetRawString()).To(And(ContainSubstring(`"f:minReplicas"`), Not(ContainSubstring("podReferences"))))
			case childsync.PodCliqueFieldManager:
				Expect(strings.Count(e.FieldsV1.GetRawString(), `"f:podReferences"`)).To(Equal(4), "each of the 4 groups' references")
			}
		}
	})

	It("takes over PodGangs an older Grove wrote, removes a label dropped from the PodCliqueSet, and keeps every group's references", func() {
		ns := newNamespace()
		pcs := loadFixture("simple1.yaml", ns)
		pcs.Labels = map[string]string{"example.com/team": "serving"}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		full := []string{"simple1-0-pca/2/2", "simple1-0-pcd/1/1", "simple1-0-sga-0-pcb/1/1", "simple1-0-sga-0-pcc/1/2"}
		Eventually(groupSummary(ns, "simple1-0")).Should(Equal(full))

		By("the fields are recorded as an older Grove left them: its create's under grove-operator, the references under the PodCliques' manager")
		Eventually(func(g Gomega) {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "simple1-0"}, pg)).To(Succeed())
			pg.ManagedFields = asOlderGrove(pg.ManagedFields)
			g.Expect(k8sClient.Update(ctx, pg)).To(Succeed())
			g.Expect(managers(podGang(ns, "simple1-0"))).To(ConsistOf(childsync.CreateFieldManager+"/Update", childsync.PodCliqueFieldManager+"/Update"))
		}).Should(Succeed())
		Expect(groupSummary(ns, "simple1-0")()).To(Equal(full))

		By("dropping the label from the PodCliqueSet removes it from the PodGang; the references stay")
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			p.Labels = nil
			p.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "1"}
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			pg := podGang(ns, "simple1-0")
			g.Expect(pg.Labels).NotTo(HaveKey("example.com/team"))
			g.Expect(managers(pg)).To(ContainElement(childsync.PodCliqueSetFieldManager + "/Apply"))
		}).Should(Succeed())
		Consistently(groupSummary(ns, "simple1-0"), 2*time.Second).Should(Equal(full))
	})

	It("creates the grove-initc token Secret without reading Secrets, and again after it was deleted", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, orderedSimple1(ns))).To(Succeed())
		key := types.NamespacedName{Namespace: ns, Name: apicommon.InitcTokenSecretName("simple1")}
		secret := &corev1.Secret{}
		Eventually(func() error { return k8sClient.Get(ctx, key, secret) }).Should(Succeed())
		Expect(secret.Type).To(Equal(corev1.SecretTypeServiceAccountToken))
		Expect(secret.Annotations).To(HaveKeyWithValue(corev1.ServiceAccountNameKey, apicommon.InitcServiceAccountName("simple1")))
		Expect(metav1.GetControllerOf(secret)).To(HaveField("Name", "simple1"))
		Expect(managers(secret)).To(Equal([]string{childsync.CreateFieldManager + "/Update"}))

		By("deleted by hand, it comes back at the next sync, which the reconcile trigger queues")
		Expect(k8sClient.Delete(ctx, secret)).To(Succeed())
		Eventually(func() error {
			p := getPCS(ns, "simple1")()
			p.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "secret-deleted"}
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func(g Gomega) types.UID {
			again := &corev1.Secret{}
			g.Expect(k8sClient.Get(ctx, key, again)).To(Succeed())
			return again.UID
		}).ShouldNot(Equal(secret.UID))
	})
})
