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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

var _ = Describe("Manager client", func() {
	It("deletes with the caller's preconditions and reports the API server's errors", func() {
		ns := newNamespace()
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0", Namespace: ns},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
		Expect(k8sClient.Create(ctx, svc)).To(Succeed())

		By("a resourceVersion precondition the stored Service does not meet is a conflict")
		stale := "1"
		err := cachedClient.Delete(ctx, svc, client.Preconditions{UID: &svc.UID, ResourceVersion: &stale})
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "got %v", err)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(svc), &corev1.Service{})).To(Succeed())

		By("another UID is a conflict too")
		other := types.UID("00000000-0000-0000-0000-000000000000")
		err = cachedClient.Delete(ctx, svc, client.Preconditions{UID: &other})
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "got %v", err)

		By("the stored version and UID delete it")
		Expect(cachedClient.Delete(ctx, svc, client.Preconditions{UID: &svc.UID, ResourceVersion: &svc.ResourceVersion})).To(Succeed())
		err = k8sClient.Get(ctx, client.ObjectKeyFromObject(svc), &corev1.Service{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)

		By("deleting it again is not found")
		err = cachedClient.Delete(ctx, svc)
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)
	})

	It("deletes Grove's custom resources with the propagation policy asked for", func() {
		ns := newNamespace()
		pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "simple1-0", Namespace: ns, Finalizers: []string{"example.com/hold"}},
			Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{Name: "simple1-0-pca", MinReplicas: 1}}}}
		Expect(k8sClient.Create(ctx, pg)).To(Succeed())
		Expect(cachedClient.Delete(ctx, pg, client.PropagationPolicy(metav1.DeletePropagationForeground), client.GracePeriodSeconds(0))).To(Succeed())
		// The finalizer holds it: the API server recorded the deletion with the
		// foreground policy's own finalizer beside the example one.
		stored := &groveschedulerv1alpha1.PodGang{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), stored)).To(Succeed())
		Expect(stored.DeletionTimestamp).NotTo(BeNil())
		Expect(stored.Finalizers).To(ConsistOf("example.com/hold", metav1.FinalizerDeleteDependents))
		Expect(stored.DeletionGracePeriodSeconds).To(Equal(ptr.To[int64](0)))
		stored.Finalizers = nil
		Expect(k8sClient.Update(ctx, stored)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), &groveschedulerv1alpha1.PodGang{}))
		}).Should(BeTrue())
	})
})
