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

import "testing"

func TestPhaseNext(t *testing.T) {
	const (
		pending  = PhasePending
		reserve  = PhaseReserving
		placed   = PhasePlaced
		misfit   = PhaseMisfit
		mReserve = PhaseMisfitReserving
	)
	phases := []Phase{pending, reserve, placed, misfit, mReserve}
	// want[event] lists the next phase from each of phases, in that order.
	want := map[gangEvent][]Phase{
		evAttemptStarted:  {pending, reserve, pending, misfit, mReserve},
		evSearchRejected:  {pending, reserve, pending, pending, reserve},
		evPermitWaiting:   {reserve, reserve, reserve, mReserve, mReserve},
		evPermitComplete:  {placed, placed, placed, placed, placed},
		evAttemptFailed:   {misfit, misfit, misfit, misfit, misfit},
		evAttemptRejected: {pending, pending, pending, misfit, misfit},
	}
	for ev, next := range want {
		for i, from := range phases {
			t.Run(from.String()+" on "+ev.String(), func(t *testing.T) {
				if got := from.next(ev); got != next[i] {
					t.Errorf("%s --%s--> %s, want %s", from, ev, got, next[i])
				}
			})
		}
	}
}

func TestPhasePredicates(t *testing.T) {
	tests := []struct {
		phase       Phase
		waiting     bool
		misfit      bool
		description string
	}{
		{PhasePending, false, false, "Pending"},
		{PhaseReserving, true, false, "Reserving"},
		{PhasePlaced, false, false, "Placed"},
		{PhaseMisfit, false, true, "Misfit"},
		{PhaseMisfitReserving, true, true, "MisfitReserving"},
	}
	for _, tt := range tests {
		t.Run(tt.description, func(t *testing.T) {
			if got := tt.phase.String(); got != tt.description {
				t.Errorf("String() = %q, want %q", got, tt.description)
			}
			if got := tt.phase.waitingAtPermit(); got != tt.waiting {
				t.Errorf("waitingAtPermit() = %v, want %v", got, tt.waiting)
			}
			if got := tt.phase.misfit(); got != tt.misfit {
				t.Errorf("misfit() = %v, want %v", got, tt.misfit)
			}
		})
	}
}
