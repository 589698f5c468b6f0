//go:build faults

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

package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/test/cluster"
)

const (
	pcsName = "fx"
	// podsPerReplica is what one replica of testdata/workload.yaml runs.
	podsPerReplica = 4
	// confirmAfter is how long the invariants must keep holding, with no
	// object created or deleted, before the cluster counts as quiet.
	confirmAfter = 2 * time.Second
	pollInterval = 250 * time.Millisecond
	// kubeletPatience is how long a pod may wait on kwok before it is nudged.
	kubeletPatience = 15 * time.Second
	// fullCheckEvery is how often the invariants are checked while the pods
	// are not yet where the phase should leave them.
	fullCheckEvery = 10 * time.Second
)

// The two images an update switches between.
var images = [2]string{"busybox:1.36", "busybox:1.37"}

// lifecycle is the PodCliqueSet one fault's rounds work on, carried from
// round to round.
type lifecycle struct {
	ns       string
	exists   bool
	replicas int32
	image    string
}

// The rounds run in the order of the plan (a fault's rounds carry its
// PodCliqueSet from phase to phase), and a failed round does not stop the rest.
var _ = Describe("Fault tolerance", Ordered, ContinueOnFailure, func() {
	faults, err := parseFaults(*flagFaults)
	if err != nil {
		panic(err)
	}
	rounds := plan(seed, faults, *flagRounds)
	for _, f := range faults {
		lc := &lifecycle{}
		Describe(string(f)+" killed", func() {
			for _, r := range rounds[f] {
				It(fmt.Sprintf("round %d/%d: during %s, restarted after %.1fs, every invariant holds once quiet", r.n, r.of, r.phase, r.outage.Seconds()), func() {
					runRound(lc, r)
				})
			}
		})
	}
})

// baseReplicas is the PodCliqueSet's replicas after create; delta is what a
// scale-out adds and a scale-in removes.
func baseReplicas() int32 { return int32(max(1, *flagPods/podsPerReplica)) }
func delta() int32        { return max(1, baseReplicas()/2) }

// workDone is how much of a phase's pod work the counts show, from 0 to 1,
// when the phase goes from before pods to target pods: for growth, each pod
// counts three times (created, bound, Running); for shrinking, once when it
// is being deleted or gone.
func workDone(c cluster.PodCounts, before, target int) float64 {
	switch {
	case target > before:
		grown := (c.Live - before) + (c.Bound - before) + (c.Running - before)
		return float64(grown) / float64(3*(target-before))
	case target < before:
		return float64(before-c.Live) / float64(before-target)
	default:
		return 1
	}
}

// maxInjectionWait bounds the wait for the phase's work to reach the round's
// injection point; a phase stuck before it is hit where it stands.
const maxInjectionWait = 5 * time.Minute

// phaseWork is how much of the phase's pod work is done: for an update, the
// growth of pods with the new image from none to all; otherwise the change
// from before to target pods.
func phaseWork(lc *lifecycle, p phase, watch *cluster.PodWatch, before, target int) (float64, cluster.PodCounts) {
	if p == phaseUpdate {
		c := watch.CountsWithImage(lc.image)
		return workDone(c, 0, target), c
	}
	c := watch.Counts()
	return workDone(c, before, target), c
}

