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

package gangtermination

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// pclq is a PodClique with the given breach status (since t0) and history.
func pclq(name string, breached metav1.ConditionStatus, wasScheduled bool, mutate ...func(*grovecorev1alpha1.PodClique)) *grovecorev1alpha1.PodClique {
	p := &grovecorev1alpha1.PodClique{}
	p.Name, p.UID, p.Spec.Replicas = name, types.UID(name+"-uid"), 2
	p.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour))
	p.Status.WasScheduled = wasScheduled
	if breached != "" {
		p.Status.Conditions = []metav1.Condition{{
			Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, Status: breached,
			Reason: grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable, LastTransitionTime: metav1.NewTime(t0),
		}}
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func terminating(p *grovecorev1alpha1.PodClique) { p.DeletionTimestamp = &metav1.Time{Time: t0} }

func TestBreachOf(t *testing.T) {
	tests := []struct {
		name string
		pclq *grovecorev1alpha1.PodClique
		want bool
	}{
		{"breached after it was scheduled counts", pclq("a", metav1.ConditionTrue, true), true},
		{"never scheduled never counts", pclq("a", metav1.ConditionTrue, false), false},
		{"not breached", pclq("a", metav1.ConditionFalse, true), false},
		{"Unknown during a rolling update", pclq("a", metav1.ConditionUnknown, true), false},
		{"no condition yet", pclq("a", "", true), false},
		{"being deleted", pclq("a", metav1.ConditionTrue, true, terminating), false},
		{"scaled to zero", pclq("a", metav1.ConditionTrue, true, func(p *grovecorev1alpha1.PodClique) { p.Spec.Replicas = 0 }), false},
		{"missing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok := BreachOf(tt.pclq)
			if ok != tt.want {
				t.Fatalf("counts = %v, want %v", ok, tt.want)
			}
			if ok && (b.PodClique != "a" || !b.Since.Equal(t0) || b.Reason != grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable) {
				t.Errorf("breach %+v", b)
			}
		})
	}
}

func TestEarliest(t *testing.T) {
	if _, ok := Earliest(nil); ok {
		t.Fatal("no breaches must give none")
	}
	b, ok := Earliest([]Breach{{PodClique: "late", Since: t0.Add(time.Second)}, {PodClique: "first", Since: t0}, {PodClique: "mid", Since: t0.Add(time.Millisecond)}})
	if !ok || b.PodClique != "first" {
		t.Errorf("earliest = %+v", b)
	}
}

func TestRemainingAndDelay(t *testing.T) {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if got := Delay(pcs); got != 4*time.Hour {
		t.Errorf("default delay %s, want 4h", got)
	}
	pcs.Spec.Template.TerminationDelay = &metav1.Duration{Duration: 10 * time.Second}
	delay := Delay(pcs)
	for _, tt := range []struct {
		now  time.Time
		want time.Duration
	}{
		{t0.Add(3 * time.Second), 7 * time.Second},
		{t0.Add(10 * time.Second), 0},
		{t0.Add(12 * time.Second), -2 * time.Second},
	} {
		if got := Remaining(t0, delay, tt.now); got != tt.want {
			t.Errorf("remaining at %s = %s, want %s", tt.now.Sub(t0), got, tt.want)
		}
	}
}

func TestSuspended(t *testing.T) {
	end := metav1.NewTime(t0)
	for _, tt := range []struct {
		name     string
		progress *grovecorev1alpha1.PodCliqueSetUpdateProgress
		want     bool
	}{
		{"no update ever", nil, false},
		{"update running", &grovecorev1alpha1.PodCliqueSetUpdateProgress{UpdateStartedAt: end}, true},
		{"update ended", &grovecorev1alpha1.PodCliqueSetUpdateProgress{UpdateStartedAt: end, UpdateEndedAt: &end}, false},
	} {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		pcs.Status.UpdateProgress = tt.progress
		if got := Suspended(pcs); got != tt.want {
			t.Errorf("%s: suspended = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSettledAndBack(t *testing.T) {
	started := metav1.NewTime(t0)
	recreated := func(p *grovecorev1alpha1.PodClique) { p.CreationTimestamp = metav1.NewTime(t0.Add(time.Second)) }
	recreatedSameSecond := func(p *grovecorev1alpha1.PodClique) { p.CreationTimestamp = metav1.NewTime(t0) }
	// b was deleted by gang termination; the cache still shows it alive.
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tracked := ownwrites.New()
	if err := tracked.Track(context.Background(), &informertest.FakeInformers{Scheme: scheme}, &grovecorev1alpha1.PodClique{}); err != nil {
		t.Fatal(err)
	}
	tracked.Deleted(pclq("b", metav1.ConditionTrue, true))
	tests := []struct {
		name          string
		pclqs         []*grovecorev1alpha1.PodClique
		deleted       *ownwrites.Tracker
		settled, back bool
	}{
		{name: "all present, none recreated", pclqs: []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionFalse, true)},
			settled: true, back: true},
		{name: "one missing", pclqs: []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true)}},
		{name: "one being deleted", pclqs: []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionTrue, true, terminating)}},
		{name: "one already deleted by gang termination but still cached",
			pclqs:   []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionTrue, true)},
			deleted: tracked},
		{name: "recreated and not yet scheduled",
			pclqs:   []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionTrue, false, recreated)},
			settled: true},
		{name: "recreated in the second the termination started, not yet scheduled",
			pclqs:   []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionTrue, false, recreatedSameSecond)},
			settled: true},
		{name: "recreated and scheduled again",
			pclqs:   []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionFalse, true, recreated)},
			settled: true, back: true},
		{name: "recreated and scaled to zero since",
			pclqs: []*grovecorev1alpha1.PodClique{pclq("a", metav1.ConditionFalse, true), pclq("b", metav1.ConditionFalse, false, recreated,
				func(p *grovecorev1alpha1.PodClique) { p.Spec.Replicas = 0 })},
			settled: true, back: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			byName := map[string]*grovecorev1alpha1.PodClique{}
			for _, p := range tt.pclqs {
				byName[p.Name] = p
			}
			deleted := tt.deleted
			expected := []string{"a", "b"}
			if got := Settled(expected, byName, deleted); got != tt.settled {
				t.Errorf("settled = %v, want %v", got, tt.settled)
			}
			if got := Back(expected, byName, started, deleted); got != tt.back {
				t.Errorf("back = %v, want %v", got, tt.back)
			}
		})
	}
}
