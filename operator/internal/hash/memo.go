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

package hash

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Hashes are the hashes of one generation of a PodCliqueSet's template.
type Hashes struct {
	// Generation is GenerationHash.
	Generation string
	// Cliques is PodTemplateHash by clique name. It is shared by every
	// caller of Of: read it, never change it.
	Cliques map[string]string
}

// Of returns the hashes of pcs. They depend on its spec alone, and the API
// server raises a PodCliqueSet's generation with every change of its spec, so
// they are computed once per UID and generation and remembered: every
// PodClique reconcile needs them, and hashing canonicalises each clique's pod
// spec through JSON, which for a set of 5000 PodCliques allocated 180 MB per
// run. A PodCliqueSet without UID or generation (not read from the API
// server) is hashed every time.
func Of(pcs *grovecorev1alpha1.PodCliqueSet) (Hashes, error) {
	return remembered.of(pcs)
}

// memoCapacity bounds the hashes remembered: past it, all are forgotten (they
// cost one computation each to get back), so sets deleted long ago do not
// accumulate.
const memoCapacity = 1024

var remembered = newMemo(memoCapacity)

type memoEntry struct {
	generation int64
	hashes     Hashes
}

type memo struct {
	mu       sync.Mutex
	capacity int
	entries  map[types.UID]memoEntry
}

func newMemo(capacity int) *memo {
	return &memo{capacity: capacity, entries: map[types.UID]memoEntry{}}
}

func (m *memo) of(pcs *grovecorev1alpha1.PodCliqueSet) (Hashes, error) {
	if pcs.UID == "" || pcs.Generation == 0 {
		return compute(pcs)
	}
	m.mu.Lock()
	e, ok := m.entries[pcs.UID]
	m.mu.Unlock()
	if ok && e.generation == pcs.Generation {
		return e.hashes, nil
	}
	h, err := compute(pcs)
	if err != nil {
		return Hashes{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.entries[pcs.UID]; ok && cur.generation > pcs.Generation {
		// A reconcile on an older cached copy does not replace the newer
		// generation's entry.
		return h, nil
	}
	if len(m.entries) >= m.capacity {
		clear(m.entries)
	}
	m.entries[pcs.UID] = memoEntry{generation: pcs.Generation, hashes: h}
	return h, nil
}

func compute(pcs *grovecorev1alpha1.PodCliqueSet) (Hashes, error) {
	cliques, err := CliqueHashes(pcs)
	if err != nil {
		return Hashes{}, err
	}
	gen, err := generationHash(pcs, cliques)
	if err != nil {
		return Hashes{}, err
	}
	return Hashes{Generation: gen, Cliques: cliques}, nil
}