// awaitInjectionPoint waits until the phase has done the round's fraction of
// its work and describes the work done then.
func awaitInjectionPoint(lc *lifecycle, r round, watch *cluster.PodWatch, began time.Time, before, target int) string {
	for {
		done, c := phaseWork(lc, r.phase, watch, before, target)
		if done >= r.injectAt || time.Since(began) >= maxInjectionWait {
			what := ""
			if r.phase == phaseUpdate {
				what = "with " + lc.image + ": "
			}
			return fmt.Sprintf("%s%s, %.0f%% of the work", what, c, 100*min(1, done))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settleTimeout bounds how long the cluster may take to become quiet with
// every invariant holding after the restarted component is healthy: 3
// minutes, and for an update 10 s more per replica, as a rolling update
// replaces one replica after the other.
func settleTimeout(p phase, replicas int32) time.Duration {
	if p == phaseUpdate {
		return 3*time.Minute + time.Duration(replicas)*10*time.Second
	}
	return 3 * time.Minute
}

func runRound(lc *lifecycle, r round) {
	res := &roundResult{Fault: string(r.fault), Round: r.n, Phase: string(r.phase), Seed: seed, Outage: r.outage, Stage: stageSetup}
	// Cleanups run after the spec body, when its report already says whether it failed.
	DeferCleanup(func() {
		res.Failed = CurrentSpecReport().Failed()
		results = append(results, *res)
		fmt.Fprintln(GinkgoWriter, res.line())
		// A failed round leaves its PodCliqueSet in an unknown state: the next round starts afresh.
		if res.Failed && lc.ns != "" {
			dumpRound(r, lc)
			deleteNamespace(lc.ns)
			*lc = lifecycle{}
		}
	})
	expectHealthy()
	prepare(lc, r.phase, res)

	res.Stage = stagePhase
	watch, err := cluster.WatchPods(local.Config, lc.ns)
	Expect(err).NotTo(HaveOccurred())
	defer watch.Stop()
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	Expect(watch.Synced(syncCtx)).To(BeTrue(), "the pod watch of namespace %s did not sync", lc.ns)
	pidsBefore := local.PIDs()

	before := watch.Counts().Live
	startPhase(lc, r.phase)
	// The phase's work starts once its API call returned.
	began := time.Now()
	target := int(lc.replicas) * podsPerReplica
	if r.phase == phaseDelete {
		target = 0
	}
	res.Progress = awaitInjectionPoint(lc, r, watch, began, before, target)
	killedAt := time.Now()
	res.Delay = killedAt.Sub(began)
	res.Stage = stageFault
	Expect(local.Kill(ctx, r.fault)).To(Succeed())
	time.Sleep(r.outage)
	Expect(local.Start(ctx, r.fault)).To(Succeed())
	res.Restart = time.Since(killedAt) - r.outage

	res.Stage = stageRecovery
	quietAt, final, violations := waitQuiet(lc, r.phase, watch, &res.KwokResyncs)
	if final != nil {
		violations = append(violations, watch.Overlaps(final)...)
	}
	violations = append(violations, recovered(pidsBefore, r.fault)...)
	if len(violations) > 0 {
		res.Violations = violations.Invariants()
		Fail(fmt.Sprintf("%s (seed %d, delay %.2fs, outage %.1fs, at injection: %s): %d violations of %v\n%s",
			r.name(), seed, res.Delay.Seconds(), r.outage.Seconds(), res.Progress, len(violations), violations.Invariants(), firstLines(violations, 40)))
	}
	res.Recovery = quietAt.Sub(killedAt)
	res.Stage = stageDone

	if r.phase == phaseDelete || (r.n == r.of && lc.exists) {
		deleteNamespace(lc.ns)
		*lc = lifecycle{}
	}
}

// prepare brings the lifecycle to where phase p starts: no PodCliqueSet for
// create, an existing quiet one for every other phase.
func prepare(lc *lifecycle, p phase, res *roundResult) {
	if p == phaseCreate {
		if lc.ns != "" {
			deleteNamespace(lc.ns)
		}
		*lc = lifecycle{ns: newNamespace()}
		return
	}
	if lc.exists {
		return
	}
	*lc = lifecycle{ns: newNamespace()}
	watch, err := cluster.WatchPods(local.Config, lc.ns)
	Expect(err).NotTo(HaveOccurred())
	defer watch.Stop()
	began := time.Now()
	startPhase(lc, phaseCreate)
	_, _, violations := waitQuiet(lc, phaseCreate, watch, &res.KwokResyncs)
	res.Violations = violations.Invariants()
	Expect(violations).To(BeEmpty(), "setting up PodCliqueSet %s/%s for %s without a fault:\n%s", lc.ns, pcsName, p, firstLines(violations, 40))
	fmt.Fprintf(GinkgoWriter, "setup: PodCliqueSet %s/%s with %d replicas quiet in %.1fs\n", lc.ns, pcsName, lc.replicas, time.Since(began).Seconds())
}

// startPhase makes the phase's single API call.
func startPhase(lc *lifecycle, p phase) {
	switch p {
	case phaseCreate:
		pcs := workload()
		pcs.Namespace, pcs.Spec.Replicas = lc.ns, baseReplicas()
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		lc.exists, lc.replicas, lc.image = true, pcs.Spec.Replicas, pcs.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image
	case phaseScaleOut:
		lc.replicas = scale(lc.ns, lc.replicas+delta())
	case phaseScaleIn:
		lc.replicas = scale(lc.ns, max(1, lc.replicas-delta()))
	case phaseUpdate:
		next := images[0]
		if lc.image == images[0] {
			next = images[1]
		}
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: lc.ns, Name: pcsName}, pcs); err != nil {
				return err
			}
			for i := range pcs.Spec.Template.Cliques {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = next
			}
			return k8s.Update(ctx, pcs)
		})).To(Succeed())
		lc.image = next
	case phaseDelete:
		Expect(k8s.Delete(ctx, &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: lc.ns, Name: pcsName}})).To(Succeed())
		lc.exists = false
	}
}

