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

package podcliqueset

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestAdvance(t *testing.T) {
	var (
		running     = replicaView{converged: false, available: true, ready: true}
		idle        = replicaView{converged: false, nothingScheduled: true}
		breached    = replicaView{converged: false, available: false, breached: true}
		updated     = replicaView{converged: true, available: true, ready: true}
		convergedUp = replicaView{converged: true, available: false}
		partial     = replicaView{converged: true, available: true, ready: false}
		stuck       = replicaView{converged: true, nothingScheduled: true}
	)
	type atStart int
	const (
		wasReady atStart = iota
		wasAvailable
		wasDown
	)
	tests := []struct {
		name      string
		views     []replicaView
		current   []int32
		start     atStart
		want      []int32
		wantEnded bool
		// coherent: updateStrategy Coherent with this maxUnavailable (0: RollingRecreate).
		coherent int32
	}{
		{name: "ascending index", views: []replicaView{running, running, running}, want: []int32{0}},
		{name: "unscheduled first, then breached, then by index", views: []replicaView{running, breached, idle, running}, want: []int32{2}},
		{name: "breached before running", views: []replicaView{running, running, breached}, want: []int32{2}},
		{name: "updated replicas are skipped", views: []replicaView{updated, running}, want: []int32{1}},
		{name: "the replica in progress keeps its turn until available", views: []replicaView{idle, convergedUp}, current: []int32{1}, want: []int32{1}},
		{name: "a replica unavailable when its turn started does not stall the update", views: []replicaView{running, stuck}, current: []int32{1}, start: wasDown, want: []int32{0}},
		{name: "a replica available when its turn started is waited for", views: []replicaView{running, stuck}, current: []int32{1}, start: wasAvailable, want: []int32{1}},
		{name: "a replica all ready when its turn started waits for every pod", views: []replicaView{running, partial}, current: []int32{1}, start: wasReady, want: []int32{1}},
		{name: "a replica only available when its turn started waits for availability", views: []replicaView{running, partial}, current: []int32{1}, start: wasAvailable, want: []int32{0}},
		{name: "a finished replica hands over", views: []replicaView{running, updated}, current: []int32{1}, want: []int32{0}},
		{name: "a replica scaled away hands over", views: []replicaView{running}, current: []int32{3}, want: []int32{0}},
		{name: "nothing left: the update ends", views: []replicaView{updated, updated}, current: []int32{1}, want: nil, wantEnded: true},
		{name: "Coherent maxUnavailable 1: one replica", coherent: 1, views: []replicaView{running, running, running}, want: []int32{0}},
		{name: "Coherent maxUnavailable 2: two replicas at once", coherent: 2, views: []replicaView{running, running, running}, want: []int32{0, 1}},
		{name: "Coherent: a replica in turn counts against the budget", coherent: 2, views: []replicaView{convergedUp, running, running}, current: []int32{0}, want: []int32{0, 1}},
		{name: "Coherent: an unavailable replica elsewhere uses the budget", coherent: 1, views: []replicaView{running, convergedUp}, want: nil},
		{name: "Coherent: replicas that serve nothing go first, but never beyond the budget", coherent: 1, views: []replicaView{running, breached, idle}, want: []int32{2}},
		{name: "Coherent maxUnavailable 2: both replicas that serve nothing", coherent: 2, views: []replicaView{running, breached, idle}, want: []int32{2, 1}},
		{name: "Coherent: replicas seen unavailable (a stale status) never take more than the budget", coherent: 2,
			views: []replicaView{breached, breached, breached, breached}, want: []int32{0, 1}},
		{name: "Coherent: a finished turn frees the budget", coherent: 1, views: []replicaView{updated, running}, current: []int32{0}, want: []int32{1}},
		{name: "Coherent: a replica available but not all ready uses the budget", coherent: 1, views: []replicaView{partial, running}, want: nil},
		{name: "Coherent: a replica down when its turn started keeps it until every pod is ready", coherent: 1,
			views: []replicaView{stuck, running}, current: []int32{0}, start: wasDown, want: []int32{0}},
		{name: "Coherent maxUnavailable 2: a finished turn not all ready yet keeps its share of the budget", coherent: 2,
			views: []replicaView{partial, running, running}, current: []int32{1}, want: []int32{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			pcs.Spec.Replicas = int32(len(tt.views))
			if tt.coherent > 0 {
				pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{
					Type: grovecorev1alpha1.CoherentStrategyType, MaxUnavailable: ptr.To(intstr.FromInt32(tt.coherent)),
				}
			}
			now := metav1.Now()
			rec := &grovecorev1alpha1.PodCliqueSetUpdateProgress{UpdateStartedAt: now, PodCliqueSetGenerationHash: "h"}
			for _, i := range tt.current {
				rec.CurrentlyUpdating = append(rec.CurrentlyUpdating, grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress{
					ReplicaIndex: i, UpdateStartedAt: now, ReadyAtStart: ptr.To(tt.start == wasReady), AvailableAtStart: ptr.To(tt.start != wasDown)})
			}
			var ev statusEvents
			advance(pcs, rec, tt.views, now, &ev)
			var got []int32
			for _, cu := range rec.CurrentlyUpdating {
				got = append(got, cu.ReplicaIndex)
			}
			if len(got) == 1 && (rec.CurrentlyUpdating[0].AvailableAtStart == nil || rec.CurrentlyUpdating[0].ReadyAtStart == nil) {
				t.Errorf("the turn does not record whether the replica was available")
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("currentlyUpdating = %v, want %v", got, tt.want)
			}
			if (rec.UpdateEndedAt != nil) != tt.wantEnded {
				t.Errorf("ended = %v, want %v", rec.UpdateEndedAt != nil, tt.wantEnded)
			}
			if tt.wantEnded && (pcs.Status.CurrentGenerationHash == nil || *pcs.Status.CurrentGenerationHash != "h") {
				t.Errorf("currentGenerationHash = %v, want h", pcs.Status.CurrentGenerationHash)
			}
		})
	}
}

