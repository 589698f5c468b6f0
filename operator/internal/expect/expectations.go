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

// Package expect remembers the pods a controller is creating or deleting
// that its informer cache has not shown yet. Without it, a reconcile that runs
// before the cache catches up would count too few pods and create duplicates
// (or delete twice).
//
// Creates are tracked by pod index, and the index is reserved before the
// create request is sent: a request whose answer is lost (a timeout, a
// connection cut by a restarting API server) may still have created the pod,
// so its index stays taken until the cache shows that pod or a live read
// from the API server shows there is none. This is what keeps two pods of a
// PodClique from ever sharing an index.
//
// Every expectation has a deadline. One the cache has not settled by then
// (a pod created and deleted before the cache saw it, a watch that lags) is
// settled against a live list instead, so nothing stays pending forever.
// Expectations live in memory only: after a restart the cache is listed from
// scratch before any reconcile runs, and no request of the old process is in
// flight any more.
package expect

import (
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// DefaultTimeout is how long an expectation waits for the cache before it is
// settled by a live list. It exceeds the API server's default request timeout
// (60s), so a create whose answer was lost can no longer commit afterwards.
const DefaultTimeout = 75 * time.Second

// Pod is what the store needs to know of a pod the cache or a live list shows.
type Pod struct {
	UID types.UID
	// Index is the pod's index in its PodClique; -1 when it has none.
	Index int
	// Active is true for a pod that is neither terminating nor finished.
	Active bool
	// Terminating is true once the pod has a deletion timestamp.
	Terminating bool
}

// State is what an owner's expectations leave pending after a Sync.
type State struct {
	// ReservedIndices are the indices of creates the cache has not shown yet.
	ReservedIndices []int
	// PendingDeletes are the UIDs of pods deleted but still shown as active.
	PendingDeletes map[types.UID]struct{}
	// Overdue is true when some create passed its deadline unseen: the caller
	// must settle it with Confirm against a live list.
	Overdue bool
	// RecheckAfter is when the earliest pending expectation reaches its
	// deadline (zero when nothing is pending): the owner must be reconciled
	// again by then even if no event arrives.
	RecheckAfter time.Duration
	// Oldest is how long the oldest pending expectation has waited for the
	// cache (zero when nothing is pending).
	Oldest time.Duration
}

// Store holds the expectations of every owner (key namespace/name).
type Store struct {
	mu      sync.Mutex
	timeout time.Duration
	now     func() time.Time
	owners  map[string]*owner
}

type owner struct {
	creates map[int]*create
	deletes map[types.UID]time.Time
}

// create is a reserved index: uid is empty until the create returned (and
// stays empty when its answer was lost).
type create struct {
	uid   types.UID
	since time.Time
}

// NewStore returns an empty store whose expectations wait timeout for the
// cache (DefaultTimeout when timeout is zero).
func NewStore(timeout time.Duration) *Store {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Store{timeout: timeout, now: time.Now, owners: map[string]*owner{}}
}

func (s *Store) owner(key string) *owner {
	o, ok := s.owners[key]
	if !ok {
		o = &owner{creates: map[int]*create{}, deletes: map[types.UID]time.Time{}}
		s.owners[key] = o
	}
	return o
}

// Reserve takes pod index idx for a create about to be sent.
func (s *Store) Reserve(key string, idx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner(key).creates[idx] = &create{since: s.now()}
}

// Created records the pod a reserved create made.
func (s *Store) Created(key string, idx int, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner(key).creates[idx] = &create{uid: uid, since: s.now()}
}

// Release frees a reserved index whose create certainly made no pod (the API
// server answered with a rejection, or the request never reached it).
func (s *Store) Release(key string, idx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.owners[key]; ok {
		delete(o.creates, idx)
		s.dropIfEmpty(key, o)
	}
}

// ExpectDelete records a pod that was deleted.
func (s *Store) ExpectDelete(key string, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner(key).deletes[uid] = s.now()
}

// ObservedDeletion settles every expectation on a pod the cache reports
// deleted: a pod created and removed before a reconcile saw it frees its
// index at once.
func (s *Store) ObservedDeletion(key string, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owners[key]
	if !ok {
		return
	}
	delete(o.deletes, uid)
	for idx, c := range o.creates {
		if c.uid == uid {
			delete(o.creates, idx)
		}
	}
	s.dropIfEmpty(key, o)
}

// Sync settles the owner's expectations against the pods the cache shows and
// returns what is still pending. A create is settled when the cache shows its
// pod (by UID, or for a create whose answer was lost, an active pod with its
// index); a delete when the pod is gone or terminating, or at its deadline.
func (s *Store) Sync(key string, cached []Pod) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owners[key]
	if !ok {
		return State{}
	}
	byUID := make(map[types.UID]Pod, len(cached))
	activeIndex := make(map[int]bool, len(cached))
	for _, p := range cached {
		byUID[p.UID] = p
		// A pod this controller deleted may still look active in the cache;
		// it must not be mistaken for the pod of a create whose answer was lost.
		if _, deleted := o.deletes[p.UID]; p.Active && p.Index >= 0 && !deleted {
			activeIndex[p.Index] = true
		}
	}
	now := s.now()
	var st State
	var next time.Time
	wake := func(deadline time.Time) {
		if next.IsZero() || deadline.Before(next) {
			next = deadline
		}
		st.Oldest = max(st.Oldest, now.Sub(deadline.Add(-s.timeout)))
	}
	for idx, c := range o.creates {
		_, seen := byUID[c.uid]
		if (c.uid != "" && seen) || (c.uid == "" && activeIndex[idx]) {
			delete(o.creates, idx)
			continue
		}
		deadline := c.since.Add(s.timeout)
		if !now.Before(deadline) {
			st.Overdue = true
		}
		wake(deadline)
		st.ReservedIndices = append(st.ReservedIndices, idx)
	}
	sort.Ints(st.ReservedIndices)
	st.PendingDeletes = make(map[types.UID]struct{}, len(o.deletes))
	for uid, since := range o.deletes {
		p, seen := byUID[uid]
		deadline := since.Add(s.timeout)
		if !seen || p.Terminating || !now.Before(deadline) {
			delete(o.deletes, uid)
			continue
		}
		wake(deadline)
		st.PendingDeletes[uid] = struct{}{}
	}
	if !next.IsZero() {
		st.RecheckAfter = max(next.Sub(now), time.Second)
	}
	s.dropIfEmpty(key, o)
	return st
}