// workload reads testdata/workload.yaml.
func workload() *grovecorev1alpha1.PodCliqueSet {
	data, err := os.ReadFile(filepath.Join(repoRoot, "test", "faults", "testdata", "workload.yaml"))
	Expect(err).NotTo(HaveOccurred())
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Expect(yaml.UnmarshalStrict(data, pcs)).To(Succeed())
	return pcs
}

// scale sets the PodCliqueSet's replicas through /scale, as kubectl scale does.
func scale(ns string, replicas int32) int32 {
	patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)))
	s := &autoscalingv1.Scale{}
	pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pcsName}}
	Expect(k8s.SubResource("scale").Patch(ctx, pcs, patch, &client.SubResourcePatchOptions{SubResourceBody: s})).To(Succeed())
	Expect(s.Spec.Replicas).To(Equal(replicas))
	return replicas
}

// waitQuiet polls until every invariant of phase p holds twice, confirmAfter
// apart, with the same objects; it returns when they first held, the last
// snapshot, and the violations of the last check when the cluster did not
// get there within settleTimeout. A snapshot lists every kind the
// PodCliqueSet owns, so it is taken only when the pod watch shows the pods
// the phase should end with (all Running the template's image, none
// terminating), or every fullCheckEvery, to keep the suite's own load on the
// API server low.
//
// Pods that wait on kwok (bound but Pending, Running but not Ready, or past
// their deletion deadline) for kubeletPatience are annotated, at most once
// per kubeletPatience, so kwok replays their stage, as a kubelet's resync
// would; nudged counts the pods.
func waitQuiet(lc *lifecycle, p phase, watch *cluster.PodWatch, nudged *int) (time.Time, *cluster.Snapshot, cluster.Violations) {
	check := func(s *cluster.Snapshot) cluster.Violations {
		if p == phaseDelete {
			return cluster.CheckGone(s)
		}
		return cluster.CheckSettled(s, cluster.Expectations{Image: lc.image})
	}
	wantPods := int(lc.replicas) * podsPerReplica
	if p == phaseDelete {
		wantPods = 0
	}
	timeout := settleTimeout(p, lc.replicas)
	deadline := time.Now().Add(timeout)
	var last cluster.Violations
	var lastSnap *cluster.Snapshot
	lastFull := time.Now()
	lastNudge := map[types.UID]time.Time{}
	for {
		at := time.Now()
		var stuck []*corev1.Pod
		for _, pod := range watch.StuckAtKubelet(at, kubeletPatience) {
			if last, ok := lastNudge[pod.UID]; !ok || at.Sub(last) >= kubeletPatience {
				if !ok {
					*nudged++
				}
				lastNudge[pod.UID] = at
				stuck = append(stuck, pod)
			}
		}
		if len(stuck) > 0 {
			names, err := local.NudgeKwok(ctx, stuck)
			if len(names) > 0 {
				fmt.Fprintf(GinkgoWriter, "kwok resync: annotated %d pods that waited on kwok for %s: %v\n", len(names), kubeletPatience, names)
			}
			if err != nil {
				fmt.Fprintf(GinkgoWriter, "kwok resync: %v\n", err)
			}
		}
		c, all := watch.CountsWithImage(lc.image), watch.Counts()
		podsDone := c.Live == wantPods && c.Running == wantPods && all.Live == wantPods && all.Terminating == 0
		timedOut := at.After(deadline)
		if podsDone || timedOut || at.Sub(lastFull) >= fullCheckEvery {
			lastFull = at
			snap, err := cluster.TakeSnapshot(ctx, k8s, lc.ns, pcsName)
			if err == nil {
				lastSnap = snap
				if last = check(snap); len(last) == 0 {
					time.Sleep(confirmAfter)
					again, err := cluster.TakeSnapshot(ctx, k8s, lc.ns, pcsName)
					if err == nil {
						lastSnap = again
						if last = check(again); len(last) == 0 && sameObjects(snap, again) {
							return at, again, nil
						}
					}
				}
			} else {
				last = cluster.Violations{{Invariant: cluster.Status, Object: "PodCliqueSet/" + pcsName, Detail: "snapshot failed: " + err.Error()}}
			}
		}
		if timedOut {
			return time.Time{}, lastSnap, append(cluster.Violations{{Invariant: cluster.Status, Object: "PodCliqueSet/" + pcsName,
				Detail: fmt.Sprintf("not quiet with every invariant holding within %s (pod watch: %s); the last check found:", timeout, c)}}, last...)
		}
		time.Sleep(pollInterval)
	}
}

