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
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// gangsRaceRounds is how many rounds GR1 runs (E2E_GANGS_RACE_ROUNDS; make
// e2e-gangs-race ROUNDS=N sets it).
func gangsRaceRounds() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_GANGS_RACE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 10
}

// Competing gangs: three 4-pod gangs created at once on 10 one-pod nodes, so
// that two fit and the third cannot. Every round must end with each gang
// fully bound or not bound at all, and with two gangs bound. grove-scheduler
// and stock kube-scheduler's Workload API gang scheduling (default-scheduler)
// race in the same round, each on its own 10 nodes of the gang pool. Rounds
// run gangsRaceLanes at a time, each lane on its own 20 nodes, so 10 rounds
// cost about what 2 did one after the other.
var _ = Describe("Competing gangs", Ordered, func() {
	const perScheduler, gangs, gangSize, lanes = 10, 3, 4, 5
	schedulers := []string{"grove-scheduler", "default-scheduler"}
	perLane := perScheduler * len(schedulers)
	BeforeAll(func() { createGangPool(lanes * perLane) })
	BeforeEach(func() { schedulableGangNodes(lanes*perLane, lanes*perLane) })

	It(fmt.Sprintf("GR1: %d gangs of %d pods created at once on %d nodes end every round with each gang fully bound or not at all, on grove-scheduler and on kube-scheduler's Workload API", gangs, gangSize, perScheduler), func() {
		ns := newNamespace("gr1")
		rounds := gangsRaceRounds()
		want := []int{gangSize, gangSize, 0}
		for first := 1; first <= rounds; first += lanes {
			batch := min(lanes, rounds-first+1)
			By(fmt.Sprintf("rounds %d to %d of %d, one per lane", first, first+batch-1, rounds))
			// names[round][scheduler] are the round's PodCliqueSets per scheduler.
			names := map[int]map[string][]string{}
			var pcss []*grovecorev1alpha1.PodCliqueSet
			for lane := range batch {
				round := first + lane
				names[round] = map[string][]string{}
				for si, scheduler := range schedulers {
					var pool []string
					for i := 1; i <= perScheduler; i++ {
						pool = append(pool, gangNodeName(lane*perLane+si*perScheduler+i))
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
						pcss = append(pcss, pcs)
						names[round][scheduler] = append(names[round][scheduler], pcs.Name)
					}
				}
			}
			// All at once: the gangs race, and one create at a time (each
			// through the webhook) would cost seconds per batch.
			var wg sync.WaitGroup
			errs := make([]error, len(pcss))
			for i, pcs := range pcss {
				wg.Go(func() { errs[i] = k8s.Create(ctx, pcs) })
			}
			wg.Wait()
			Expect(errors.Join(errs...)).To(Succeed())
			// boundPerGang is, per round and scheduler, the bound pods of
			// each gang, most first.
			boundPerGang := func(g Gomega) map[int]map[string][]int {
				pods := &corev1.PodList{}
				g.Expect(k8s.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
				byPCS := map[string]int{}
				for i := range pods.Items {
					if pods.Items[i].Spec.NodeName != "" {
						byPCS[pods.Items[i].Labels[apicommon.LabelPartOfKey]]++
					}
				}
				out := map[int]map[string][]int{}
				for round, perScheduler := range names {
					out[round] = map[string][]int{}
					for scheduler, pcsNames := range perScheduler {
						var n []int
						for _, name := range pcsNames {
							n = append(n, byPCS[name])
						}
						slices.Sort(n)
						slices.Reverse(n)
						out[round][scheduler] = n
					}
				}
				return out
			}
			wantAll := map[int]map[string][]int{}
			for round := range names {
				wantAll[round] = map[string][]int{schedulers[0]: want, schedulers[1]: want}
			}
			By("waiting until every gang is fully bound or has no pod bound")
			Eventually(boundPerGang).WithTimeout(2*time.Minute).WithPolling(250*time.Millisecond).Should(Equal(wantAll), "rounds %d to %d", first, first+batch-1)
			Consistently(boundPerGang).WithTimeout(2*time.Second).WithPolling(250*time.Millisecond).Should(Equal(wantAll), "rounds %d to %d ended with a partially bound gang", first, first+batch-1)
			By("deleting the rounds' PodCliqueSets and waiting for their pods to be gone")
			for _, perScheduler := range names {
				for _, pcsNames := range perScheduler {
					for _, name := range pcsNames {
						Expect(client.IgnoreNotFound(k8s.Delete(ctx, pcsRef(ns, name)))).To(Succeed())
					}
				}
			}
			Eventually(func(g Gomega) []corev1.Pod {
				pods := &corev1.PodList{}
				g.Expect(k8s.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
				return pods.Items
			}).WithTimeout(2 * time.Minute).Should(BeEmpty())
		}
		GinkgoWriter.Printf("GR1: %d rounds on each of %v, %d at a time, 0 partially bound gangs\n", rounds, schedulers, lanes)
	})
})
