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

// Package ownwrites remembers the operator's own writes that its informer
// cache has not shown yet, so a reconcile that reads the cache right after a
// write neither repeats the write nor acts on the state the write replaced.
// It is one mechanism for every controller and kind, in the spirit of
// Kubernetes' stale-controller mitigation (KEP-5647): a write's answer
// carries the object's new resourceVersion; resource versions of one
// resource are ordered (resourceversion.CompareResourceVersion), so a cached
// object older than that version is behind the write.
//
// What the operator needs it for: a child created by server-side apply that
// the cache does not show yet is not applied again (a second apply would
// force the creating values back, spec.replicas among them); a PodClique
// whose cached status is older than the status its controller wrote is not
// reconciled on (the status would be computed from what that write
// replaced); a scheduling gate lifted is not lifted again and counts as
// lifted; an object deleted (gang termination, the children of a deleted
// PodCliqueSet) is not judged or deleted again while the cache still shows
// it alive.
//
// An entry ends when a read of the cache shows the write (a version at least
// as new, the deletion under way), when the informer reports the object
// deleted, or after Timeout. The deletes and status writes carry
// preconditions and a gate removal changes nothing the second time, so for
// them an entry that ends too early costs a repeated request, never a wrong
// one. After a restart the caches are listed anew before any reconcile runs
// and nothing is remembered.
package ownwrites

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Timeout bounds how long a write waits for the cache. A watch normally
// delivers a write within milliseconds; an entry older than this is ignored,
// so a lost event holds no reconcile back for long.
const Timeout = time.Minute

// Tracker remembers, per object, the operator's last write the cache has not
// shown. It is safe for concurrent use; a nil *Tracker remembers nothing.
type Tracker struct {
	mu      sync.Mutex
	timeout time.Duration
	now     func() time.Time
	entries map[key]*entry
	pruned  time.Time
	// tracked are the kinds whose informers end entries (Track); writes of
	// other kinds are not remembered, since nothing would end their wait
	// before Timeout.
	tracked map[reflect.Type]bool
}

type key struct {
	kind            reflect.Type
	namespace, name string
}

type entry struct {
	// version is the resourceVersion the write answered with; empty while
	// a create is in flight (Begin).
	version string
	// deleted is the UID of the object deleted; empty for other writes.
	deleted types.UID
	at      time.Time
}

// New returns an empty tracker.
func New() *Tracker {
	return &Tracker{timeout: Timeout, now: time.Now, entries: map[key]*entry{}, tracked: map[reflect.Type]bool{}}
}

func keyOf(obj client.Object) key {
	return key{kind: reflect.TypeOf(obj), namespace: obj.GetNamespace(), name: obj.GetName()}
}

// Track remembers writes of objs' kinds and has their informers end the
// entries of objects deleted. Whether the cache shows a write is decided when
// the cache is read (Behind): a handler is called before the reads of the
// same cache see the object, and readers compare against what they read.
// Call it before the manager starts.
func (t *Tracker) Track(ctx context.Context, informers cache.Informers, objs ...client.Object) error {
	for _, obj := range objs {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("getting informer for %T: %w", obj, err)
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: t.gone}); err != nil {
			return fmt.Errorf("watching %T for the operator's own writes: %w", obj, err)
		}
		t.mu.Lock()
		t.tracked[reflect.TypeOf(obj)] = true
		t.mu.Unlock()
	}
	return nil
}

// gone ends the entry of an object the informer saw deleted: whatever was
// written, the cache no longer waits for it, and a create may be sent again.
func (t *Tracker) gone(o any) {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	obj, ok := o.(client.Object)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, keyOf(obj))
}

// shownBy reports whether cached shows the write e records.
func (e *entry) shownBy(cached client.Object) bool {
	if e.deleted != "" {
		return cached.GetUID() != e.deleted || cached.GetDeletionTimestamp() != nil
	}
	if e.version == "" {
		// A create in flight: the object shown may be its result; its
		// answer decides.
		return false
	}
	cmp, err := resourceversion.CompareResourceVersion(cached.GetResourceVersion(), e.version)
	// A version that is not a well-formed number (not from an etcd-backed
	// API server) never holds a reconcile back.
	return err != nil || cmp >= 0
}

func (t *Tracker) live(e *entry) bool {
	return t.now().Sub(e.at) < t.timeout
}

// Begin reserves the create of obj (only its kind, namespace and name are
// read): false while an earlier create or write of it waits for the cache.
// Of two reconciles that find the object missing at once only one gets true.
// The caller ends the reservation with Wrote, or with Forget if the write
// failed.
func (t *Tracker) Begin(obj client.Object) bool {
	if t == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := keyOf(obj)
	if e, ok := t.entries[k]; ok && t.live(e) {
		return false
	}
	if t.tracked[k.kind] {
		t.put(k, &entry{})
	}
	return true
}

// Wrote records a successful write whose answer obj holds (its new
// resourceVersion).
func (t *Tracker) Wrote(obj client.Object) {
	if t == nil || obj.GetResourceVersion() == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.put(keyOf(obj), &entry{version: obj.GetResourceVersion()})
}

// Deleted records that obj (the object with its UID) was deleted.
func (t *Tracker) Deleted(obj client.Object) {
	if t == nil || obj.GetUID() == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.put(keyOf(obj), &entry{deleted: obj.GetUID()})
}

// Forget drops what is remembered of obj: its write failed, so nothing is to
// wait for.
func (t *Tracker) Forget(obj client.Object) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, keyOf(obj))
}

// Behind reports whether cached, an object as the cache shows it, predates
// the operator's last write of it: older than the version the write answered
// with, or alive though the operator deleted it. Once the cache has caught
// up the entry is dropped.
func (t *Tracker) Behind(cached client.Object) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := keyOf(cached)
	e, ok := t.entries[k]
	if !ok {
		return false
	}
	if !t.live(e) || e.shownBy(cached) {
		delete(t.entries, k)
		return false
	}
	return e.version != "" || e.deleted != ""
}

// put stores e for a tracked kind, dropping expired entries at most once per timeout so that
// writes of objects no informer reports on do not accumulate.
func (t *Tracker) put(k key, e *entry) {
	if !t.tracked[k.kind] {
		return
	}
	now := t.now()
	e.at = now
	if now.Sub(t.pruned) >= t.timeout {
		for ek, ee := range t.entries {
			if !t.live(ee) {
				delete(t.entries, ek)
			}
		}
		t.pruned = now
	}
	t.entries[k] = e
}