// sameObjects reports whether two snapshots hold the same objects (by UID).
func sameObjects(a, b *cluster.Snapshot) bool {
	return strings.Join(uids(a), ",") == strings.Join(uids(b), ",")
}

func uids(s *cluster.Snapshot) []string {
	var out []string
	add := func(o metav1.Object) { out = append(out, string(o.GetUID())) }
	for i := range s.PodCliques {
		add(&s.PodCliques[i])
	}
	for i := range s.ScalingGroups {
		add(&s.ScalingGroups[i])
	}
	for i := range s.PodGangs {
		add(&s.PodGangs[i])
	}
	for i := range s.Pods {
		add(&s.Pods[i])
	}
	for i := range s.Services {
		add(&s.Services[i])
	}
	return out
}

// recovered checks that every component is healthy and that none but the
// killed one has a new process: nothing crashed, nothing needed a restart.
func recovered(before map[cluster.Component]int, killed cluster.Component) cluster.Violations {
	var vs cluster.Violations
	if out, err := local.Status(); err != nil {
		vs = append(vs, cluster.Violation{Invariant: cluster.Recovered, Object: "cluster", Detail: fmt.Sprintf("%v\n%s", err, out)})
	}
	after := local.PIDs()
	for _, c := range cluster.Components {
		if c != killed && after[c] != before[c] {
			vs = append(vs, cluster.Violation{Invariant: cluster.Recovered, Object: string(c),
				Detail: fmt.Sprintf("process changed from pid %d to %d: it crashed or was restarted", before[c], after[c])})
		}
	}
	return vs
}

// expectHealthy checks every component is healthy before a round.
func expectHealthy() {
	out, err := local.Status()
	Expect(err).NotTo(HaveOccurred(), "the local cluster is not healthy before the round:\n%s", out)
}

func newNamespace() string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "faults-" + rand.String(5), Labels: map[string]string{suiteLabel: "true"}}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// deleteNamespace deletes a namespace and waits until it is gone.
func deleteNamespace(name string) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	Eventually(func() error { return client.IgnoreNotFound(k8s.Delete(ctx, ns)) }).WithTimeout(time.Minute).Should(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{}))
	}).WithTimeout(3*time.Minute).Should(BeTrue(), "namespace %s not gone", name)
}

func dumpRound(r round, lc *lifecycle) {
	dir := filepath.Join(local.Dir, "fault-diagnostics", cluster.DirName(fmt.Sprintf("%s-round%02d-%s-seed%d", r.fault, r.n, r.phase, seed)))
	local.DumpDiagnostics(ctx, dir, []string{lc.ns}, GinkgoWriter)
}

func firstLines(vs cluster.Violations, n int) string {
	if len(vs) <= n {
		return vs.String()
	}
	return vs[:n].String() + fmt.Sprintf("\n… and %d more", len(vs)-n)
}
