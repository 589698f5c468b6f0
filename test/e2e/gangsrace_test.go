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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gangsRaceRounds is how many rounds GR1 runs (E2E_GANGS_RACE_ROUNDS; make
// e2e-gangs-race ROUNDS=N sets it).
func gangsRaceRounds() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_GANGS_RACE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// Competing gangs: three 4-pod gangs created at once on 10 one-pod nodes, so
// that two fit and the third cannot. Every round must end with each gang
// fully bound or not bound at all, and with two gangs bound. grove-scheduler
// and stock kube-scheduler's Workload API gang scheduling (default-scheduler)
// race in the same round, each on its own 10 nodes of the gang pool.
var _ = Describe("Competing gangs", Ordered, func() {
	const perScheduler, gangs, gangSize = 10, 3, 4
	schedulers := []string{"grove-scheduler", "default-scheduler"}
	BeforeAll(func() { createGangPool(gangPoolSize) })
	BeforeEach(func() { schedulableGangNodes(perScheduler*len(schedulers), gangPoolSize) })

	It(fmt.Sprintf("GR1: %d gangs of %d pods created at once on %d nodes end every round with each gang fully bound or not at all, on grove-scheduler and on kube-scheduler's Workload API", gangs, gangSize, perScheduler), func() {
		ns := newNamespace("gr1")
		rounds := gangsRaceRounds()
		want := []int{gangSize, gangSize, 0}
		for round := 1; round <= rounds; round++ {
			By(fmt.Sprintf("round %d of %d", round, rounds))
			names := map[string][]string{}
			for si, scheduler := range schedulers {
				var pool []string
				for i := 1; i <= perScheduler; i++ {
					pool = append(pool, gangNodeName(si*perScheduler+i))
				}
				for i := range gangs {
					pcs := loadPCS(workloadGang)
					pcs.Name, pcs.Namespace = fmt.Sprintf("race-%03d-%d%c", round, si, 'a'+i), ns
					for c := range pcs.Spec.Template.Cliques {
						spec := &pcs.Spec.Template.Cliques[c].Spec.PodSpec
						spec.SchedulerName = scheduler
						spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
						spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
							NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
								{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: pool},
							}}},
						}}}
					}
					Expect(k8s.Create(ctx, pcs)).To(Succeed())
					names[scheduler] = append(names[scheduler], pcs.Name)
				}
			}
			boundPerGang := func(g Gomega) map[string][]int {
				out := map[string][]int{}
				for _, scheduler := range schedulers {
					var n []int
					for _, name := range names[scheduler] {
						n = append(n, len(bound(listPods(g, ns, name))))
					}
					slices.Sort(n)
					slices.Reverse(n)
					out[scheduler] = n
				}
				return out
			}
			wantAll := map[string][]int{schedulers[0]: want, schedulers[1]: want}
			Eventually(boundPerGang).WithTimeout(2*time.Minute).WithPolling(250*time.Millisecond).Should(Equal(wantAll), "round %d", round)
			Consistently(boundPerGang).WithTimeout(2*time.Second).WithPolling(250*time.Millisecond).Should(Equal(wantAll), "round %d ended with a partially bound gang", round)
			for _, scheduler := range schedulers {
				for _, name := range names[scheduler] {
					Expect(client.IgnoreNotFound(k8s.Delete(ctx, pcsRef(ns, name)))).To(Succeed())
				}
			}
			Eventually(func(g Gomega) []corev1.Pod {
				pods := &corev1.PodList{}
				g.Expect(k8s.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
				return pods.Items
			}).WithTimeout(2 * time.Minute).Should(BeEmpty())
		}
		GinkgoWriter.Printf("GR1: %d rounds on each of %v, 0 partially bound gangs\n", rounds, schedulers)
	})
})
