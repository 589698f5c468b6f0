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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/grove-project/grove/operator/internal/index"
)

var _ = Describe("Manager cache", func() {
	It("holds other Services with their identity and owners only, and Grove's whole", func() {
		ns := newNamespace()
		grove := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "grove-svc", Namespace: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "grove-operator"}},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "grove"}}}
		other := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "other-svc", Namespace: ns, Labels: map[string]string{"app": "mine"},
			Annotations: map[string]string{"note": "mine"}},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "mine"}}}
		Expect(k8sClient.Create(ctx, other)).To(Succeed())
		Expect(k8sClient.Create(ctx, grove)).To(Succeed())
		cached := &corev1.Service{}
		Eventually(func() error { return cachedClient.Get(ctx, client.ObjectKeyFromObject(grove), cached) }).Should(Succeed())
		Expect(cached.Spec.Selector).To(Equal(grove.Spec.Selector))
		Eventually(func() error { return cachedClient.Get(ctx, client.ObjectKeyFromObject(other), cached) }).Should(Succeed())
		Expect(cached.UID).To(Equal(other.UID))
		Expect(cached.Labels).To(Equal(other.Labels))
		Expect(cached.Annotations).To(BeEmpty())
		Expect(cached.ManagedFields).To(BeEmpty())
		Expect(cached.Spec).To(Equal(corev1.ServiceSpec{}))
	})

	It("holds Grove's pods without managed fields, containers or volumes, and the other objects whole", func() {
		ns := newNamespace()
		managed := map[string]string{"app.kubernetes.io/managed-by": "grove-operator"}
		gates := []corev1.PodSchedulingGate{{Name: "grove.io/podgang-pending-creation"}}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "grove-pod", Namespace: ns, Labels: managed},
			Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "grove-initc", Image: "grove-initc"}},
				Containers:     []corev1.Container{{Name: "c", Image: "busybox"}},
				Volumes:        []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				Hostname:       "grove-pod", Subdomain: "grove-svc",
				SchedulingGates: gates,
			}}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "grove-svc", Namespace: ns, Labels: managed},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		Expect(k8sClient.Create(ctx, svc)).To(Succeed())
		Expect(pod.ManagedFields).NotTo(BeEmpty(), "the API server records the create")

		cachedPod, cachedSvc := &corev1.Pod{}, &corev1.Service{}
		Eventually(func() error { return cachedClient.Get(ctx, client.ObjectKeyFromObject(pod), cachedPod) }).Should(Succeed())
		Expect(cachedPod.ManagedFields).To(BeEmpty())
		Expect(cachedPod.Labels).To(Equal(managed))
		Expect(cachedPod.Spec.InitContainers).To(BeEmpty())
		Expect(cachedPod.Spec.Containers).To(BeEmpty())
		Expect(cachedPod.Spec.Volumes).To(BeEmpty())
		// What the controllers read stays.
		Expect(cachedPod.Spec.Hostname).To(Equal("grove-pod"))
		Expect(cachedPod.Spec.Subdomain).To(Equal("grove-svc"))
		Expect(cachedPod.Spec.SchedulingGates).To(Equal(gates))
		Expect(cachedPod.UID).To(Equal(pod.UID))
		Eventually(func() error { return cachedClient.Get(ctx, client.ObjectKeyFromObject(svc), cachedSvc) }).Should(Succeed())
		Expect(cachedSvc.ManagedFields).NotTo(BeEmpty(), "server-side applied children are read with their managed fields")
	})

	It("answers a list by PodCliqueSet name with that set's children only", func() {
		ns := newNamespace()
		for _, o := range []struct{ name, set string }{{"a-0", "a"}, {"a-1", "a"}, {"ab-0", "ab"}, {"b-0", "b"}} {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: ns, Labels: map[string]string{
				"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": o.set}},
				Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
			Expect(k8sClient.Create(ctx, svc)).To(Succeed())
		}
		names := func(opts ...client.ListOption) []string {
			list := &corev1.ServiceList{}
			Expect(cachedClient.List(ctx, list, append([]client.ListOption{client.InNamespace(ns)}, opts...)...)).To(Succeed())
			var out []string
			for _, s := range list.Items {
				out = append(out, s.Name)
			}
			return out
		}
		Eventually(func() []string { return names() }).Should(HaveLen(4))
		Expect(names(index.InSet("a"))).To(ConsistOf("a-0", "a-1"))
		Expect(names(index.InSet("ab"))).To(ConsistOf("ab-0"))
		Expect(names(index.InSet("a"), client.MatchingLabels{"app.kubernetes.io/part-of": "a"})).To(ConsistOf("a-0", "a-1"))
		Expect(names(index.InSet("c"))).To(BeEmpty())
	})
})
