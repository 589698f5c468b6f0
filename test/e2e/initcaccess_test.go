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
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// pairPCS is a two-replica set of cliques "c" and "w", one pod each per
// replica on the fake nodes, whose cliques start in startup order st.
func pairPCS(ns, name string, st grovecorev1alpha1.CliqueStartupType) *grovecorev1alpha1.PodCliqueSet {
	clique := func(n string) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: n, Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: n, Replicas: 1, PodSpec: corev1.PodSpec{
			Tolerations:                   []corev1.Toleration{{Key: "fake-node", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}},
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			Containers:                    []corev1.Container{{Name: n, Image: "busybox", Command: []string{"sleep", "infinity"}}},
		}}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 2, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			StartupType: ptr.To(st),
			Cliques:     []grovecorev1alpha1.PodCliqueTemplateSpec{clique("c"), clique("w")},
		}},
	}
}

// initcAccessOf is the ServiceAccount, Role, RoleBinding and token Secret
// grove-initc gets for set pcs, by "Kind name", as an older Grove labelled
// them for every set.
func initcAccessOf(ns, pcs string) map[string]client.Object {
	meta := func(name, component string) metav1.ObjectMeta {
		labels := apicommon.DefaultLabels(pcs)
		labels[apicommon.LabelComponentKey] = component
		return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}
	}
	secret := meta(apicommon.InitcTokenSecretName(pcs), apicommon.LabelComponentSATokenSecret)
	secret.Annotations = map[string]string{apicommon.AnnotationServiceAccountName: apicommon.InitcServiceAccountName(pcs)}
	return map[string]client.Object{
		"ServiceAccount " + apicommon.InitcServiceAccountName(pcs): &corev1.ServiceAccount{ObjectMeta: meta(apicommon.InitcServiceAccountName(pcs), apicommon.LabelComponentServiceAccount)},
		"Role " + apicommon.InitcRoleName(pcs): &rbacv1.Role{ObjectMeta: meta(apicommon.InitcRoleName(pcs), apicommon.LabelComponentRole),
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}},
		"RoleBinding " + apicommon.InitcRoleBindingName(pcs): &rbacv1.RoleBinding{ObjectMeta: meta(apicommon.InitcRoleBindingName(pcs), apicommon.LabelComponentRoleBinding),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: apicommon.InitcRoleName(pcs)},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: apicommon.InitcServiceAccountName(pcs), Namespace: ns}}},
		"Secret " + apicommon.InitcTokenSecretName(pcs): &corev1.Secret{ObjectMeta: secret, Type: corev1.SecretTypeServiceAccountToken},
	}
}

// presentOf lists which of objs exist and are not being deleted.
func presentOf(objs map[string]client.Object) func(g Gomega) []string {
	return func(g Gomega) []string {
		var out []string
		for key, obj := range objs {
			o := obj.DeepCopyObject().(client.Object)
			if !isGone(g, o) && o.GetDeletionTimestamp() == nil {
				out = append(out, key)
			}
		}
		return out
	}
}

func keysOf(objs map[string]client.Object) []string {
	var out []string
	for k := range objs {
		out = append(out, k)
	}
	return out
}

var _ = Describe("grove-initc access objects", func() {
	It("exist only for a set whose startup order needs grove-initc; an older Grove's are removed from a set that does not", func() {
		ns := newNamespace("initcaccess")
		Expect(k8s.Create(ctx, pairPCS(ns, "free", grovecorev1alpha1.CliqueStartupTypeAnyOrder))).To(Succeed())
		Expect(k8s.Create(ctx, pairPCS(ns, "ordered", grovecorev1alpha1.CliqueStartupTypeInOrder))).To(Succeed())
		expectRunningLayout(ns, "ordered", map[string]int{"ordered-0-c": 1, "ordered-0-w": 1, "ordered-1-c": 1, "ordered-1-w": 1}, fakeNodeName)
		expectRunningLayout(ns, "free", map[string]int{"free-0-c": 1, "free-0-w": 1, "free-1-c": 1, "free-1-w": 1}, fakeNodeName)

		By("the ordered set has all four, and its waiting pods mount the token Secret in grove-initc")
		ordered := initcAccessOf(ns, "ordered")
		Eventually(presentOf(ordered)).Should(ConsistOf(keysOf(ordered)))
		Eventually(func(g Gomega) []byte {
			s := &corev1.Secret{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.InitcTokenSecretName("ordered")}, s)).To(Succeed())
			return s.Data[corev1.ServiceAccountTokenKey]
		}).ShouldNot(BeEmpty(), "the token controller fills the token")
		for _, p := range listPods(Default, ns, "ordered") {
			var initc []string
			for _, c := range p.Spec.InitContainers {
				initc = append(initc, c.Name)
			}
			var secrets []string
			for _, v := range p.Spec.Volumes {
				if v.Secret != nil {
					secrets = append(secrets, v.Name+"="+v.Secret.SecretName)
				}
			}
			if p.Labels[apicommon.LabelPodClique] == "ordered-0-c" || p.Labels[apicommon.LabelPodClique] == "ordered-1-c" {
				Expect(initc).To(BeEmpty(), p.Name)
				continue
			}
			Expect(initc).To(Equal([]string{apicommon.InitContainerName}), p.Name)
			Expect(secrets).To(ContainElement("sa-token-secret-vol="+apicommon.InitcTokenSecretName("ordered")), p.Name)
		}

		By("the set without startup dependencies has none, and no grove-initc")
		free := initcAccessOf(ns, "free")
		Consistently(presentOf(free), 5*time.Second).Should(BeEmpty())
		for _, p := range listPods(Default, ns, "free") {
			Expect(p.Spec.InitContainers).To(BeEmpty(), p.Name)
		}

		By("the four objects an older Grove created for it are removed at its next sync")
		set := pcsRef(ns, "free")
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		owner := metav1.OwnerReference{APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodCliqueSet", Name: set.Name, UID: set.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
		for _, key := range []string{"ServiceAccount free", "Role grove.io:pcs:free", "RoleBinding grove.io:pcs:free", "Secret free-ic-sat"} {
			obj := free[key]
			Expect(obj).NotTo(BeNil(), key)
			obj.SetOwnerReferences([]metav1.OwnerReference{owner})
			Expect(k8s.Create(ctx, obj)).To(Succeed(), key)
		}
		Eventually(func() error {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			set.Annotations = map[string]string{apicommon.AnnotationReconcileTrigger: "older-grove"}
			return k8s.Update(ctx, set)
		}).Should(Succeed())
		// The operator deletes the ServiceAccount, Role and RoleBinding;
		// kube-controller-manager's token controller the ServiceAccount's
		// token Secret.
		Eventually(presentOf(free)).WithTimeout(time.Minute).Should(BeEmpty())
		Consistently(presentOf(ordered), 3*time.Second).Should(ConsistOf(keysOf(ordered)), "the ordered set keeps its own")
	})
})
