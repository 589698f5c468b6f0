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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// adoptPCS is a two-replica set of two cliques started in order (so it
// needs grove-initc's ServiceAccount), one pod each per replica on the fake
// nodes.
func adoptPCS(ns string) *grovecorev1alpha1.PodCliqueSet {
	return pairPCS(ns, "adopt", grovecorev1alpha1.CliqueStartupTypeInOrder)
}

// untouched is what Grove must never change on a user's object.
type untouched struct {
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []metav1.OwnerReference
	Selector    map[string]string
}

func untouchedOf(g Gomega, obj client.Object) untouched {
	o := obj.DeepCopyObject().(client.Object)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), o)).To(Succeed())
	u := untouched{UID: string(o.GetUID()), Labels: o.GetLabels(), Annotations: o.GetAnnotations(), Owners: o.GetOwnerReferences()}
	if svc, ok := o.(*corev1.Service); ok {
		u.Selector = svc.Spec.Selector
	}
	return u
}

var _ = Describe("A user's objects named like a set's children", func() {
	It("survive the set's creation and deletion unchanged, and the set reports them", func() {
		ns := newNamespace("adopt")
		mine := map[string]string{"owner": "me"}
		note := map[string]string{"note": "mine"}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcServiceAccountName("adopt"), Namespace: ns, Labels: mine, Annotations: note}}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: apicommon.HeadlessServiceName("adopt", 0), Namespace: ns, Labels: mine, Annotations: note},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: mine}}
		Expect(k8s.Create(ctx, sa)).To(Succeed())
		Expect(k8s.Create(ctx, svc)).To(Succeed())
		was := map[string]untouched{"sa": untouchedOf(Default, sa), "svc": untouchedOf(Default, svc)}
		now := func(g Gomega) map[string]untouched {
			return map[string]untouched{"sa": untouchedOf(g, sa), "svc": untouchedOf(g, svc)}
		}

		Expect(k8s.Create(ctx, adoptPCS(ns))).To(Succeed())

		By("the rest of the set runs: both replicas' pods, replica 1's Service")
		expectRunningLayout(ns, "adopt", map[string]int{"adopt-0-c": 1, "adopt-0-w": 1, "adopt-1-c": 1, "adopt-1-w": 1}, fakeNodeName)
		own := &corev1.Service{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.HeadlessServiceName("adopt", 1)}, own)).To(Succeed())
		Expect(metav1.GetControllerOf(own)).To(HaveField("Name", "adopt"))

		By("the set names both objects in its ChildNameConflict condition and in Warning events")
		Eventually(func(g Gomega) {
			pcs := pcsRef(ns, "adopt")
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcs), pcs)).To(Succeed())
			c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeChildNameConflict)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(grovecorev1alpha1.ConditionReasonChildNamesTaken))
			g.Expect(c.Message).To(And(ContainSubstring("ServiceAccount adopt (no controller)"), ContainSubstring("Service adopt-0 (no controller)")))
		}).Should(Succeed())
		Eventually(func(g Gomega) []string {
			list := &eventsv1.EventList{}
			g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range list.Items {
				if e.Reason == "ChildNameTaken" && e.Type == corev1.EventTypeWarning && e.Regarding.Name == "adopt" {
					notes = append(notes, e.Note)
				}
			}
			return notes
		}).Should(ContainElements(
			"Not controlled by this owner, left untouched: ServiceAccount adopt (no controller)",
			"Not controlled by this owner, left untouched: Service adopt-0 (no controller)"))
		Consistently(now).Should(Equal(was), "no owner reference, label, annotation or selector added")

		By("deleting the set removes its own children, not the user's objects")
		Expect(k8s.Delete(ctx, pcsRef(ns, "adopt"))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(isGone(g, pcsRef(ns, "adopt"))).To(BeTrue())
			g.Expect(isGone(g, own)).To(BeTrue(), "the set's own Service adopt-1")
			g.Expect(listPods(g, ns, "adopt")).To(BeEmpty())
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		Consistently(now).Should(Equal(was), "the user's objects outlive the set")
	})
})
