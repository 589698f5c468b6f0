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

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/gang/core"
	"github.com/grove-project/grove/scheduler/test/harness"
)

var _ = Describe("Gang placement and the per-pod filters", func() {
	It("binds no pod of a one-pod-per-host gang on fewer hosts than pods, and every pod once enough hosts exist", func() {
		ns := newNamespace("spread")
		// Each host has room for all four pods: only the anti-affinity keeps them apart.
		capacity := harness.Resources("cpu", "8", "pods", "110", gpu, "8")
		createNodes(ns, 3, capacity, nil)
		groups := []group{{name: "worker", pods: 4, min: 4, requests: gpus("1")}}
		pods := gangPods(ns, ns, "spread", "", groups...)
		for _, p := range pods {
			p.Labels["app"] = "spread-worker"
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread-worker"}},
					TopologyKey:   corev1.LabelHostname,
				}},
			}}
		}
		createPods(pods)
		createPodGang(newPodGang(ns, "spread", "", "", groups...))

		By("refusing the gang before any pod takes a node, naming the anti-affinity")
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "spread"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, core.ReasonUnschedulable)
			g.Expect(c.Message).To(Equal("group worker needs 4 pods with 1 nvidia.com/gpu, 100m cpu, 3 fit (nodes refused by pod anti-affinity)"))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Equal(0))

		By("binding all four pods on four hosts once a fourth host joins")
		createNodes(ns+"-more", 1, capacity, func(int) map[string]string { return map[string]string{poolLabel: ns} })
		var bound map[string]string
		Eventually(func() int { bound = boundPods(ns, allNames(pods)); return len(bound) }, 20*time.Second, 100*time.Millisecond).Should(Equal(4))
		hosts := map[string]bool{}
		for _, node := range bound {
			hosts[node] = true
		}
		Expect(hosts).To(HaveLen(4), "pods share hosts: %v", bound)
	})
})
