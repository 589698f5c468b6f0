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

package expect

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

const key = "default/demo-0-fe"

// clock is a settable time source for the store.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestStore() (*Store, *clock) {
	c := &clock{t: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}
	s := NewStore(time.Minute)
	s.now = c.now
	return s, c
}

func active(uid types.UID, idx int) Pod { return Pod{UID: uid, Index: idx, Active: true} }

func TestCreatesAreSettledByTheCache(t *testing.T) {
	for _, tc := range []struct {
		name         string
		record       func(s *Store)
		cached       []Pod
		wantReserved []int
	}{
		{
			name:         "a create whose pod the cache shows is settled",
			record:       func(s *Store) { s.Reserve(key, 0); s.Created(key, 0, "a") },
			cached:       []Pod{active("a", 0)},
			wantReserved: nil,
		},
		{
			name:         "a create whose pod the cache does not show keeps its index",
			record:       func(s *Store) { s.Reserve(key, 1); s.Created(key, 1, "b") },
			cached:       []Pod{active("a", 0)},
			wantReserved: []int{1},
		},
		{
			name:         "a create whose answer was lost keeps its index while the cache shows no pod with it",
			record:       func(s *Store) { s.Reserve(key, 1) },
			cached:       []Pod{active("a", 0)},
			wantReserved: []int{1},
		},
		{
			name:         "a create whose answer was lost is settled by an active pod with its index",
			record:       func(s *Store) { s.Reserve(key, 1) },
			cached:       []Pod{active("a", 0), active("x", 1)},
			wantReserved: nil,
		},
		{
			name:         "a terminating pod with the index does not settle a lost answer",
			record:       func(s *Store) { s.Reserve(key, 1) },
			cached:       []Pod{{UID: "old", Index: 1, Terminating: true}},
			wantReserved: []int{1},
		},
		{
			name: "a pod this controller deleted does not settle a lost answer even if the cache still shows it active",
			record: func(s *Store) {
				s.ExpectDelete(key, "old")
				s.Reserve(key, 1)
			},
			cached:       []Pod{active("old", 1)},
			wantReserved: []int{1},
		},
		{
			name:         "a released index is free",
			record:       func(s *Store) { s.Reserve(key, 2); s.Release(key, 2) },
			wantReserved: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestStore()
			tc.record(s)
			st := s.Sync(key, tc.cached)
			if !slices.Equal(st.ReservedIndices, tc.wantReserved) {
				t.Fatalf("reserved %v, want %v", st.ReservedIndices, tc.wantReserved)
			}
			if st.Overdue {
				t.Fatalf("nothing is overdue before the deadline")
			}
			if len(tc.wantReserved) > 0 && st.RecheckAfter != time.Minute {
				t.Fatalf("RecheckAfter %v, want the full timeout", st.RecheckAfter)
			}
		})
	}
}

func TestOverdueCreatesAreSettledByALiveList(t *testing.T) {
	for _, tc := range []struct {
		name         string
		record       func(s *Store)
		live         []Pod
		wantReserved []int
	}{
		{
			name:         "a lost answer whose pod the live list shows stays reserved",
			record:       func(s *Store) { s.Reserve(key, 0) },
			live:         []Pod{active("lost", 0)},
			wantReserved: []int{0},
		},
		{
			name:         "a lost answer whose pod the live list does not show is released",
			record:       func(s *Store) { s.Reserve(key, 0) },
			live:         nil,
			wantReserved: nil,
		},
		{
			name:         "a created pod deleted before the cache saw it is released",
			record:       func(s *Store) { s.Reserve(key, 3); s.Created(key, 3, "gone") },
			live:         []Pod{active("other", 0)},
			wantReserved: nil,
		},
		{
			name:         "a created pod the cache lags behind stays reserved",
			record:       func(s *Store) { s.Reserve(key, 3); s.Created(key, 3, "slow") },
			live:         []Pod{active("slow", 3)},
			wantReserved: []int{3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk := newTestStore()
			tc.record(s)
			clk.advance(time.Minute)
			if st := s.Sync(key, nil); !st.Overdue {
				t.Fatalf("Overdue false at the deadline")
			}
			s.Confirm(key, tc.live)
			st := s.Sync(key, nil)
			if !slices.Equal(st.ReservedIndices, tc.wantReserved) {
				t.Fatalf("reserved %v after Confirm, want %v", st.ReservedIndices, tc.wantReserved)
			}
			if st.Overdue {
				t.Fatalf("still overdue after Confirm: a kept reservation gets a new deadline")
			}
		})
	}
}

