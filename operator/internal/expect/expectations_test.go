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

	"k8s.io/apimachinery/pkg/types"
)

func TestStore(t *testing.T) {
	const key = "default/demo-0-fe"
	s := NewStore()

	s.ExpectCreate(key, "a", 0)
	s.ExpectCreate(key, "b", 1)
	creates, deletes := s.Sync(key, map[types.UID]bool{"a": false})
	if !slices.Equal(creates, []int{1}) || len(deletes) != 0 {
		t.Fatalf("after seeing a: pending creates %v deletes %v, want [1] and none", creates, deletes)
	}

	s.ExpectDelete(key, "a")
	creates, deletes = s.Sync(key, map[types.UID]bool{"a": false, "b": false})
	if len(creates) != 0 {
		t.Fatalf("b seen: pending creates %v, want none", creates)
	}
	if _, ok := deletes["a"]; !ok || len(deletes) != 1 {
		t.Fatalf("a still listed and not terminating: pending deletes %v, want [a]", deletes)
	}

	// A terminating pod counts as deleted.
	_, deletes = s.Sync(key, map[types.UID]bool{"a": true, "b": false})
	if len(deletes) != 0 {
		t.Fatalf("a terminating: pending deletes %v, want none", deletes)
	}

	s.ExpectDelete(key, "b")
	s.ObservedDeletion(key, "b")
	if _, deletes = s.Sync(key, map[types.UID]bool{}); len(deletes) != 0 {
		t.Fatalf("b observed deleted: pending deletes %v", deletes)
	}

	s.ExpectCreate(key, "c", 2)
	s.Forget(key)
	if creates, _ = s.Sync(key, nil); len(creates) != 0 {
		t.Fatalf("after Forget: pending creates %v", creates)
	}
}
