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
	. "github.com/onsi/gomega/gstruct"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// takenPCS is a one-replica set with a child of every kind: a standalone
// clique with an HPA, a scaling group started after it, and the grove-initc
// access objects.
func takenPCS(ns string) *grovecorev1alpha1.PodCliqueSet {
	clique := func(n string) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: n, Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName: n, Replicas: 1,
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: n, Image: "registry.example/" + n + ":1"}}},
		}}
	}
	fe := clique("fe")
	fe.Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 3}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				// In order, so the set needs the grove-initc access objects.
				StartupType: ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder),
				Cliques:     []grovecorev1alpha1.PodCliqueTemplateSpec{fe, clique("leader")},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "sg", CliqueNames: []string{"leader"}, Replicas: ptr.To[int32](1),
				}},
			},
		},
	}
}

// userMeta is what the set must never change on a user's object.
type userMeta struct {
	UID         string
	Generation  int64
	Labels      map[string]string
	Annotations map[string]string
	Owners      []metav1.OwnerReference
}

func userMetaOf(obj client.Object) func() userMeta {
	return func() userMeta {
		o := obj.DeepCopyObject().(client.Object)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), o)).To(Succeed())
		return userMeta{string(o.GetUID()), o.GetGeneration(), o.GetLabels(), o.GetAnnotations(), o.GetOwnerReferences()}
	}
}

var _ = Describe("A user's object named like a child", func() {
	mine := map[string]string{"owner": "me"}
	podSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/mine:1"}}}

	DescribeTable("is left untouched through the set's life and deletion, and reported",
		func(kind string, build func(ns string) client.Object, reported bool) {
			ns := newNamespace()
			user := build(ns)
			user.SetNamespace(ns)
			user.SetLabels(mine)
			user.SetAnnotations(map[string]string{"note": "mine"})
			Expect(k8sClient.Create(ctx, user)).To(Succeed())
			was := userMetaOf(user)()
			Expect(was.Owners).To(BeEmpty())

			Expect(k8sClient.Create(ctx, takenPCS(ns))).To(Succeed())

			By("the rest of the set is created")
			ownChild, ownChildObj := "taken-0-fe", client.Object(&grovecorev1alpha1.PodClique{})
			if kind == "PodClique" {
				ownChild, ownChildObj = "taken-0", &corev1.Service{}
			}
			Eventually(func() error {
				return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ownChild}, ownChildObj)
			}).Should(Succeed())
			Expect(metav1.GetControllerOf(ownChildObj)).To(HaveField("Name", "taken"))

			if reported {
				By("the set reports the object in its ChildNameConflict condition and a Warning event")
				entry := kind + " " + user.GetName() + " (no controller)"
				Eventually(func() *metav1.Condition {
					return meta.FindStatusCondition(getPCS(ns, "taken")().Status.Conditions, grovecorev1alpha1.ConditionTypeChildNameConflict)
				}).Should(And(Not(BeNil()), PointTo(MatchFields(IgnoreExtras, Fields{
					"Status":  Equal(metav1.ConditionTrue),
					"Reason":  Equal(grovecorev1alpha1.ConditionReasonChildNamesTaken),
					"Message": ContainSubstring(entry),
				}))))
				Eventually(func() []string { return eventMessages(eventsWithReason(ns, childsync.ReasonChildNameTaken)) }).Should(
					ContainElement(Equal("PodCliqueSet/taken: Not controlled by this owner, left untouched: " + entry)))
			}
			Consistently(userMetaOf(user), 2*time.Second).Should(Equal(was))

			By("deleting the set deletes its children, not the user's object")
			Expect(k8sClient.Delete(ctx, getPCS(ns, "taken")())).To(Succeed())
			Eventually(func() bool {
				err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ownChild}, ownChildObj)
				return apierrors.IsNotFound(err) || err == nil && ownChildObj.GetDeletionTimestamp() != nil
			}).Should(BeTrue())
			Consistently(userMetaOf(user), 2*time.Second).Should(Equal(was))
		},
		Entry("ServiceAccount", "ServiceAccount", func(string) client.Object {
			return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcServiceAccountName("taken")}}
		}, true),
		Entry("Role", "Role", func(string) client.Object {
			return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcRoleName("taken")},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}}
		}, true),
		Entry("RoleBinding", "RoleBinding", func(string) client.Object {
			return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcRoleBindingName("taken")},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "mine"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}}
		}, true),
		// The operator may only create Secrets: it never reads one, so it
		// cannot report a user's; its create meets AlreadyExists.
		Entry("Secret", "Secret", func(string) client.Object {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: apicommon.InitcTokenSecretName("taken")},
				StringData: map[string]string{"token": "mine"}}
		}, false),
		Entry("Service", "Service", func(string) client.Object {
			return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: apicommon.HeadlessServiceName("taken", 0)},
				Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: mine}}
		}, true),
		Entry("HorizontalPodAutoscaler", "HorizontalPodAutoscaler", func(string) client.Object {
			return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: apicommon.HorizontalPodAutoscalerName("taken-0-fe")},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
					MaxReplicas:    2,
				}}
		}, true),
		Entry("PodClique", "PodClique", func(string) client.Object {
			return &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "taken-0-fe"},
				Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: "fe", Replicas: 0, PodSpec: podSpec}}
		}, true),
		Entry("PodCliqueScalingGroup", "PodCliqueScalingGroup", func(string) client.Object {
			return &grovecorev1alpha1.PodCliqueScalingGroup{ObjectMeta: metav1.ObjectMeta{Name: "taken-0-sg"},
				Spec: grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 0, CliqueNames: []string{"leader"}}}
		}, true),
		Entry("PodGang", "PodGang", func(string) client.Object {
			return &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: apicommon.BasePodGangName("taken", 0)},
				Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{
					Name: "taken-0-fe", MinReplicas: 1, PodReferences: []groveschedulerv1alpha1.NamespacedName{},
				}}}}
		}, true),
	)
})
