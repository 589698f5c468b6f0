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

package ownwrites

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func svc(ns, name, uid, version string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid), ResourceVersion: version}}
}

// pending reports whether a create or write of obj's object waits for the
// cache: what Begin refuses a create for.
func pending(tr *Tracker, obj client.Object) bool {
	if tr == nil {
		return false
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	e, ok := tr.entries[keyOf(obj)]
	return ok && e.deleted == "" && tr.live(e)
}

// tracking is a tracker of Services, as Track would make it.
func tracking() *Tracker {
	tr := New()
	tr.tracked[reflect.TypeOf(&corev1.Service{})] = true
	return tr
}

func deleting(s *corev1.Service) *corev1.Service {
	s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	return s
}

func TestTrackerWaitsForTheCacheToShowTheWrite(t *testing.T) {
	cases := []struct {
		name  string
		steps func(tr *Tracker, clock *time.Time)
		// pending: a create of ns/a waits for the cache; behind is Behind of cached.
		cached  *corev1.Service
		pending bool
		behind  bool
	}{
		{name: "nothing written", steps: func(*Tracker, *time.Time) {},
			cached: svc("ns", "a", "u1", "10")},
		{name: "created, the cache shows nothing yet",
			steps: func(tr *Tracker, _ *time.Time) {
				tr.Begin(svc("ns", "a", "", ""))
				tr.Wrote(svc("ns", "a", "u1", "10"))
			},
			pending: true, cached: svc("ns", "a", "u1", "10")},
		{name: "create in flight",
			steps:   func(tr *Tracker, _ *time.Time) { tr.Begin(svc("ns", "a", "", "")) },
			pending: true, cached: svc("ns", "a", "u1", "10")},
		{name: "create failed",
			steps:  func(tr *Tracker, _ *time.Time) { tr.Begin(svc("ns", "a", "", "")); tr.Forget(svc("ns", "a", "", "")) },
			cached: svc("ns", "a", "u1", "10")},
		{name: "same name in another namespace",
			steps:  func(tr *Tracker, _ *time.Time) { tr.Wrote(svc("other", "a", "u1", "10")) },
			cached: svc("ns", "a", "u1", "9")},
		{name: "written, the cache shows an older version",
			steps:   func(tr *Tracker, _ *time.Time) { tr.Wrote(svc("ns", "a", "u1", "10")) },
			pending: true, cached: svc("ns", "a", "u1", "9"), behind: true},
		{name: "written, the cache shows that version",
			steps:   func(tr *Tracker, _ *time.Time) { tr.Wrote(svc("ns", "a", "u1", "10")) },
			pending: true, cached: svc("ns", "a", "u1", "10")},
		{name: "written, the cache shows a later version",
			steps:   func(tr *Tracker, _ *time.Time) { tr.Wrote(svc("ns", "a", "u1", "10")) },
			pending: true, cached: svc("ns", "a", "u1", "11")},
		{name: "written, the version is not a number",
			steps:   func(tr *Tracker, _ *time.Time) { tr.Wrote(svc("ns", "a", "u1", "x10")) },
			pending: true, cached: svc("ns", "a", "u1", "x9")},
		{name: "deleted, the cache shows it alive",
			steps:  func(tr *Tracker, _ *time.Time) { tr.Deleted(svc("ns", "a", "u1", "10")) },
			cached: svc("ns", "a", "u1", "10"), behind: true},
		{name: "deleted, the cache shows the deletion under way",
			steps:  func(tr *Tracker, _ *time.Time) { tr.Deleted(svc("ns", "a", "u1", "10")) },
			cached: deleting(svc("ns", "a", "u1", "11"))},
		{name: "deleted, the cache shows a replacement",
			steps:  func(tr *Tracker, _ *time.Time) { tr.Deleted(svc("ns", "a", "u1", "10")) },
			cached: svc("ns", "a", "u2", "12")},
		{name: "written just before the timeout",
			steps: func(tr *Tracker, clock *time.Time) {
				tr.Wrote(svc("ns", "a", "u1", "10"))
				*clock = clock.Add(Timeout - time.Second)
			},
			pending: true, cached: svc("ns", "a", "u1", "9"), behind: true},
		{name: "written, timed out",
			steps: func(tr *Tracker, clock *time.Time) {
				tr.Wrote(svc("ns", "a", "u1", "10"))
				*clock = clock.Add(Timeout)
			},
			cached: svc("ns", "a", "u1", "9")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Unix(1000, 0)
			tr := tracking()
			tr.now = func() time.Time { return clock }
			tc.steps(tr, &clock)
			if got := pending(tr, svc("ns", "a", "", "")); got != tc.pending {
				t.Errorf("pending = %t, want %t", got, tc.pending)
			}
			if got := tr.Behind(tc.cached); got != tc.behind {
				t.Errorf("Behind(uid %s, version %s) = %t, want %t", tc.cached.UID, tc.cached.ResourceVersion, got, tc.behind)
			}
		})
	}
}

func TestTrackerBeginReservesACreateOnce(t *testing.T) {
	tr := tracking()
	a := svc("ns", "a", "", "")
	if !tr.Begin(a) {
		t.Fatal("the first create was refused")
	}
	if tr.Begin(a) {
		t.Error("a second create of an object whose create is in flight was allowed")
	}
	untracked := &corev1.ConfigMap{ObjectMeta: a.ObjectMeta}
	if first, second := tr.Begin(untracked), tr.Begin(untracked); !first || !second {
		t.Error("a create of a kind no informer reports on was remembered; nothing would end its wait")
	}
	tr.Forget(a)
	if !tr.Begin(a) {
		t.Error("a create after the failed one was refused")
	}
	var none *Tracker
	none.Wrote(svc("ns", "a", "u1", "10"))
	if !none.Begin(a) || pending(none, a) || none.Behind(svc("ns", "a", "u1", "9")) {
		t.Error("a nil tracker remembers writes")
	}
}

// The informer's deletions end entries without a read.
func TestTrackerForgetsObjectsTheInformerSawDeleted(t *testing.T) {
	for name, event := range map[string]any{
		"deletion":           svc("ns", "a", "u1", "9"),
		"deletion on relist": toolscache.DeletedFinalStateUnknown{Key: "ns/a", Obj: svc("ns", "a", "u1", "9")},
	} {
		t.Run(name, func(t *testing.T) {
			tr := tracking()
			tr.Wrote(svc("ns", "a", "u1", "10"))
			tr.gone(event)
			if pending(tr, svc("ns", "a", "", "")) {
				t.Error("an object the informer saw deleted still counts as created")
			}
		})
	}
}
