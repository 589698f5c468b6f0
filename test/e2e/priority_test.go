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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

var _ = Describe("Pod priority", func() {
	It("pods run at the PodCliqueSet template's PriorityClass unless their clique names its own", func() {
		classes := map[string]int32{"grove-e2e-inference": 1000000, "grove-e2e-batch": 100}
		for name, value := range classes {
			pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
			Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, pc))).To(Succeed())
			DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, pc))).To(Succeed()) })
		}
		ns := newNamespace("prio")
		createPCS("test/testdata/e2e/priority.yaml", ns)
		pods := expectRunningLayout(ns, "prio", map[string]int{"prio-0-frontend": 2, "prio-0-batch": 1}, fakeNodeName)
		want := map[string]string{"prio-0-frontend": "grove-e2e-inference", "prio-0-batch": "grove-e2e-batch"}
		for _, p := range pods {
			class := want[p.Labels[apicommon.LabelPodClique]]
			Expect(p.Spec.PriorityClassName).To(Equal(class), "pod %s", p.Name)
			Expect(p.Spec.Priority).To(HaveValue(Equal(classes[class])), "pod %s priority", p.Name)
		}
		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.BasePodGangName("prio", 0)}, pg)).To(Succeed())
		Expect(pg.Spec.PriorityClassName).To(Equal("grove-e2e-inference"))
	})
})
