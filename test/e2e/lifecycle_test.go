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
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const autoscalePCS = "test/testdata/e2e/autoscaling.yaml"

// autoscaleLayout is the running layout of autoscaling.yaml's replica 0.
var autoscaleLayout = map[string]int{
	"autoscale-0-frontend":         2,
	"autoscale-0-workers-0-leader": 1,
	"autoscale-0-workers-0-worker": 2,
}

// hpaSummary is what a spec asserts about one HorizontalPodAutoscaler.
type hpaSummary struct {
	Name, TargetKind, TargetName, TargetAPIVersion string
	Min, Max                                       int32
	ManagedBy, PartOf, Component                   string
}

func listHPAs(g Gomega, ns, pcsName string) []hpaSummary {
	list := &autoscalingv2.HorizontalPodAutoscalerList{}
	g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
	out := make([]hpaSummary, 0, len(list.Items))
	for _, h := range list.Items {
		out = append(out, hpaSummary{
			Name: h.Name, TargetKind: h.Spec.ScaleTargetRef.Kind, TargetName: h.Spec.ScaleTargetRef.Name,
			TargetAPIVersion: h.Spec.ScaleTargetRef.APIVersion,
			Min:              ptr.Deref(h.Spec.MinReplicas, 1), Max: h.Spec.MaxReplicas,
			ManagedBy: h.Labels[apicommon.LabelManagedByKey], PartOf: h.Labels[apicommon.LabelPartOfKey],
			Component: h.Labels[apicommon.LabelComponentKey],
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func expectedHPA(name, kind string, minReplicas, maxReplicas int32) hpaSummary {
	return hpaSummary{
		Name: name, TargetKind: kind, TargetName: name, TargetAPIVersion: grovecorev1alpha1.SchemeGroupVersion.String(),
		Min: minReplicas, Max: maxReplicas,
		ManagedBy: apicommon.LabelManagedByValue, PartOf: "autoscale", Component: apicommon.LabelComponentHPA,
	}
}

var _ = Describe("Autoscaling", func() {
	It("creates an HPA per autoScalingConfig and scaleConfig, per PodCliqueSet replica, and the HPA controller drives /scale", func() {
		ns := newNamespace("hpa")
		createPCS(autoscalePCS, ns)
		expectRunningLayout(ns, "autoscale", autoscaleLayout, fakeNodeName)
		Eventually(func(g Gomega) []hpaSummary { return listHPAs(g, ns, "autoscale") }).Should(Equal([]hpaSummary{
			expectedHPA("autoscale-0-frontend", "PodClique", 2, 4),
			expectedHPA("autoscale-0-workers", "PodCliqueScalingGroup", 1, 3),
		}))

		By("scaling the PodClique below its HPA's minimum through /scale: the HPA controller restores 2")
		frontend := pclqRef(ns, "autoscale-0-frontend")
		scaleTo(frontend, 1)
		Eventually(func(g Gomega) int32 { return currentScale(g, frontend) }).WithTimeout(90 * time.Second).Should(Equal(int32(2)))
		expectRunningLayout(ns, "autoscale", autoscaleLayout, fakeNodeName)

		By("scaling the scaling group above its HPA's maximum through /scale: the HPA controller caps it at 3")
		workers := pcsgRef(ns, "autoscale-0-workers")
		scaleTo(workers, 5)
		Eventually(func(g Gomega) int32 { return currentScale(g, workers) }).WithTimeout(90 * time.Second).Should(Equal(int32(3)))
		expectRunningLayout(ns, "autoscale", map[string]int{
			"autoscale-0-frontend":         2,
			"autoscale-0-workers-0-leader": 1,
			"autoscale-0-workers-0-worker": 2,
			"autoscale-0-workers-1-leader": 1,
			"autoscale-0-workers-1-worker": 2,
			"autoscale-0-workers-2-leader": 1,
			"autoscale-0-workers-2-worker": 2,
		}, fakeNodeName)

		By("scaling the PodCliqueSet to 2: replica 1 gets its own HPAs")
		scaleTo(pcsRef(ns, "autoscale"), 2)
		Eventually(func(g Gomega) []hpaSummary { return listHPAs(g, ns, "autoscale") }).Should(Equal([]hpaSummary{
			expectedHPA("autoscale-0-frontend", "PodClique", 2, 4),
			expectedHPA("autoscale-0-workers", "PodCliqueScalingGroup", 1, 3),
			expectedHPA("autoscale-1-frontend", "PodClique", 2, 4),
			expectedHPA("autoscale-1-workers", "PodCliqueScalingGroup", 1, 3),
		}))

		By("scaling the PodCliqueSet back to 1: replica 1's HPAs are deleted")
		scaleTo(pcsRef(ns, "autoscale"), 1)
		Eventually(func(g Gomega) []hpaSummary { return listHPAs(g, ns, "autoscale") }).Should(Equal([]hpaSummary{
			expectedHPA("autoscale-0-frontend", "PodClique", 2, 4),
			expectedHPA("autoscale-0-workers", "PodCliqueScalingGroup", 1, 3),
		}))
	})
})

var _ = Describe("Cascade deletion", func() {
	It("removes PodCliqueScalingGroups, PodCliques, PodGangs, pods, Services and HPAs when the PodCliqueSet is deleted", func() {
		ns := newNamespace("cascade")
		pcs := createPCS(autoscalePCS, ns)
		expectRunningLayout(ns, "autoscale", autoscaleLayout, fakeNodeName)

		counts := childCounts(ns, "autoscale")
		Eventually(counts).Should(Equal(autoscaleChildren))
		svc := &corev1.Service{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.HeadlessServiceName("autoscale", 0)}, svc)).To(Succeed())
		Expect(svc.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.BasePodGangName("autoscale", 0)}, pg)).To(Succeed())

		By("kubectl delete pcs autoscale")
		Expect(k8s.Delete(ctx, pcs)).To(Succeed())
		Eventually(counts).WithTimeout(90 * time.Second).Should(Equal(map[string]int{
			"PodCliqueScalingGroup": 0, "PodClique": 0, "PodGang": 0, "Pod": 0, "Service": 0, "HorizontalPodAutoscaler": 0,
		}))
		Eventually(func(g Gomega) bool { return isGone(g, pcsRef(ns, "autoscale")) }).Should(BeTrue())
	})

	It("leaves the children of a PodCliqueSet deleted with propagation Orphan, without their owner reference", func() {
		ns := newNamespace("orphan")
		pcs := createPCS(autoscalePCS, ns)
		expectRunningLayout(ns, "autoscale", autoscaleLayout, fakeNodeName)
		counts := childCounts(ns, "autoscale")
		Eventually(counts).Should(Equal(autoscaleChildren))

		By("kubectl delete pcs autoscale --cascade=orphan")
		Expect(k8s.Delete(ctx, pcs, client.PropagationPolicy(metav1.DeletePropagationOrphan))).To(Succeed())
		Eventually(func(g Gomega) bool { return isGone(g, pcsRef(ns, "autoscale")) }).Should(BeTrue())
		// The operator deletes the children of a deleted set, but only those
		// still controlled by it: the garbage collector orphaned these first.
		Consistently(counts).WithTimeout(10 * time.Second).Should(Equal(autoscaleChildren))
		pclqs := &grovecorev1alpha1.PodCliqueList{}
		Expect(k8s.List(ctx, pclqs, partOf(ns, "autoscale")...)).To(Succeed())
		for _, p := range pclqs.Items {
			Expect(p.DeletionTimestamp).To(BeNil(), "PodClique %s", p.Name)
			for _, ref := range p.OwnerReferences {
				Expect(ref.Kind).NotTo(Equal("PodCliqueSet"), "PodClique %s", p.Name)
			}
		}
	})
})

// autoscaleChildren counts, by kind, what the autoscale PodCliqueSet owns
// directly or through its children.
var autoscaleChildren = map[string]int{
	"PodCliqueScalingGroup": 1, "PodClique": 3, "PodGang": 1, "Pod": 5, "Service": 1, "HorizontalPodAutoscaler": 2,
}

// childCounts lists, by kind, the objects labelled as part of a PodCliqueSet.
func childCounts(ns, pcsName string) func(g Gomega) map[string]int {
	return func(g Gomega) map[string]int {
		lists := map[string]client.ObjectList{
			"PodCliqueScalingGroup":   &grovecorev1alpha1.PodCliqueScalingGroupList{},
			"PodClique":               &grovecorev1alpha1.PodCliqueList{},
			"PodGang":                 &groveschedulerv1alpha1.PodGangList{},
			"Pod":                     &corev1.PodList{},
			"Service":                 &corev1.ServiceList{},
			"HorizontalPodAutoscaler": &autoscalingv2.HorizontalPodAutoscalerList{},
		}
		out := map[string]int{}
		for kind, list := range lists {
			g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
			items, err := metaItems(list)
			g.Expect(err).NotTo(HaveOccurred())
			out[kind] = items
		}
		return out
	}
}