func TestConfirmLeavesCreatesBeforeTheirDeadline(t *testing.T) {
	s, clk := newTestStore()
	s.Reserve(key, 0)
	clk.advance(30 * time.Second)
	s.Reserve(key, 1)
	clk.advance(30 * time.Second)
	// Index 0 is overdue, index 1 is not: a create still in flight must not
	// be released by a list that cannot show it yet.
	s.Confirm(key, nil)
	if st := s.Sync(key, nil); !slices.Equal(st.ReservedIndices, []int{1}) || st.RecheckAfter != 30*time.Second {
		t.Fatalf("reserved %v recheck %v, want [1] in 30s", st.ReservedIndices, st.RecheckAfter)
	}
}

func TestLostAnswerFoundLiveIsThenTrackedByUID(t *testing.T) {
	s, clk := newTestStore()
	s.Reserve(key, 0)
	clk.advance(time.Minute)
	s.Confirm(key, []Pod{active("lost", 0)})
	// The pod is known now; deleting it before the cache shows it frees the index.
	s.ObservedDeletion(key, "lost")
	if st := s.Sync(key, nil); len(st.ReservedIndices) != 0 {
		t.Fatalf("reserved %v, want none", st.ReservedIndices)
	}
}

func TestDeletes(t *testing.T) {
	s, clk := newTestStore()
	s.ExpectDelete(key, "a")
	st := s.Sync(key, []Pod{active("a", 0), active("b", 1)})
	if _, ok := st.PendingDeletes["a"]; !ok || len(st.PendingDeletes) != 1 {
		t.Fatalf("a still listed and not terminating: pending deletes %v, want [a]", st.PendingDeletes)
	}
	if st = s.Sync(key, []Pod{{UID: "a", Index: 0, Terminating: true}}); len(st.PendingDeletes) != 0 {
		t.Fatalf("a terminating: pending deletes %v, want none", st.PendingDeletes)
	}

	s.ExpectDelete(key, "b")
	s.ObservedDeletion(key, "b")
	if st = s.Sync(key, []Pod{active("b", 1)}); len(st.PendingDeletes) != 0 {
		t.Fatalf("b observed deleted: pending deletes %v", st.PendingDeletes)
	}

	// A delete the cache never reflects expires: the cache is then the truth.
	s.ExpectDelete(key, "c")
	clk.advance(time.Minute)
	if st = s.Sync(key, []Pod{active("c", 2)}); len(st.PendingDeletes) != 0 || st.RecheckAfter != 0 {
		t.Fatalf("expired delete: pending %v recheck %v, want none", st.PendingDeletes, st.RecheckAfter)
	}
}

func TestForget(t *testing.T) {
	s, _ := newTestStore()
	s.Reserve(key, 2)
	s.ExpectDelete(key, "x")
	s.Forget(key)
	if st := s.Sync(key, nil); len(st.ReservedIndices) != 0 || len(st.PendingDeletes) != 0 {
		t.Fatalf("after Forget: %+v", st)
	}
	if len(s.owners) != 0 {
		t.Fatalf("owners not dropped: %v", s.owners)
	}
}

// Oldest is the wait of the oldest pending expectation, creates and deletes alike.
func TestOldestPendingExpectation(t *testing.T) {
	s, clk := newTestStore()
	if st := s.Sync(key, nil); st.Oldest != 0 {
		t.Fatalf("nothing pending: Oldest %v, want 0", st.Oldest)
	}
	s.Reserve(key, 0)
	clk.advance(3 * time.Second)
	s.ExpectDelete(key, "b")
	clk.advance(2 * time.Second)
	if st := s.Sync(key, []Pod{active("b", 1)}); st.Oldest != 5*time.Second {
		t.Fatalf("create 5s old, delete 2s old: Oldest %v, want 5s", st.Oldest)
	}
	if st := s.Sync(key, []Pod{active("a", 0), {UID: "b", Index: 1, Terminating: true}}); st.Oldest != 0 {
		t.Fatalf("both settled: Oldest %v, want 0", st.Oldest)
	}
}
