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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
)

var _ = Describe("Pod priority", func() {
	It("runs pods at the PodCliqueSet's priorityClassName unless their clique names its own", func() {
		for name, value := range map[string]int32{"gt-inference-high": 100000, "gt-batch-low": 10} {
			pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
			Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, pc))).To(Succeed())
		}
		ns := newNamespace()
		pcs := gtPCS(ns, "prio", gtOptions{replicas: 1, feReplicas: 2, feMin: 2, sgReplicas: 1, sgMin: 1, delay: 4 * time.Hour})
		pcs.Spec.Template.PriorityClassName = "gt-inference-high"
		pcs.Spec.Template.Cliques[1].Spec.PodSpec.PriorityClassName = "gt-batch-low" // ldr
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())

		// clique -> "priorityClassName priority" of each of its pods
		Eventually(func(g Gomega) map[string][]string {
			pods := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "prio"})).To(Succeed())
			got := map[string][]string{}
			for _, p := range pods.Items {
				g.Expect(p.Spec.Priority).NotTo(BeNil(), "pod %s has no priority", p.Name)
				clique := p.Labels[apicommon.LabelPodClique]
				got[clique] = append(got[clique], fmt.Sprintf("%s %d", p.Spec.PriorityClassName, *p.Spec.Priority))
			}
			return got
		}).Should(Equal(map[string][]string{
			"prio-0-fe":       {"gt-inference-high 100000", "gt-inference-high 100000"},
			"prio-0-mn-0-ldr": {"gt-batch-low 10"},
			"prio-0-mn-0-wkr": {"gt-inference-high 100000", "gt-inference-high 100000"},
		}))
		Expect(podGang(ns, "prio-0").Spec.PriorityClassName).To(Equal("gt-inference-high"))
	})
})
