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

package core

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func ptrTo[T any](v T) *T { return &v }

func TestDesiredStatus(t *testing.T) {
	const searchReason = "group w needs 4 pods with 1 nvidia.com/gpu, 100m cpu, 3 fit"
	type cond struct {
		status  metav1.ConditionStatus
		reason  string
		message string
	}
	var (
		pending   = cond{metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonSchedulingPending, "0 of 4 referenced pods bound; the minimum set is not placed yet"}
		rejected  = cond{metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable, searchReason}
		waiting   = cond{metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonWaitingForMinimumSet, "some pods hold their nodes at Permit while the rest of the minimum set is scheduled"}
		noneReady = cond{metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonMinimumSetNotReady, "0 of 4 referenced pods Ready; some pod group is below minReplicas"}
	)
	tests := []struct {
		name      string
		obs       gangObservation
		attempt   attemptState
		phase     groveschedulerv1alpha1.PodGangPhase
		scheduled cond
		ready     cond
		score     *float64
	}{
		{
			name:      "nothing bound and no attempt finished yet",
			obs:       gangObservation{refs: 4},
			phase:     groveschedulerv1alpha1.PodGangPhasePending,
			scheduled: pending,
			ready:     noneReady,
		},
		{
			name:      "the search's reason for rejecting the gang",
			obs:       gangObservation{refs: 4},
			attempt:   attemptState{phase: PhasePending, reason: searchReason},
			phase:     groveschedulerv1alpha1.PodGangPhasePending,
			scheduled: rejected,
			ready:     noneReady,
		},
		{
			name:      "pods waiting at Permit",
			obs:       gangObservation{refs: 4, bound: 1},
			attempt:   attemptState{phase: PhaseReserving},
			phase:     groveschedulerv1alpha1.PodGangPhasePending,
			scheduled: waiting,
			ready:     noneReady,
		},
		{
			name:      "a misfit gang's retry waiting at Permit",
			obs:       gangObservation{refs: 4},
			attempt:   attemptState{phase: PhaseMisfitReserving},
			phase:     groveschedulerv1alpha1.PodGangPhasePending,
			scheduled: waiting,
			ready:     noneReady,
		},
		{
			name:      "a recorded reason outranks waiting pods",
			obs:       gangObservation{refs: 4},
			attempt:   attemptState{phase: PhaseReserving, reason: searchReason},
			phase:     groveschedulerv1alpha1.PodGangPhasePending,
			scheduled: rejected,
			ready:     noneReady,
		},
		{
			name:      "the minimum set bound makes the gang Starting whatever the attempts said",
			obs:       gangObservation{boundMin: true, bound: 3, refs: 4, min: 3, score: ptrTo(0.5)},
			attempt:   attemptState{phase: PhaseMisfit, reason: searchReason},
			phase:     groveschedulerv1alpha1.PodGangPhaseStarting,
			scheduled: cond{metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled, "every pod group has its minReplicas bound; 3 of 4 referenced pods bound"},
			ready:     noneReady,
			score:     ptrTo(0.5),
		},
		{
			name:      "the minimum set Ready makes the gang Running",
			obs:       gangObservation{boundMin: true, readyMin: true, bound: 4, ready: 3, refs: 4, score: ptrTo(1.0)},
			attempt:   attemptState{phase: PhasePlaced},
			phase:     groveschedulerv1alpha1.PodGangPhaseRunning,
			scheduled: cond{metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled, "every pod group has its minReplicas bound; 4 of 4 referenced pods bound"},
			ready:     cond{metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetReady, "every pod group has its minReplicas Ready; 3 of 4 referenced pods Ready"},
			score:     ptrTo(1.0),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg := newTestPodGang("ns", "g", testGroup{name: "w", pods: 4, min: 3})
			pg.Generation = 7
			initialized := metav1.Condition{Type: "Initialized", Status: metav1.ConditionTrue, Reason: "PodsCreated", ObservedGeneration: 6}
			pg.Status.Conditions = []metav1.Condition{initialized}

			got := desiredStatus(pg, tt.obs, tt.attempt)
			if got.Phase != tt.phase {
				t.Errorf("phase %s, want %s", got.Phase, tt.phase)
			}
			check := func(condType string, want cond) {
				c := meta.FindStatusCondition(got.Conditions, condType)
				if c == nil {
					t.Fatalf("no %s condition", condType)
				}
				if (cond{c.Status, c.Reason, c.Message}) != want || c.ObservedGeneration != 7 {
					t.Errorf("%s = %s/%s %q (generation %d), want %s/%s %q (generation 7)", condType, c.Status, c.Reason, c.Message, c.ObservedGeneration, want.status, want.reason, want.message)
				}
			}
			check(groveschedulerv1alpha1.PodGangConditionTypeScheduled, tt.scheduled)
			check(groveschedulerv1alpha1.PodGangConditionTypeReady, tt.ready)
			if c := meta.FindStatusCondition(got.Conditions, "Initialized"); c == nil || *c != initialized {
				t.Errorf("the operator's Initialized condition became %+v, want it untouched", c)
			}
			if (got.PlacementScore == nil) != (tt.score == nil) || (got.PlacementScore != nil && *got.PlacementScore != *tt.score) {
				t.Errorf("placementScore %v, want %v", got.PlacementScore, tt.score)
			}
			if got.MinimumPods != int32(tt.obs.min) || got.BoundPods != int32(tt.obs.bound) {
				t.Errorf("minimumPods/boundPods = %d/%d, want %d/%d", got.MinimumPods, got.BoundPods, tt.obs.min, tt.obs.bound)
			}
			if len(pg.Status.Conditions) != 1 {
				t.Errorf("desiredStatus changed the PodGang it was given")
			}
		})
	}
}

