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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// podGangGroups returns the group names of a PodGang.
func podGangGroups(g Gomega, ns, name string) []string {
	pg := &groveschedulerv1alpha1.PodGang{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
	var out []string
	for _, grp := range pg.Spec.PodGroups {
		out = append(out, grp.Name)
	}
	return out
}

// statusOf reads "status/reason" of a condition of a PodClique or scaling group.
func statusOf(g Gomega, obj client.Object, t string) string {
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	var conds []metav1.Condition
	switch o := obj.(type) {
	case *grovecorev1alpha1.PodClique:
		conds = o.Status.Conditions
	case *grovecorev1alpha1.PodCliqueScalingGroup:
		conds = o.Status.Conditions
	}
	for _, c := range conds {
		if c.Type == t {
			return string(c.Status) + "/" + c.Reason
		}
	}
	return ""
}

func availableReplicas(g Gomega, ns, name string) int32 {
	pcs := pcsRef(ns, name)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcs), pcs)).To(Succeed())
	return pcs.Status.AvailableReplicas
}

var _ = Describe("Scale to zero", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(0, gangPoolSize) })

	It("parks a clique and then a scaling group at zero with kubectl scale while the rest keeps running, and brings them back", func() {
		ns := newNamespace("zero")
		schedulableGangNodes(10, gangPoolSize)
		createPCS(wl2gt, ns)
		full := gangLayout("gang-wl2-gt", 0, 2)
		expectRunningLayout(ns, "gang-wl2-gt", full, gangNode)
		podsBefore := podUIDsByName(Default, ns, "gang-wl2-gt")
		base := apicommon.BasePodGangName("gang-wl2-gt", 0)
		allGroups := []string{"gang-wl2-gt-0-pc-a", "gang-wl2-gt-0-sg-x-0-pc-b", "gang-wl2-gt-0-sg-x-0-pc-c"}
		Expect(podGangGroups(Default, ns, base)).To(Equal(allGroups))
		Eventually(func(g Gomega) int32 { return availableReplicas(g, ns, "gang-wl2-gt") }).Should(BeEquivalentTo(1))

		By("kubectl scale pclq gang-wl2-gt-0-pc-a --replicas=0")
		pcA := pclqRef(ns, "gang-wl2-gt-0-pc-a")
		kubectl("scale", "pclq", "-n", ns, pcA.Name, "--replicas=0")
		noA := map[string]int{}
		for k, v := range full {
			if k != pcA.Name {
				noA[k] = v
			}
		}
		expectRunningLayout(ns, "gang-wl2-gt", noA, gangNode)
		Eventually(func(g Gomega) []string { return podGangGroups(g, ns, base) }).Should(Equal(allGroups[1:]))
		Eventually(func(g Gomega) string { return statusOf(g, pcA, grovecorev1alpha1.ConditionTypeMinAvailableBreached) }).Should(Equal("False/ScaledToZero"))
		Consistently(func(g Gomega) {
			g.Expect(availableReplicas(g, ns, "gang-wl2-gt")).To(BeEquivalentTo(1))
			g.Expect(survivors(podsBefore, podUIDsByName(g, ns, "gang-wl2-gt"))).To(Equal(withPrefix(podsBefore, "gang-wl2-gt-0-sg-x-")))
		}).WithTimeout(gtDelay+2*time.Second).Should(Succeed(), "the other 8 pods keep running, nothing is recreated")

		By("kubectl scale pclq gang-wl2-gt-0-pc-a --replicas=2: the group rejoins and two new pods run")
		kubectl("scale", "pclq", "-n", ns, pcA.Name, "--replicas=2")
		expectRunningLayout(ns, "gang-wl2-gt", full, gangNode)
		Eventually(func(g Gomega) []string { return podGangGroups(g, ns, base) }).Should(Equal(allGroups))
		Eventually(func(g Gomega) string { return statusOf(g, pcA, grovecorev1alpha1.ConditionTypeMinAvailableBreached) }).Should(Equal("False/SufficientReadyPods"))
		Expect(survivors(podsBefore, podUIDsByName(Default, ns, "gang-wl2-gt"))).To(Equal(withPrefix(podsBefore, "gang-wl2-gt-0-sg-x-")))
		podsBefore = podUIDsByName(Default, ns, "gang-wl2-gt")

		By("kubectl scale pcsg gang-wl2-gt-0-sg-x --replicas=0: its PodCliques, pods, groups and scaled PodGang go")
		sgX := pcsgRef(ns, "gang-wl2-gt-0-sg-x")
		kubectl("scale", "pcsg", "-n", ns, sgX.Name, "--replicas=0")
		expectRunningLayout(ns, "gang-wl2-gt", map[string]int{pcA.Name: 2}, gangNode)
		Eventually(func(g Gomega) []string { return podCliqueNames(g, ns, "gang-wl2-gt") }).Should(Equal([]string{pcA.Name}))
		Eventually(func(g Gomega) []string { return podGangGroups(g, ns, base) }).Should(Equal(allGroups[:1]))
		Eventually(func(g Gomega) string { return statusOf(g, sgX, grovecorev1alpha1.ConditionTypeMinAvailableBreached) }).Should(Equal("False/ScaledToZero"))
		Eventually(func(g Gomega) []string {
			list := &groveschedulerv1alpha1.PodGangList{}
			g.Expect(k8s.List(ctx, list, partOf(ns, "gang-wl2-gt")...)).To(Succeed())
			var names []string
			for _, pg := range list.Items {
				names = append(names, pg.Name)
			}
			return names
		}).Should(Equal([]string{base}))
		Consistently(func(g Gomega) {
			g.Expect(availableReplicas(g, ns, "gang-wl2-gt")).To(BeEquivalentTo(1))
			g.Expect(survivors(podsBefore, podUIDsByName(g, ns, "gang-wl2-gt"))).To(Equal(withPrefix(podsBefore, pcA.Name)))
		}).WithTimeout(gtDelay+2*time.Second).Should(Succeed(), "pc-a keeps running")

		By("kubectl scale pcsg gang-wl2-gt-0-sg-x --replicas=2: both replicas come back and run")
		kubectl("scale", "pcsg", "-n", ns, sgX.Name, "--replicas=2")
		expectDistinctNodes(expectRunningLayout(ns, "gang-wl2-gt", full, gangNode))
		Eventually(func(g Gomega) []string { return podGangGroups(g, ns, base) }).Should(Equal(allGroups))
		Eventually(func(g Gomega) string { return statusOf(g, sgX, grovecorev1alpha1.ConditionTypeMinAvailableBreached) }).
			Should(Equal("False/SufficientAvailablePodCliqueScalingGroupReplicas"))
		Expect(survivors(podsBefore, podUIDsByName(Default, ns, "gang-wl2-gt"))).To(Equal(withPrefix(podsBefore, pcA.Name)))
		msgs, _ := terminationEvents(Default, ns, "PodCliqueSetReplicaDeleteSuccessful")
		Expect(msgs).To(BeEmpty())
	})
})

