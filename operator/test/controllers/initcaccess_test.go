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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// initcAccess names the four grove-initc access objects of set pcs.
func initcAccess(ns, pcs string) map[string]client.Object {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	return map[string]client.Object{
		"ServiceAccount " + apicommon.InitcServiceAccountName(pcs): &corev1.ServiceAccount{ObjectMeta: meta(apicommon.InitcServiceAccountName(pcs))},
		"Role " + apicommon.InitcRoleName(pcs):                     &rbacv1.Role{ObjectMeta: meta(apicommon.InitcRoleName(pcs))},
		"RoleBinding " + apicommon.InitcRoleBindingName(pcs):       &rbacv1.RoleBinding{ObjectMeta: meta(apicommon.InitcRoleBindingName(pcs))},
		"Secret " + apicommon.InitcTokenSecretName(pcs):            &corev1.Secret{ObjectMeta: meta(apicommon.InitcTokenSecretName(pcs))},
	}
}

// presentInitcAccess lists which of the four access objects of set pcs exist
// and are not being deleted, each as "Kind name".
func presentInitcAccess(ns, pcs string) func() []string {
	return func() []string {
		var out []string
		for key, obj := range initcAccess(ns, pcs) {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			if err == nil && obj.GetDeletionTimestamp() == nil {
				out = append(out, key)
				continue
			}
			if !apierrors.IsNotFound(err) {
				Expect(err).NotTo(HaveOccurred())
			}
		}
		return out
	}
}

// twoCliques is a set of cliques "leader" and "worker" with startup type st.
func twoCliques(ns, name string, st grovecorev1alpha1.CliqueStartupType) *grovecorev1alpha1.PodCliqueSet {
	clique := func(n string) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: n, Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName: n, Replicas: 1,
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: n, Image: "registry.example/" + n + ":1"}}},
		}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			StartupType: ptr.To(st),
			Cliques:     []grovecorev1alpha1.PodCliqueTemplateSpec{clique("leader"), clique("worker")},
		}},
	}
}

var _ = Describe("grove-initc access objects", func() {
	allFour := func(pcs string) []string {
		var out []string
		for key := range initcAccess("", pcs) {
			out = append(out, key)
		}
		return out
	}

	It("exist only for a set whose startup order needs grove-initc", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, twoCliques(ns, "free", grovecorev1alpha1.CliqueStartupTypeAnyOrder))).To(Succeed())
		Expect(k8sClient.Create(ctx, twoCliques(ns, "ordered", grovecorev1alpha1.CliqueStartupTypeInOrder))).To(Succeed())

		By("the ordered set gets all four, controlled by it")
		Eventually(presentInitcAccess(ns, "ordered")).Should(ConsistOf(allFour("ordered")))
		for key, obj := range initcAccess(ns, "ordered") {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(metav1.GetControllerOf(obj)).To(HaveField("Name", "ordered"), key)
		}
		Eventually(func(g Gomega) []string {
			var names []string
			for _, p := range livePods(g, ns, "ordered")["ordered-0-worker"] {
				for _, c := range p.Spec.InitContainers {
					names = append(names, p.Name+"/"+c.Name)
				}
			}
			return names
		}).Should(ConsistOf(HaveSuffix("/" + apicommon.InitContainerName)))

		By("the set without startup dependencies gets none, and its pods no grove-initc")
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "free-0-worker"}, &grovecorev1alpha1.PodClique{})
		}).Should(Succeed())
		Eventually(func(g Gomega) int { return len(livePods(g, ns, "free")["free-0-worker"]) }).Should(Equal(1))
		Consistently(presentInitcAccess(ns, "free"), 3*time.Second).Should(BeEmpty())
		for _, p := range livePods(Default, ns, "free")["free-0-worker"] {
			Expect(p.Spec.InitContainers).To(BeEmpty())
		}
	})

	It("are deleted from a set that no longer needs them, and created for one that starts to", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, twoCliques(ns, "switch", grovecorev1alpha1.CliqueStartupTypeInOrder))).To(Succeed())
		Eventually(presentInitcAccess(ns, "switch")).Should(ConsistOf(allFour("switch")))

		// The webhook keeps cliqueStartupType immutable; envtest runs
		// without it, which stands in for a set an older Grove gave the
		// objects whatever its startup type.
		setStartup := func(st grovecorev1alpha1.CliqueStartupType) {
			Eventually(func() error {
				p := getPCS(ns, "switch")()
				p.Spec.Template.StartupType = ptr.To(st)
				return k8sClient.Update(ctx, p)
			}).Should(Succeed())
		}
		By("no startup dependencies: the ServiceAccount, Role and RoleBinding are deleted, each reported")
		setStartup(grovecorev1alpha1.CliqueStartupTypeAnyOrder)
		// The token Secret goes with its ServiceAccount by Kubernetes' token
		// controller, which envtest does not run; the operator never deletes
		// Secrets.
		Eventually(presentInitcAccess(ns, "switch")).Should(ConsistOf("Secret " + apicommon.InitcTokenSecretName("switch")))
		Consistently(presentInitcAccess(ns, "switch"), 2*time.Second).Should(ConsistOf("Secret " + apicommon.InitcTokenSecretName("switch")))
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "ServiceAccountDeleteSuccessful")) }).Should(
			ConsistOf("PodCliqueSet/switch: Deleted ServiceAccount " + apicommon.InitcServiceAccountName("switch")))

		By("dependencies again: all four are there")
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: apicommon.InitcTokenSecretName("switch")}})).To(Succeed())
		setStartup(grovecorev1alpha1.CliqueStartupTypeInOrder)
		Eventually(presentInitcAccess(ns, "switch")).Should(ConsistOf(allFour("switch")))
	})

	It("leave a user's ServiceAccount of that name alone whether the set needs it or not", func() {
		ns := newNamespace()
		mine := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: apicommon.InitcServiceAccountName("users"),
			Labels: map[string]string{"owner": "me"}}}
		Expect(k8sClient.Create(ctx, mine)).To(Succeed())
		was := userMetaOf(mine)()

		By("a set without startup dependencies neither deletes nor reports it")
		Expect(k8sClient.Create(ctx, twoCliques(ns, "users", grovecorev1alpha1.CliqueStartupTypeAnyOrder))).To(Succeed())
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "users-0-worker"}, &grovecorev1alpha1.PodClique{})
		}).Should(Succeed())
		Consistently(userMetaOf(mine), 3*time.Second).Should(Equal(was))
		Expect(eventsWithReason(ns, childsync.ReasonChildNameTaken)).To(BeEmpty())

		By("after the switch to an ordered start, the set reports it and still leaves it alone")
		Eventually(func() error {
			p := getPCS(ns, "users")()
			p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder)
			return k8sClient.Update(ctx, p)
		}).Should(Succeed())
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, childsync.ReasonChildNameTaken)) }).Should(
			ContainElement(ContainSubstring("ServiceAccount " + apicommon.InitcServiceAccountName("users") + " (no controller)")))
		Consistently(userMetaOf(mine), 2*time.Second).Should(Equal(was))
	})
})