func ready(p *corev1.Pod) *corev1.Pod {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	return p
}

func TestObserve(t *testing.T) {
	rack := func(r string) map[string]string { return map[string]string{"rack": r} }
	group := testGroup{name: "w", pods: 4, min: 3, gpus: 1}
	pods := newTestGangPods("ns", "g", group)
	deleting := bound(pods[3], "b0")
	deleting.DeletionTimestamp = &metav1.Time{}
	tests := []struct {
		name      string
		preferred string
		pods      []*corev1.Pod
		want      gangObservation
	}{
		{
			name: "too few pods bound: no score",
			pods: []*corev1.Pod{bound(pods[0], "a0"), bound(pods[1], "a1"), pods[2], pods[3]},
			want: gangObservation{bound: 2, refs: 4, min: 3},
		},
		{
			name:      "the score is the share of bound pods in the most common domain of the pack key",
			preferred: "rack",
			pods:      []*corev1.Pod{ready(bound(pods[0], "a0")), bound(pods[1], "a1"), bound(pods[2], "b0"), pods[3]},
			want:      gangObservation{boundMin: true, bound: 3, ready: 1, refs: 4, min: 3, score: ptrTo(2.0 / 3)},
		},
		{
			name: "without a pack key the score is 1",
			pods: []*corev1.Pod{ready(bound(pods[0], "a0")), ready(bound(pods[1], "a1")), ready(bound(pods[2], "b0")), pods[3]},
			want: gangObservation{boundMin: true, readyMin: true, bound: 3, ready: 3, refs: 4, min: 3, score: ptrTo(1.0)},
		},
		{
			name:      "terminating pods do not count",
			preferred: "rack",
			pods:      []*corev1.Pod{bound(pods[0], "a0"), bound(pods[1], "a1"), pods[2], deleting},
			want:      gangObservation{bound: 2, refs: 4, min: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.addNodes(newTestNode("a0", 8, rack("a")), newTestNode("a1", 8, rack("a")), newTestNode("b0", 8, rack("b")))
			pg := newTestPodGang("ns", "g", group)
			if tt.preferred != "" {
				pg.Spec.TopologyConstraint = pack("", tt.preferred)
			}
			e.addPodGang(pg)
			e.addPods(tt.pods...)
			got := e.m.status.observe(e.m.spec("ns/g"), pg)
			gotScore, wantScore := got.score, tt.want.score
			got.score, tt.want.score = nil, nil
			if got != tt.want {
				t.Errorf("observation %+v, want %+v", got, tt.want)
			}
			if (gotScore == nil) != (wantScore == nil) || (gotScore != nil && *gotScore != *wantScore) {
				t.Errorf("score %v, want %v", gotScore, wantScore)
			}
		})
	}
}

