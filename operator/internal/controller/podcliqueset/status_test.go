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
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestPodGangStatusesShowAtMostTheLimitNotRunningFirst(t *testing.T) {
	gang := func(i int, phase groveschedulerv1alpha1.PodGangPhase) groveschedulerv1alpha1.PodGang {
		return groveschedulerv1alpha1.PodGang{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pcs-%04d", i)},
			Status:     groveschedulerv1alpha1.PodGangStatus{Phase: phase},
		}
	}
	tests := []struct {
		name        string
		running     int
		pending     []int // indices of the gangs that are Pending
		unphased    int   // gangs without a phase, after the others
		wantLen     int
		wantFirst   string
		wantPending int
	}{
		{name: "a small set shows every phased PodGang", running: 3, pending: []int{1}, unphased: 2, wantLen: 3, wantFirst: "pcs-0000", wantPending: 1},
		{name: "exactly the limit shows all", running: 100, wantLen: 100, wantFirst: "pcs-0000"},
		{name: "past the limit, the Pending ones are kept", running: 5000, pending: []int{4999, 17, 2500}, wantLen: 100, wantFirst: "pcs-0000", wantPending: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pending := map[int]bool{}
			for _, i := range tt.pending {
				pending[i] = true
			}
			var gangs []groveschedulerv1alpha1.PodGang
			// Listed in reverse, so that the result's order is the function's.
			for i := tt.running - 1; i >= 0; i-- {
				phase := groveschedulerv1alpha1.PodGangPhaseRunning
				if pending[i] {
					phase = groveschedulerv1alpha1.PodGangPhasePending
				}
				gangs = append(gangs, gang(i, phase))
			}
			for i := 0; i < tt.unphased; i++ {
				gangs = append(gangs, gang(tt.running+i, ""))
			}
			got := podGangStatuses(gangs)
			if len(got) != tt.wantLen {
				t.Fatalf("got %d entries, want %d", len(got), tt.wantLen)
			}
			if got[0].Name != tt.wantFirst {
				t.Errorf("first entry %s, want %s", got[0].Name, tt.wantFirst)
			}
			n := 0
			for i, g := range got {
				if i > 0 && got[i-1].Name >= g.Name {
					t.Errorf("entries not sorted by name: %s before %s", got[i-1].Name, g.Name)
				}
				if g.Phase == groveschedulerv1alpha1.PodGangPhasePending {
					n++
				}
			}
			if n != tt.wantPending {
				t.Errorf("%d Pending entries, want %d", n, tt.wantPending)
			}
		})
	}
}
