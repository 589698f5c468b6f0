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

package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/test/harness"
)

// foreignGate is a scheduling gate some other controller owns.
const foreignGate = "example.com/hold"

// familyGang builds the pods and the PodGang of one gang of PodCliqueSet pcs,
// labelled part-of like the operator labels them; gate (if any) holds the pods.
func familyGang(ns, pcs, name, gate string, groups ...group) ([]*corev1.Pod, *groveschedulerv1alpha1.PodGang) {
	pods := gangPods(ns, ns, name, "", groups...)
	for _, p := range pods {
		p.Labels[apicommon.LabelPartOfKey] = pcs
		if gate != "" {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: gate}}
		}
	}
	pg := newPodGang(ns, name, "", "", groups...)
	pg.Labels = map[string]string{apicommon.LabelPartOfKey: pcs}
	return pods, pg
}

// liftGates removes every scheduling gate from the pods, as the operator does
// with Grove's gate once a scaled gang may go.
func liftGates(pods []*corev1.Pod) {
	for _, p := range pods {
		cur, err := kube.CoreV1().Pods(p.Namespace).Get(suiteCtx, p.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		cur.Spec.SchedulingGates = nil
		_, err = kube.CoreV1().Pods(p.Namespace).Update(suiteCtx, cur, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

func boundCount(ns string, pods []*corev1.Pod) func() int {
	return func() int { return len(boundPods(ns, allNames(pods))) }
}

var _ = Describe("Best-effort pods and the minimum sets of their PodCliqueSet's other gangs", func() {
	oneGPU := gpus("1")
	node := func(n string) corev1.ResourceList { return harness.Resources("cpu", "8", "pods", "110", gpu, n) }
	// The base gang: minimum set a:1 + b:1, three best-effort pods beyond it.
	baseGroups := []group{{name: "a", pods: 2, min: 1, requests: oneGPU}, {name: "b", pods: 3, min: 1, requests: oneGPU}}

	// placeBase creates the base gang on a node holding exactly its minimum set
	// and returns its minimum-set pods and its best-effort pods.
	placeBase := func(ns string) (minSet, extras []*corev1.Pod) {
		createNodes(ns, 1, node("2"), nil)
		pods, pg := familyGang(ns, "pcs", "pcs-0", "", baseGroups...)
		createPods(pods)
		createPodGang(pg)
		minSet = []*corev1.Pod{pods[0], pods[2]}
		extras = []*corev1.Pod{pods[1], pods[3], pods[4]}
		Eventually(boundCount(ns, minSet), 20*time.Second, 100*time.Millisecond).Should(Equal(2))
		Consistently(boundCount(ns, extras), 2*time.Second, 200*time.Millisecond).Should(Equal(0))
		return minSet, extras
	}

	It("binds a scaled gang's minimum set before the placed base gang's waiting best-effort pods, then the extras", func() {
		ns := newNamespace("yield")
		scaledGroups := []group{{name: "c", pods: 3, min: 2, requests: oneGPU}}
		scaled, scaledPG := familyGang(ns, "pcs", "pcs-0-sg-0", apicommon.PodGangSchedulingGate, scaledGroups...)
		createPods(scaled)
		createPodGang(scaledPG)
		_, extras := placeBase(ns)

		By("lifting Grove's gate of the scaled gang, which does not fit yet")
		liftGates(scaled)
		Consistently(boundCount(ns, scaled), 2*time.Second, 200*time.Millisecond).Should(Equal(0))

		By("adding room for exactly the scaled gang's minimum set")
		createNodes(ns+"-more", 1, node("2"), func(int) map[string]string { return map[string]string{poolLabel: ns} })
		Eventually(boundCount(ns, scaled), 20*time.Second, 100*time.Millisecond).Should(Equal(2))
		Consistently(boundCount(ns, extras), 2*time.Second, 200*time.Millisecond).Should(Equal(0))
		Eventually(func(g Gomega) {
			expectCondition(g, podGang(ns, "pcs-0-sg-0"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled)
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())

		By("adding room for the remainder: the best-effort pods of both gangs bind")
		createNodes(ns+"-rest", 1, node("4"), func(int) map[string]string { return map[string]string{poolLabel: ns} })
		Eventually(boundCount(ns, extras), 20*time.Second, 100*time.Millisecond).Should(Equal(3))
		Eventually(boundCount(ns, scaled), 20*time.Second, 100*time.Millisecond).Should(Equal(3))
	})

	It("still binds best-effort pods when the other gangs cannot fit or are held by a foreign scheduling gate", func() {
		ns := newNamespace("noyield")
		tooBig, tooBigPG := familyGang(ns, "pcs", "pcs-0-sg-0", "", group{name: "c", pods: 3, min: 3, requests: oneGPU})
		held, heldPG := familyGang(ns, "pcs", "pcs-0-sg-1", foreignGate, group{name: "c", pods: 2, min: 2, requests: oneGPU})
		createPods(append(tooBig, held...))
		createPodGang(tooBigPG)
		createPodGang(heldPG)
		_, extras := placeBase(ns)

		By("adding room for two pods: too little for pcs-0-sg-0, enough for the held pcs-0-sg-1")
		createNodes(ns+"-more", 1, node("2"), func(int) map[string]string { return map[string]string{poolLabel: ns} })
		Eventually(boundCount(ns, extras), 20*time.Second, 100*time.Millisecond).Should(Equal(2))
		Consistently(boundCount(ns, extras), 2*time.Second, 200*time.Millisecond).Should(Equal(2))
		Expect(boundCount(ns, tooBig)()).To(Equal(0))
		Expect(boundCount(ns, held)()).To(Equal(0))
	})
})