func TestStatusWriterWritesOnlyWhatChanged(t *testing.T) {
	e := newTestEnv(t)
	group := testGroup{name: "w", pods: 2, min: 2, gpus: 1}
	e.addNodes(newTestNode("n0", 8, nil))
	e.addPodGang(newTestPodGang("ns", "g", group))
	pods := newTestGangPods("ns", "g", group)
	e.addPods(bound(pods[0], "n0"), bound(pods[1], "n0"))
	ctx := context.Background()

	if err := e.m.status.sync(ctx, "ns/g"); err != nil {
		t.Fatal(err)
	}
	written, err := e.grove.SchedulerV1alpha1().PodGangs("ns").Get(ctx, "g", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if written.Status.Phase != groveschedulerv1alpha1.PodGangPhaseStarting || e.podGangStatusWrites() != 1 {
		t.Fatalf("after the first sync: phase %q after %d status writes, want Starting after 1", written.Status.Phase, e.podGangStatusWrites())
	}
	if c := meta.FindStatusCondition(written.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled); c == nil || c.Reason != groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled {
		t.Fatalf("Scheduled condition %+v, want reason %s", c, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled)
	}

	// The informer delivers the written status; nothing changed since, so nothing is written.
	if err := e.podGangs.Update(written); err != nil {
		t.Fatal(err)
	}
	if err := e.m.status.sync(ctx, "ns/g"); err != nil {
		t.Fatal(err)
	}
	if n := e.podGangStatusWrites(); n != 1 {
		t.Fatalf("%d status writes after an unchanged sync, want 1", n)
	}

	// A gang the scheduler no longer knows is skipped without error.
	if err := e.m.status.sync(ctx, "ns/unknown"); err != nil || e.podGangStatusWrites() != 1 {
		t.Fatalf("sync of an unknown gang: error %v, %d writes; want none", err, e.podGangStatusWrites())
	}
}

func TestStatusWriterWaitsForInitialized(t *testing.T) {
	e := newTestEnv(t)
	group := testGroup{name: "w", pods: 2, min: 2, gpus: 1}
	e.addNodes(newTestNode("n0", 8, nil))
	pg := newTestPodGang("ns", "g", group)
	pg.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
	pg.Status.Conditions = []metav1.Condition{{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized,
		Status: metav1.ConditionFalse, Reason: groveschedulerv1alpha1.PodGangReasonPodsCreationPending}}
	e.addPodGang(pg)
	pods := newTestGangPods("ns", "g", group)
	e.addPods(pods...)
	ctx := context.Background()

	if err := e.m.status.sync(ctx, "ns/g"); err != nil || e.podGangStatusWrites() != 0 {
		t.Fatalf("sync while Initialized is False: error %v, %d status writes; want none", err, e.podGangStatusWrites())
	}

	// A pod bound although the gang is not initialized (its creator does
	// not gate pods) is reported at once.
	b := bound(pods[0], "n0")
	if err := e.pods.Update(b); err != nil {
		t.Fatal(err)
	}
	e.m.onPod(b)
	if err := e.m.status.sync(ctx, "ns/g"); err != nil || e.podGangStatusWrites() != 1 {
		t.Fatalf("sync with a bound pod: error %v, %d status writes; want 1", err, e.podGangStatusWrites())
	}
	written, err := e.grove.SchedulerV1alpha1().PodGangs("ns").Get(ctx, "g", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(written.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled); c == nil || c.Reason != groveschedulerv1alpha1.PodGangReasonSchedulingPending {
		t.Fatalf("Scheduled condition %+v, want reason %s", c, groveschedulerv1alpha1.PodGangReasonSchedulingPending)
	}
	if c := meta.FindStatusCondition(written.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("Initialized condition %+v, want the operator's False kept", c)
	}
}

func TestInitializing(t *testing.T) {
	cond := func(status metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized, Status: status}}
	}
	for _, tt := range []struct {
		name       string
		conditions []metav1.Condition
		want       bool
	}{
		{name: "no Initialized condition", want: false},
		{name: "Initialized False", conditions: cond(metav1.ConditionFalse), want: true},
		{name: "Initialized True", conditions: cond(metav1.ConditionTrue), want: false},
		{name: "Initialized Unknown", conditions: cond(metav1.ConditionUnknown), want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pg := &groveschedulerv1alpha1.PodGang{Status: groveschedulerv1alpha1.PodGangStatus{Conditions: tt.conditions}}
			if got := initializing(pg); got != tt.want {
				t.Errorf("initializing = %v, want %v", got, tt.want)
			}
		})
	}
}

// podGangStatusWrites counts the PodGang status updates sent so far.
func (e *testEnv) podGangStatusWrites() int {
	n := 0
	for _, a := range e.grove.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

// TestOtherBackendsGangsAreLeftAlone: a PodGang whose grove.io/scheduler-name
// names another backend (the operator's backend controller writes its status)
// is neither tracked nor given a status by grove-scheduler; one that names
// grove-scheduler, or none, is.
func TestOtherBackendsGangsAreLeftAlone(t *testing.T) {
	for _, tc := range []struct {
		scheduler string
		tracked   bool
	}{
		{scheduler: "volcano", tracked: false},
		{scheduler: "default-scheduler", tracked: false},
		{scheduler: "grove-scheduler", tracked: true},
		{scheduler: "", tracked: true},
	} {
		t.Run("scheduler-name "+tc.scheduler, func(t *testing.T) {
			e := newTestEnv(t)
			group := testGroup{name: "w", pods: 2, min: 2, gpus: 1}
			e.addNodes(newTestNode("n0", 8, nil))
			pg := newTestPodGang("ns", "g", group)
			if tc.scheduler != "" {
				pg.Labels = map[string]string{apicommon.LabelSchedulerName: tc.scheduler}
			}
			e.addPodGang(pg)
			pods := newTestGangPods("ns", "g", group)
			e.addPods(bound(pods[0], "n0"), bound(pods[1], "n0"))

			if got := e.m.spec("ns/g") != nil; got != tc.tracked {
				t.Fatalf("tracked = %v, want %v", got, tc.tracked)
			}
			if err := e.m.status.sync(context.Background(), "ns/g"); err != nil {
				t.Fatal(err)
			}
			want := 0
			if tc.tracked {
				want = 1
			}
			if n := e.podGangStatusWrites(); n != want {
				t.Fatalf("%d status writes, want %d", n, want)
			}
		})
	}
}
