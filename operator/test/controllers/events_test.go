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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

// The events.k8s.io/v1 recorder has no spam filter, so the operator posts one
// event per sync and kind of child rather than one per child.
var _ = Describe("Child events", func() {
	It("names every child a sync created in one event per kind", func() {
		ns := newNamespace()
		pcs := orderedSimple1(ns)
		pcs.Spec.Replicas = 3
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(services(ns, "simple1")).Should(Equal([]string{"simple1-0", "simple1-1", "simple1-2"}))

		// The pass for all replicas creates them in one event, unless a
		// replica's own pass (queued by its first children's events) runs
		// beside it on a busy machine and creates that replica's: either
		// way each Service is named once.
		Eventually(func() []string { return createdNames(eventsWithReason(ns, "ServiceCreateSuccessful")) }).Should(
			ConsistOf("simple1-0", "simple1-1", "simple1-2"))
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "PodCliqueCreateSuccessful")) }).Should(ConsistOf(
			"PodCliqueSet/simple1: Created 6 PodCliques: simple1-0-pca, simple1-0-pcd, simple1-1-pca, simple1-1-pcd, simple1-2-pca, simple1-2-pcd",
			"PodCliqueScalingGroup/simple1-0-sga: Created 2 PodCliques: simple1-0-sga-0-pcb, simple1-0-sga-0-pcc",
			"PodCliqueScalingGroup/simple1-1-sga: Created 2 PodCliques: simple1-1-sga-0-pcb, simple1-1-sga-0-pcc",
			"PodCliqueScalingGroup/simple1-2-sga: Created 2 PodCliques: simple1-2-sga-0-pcb, simple1-2-sga-0-pcc",
		))
		Eventually(func() []string { return createdNames(eventsWithReason(ns, "HorizontalPodAutoscalerCreateSuccessful")) }).Should(
			ConsistOf("simple1-0-pca", "simple1-1-pca", "simple1-2-pca"))
		Expect(eventsWithReason(ns, "PodCliqueCreateSuccessful")[0].Related).To(BeNil(), "an event naming several children has no related object")

		By("a sync that creates a single child names it as the related object")
		var sa []eventsv1.Event
		Eventually(func() []eventsv1.Event { sa = eventsWithReason(ns, "ServiceAccountCreateSuccessful"); return sa }).Should(HaveLen(1))
		Expect(sa[0].Note).To(Equal("Created ServiceAccount " + apicommon.InitcServiceAccountName("simple1")))
		Expect(sa[0].Related).NotTo(BeNil())
		Expect(sa[0].Related.Kind).To(Equal("ServiceAccount"))
		Expect(sa[0].Related.Name).To(Equal(apicommon.InitcServiceAccountName("simple1")))
	})
})

// createdNames lists the children named by "Created <Kind> a" and
// "Created N <Kinds>: a, b" event notes, once per mention.
func createdNames(events []eventsv1.Event) []string {
	var names []string
	for _, e := range events {
		rest := strings.TrimPrefix(e.Note, "Created ")
		if _, list, several := strings.Cut(rest, ": "); several {
			names = append(names, strings.Split(list, ", ")...)
		} else if f := strings.Fields(rest); len(f) == 2 {
			names = append(names, f[1])
		}
	}
	return names
}