var _ = Describe("Scale to zero under an HPA", func() {
	It("an autoScalingConfig with minReplicas 0 gets an HPA with minReplicas 1 that leaves the parked clique at zero", func() {
		ns := newNamespace("zero-hpa")
		createPCS("test/testdata/e2e/scale-to-zero-hpa.yaml", ns)
		expectRunningLayout(ns, "parked", map[string]int{"parked-0-frontend": 1, "parked-0-decode": 2}, fakeNodeName)
		hpa := &autoscalingv2.HorizontalPodAutoscaler{}
		Eventually(func() error { return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "parked-0-decode"}, hpa) }).Should(Succeed())
		Expect(*hpa.Spec.MinReplicas).To(BeEquivalentTo(1))
		Expect(hpa.Spec.MaxReplicas).To(BeEquivalentTo(4))
		frontend := podUIDsByName(Default, ns, "parked")

		By("kubectl scale pclq parked-0-decode --replicas=0: the HPA reports scaling disabled and keeps it at zero")
		decode := pclqRef(ns, "parked-0-decode")
		kubectl("scale", "pclq", "-n", ns, decode.Name, "--replicas=0")
		expectRunningLayout(ns, "parked", map[string]int{"parked-0-frontend": 1}, fakeNodeName)
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(hpa), hpa)).To(Succeed())
			for _, c := range hpa.Status.Conditions {
				if c.Type == autoscalingv2.ScalingActive {
					return string(c.Status) + "/" + c.Reason
				}
			}
			return ""
		}).Should(Equal("False/ScalingDisabled"))
		Consistently(func(g Gomega) int32 { return currentScale(g, decode) }).WithTimeout(12 * time.Second).Should(BeZero())
		Expect(survivors(frontend, podUIDsByName(Default, ns, "parked"))).To(Equal(withPrefix(frontend, "parked-0-frontend")))

		By("kubectl scale pclq parked-0-decode --replicas=3: decode runs again")
		kubectl("scale", "pclq", "-n", ns, decode.Name, "--replicas=3")
		expectRunningLayout(ns, "parked", map[string]int{"parked-0-frontend": 1, "parked-0-decode": 3}, fakeNodeName)
	})
})
