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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// gangRefs returns a PodGang's pod references by group, and the referenced
// names that name no pod.
func gangRefs(g Gomega, ns, name string) (refs map[string][]string, missing []string, pg *groveschedulerv1alpha1.PodGang) {
	pg = &groveschedulerv1alpha1.PodGang{}
	g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
	pods := &corev1.PodList{}
	g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
	exists := map[string]bool{}
	for _, p := range pods.Items {
		exists[p.Name] = true
	}
	refs = map[string][]string{}
	for _, grp := range pg.Spec.PodGroups {
		refs[grp.Name] = []string{}
		for _, r := range grp.PodReferences {
			refs[grp.Name] = append(refs[grp.Name], r.Name)
			if !exists[r.Name] {
				missing = append(missing, r.Name)
			}
		}
	}
	return refs, missing, pg
}

// pausePodCreation makes the API server refuse every pod created in ns, by a
// ValidatingAdmissionPolicy, and returns once it does; the function it
// returns lifts it.
func pausePodCreation(ns string) func() {
	GinkgoHelper()
	name := "pause-pods-" + ns
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "pod creation paused by the spec"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	Expect(k8sClient.Create(ctx, policy)).To(Succeed())
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	probe := func() error {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: ns},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/probe:1"}}}}
		return k8sClient.Create(ctx, p, client.DryRunAll)
	}
	Eventually(probe).Should(MatchError(ContainSubstring("pod creation paused by the spec")))
	return func() {
		GinkgoHelper()
		Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
		Expect(k8sClient.Delete(ctx, policy)).To(Succeed())
		Eventually(probe).Should(Succeed())
	}
}

func podNames(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

var _ = Describe("A PodGang whose gang a Coherent update replaces", func() {
	It("references only pods that exist, and is not Initialized while none of the new revision's pods exists", func() {
		ns := newNamespace()
		pcs := coherentPCS(ns, "refs", 1)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
		pcs.Spec.Template.Cliques = pcs.Spec.Template.Cliques[:2]
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		layout := map[string]int{"refs-0-fe": 3, "refs-0-be": 2}
		expectRunning(ns, "refs", layout)
		Eventually(func(g Gomega) {
			_, _, pg := gangRefs(g, ns, "refs-0")
			g.Expect(meta.IsStatusConditionTrue(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)).To(BeTrue())
		}).Should(Succeed())

		By("the update deletes the gang; be's old pods are held terminating, fe's go")
		setHold(ns, "refs", true, "refs-0-be")
		setImages(ns, "refs", map[string]string{"fe": "registry.example/fe:2", "be": "registry.example/be:2"})
		Eventually(func(g Gomega) {
			g.Expect(livePodCliques(g, ns, "refs")).To(BeEmpty())
			refs, missing, _ := gangRefs(g, ns, "refs-0")
			g.Expect(missing).To(BeEmpty(), "no reference to a pod that is gone")
			g.Expect(refs["refs-0-fe"]).To(BeEmpty())
			g.Expect(refs["refs-0-be"]).To(HaveLen(2), "be's terminating pods still exist")
		}).Should(Succeed())

		By("be's old pods go too; the new PodCliques cannot create pods (an admission policy refuses them)")
		unpause := pausePodCreation(ns)
		setHold(ns, "refs", false, "refs-0-be")
		Eventually(func(g Gomega) {
			g.Expect(livePodCliques(g, ns, "refs")).To(HaveLen(2), "the new revision's PodCliques")
			refs, _, pg := gangRefs(g, ns, "refs-0")
			g.Expect(refs).To(Equal(map[string][]string{"refs-0-fe": {}, "refs-0-be": {}}))
			c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
			g.Expect(c).NotTo(BeNil())
			g.Expect(string(c.Status) + "/" + c.Reason + ": " + c.Message).To(Equal("False/" + groveschedulerv1alpha1.PodGangReasonPodsCreationPending +
				": Waiting for all pods of the PodGang to be created again: it references no pod"))
		}).Should(Succeed())

		By("pods can be created again: the gang references exactly the new pods and is Initialized")
		unpause()
		fe, _ := hashes(ns, "refs", "fe")
		Eventually(func(g Gomega) {
			readyNewPods(Default, ns, "refs", "")
			g.Expect(getPCS(ns, "refs")().Status.UpdateProgress).To(HaveField("UpdateEndedAt", Not(BeNil())))
		}).WithPolling(50 * time.Millisecond).WithTimeout(2 * time.Minute).Should(Succeed())
		pods := expectRunning(ns, "refs", layout)
		Expect(withHash(pods["refs-0-fe"], fe)).To(HaveLen(3))
		Eventually(func(g Gomega) {
			refs, missing, pg := gangRefs(g, ns, "refs-0")
			g.Expect(missing).To(BeEmpty())
			g.Expect(refs["refs-0-fe"]).To(ConsistOf(podNames(pods["refs-0-fe"])))
			g.Expect(refs["refs-0-be"]).To(ConsistOf(podNames(pods["refs-0-be"])))
			g.Expect(meta.IsStatusConditionTrue(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)).To(BeTrue())
		}).Should(Succeed())
		Expect(pods["refs-0-fe"][0].Labels).To(HaveKey(apicommon.LabelPodGang))
	})
})
