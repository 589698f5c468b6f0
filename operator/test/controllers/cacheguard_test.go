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

package controllers

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/equality"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// cacheGuard catches a cached object changed in place. The operator reads
// its children, and some single objects, from the cache without copying them
// (client.UnsafeDisableDeepCopy), and the cache transform makes objects
// share strings and managed-field sets: one write into such an object would
// corrupt the cache for every reader, and nothing in the operator would
// notice. The guard wraps every transform of the manager's cache and keeps a
// deep copy of each object as the cache stores it; after every spec each
// object the cache ever stored must still equal its copy.
type cacheGuard struct {
	mu     sync.Mutex
	stored map[client.Object]client.Object
}

var guard = &cacheGuard{stored: map[client.Object]client.Object{}}

// install wraps the cache's default transform and each per-kind one.
func (g *cacheGuard) install(o *ctrl.Options) {
	o.Cache.DefaultTransform = g.wrap(o.Cache.DefaultTransform)
	byObject := make(map[client.Object]cache.ByObject, len(o.Cache.ByObject))
	for obj, by := range o.Cache.ByObject {
		by.Transform = g.wrap(by.Transform)
		byObject[obj] = by
	}
	o.Cache.ByObject = byObject
}

func (g *cacheGuard) wrap(transform toolscache.TransformFunc) toolscache.TransformFunc {
	return func(in any) (any, error) {
		out := in
		if transform != nil {
			var err error
			if out, err = transform(in); err != nil {
				return nil, err
			}
		}
		if obj, ok := out.(client.Object); ok {
			g.mu.Lock()
			g.stored[obj] = obj.DeepCopyObject().(client.Object)
			g.mu.Unlock()
		}
		return out, nil
	}
}

// changed names the cached objects that differ from the copy taken when the
// cache stored them.
func (g *cacheGuard) changed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for obj, copied := range g.stored {
		if !equality.Semantic.DeepEqual(obj, copied) {
			out = append(out, fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName()))
		}
	}
	return out
}

var _ = AfterEach(func() {
	Expect(guard.changed()).To(BeEmpty(), "objects in the manager's cache were changed in place")
})
