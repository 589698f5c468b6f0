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

package podclique

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// writtenVersions remembers, per PodClique, the resourceVersion its own last
// status write produced, until the cache shows that version or a later one.
// A reconcile that reads an older PodClique from the cache would compute its
// status from counts and history the controller has already replaced; its
// optimistic-lock write would only meet a conflict in the API server. Resource
// versions of one resource are ordered (resourceversion.CompareResourceVersion).
type writtenVersions struct {
	mu       sync.Mutex
	versions map[string]string
}

func newWrittenVersions() *writtenVersions {
	return &writtenVersions{versions: map[string]string{}}
}

// wrote records the resourceVersion a status write of key returned.
func (w *writtenVersions) wrote(key, resourceVersion string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.versions[key] = resourceVersion
}

// behind reports whether cached, the resourceVersion the cache shows for key,
// is older than the controller's own last write. Once the cache has caught up
// the entry is dropped. A version that is not a well-formed number (not from
// an etcd-backed API server) never holds a reconcile back.
func (w *writtenVersions) behind(key, cached string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	written, ok := w.versions[key]
	if !ok {
		return false
	}
	if cmp, err := resourceversion.CompareResourceVersion(cached, written); err == nil && cmp < 0 {
		return true
	}
	delete(w.versions, key)
	return false
}

// forget drops key (the PodClique is gone).
func (w *writtenVersions) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.versions, key)
}
