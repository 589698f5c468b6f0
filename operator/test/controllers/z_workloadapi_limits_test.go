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
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// The default-scheduler backend fails closed on the Workload API's limits
// that a PodCliqueSet can reach (more than 8 pod groups: see "a gang of more
// pod groups than a Workload holds" in z_scheduler_backends_test.go): the
// PodGang says which limit, the PodCliqueSet gets a Warning event, and no
// Workload or PodGroup is written. Composite templates nested deeper than 4
// and a gang minCount below 1 cannot come from a PodCliqueSet (the
// translation is flat; minAvailable 0 is pod-by-pod scheduling); the unit
// table of operator/internal/backend/workloadapi holds them.
var _ = Describe("Workload API limits on the default-scheduler backend", func() {
	// limitsPCS has one clique lim/wk (one pod group, lim-0-wk) packed as
	// given, in the zone/rack/host binding it creates.
	limitsPCS := func(ns string, set, clique func(binding string) *grovecorev1alpha1.TopologyConstraint) *grovecorev1alpha1.PodCliqueSet {
		ctb := topologyBinding("wl-" + ns)
		Expect(k8sClient.Create(ctx, ctb)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, ctb)).To(Succeed()) })
		pcs := &grovecorev1alpha1.PodCliqueSet{
			ObjectMeta: metav1.ObjectMeta{Name: "lim", Namespace: ns},
			Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "wk", Spec: grovecorev1alpha1.PodCliqueSpec{
					RoleName: "wk", Replicas: 2,
					PodSpec: corev1.PodSpec{SchedulerName: "default-scheduler", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
				}}},
			}},
		}
		if set != nil {
			pcs.Spec.Template.TopologyConstraint = set(ctb.Name)
		}
		if clique != nil {
			pcs.Spec.Template.Cliques[0].TopologyConstraint = clique(ctb.Name)
		}
		return pcs
	}
	expectFailedClosed := func(ns, message string) {
		GinkgoHelper()
		Eventually(scheduledCondition(ns, "lim-0")).Should(Equal("False/BackendMappingFailed/scheduler backend default-scheduler: " + message))
		Eventually(warningEvents(ns, "lim")).Should(ContainElement("BackendMappingFailed: PodGang lim-0: scheduler backend default-scheduler: " + message))
		Consistently(func() []string { return workloadAPIObjects(ns) }, "2s").Should(BeEmpty())
	}

	It("a preferred constraint: the PodGang says the Workload API has required placement only, nothing is written", func() {
		ns := backendNamespace()
		Expect(k8sClient.Create(ctx, limitsPCS(ns, nil, func(b string) *grovecorev1alpha1.TopologyConstraint { return packConstraint(b, nil, &rack) }))).To(Succeed())
		expectFailedClosed(ns, "pod group lim-0-wk prefers packing by example.com/rack; the Workload API has required placement only")
	})

	It("two required keys on one pod group: the PodGang says a PodGroup takes one, nothing is written", func() {
		ns := backendNamespace()
		Expect(k8sClient.Create(ctx, limitsPCS(ns,
			func(b string) *grovecorev1alpha1.TopologyConstraint { return packConstraint(b, &zone, nil) },
			func(string) *grovecorev1alpha1.TopologyConstraint { return packConstraint("", &rack, nil) }))).To(Succeed())
		expectFailedClosed(ns, "pod group lim-0-wk is packed by 2 keys (topology.kubernetes.io/zone, example.com/rack); a PodGroup takes one required key")
	})

	It("one required key: the PodGroup carries it", func() {
		ns := backendNamespace()
		Expect(k8sClient.Create(ctx, limitsPCS(ns, nil, func(b string) *grovecorev1alpha1.TopologyConstraint { return packConstraint(b, &rack, nil) }))).To(Succeed())
		Eventually(func() []string { return workloadAPIObjects(ns) }).Should(Equal([]string{
			"PodGroup lim-0-wk: workload lim-0/lim-0-wk, gang minCount 2, owner PodGang/lim-0",
			"Workload lim-0: controllerRef scheduler.grove.io/PodGang/lim-0, templates [lim-0-wk:2], owner PodGang/lim-0",
		}))
		g := &schedulingv1beta1.PodGroup{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "lim-0-wk"}, g)).To(Succeed())
		Expect(g.Spec.SchedulingConstraints).To(Equal(&schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "example.com/rack"}}}))
		Eventually(scheduledCondition(ns, "lim-0")).Should(Equal("False/SchedulingPending/kube-scheduler has not placed PodGroups lim-0-wk"))
	})
})
