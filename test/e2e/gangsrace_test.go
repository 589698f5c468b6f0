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
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gangsRaceRounds is how many rounds GR1 runs per scheduler
// (E2E_GANGS_RACE_ROUNDS; make e2e-gangs-race ROUNDS=N sets it).
func gangsRaceRounds() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_GANGS_RACE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// Competing gangs: three 4-pod gangs created at once on 10 one-pod nodes, so
// that two fit and the third cannot. Every round must end with each gang
// fully bound or not bound at all, and with two gangs bound, on grove-scheduler
// and on stock kube-scheduler's Workload API gang scheduling alike.
var _ = Describe("Competing gangs", Ordered, func() {
	const nodes, gangs, gangSize = 10, 3, 4
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(nodes, gangPoolSize) })

	for _, scheduler := range []string{"grove-scheduler", "default-scheduler"} {
		It(fmt.Sprintf("GR1 (%s): %d gangs of %d pods created at once on %d nodes end every round with each gang fully bound or not at all", scheduler, gangs, gangSize, nodes), func() {
			ns := newNamespace("gr1")
			rounds := gangsRaceRounds()
			want := []int{gangSize, gangSize, 0}
			for round := 1; round <= rounds; round++ {
				By(fmt.Sprintf("round %d of %d", round, rounds))
				var names []string
				for i := range gangs {
					pcs := loadPCS(workloadGang)
					pcs.Name, pcs.Namespace = fmt.Sprintf("race-%03d-%c", round, 'a'+i), ns
					for c := range pcs.Spec.Template.Cliques {
						spec := &pcs.Spec.Template.Cliques[c].Spec.PodSpec
						spec.SchedulerName = scheduler
						spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
					}
					Expect(k8s.Create(ctx, pcs)).To(Succeed())
					names = append(names, pcs.Name)
				}
				boundPerGang := func(g Gomega) []int {
					var n []int
					for _, name := range names {
						n = append(n, len(bound(listPods(g, ns, name))))
					}
					slices.Sort(n)
					slices.Reverse(n)
					return n
				}
				Eventually(boundPerGang).WithTimeout(2*time.Minute).WithPolling(250*time.Millisecond).Should(Equal(want), "round %d", round)
				Consistently(boundPerGang).WithTimeout(2*time.Second).WithPolling(250*time.Millisecond).Should(Equal(want), "round %d ended with a partially bound gang", round)
				for _, name := range names {
					Expect(client.IgnoreNotFound(k8s.Delete(ctx, pcsRef(ns, name)))).To(Succeed())
				}
				Eventually(func(g Gomega) int {
					n := 0
					for _, name := range names {
						n += len(listPods(g, ns, name))
					}
					return n
				}).WithTimeout(2 * time.Minute).Should(BeZero())
			}
			GinkgoWriter.Printf("GR1 %s: %d rounds, 0 partially bound gangs\n", scheduler, rounds)
		})
	}
})
