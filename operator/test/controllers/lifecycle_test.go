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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func onePodPCS(ns, name, schedulerName string) *grovecorev1alpha1.PodCliqueSet {
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{
				Name: "c",
				Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "c", Replicas: 1, PodSpec: corev1.PodSpec{
					SchedulerName: schedulerName, Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
				}},
			}}},
		},
	}
}

var _ = Describe("PodCliqueSet lifecycle", func() {
	It("surfaces a failing component in lastOperation and lastErrors with its code", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onePodPCS(ns, "badsched", "yunikorn"))).To(Succeed())
		Eventually(func() grovecorev1alpha1.PodCliqueSetStatus { return getPCS(ns, "badsched")().Status }).Should(MatchFields(IgnoreExtras, Fields{
			"LastOperation": PointTo(MatchFields(IgnoreExtras, Fields{
				"Type": Equal(grovecorev1alpha1.LastOperationTypeReconcile), "State": Equal(grovecorev1alpha1.LastOperationStateError),
			})),
			"LastErrors": ContainElement(MatchFields(IgnoreExtras, Fields{
				"Code":        Equal(grovecorev1alpha1.ErrorCode("ERR_SCHEDULER_BACKEND")),
				"Description": ContainSubstring(`scheduler "yunikorn" is not an enabled scheduler backend`),
			})),
		}))
		Expect(podGangs(ns, "badsched")()).To(BeEmpty())
	})

	It("carries no finalizer of its own and goes away when deleted", func() {
		ns := newNamespace()
		pcs := onePodPCS(ns, "deleteme", "")
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(podGangs(ns, "deleteme")).Should(Equal([]string{"deleteme-0"}))
		Expect(getPCS(ns, "deleteme")().Finalizers).To(BeEmpty())
		Expect(k8sClient.Delete(ctx, pcs)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), &grovecorev1alpha1.PodCliqueSet{}))
		}).Should(BeTrue())
	})

	It("deletes the children of a deleted PodCliqueSet itself, leaving what it did not control", func() {
		// envtest runs no garbage collector: whatever goes, the operator deleted.
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, rolloutPCS(ns, "gone", 2))).To(Succeed())
		partOf := client.MatchingLabels{apicommon.LabelPartOfKey: "gone"}
		counts := func(g Gomega) map[string]int {
			out := map[string]int{}
			for kind, list := range map[string]client.ObjectList{
				"PodCliqueScalingGroup": &grovecorev1alpha1.PodCliqueScalingGroupList{},
				"PodClique":             &grovecorev1alpha1.PodCliqueList{},
				"PodGang":               &groveschedulerv1alpha1.PodGangList{},
				"Service":               &corev1.ServiceList{},
				"Pod":                   &corev1.PodList{},
			} {
				g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns), partOf)).To(Succeed())
				out[kind] = meta.LenList(list)
			}
			return out
		}
		// 2 replicas: fe, be and two scaling-group replicas of leader and worker each.
		Eventually(counts).Should(Equal(map[string]int{"PodCliqueScalingGroup": 2, "PodClique": 12, "PodGang": 4, "Service": 2, "Pod": 22}))
		// A Service with the set's labels that the set does not control.
		foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: ns, Labels: map[string]string{
			apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: "gone"}},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())

		Expect(k8sClient.Delete(ctx, getPCS(ns, "gone")())).To(Succeed())
		Eventually(counts).Should(Equal(map[string]int{"PodCliqueScalingGroup": 0, "PodClique": 0, "PodGang": 0, "Service": 1, "Pod": 0}))
		Consistently(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(foreign), &corev1.Service{}) }, "2s").Should(Succeed())
	})

	It("releases the finalizer an older Grove added when the PodCliqueSet is deleted", func() {
		ns := newNamespace()
		pcs := onePodPCS(ns, "legacy", "")
		pcs.Finalizers = []string{apicommon.FinalizerPodCliqueSet}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(podGangs(ns, "legacy")).Should(Equal([]string{"legacy-0"}))
		Expect(k8sClient.Delete(ctx, pcs)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), &grovecorev1alpha1.PodCliqueSet{}))
		}).Should(BeTrue())
	})
})
