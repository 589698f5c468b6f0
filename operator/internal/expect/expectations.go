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

// Package expect remembers the pods a controller created or deleted that its
// informer cache has not shown yet. Without it, a reconcile that runs before
// the cache catches up would count too few pods and create duplicates (or
// delete twice). Expectations live in memory only: after a restart the cache
// is listed from scratch before any reconcile runs, so nothing is lost.
package expect

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Store holds, per owner key (namespace/name), the UIDs of pods created but
// not yet seen in the cache, with the pod index each one took, and the UIDs
// of pods deleted but still seen.
type Store struct {
	mu     sync.Mutex
	owners map[string]*ownerExpectations
}

type ownerExpectations struct {
	creates map[types.UID]int
	deletes map[types.UID]struct{}
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{owners: map[string]*ownerExpectations{}}
}

func (s *Store) owner(key string) *ownerExpectations {
	o, ok := s.owners[key]
	if !ok {
		o = &ownerExpectations{creates: map[types.UID]int{}, deletes: map[types.UID]struct{}{}}
		s.owners[key] = o
	}
	return o
}

// ExpectCreate records a pod that was created with the given pod index.
func (s *Store) ExpectCreate(key string, uid types.UID, podIndex int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner(key).creates[uid] = podIndex
}

// ExpectDelete records a pod that was deleted.
func (s *Store) ExpectDelete(key string, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner(key).deletes[uid] = struct{}{}
}

// ObservedDeletion drops the delete expectation of a pod the cache no longer shows.
func (s *Store) ObservedDeletion(key string, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.owners[key]; ok {
		delete(o.deletes, uid)
		delete(o.creates, uid)
	}
}

// Sync reconciles the expectations with what the cache shows: present maps
// the UID of every pod the cache lists to whether it is terminating. Creates
// that appeared and deletes that took effect are dropped. It returns the pod
// indices of creates still pending and the UIDs of deletes still pending.
func (s *Store) Sync(key string, present map[types.UID]bool) (pendingCreateIndices []int, pendingDeletes map[types.UID]struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owners[key]
	if !ok {
		return nil, nil
	}
	for uid := range o.creates {
		if _, seen := present[uid]; seen {
			delete(o.creates, uid)
		}
	}
	for uid := range o.deletes {
		if terminating, seen := present[uid]; !seen || terminating {
			delete(o.deletes, uid)
		}
	}
	for _, idx := range o.creates {
		pendingCreateIndices = append(pendingCreateIndices, idx)
	}
	pendingDeletes = make(map[types.UID]struct{}, len(o.deletes))
	for uid := range o.deletes {
		pendingDeletes[uid] = struct{}{}
	}
	if len(o.creates) == 0 && len(o.deletes) == 0 {
		delete(s.owners, key)
	}
	return pendingCreateIndices, pendingDeletes
}

// Forget drops everything recorded for an owner (when it is deleted).
func (s *Store) Forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.owners, key)
}
