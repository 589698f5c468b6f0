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
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// inflightSyncs lets the deletion of a PodCliqueSet stop its sync under way.
// A sync of a set of thousands of replicas runs for minutes (one apply per
// child, at the client's request rate); once the set is deleted, every
// child it still creates or applies is only work for the deletion that
// follows. Stopping it lets the next reconcile find the set gone and delete
// its children at once.
type inflightSyncs struct {
	mu     sync.Mutex
	cancel map[types.NamespacedName]context.CancelFunc
}

func newInflightSyncs() *inflightSyncs {
	return &inflightSyncs{cancel: map[types.NamespacedName]context.CancelFunc{}}
}

// start registers the sync of key and returns its context, cancelled when
// stop is called for key, and the function that ends the registration. A
// controller never reconciles one key twice at once, so one sync per key
// is registered at a time.
func (s *inflightSyncs) start(ctx context.Context, key types.NamespacedName) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel[key] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.cancel, key)
		s.mu.Unlock()
		cancel()
	}
}

// stop cancels the sync of key under way, if any.
func (s *inflightSyncs) stop(key types.NamespacedName) {
	s.mu.Lock()
	cancel := s.cancel[key]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// track stops the sync of every PodCliqueSet the informer reports deleted or
// being deleted. Call it before the manager starts.
func (s *inflightSyncs) track(ctx context.Context, informers cache.Informers) error {
	inf, err := informers.GetInformer(ctx, &grovecorev1alpha1.PodCliqueSet{})
	if err != nil {
		return fmt.Errorf("getting the PodCliqueSet informer: %w", err)
	}
	stopIfDeleted := func(obj any, deleted bool) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if o, ok := obj.(client.Object); ok && (deleted || o.GetDeletionTimestamp() != nil) {
			s.stop(client.ObjectKeyFromObject(o))
		}
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { stopIfDeleted(obj, false) },
		DeleteFunc: func(obj any) { stopIfDeleted(obj, true) },
	})
	if err != nil {
		return fmt.Errorf("watching PodCliqueSet deletions: %w", err)
	}
	return nil
}
