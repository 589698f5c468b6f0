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

package childsync

import (
	"context"
	"fmt"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateTimeout bounds how long a create waits for the cache before a sync
// may send it again. It outlasts a slow watch; a create that was never
// committed (or an object deleted again before the cache listed it) is then
// retried by the next sync.
const CreateTimeout = 30 * time.Second

// Creates remembers the children a controller created that its informer
// cache has not shown yet. A sync that runs before the watch catches up
// would otherwise find no object and send the create again, only to get
// AlreadyExists: at 500 PodGangs that was up to 700 wasted creates. An entry
// ends when the informer shows the object (added, updated or deleted) or
// after CreateTimeout. A nil *Creates tracks nothing.
type Creates struct {
	mu      sync.Mutex
	timeout time.Duration
	now     func() time.Time
	pending map[string]time.Time
	// tracked are the kinds (%T) whose informer ends entries; creates of
	// other kinds are not remembered, since nothing would end their wait.
	tracked map[string]bool
}

// NewCreates returns an empty tracker with CreateTimeout.
func NewCreates() *Creates {
	return &Creates{timeout: CreateTimeout, now: time.Now, pending: map[string]time.Time{}, tracked: map[string]bool{}}
}

// Track ends pending creates of objs' kinds when their informers show them.
// Call it before the manager starts.
func (c *Creates) Track(ctx context.Context, informers cache.Informers, objs ...client.Object) error {
	for _, obj := range objs {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("getting informer for %T: %w", obj, err)
		}
		seen := func(o any) {
			if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if co, ok := o.(client.Object); ok {
				c.observed(co)
			}
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    seen,
			UpdateFunc: func(_, o any) { seen(o) },
			DeleteFunc: seen,
		}); err != nil {
			return fmt.Errorf("watching %T for created objects: %w", obj, err)
		}
		c.mu.Lock()
		c.tracked[fmt.Sprintf("%T", obj)] = true
		c.mu.Unlock()
	}
	return nil
}

func createKey(obj client.Object) string {
	return fmt.Sprintf("%T/%s/%s", obj, obj.GetNamespace(), obj.GetName())
}

// reserve reports whether obj may be created now: not while an earlier
// create of it (less than the timeout ago) waits for the cache. A true
// answer records the create at once, so of two syncs that find the child
// missing together only one sends it.
func (c *Creates) reserve(obj client.Object) bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := createKey(obj)
	if at, ok := c.pending[key]; ok && c.now().Sub(at) < c.timeout {
		return false
	}
	delete(c.pending, key)
	if c.tracked[fmt.Sprintf("%T", obj)] {
		c.pending[key] = c.now()
	}
	return true
}

// observed ends the wait for obj.
func (c *Creates) observed(obj client.Object) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, createKey(obj))
}