// Confirm settles the overdue creates of an owner against a live list of its
// pods (read from the API server, not the cache). A create whose pod the list
// shows stays reserved, with a new deadline, until the cache catches up; one
// whose pod it does not show is released, since no request of it can still
// commit.
func (s *Store) Confirm(key string, live []Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owners[key]
	if !ok {
		return
	}
	byUID := make(map[types.UID]bool, len(live))
	activeByIndex := make(map[int]types.UID, len(live))
	for _, p := range live {
		byUID[p.UID] = true
		if p.Active && p.Index >= 0 {
			activeByIndex[p.Index] = p.UID
		}
	}
	now := s.now()
	for idx, c := range o.creates {
		if now.Before(c.since.Add(s.timeout)) {
			continue
		}
		switch {
		case c.uid != "" && byUID[c.uid]:
			c.since = now
		case c.uid == "" && activeByIndex[idx] != "":
			// The lost answer's pod exists: from now on it is tracked by UID.
			o.creates[idx] = &create{uid: activeByIndex[idx], since: now}
		default:
			delete(o.creates, idx)
		}
	}
	s.dropIfEmpty(key, o)
}

// Forget drops everything recorded for an owner (when it is deleted).
func (s *Store) Forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.owners, key)
}

func (s *Store) dropIfEmpty(key string, o *owner) {
	if len(o.creates) == 0 && len(o.deletes) == 0 {
		delete(s.owners, key)
	}
}