// TestTrackUpdateBeforeTheFirstStatus covers a set whose status has no
// currentGenerationHash yet: new, or changed before its first status write.
func TestTrackUpdateBeforeTheFirstStatus(t *testing.T) {
	const oldTemplate, newTemplate, genHash = "t1", "t2", "g2"
	frontend := func(labelHash string, updated int32, current string) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "two-0-frontend", Generation: 2, Labels: map[string]string{
			apicommon.LabelPodTemplateHash:          labelHash,
			apicommon.LabelPodCliqueTemplateName:    "frontend",
			apicommon.LabelPodCliqueSetReplicaIndex: "0",
		}}}
		p.Spec.Replicas = 4
		p.Status.ObservedGeneration = ptr.To[int64](2)
		p.Status.Replicas, p.Status.UpdatedReplicas, p.Status.ReadyReplicas = 4, updated, 4
		p.Status.CurrentPodTemplateHash = ptr.To(current)
		return p
	}
	tests := []struct {
		name        string
		pclqs       map[string]*grovecorev1alpha1.PodClique
		wantCurrent *string
		wantRecord  bool
	}{
		{name: "a new set without children yet: nothing recorded", pclqs: nil},
		{name: "a new set whose children run its template: current", pclqs: map[string]*grovecorev1alpha1.PodClique{
			"two-0-frontend": frontend(newTemplate, 4, newTemplate)}, wantCurrent: ptr.To(genHash)},
		{name: "changed before the first status write: the clique's spec is new, its pods are not: an update starts",
			pclqs: map[string]*grovecorev1alpha1.PodClique{"two-0-frontend": frontend(newTemplate, 0, oldTemplate)}, wantRecord: true},
		{name: "changed before the first status write, the clique's spec not yet applied: an update starts",
			pclqs: map[string]*grovecorev1alpha1.PodClique{"two-0-frontend": frontend(oldTemplate, 4, oldTemplate)}, wantRecord: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "two", Generation: 2}}
			pcs.Spec.Replicas = 1
			pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "frontend"}}
			pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.RollingRecreateStrategyType}
			var ev statusEvents
			(&Reconciler{}).trackUpdate(pcs, genHash, map[string]string{"frontend": newTemplate}, tt.pclqs, nil, metav1.Now(), &ev)
			if got := pcs.Status.CurrentGenerationHash; !equalPtr(got, tt.wantCurrent) {
				t.Errorf("currentGenerationHash = %v, want %v", ptr.Deref(got, "<nil>"), ptr.Deref(tt.wantCurrent, "<nil>"))
			}
			rec := pcs.Status.UpdateProgress
			if (rec != nil) != tt.wantRecord {
				t.Fatalf("update record %+v, want one: %v", rec, tt.wantRecord)
			}
			if rec != nil && rec.PodCliqueSetGenerationHash != genHash {
				t.Errorf("update record for %s, want %s", rec.PodCliqueSetGenerationHash, genHash)
			}
		})
	}
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
