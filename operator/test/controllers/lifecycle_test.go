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
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset"
	"github.com/grove-project/grove/operator/internal/manager"
	"github.com/grove-project/grove/operator/internal/metrics"
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

// setChildCounts counts, per kind, the objects labelled part of the set
// in ns; lists makes an empty list of each kind.
func setChildCounts(ns, set string, lists map[string]func() client.ObjectList) func(Gomega) map[string]int {
	return func(g Gomega) map[string]int {
		out := map[string]int{}
		for kind, newList := range lists {
			list := newList()
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: set})).To(Succeed())
			out[kind] = meta.LenList(list)
		}
		return out
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
		counts := setChildCounts(ns, "gone", map[string]func() client.ObjectList{
			"PodCliqueScalingGroup": func() client.ObjectList { return &grovecorev1alpha1.PodCliqueScalingGroupList{} },
			"PodClique":             func() client.ObjectList { return &grovecorev1alpha1.PodCliqueList{} },
			"PodGang":               func() client.ObjectList { return &groveschedulerv1alpha1.PodGangList{} },
			"Service":               func() client.ObjectList { return &corev1.ServiceList{} },
			"Pod":                   func() client.ObjectList { return &corev1.PodList{} },
		})
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

	It("deletes a deleted set's PodGangs and Services only once none of its PodCliques is left", func() {
		// envtest runs no garbage collector: whatever goes, the operator deleted.
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onePodPCS(ns, "held", ""))).To(Succeed())
		Eventually(podGangs(ns, "held")).Should(Equal([]string{"held-0"}))
		const hold = "test.grove.io/hold"
		pclq := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "held-0-c"}, pclq)).To(Succeed())
		pclq.Finalizers = append(pclq.Finalizers, hold)
		Expect(k8sClient.Update(ctx, pclq)).To(Succeed())
		counts := setChildCounts(ns, "held", map[string]func() client.ObjectList{
			"PodGang": func() client.ObjectList { return &groveschedulerv1alpha1.PodGangList{} },
			"Service": func() client.ObjectList { return &corev1.ServiceList{} },
			"Pod":     func() client.ObjectList { return &corev1.PodList{} },
		})
		Eventually(counts).Should(Equal(map[string]int{"PodGang": 1, "Service": 1, "Pod": 1}))

		Expect(k8sClient.Delete(ctx, getPCS(ns, "held")())).To(Succeed())
		By("the PodClique is deleted and drains its pod; its PodGang and Service stay while it is left")
		Eventually(counts).Should(Equal(map[string]int{"PodGang": 1, "Service": 1, "Pod": 0}))
		Eventually(func(g Gomega) []string {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pclq), pclq)).To(Succeed())
			g.Expect(pclq.DeletionTimestamp).NotTo(BeNil())
			return pclq.Finalizers
		}).Should(Equal([]string{hold}), "the operator released the drained PodClique")
		Consistently(counts, "2s").Should(Equal(map[string]int{"PodGang": 1, "Service": 1, "Pod": 0}))

		By("the last PodClique gone, the PodGang and the Service go")
		pclq.Finalizers = nil
		Expect(k8sClient.Update(ctx, pclq)).To(Succeed())
		Eventually(counts).Should(Equal(map[string]int{"PodGang": 0, "Service": 0, "Pod": 0}))
	})

	It("stops the sync of a PodCliqueSet deleted while the sync creates its children", func() {
		const replicas = 400
		ns := newNamespace()
		// The operator's own count of the PodCliques it created (an apply
		// that creates is answered 201); the specs run one at a time, so
		// those of this spec.
		createdPodCliques := func() int {
			return int(promtestutil.ToFloat64(metrics.APIRequests.WithLabelValues("PATCH", "podcliques", "201")))
		}
		before := createdPodCliques()
		pcs := onePodPCS(ns, "big", "")
		pcs.Spec.Replicas = replicas
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(createdPodCliques).Should(BeNumerically(">", before))
		Expect(k8sClient.Delete(ctx, pcs)).To(Succeed())

		// envtest runs no garbage collector: the operator deletes what the
		// sync created before it stopped.
		Eventually(func(g Gomega) {
			list := &grovecorev1alpha1.PodCliqueList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(list.Items).To(BeEmpty())
		}, "2m").Should(Succeed())
		Consistently(createdPodCliques, "2s").Should(BeNumerically("<", before+replicas), "the sync went on creating PodCliques of the deleted set")
	})

	It("leaves the children of a set the API server still has when its cache no longer shows it", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, onePodPCS(ns, "stale", ""))).To(Succeed())
		Eventually(podGangs(ns, "stale")).Should(Equal([]string{"stale-0"}))
		partOf := client.MatchingLabels{apicommon.LabelPartOfKey: "stale"}
		uids := func() map[types.UID]bool {
			out := map[types.UID]bool{}
			for _, list := range []client.ObjectList{&grovecorev1alpha1.PodCliqueList{}, &groveschedulerv1alpha1.PodGangList{}} {
				Expect(k8sClient.List(ctx, list, client.InNamespace(ns), partOf)).To(Succeed())
				Expect(meta.EachListItem(list, func(o runtime.Object) error {
					if m, ok := o.(client.Object); ok && m.GetDeletionTimestamp() == nil {
						out[m.GetUID()] = true
					}
					return nil
				})).To(Succeed())
			}
			return out
		}
		Eventually(func() int { return len(uids()) }).Should(Equal(2))
		before := uids()

		// A client whose cache lost the set: a Get of it answers NotFound.
		direct, err := client.NewWithWatch(restCfg, client.Options{Scheme: manager.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		stale := interceptor.NewClient(direct, interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				_, typed := obj.(*grovecorev1alpha1.PodCliqueSet)
				if m, ok := obj.(*metav1.PartialObjectMetadata); typed || ok && m.Kind == "PodCliqueSet" {
					return apierrors.NewNotFound(grovecorev1alpha1.Resource("podcliquesets"), key.Name)
				}
				return c.Get(ctx, key, obj, opts...)
			},
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				return c.List(ctx, list, labelsForIndexes(opts)...)
			},
		})
		cfg := testConfig()
		backends, err := backend.NewRegistry(cfg)
		Expect(err).NotTo(HaveOccurred())
		deps := childsync.Deps{Client: stale, Scheme: manager.Scheme(), Recorder: &events.FakeRecorder{}, FieldManager: childsync.PodCliqueSetFieldManager}
		req := podcliqueset.SetLevel(client.ObjectKey{Namespace: ns, Name: "stale"})

		By("the API server answers that the set exists: nothing is deleted")
		_, err = podcliqueset.NewReconciler(stale, k8sClient, deps, cfg, backends).Reconcile(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(uids()).To(Equal(before))

		By("a reader as stale as the cache would delete them, the PodClique first")
		pclq := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "stale-0-c"}, pclq)).To(Succeed())
		Expect(before).To(HaveKey(pclq.UID))
		_, err = podcliqueset.NewReconciler(stale, stale, deps, cfg, backends).Reconcile(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		// The PodGang would go once no PodClique of the set is left; the
		// running manager recreates the PodClique of the existing set.
		Eventually(uids).ShouldNot(HaveKey(pclq.UID))
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
