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
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestInflightSyncsStopOnlyTheDeletedSetsSync(t *testing.T) {
	s := newInflightSyncs()
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	ctxA, doneA := s.start(context.Background(), a)
	ctxB, doneB := s.start(context.Background(), b)
	defer doneB()

	s.stop(a)
	if ctxA.Err() == nil {
		t.Fatal("the sync of a was not stopped")
	}
	if ctxB.Err() != nil {
		t.Fatal("stopping a stopped the sync of b")
	}
	doneA()
	if len(s.cancel) != 1 {
		t.Fatalf("%d syncs registered after a's ended, want 1", len(s.cancel))
	}
	// A stop for a set with no sync under way does nothing, and the next
	// sync of a starts afresh.
	s.stop(a)
	ctxA, doneA = s.start(context.Background(), a)
	defer doneA()
	if ctxA.Err() != nil {
		t.Fatal("a sync started after a stop was already stopped")
	}
	// Its parent's end (a shutdown) ends it too.
	parent, cancel := context.WithCancel(context.Background())
	c := types.NamespacedName{Namespace: "ns", Name: "c"}
	ctxC, doneC := s.start(parent, c)
	defer doneC()
	cancel()
	if ctxC.Err() == nil {
		t.Fatal("the sync outlived its parent context")
	}
}
