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

package webhook_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

const (
	// editor is a user with every RBAC right: only the authorizer stands between it and Grove's children.
	editor = "jane"
	// exemptUser is in the suite's authorizer.exemptServiceAccountUserNames.
	exemptUser = "system:serviceaccount:kube-system:generic-garbage-collector"
)

// clientAs returns a client that impersonates user, who is bound to cluster-admin.
func clientAs(ctx context.Context, user string) client.Client {
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "authz-admin-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	cfg := rest.CopyConfig(restConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	cfg.WarningHandler = warnings
	c, err := client.New(cfg, client.Options{Scheme: testScheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

func managedLabels(pcs string) map[string]string {
	return map[string]string{apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: pcs}
}

// child is a PodClique of pcs as the operator labels it.
func child(ns, pcs, name string) *grovecorev1alpha1.PodClique {
	return &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: managedLabels(pcs)},
		Spec: grovecorev1alpha1.PodCliqueSpec{
			Replicas: 1,
			PodSpec:  corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		},
	}
}

// expectDeniedFor asserts the authorizer's refusal naming the object, its
// PodCliqueSet and both ways to make the change.
func expectDeniedFor(err error, what, pcs string) {
	GinkgoHelper()
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden, got %v", err)
	Expect(err.Error()).To(And(
		ContainSubstring(`admission webhook "authorizer.webhooks.grove.io" denied the request`),
		ContainSubstring(what+` is managed by grove-operator for PodCliqueSet "`+pcs+`"`),
		ContainSubstring("kubectl edit podcliqueset "+pcs),
		ContainSubstring(apicommon.AnnotationDisableManagedResourceProtection+"=true"),
	))
}

var _ = Describe("Authorizer webhook", func() {
	var (
		ns   string
		pcs  *grovecorev1alpha1.PodCliqueSet
		jane client.Client
	)
	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "authz")
		pcs = manifest(ns, nil)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		jane = clientAs(ctx, editor)
	})

	It("lets the operator create and change a managed PodClique and denies another user's update and delete with how to do it", func(ctx SpecContext) {
		pclq := child(ns, pcs.Name, pcs.Name+"-0-fe")
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed(), "the operator's own create")
		pclq.Labels["touched-by"] = "operator"
		Expect(k8sClient.Update(ctx, pclq)).To(Succeed(), "the operator's own update")

		var mine grovecorev1alpha1.PodClique
		Expect(jane.Get(ctx, client.ObjectKeyFromObject(pclq), &mine)).To(Succeed(), "reads are not intercepted")
		mine.Spec.Replicas = 5
		expectDeniedFor(jane.Update(ctx, &mine), `podcliques "`+pclq.Name+`"`, pcs.Name)
		expectDeniedFor(jane.Delete(ctx, &mine), `podcliques "`+pclq.Name+`"`, pcs.Name)
		expectDeniedFor(jane.Create(ctx, child(ns, pcs.Name, pcs.Name+"-0-forged")), `podcliques "`+pcs.Name+`-0-forged"`, pcs.Name)
		// A user who strips the label still changes Grove's object.
		delete(mine.Labels, apicommon.LabelManagedByKey)
		expectDeniedFor(jane.Update(ctx, &mine), `podcliques "`+pclq.Name+`"`, pcs.Name)
	})

	It("leaves subresources, unmanaged objects and exempt users alone", func(ctx SpecContext) {
		pclq := child(ns, pcs.Name, pcs.Name+"-0-fe")
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		var mine grovecorev1alpha1.PodClique
		Expect(jane.Get(ctx, client.ObjectKeyFromObject(pclq), &mine)).To(Succeed())
		mine.Status.Replicas = 1
		Expect(jane.Status().Update(ctx, &mine)).To(Succeed(), "status is a subresource the webhook does not see")

		own := child(ns, pcs.Name, "janes-own")
		own.Labels = map[string]string{"app": "mine"}
		Expect(jane.Create(ctx, own)).To(Succeed(), "an object without Grove's label")
		own.Spec.Replicas = 2
		Expect(jane.Update(ctx, own)).To(Succeed())

		gc := clientAs(ctx, exemptUser)
		Expect(gc.Get(ctx, client.ObjectKeyFromObject(pclq), &mine)).To(Succeed())
		Expect(gc.Delete(ctx, &mine)).To(Succeed(), "the exempt garbage collector deletes")
	})

	It("protects core children the same way", func(ctx SpecContext) {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pcs.Name + "-0", Labels: managedLabels(pcs.Name)},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: managedLabels(pcs.Name)},
		}
		Expect(k8sClient.Create(ctx, svc)).To(Succeed())
		expectDeniedFor(jane.Delete(ctx, svc), `services "`+svc.Name+`"`, pcs.Name)
		var sa corev1.ServiceAccount
		sa.Namespace, sa.Name, sa.Labels = ns, pcs.Name, managedLabels(pcs.Name)
		Expect(k8sClient.Create(ctx, &sa)).To(Succeed())
		sa.Labels["x"] = "y"
		expectDeniedFor(jane.Update(ctx, &sa), `serviceaccounts "`+sa.Name+`"`, pcs.Name)
	})

	It("admits changes once the PodCliqueSet opts out with the bypass annotation", func(ctx SpecContext) {
		pclq := child(ns, pcs.Name, pcs.Name+"-0-fe")
		Expect(k8sClient.Create(ctx, pclq)).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), pcs)).To(Succeed())
		pcs.Annotations = map[string]string{apicommon.AnnotationDisableManagedResourceProtection: "true"}
		Expect(k8sClient.Update(ctx, pcs)).To(Succeed())
		var mine grovecorev1alpha1.PodClique
		Eventually(func() error {
			if err := jane.Get(ctx, client.ObjectKeyFromObject(pclq), &mine); err != nil {
				return err
			}
			mine.Spec.Replicas = 3
			return jane.Update(ctx, &mine)
		}).Should(Succeed(), "the webhook reads the set from the operator's cache, which catches up")
		Expect(jane.Delete(ctx, &mine)).To(Succeed())
	})

	It("admits with a warning a managed object whose PodCliqueSet does not exist", func(ctx SpecContext) {
		orphan := child(ns, "gone", "gone-0-fe")
		Expect(k8sClient.Create(ctx, orphan)).To(Succeed())
		warnings.reset()
		var mine grovecorev1alpha1.PodClique
		Expect(jane.Get(ctx, client.ObjectKeyFromObject(orphan), &mine)).To(Succeed())
		Expect(jane.Delete(ctx, &mine)).To(Succeed())
		Expect(warnings.all()).To(ContainElement(ContainSubstring(`belongs to PodCliqueSet "gone", which does not exist; not protected`)))
	})
})
