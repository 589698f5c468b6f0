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
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConvergedChildren remembers, per child, the last version of it that was
// found to match what the controller wanted, and what that was. Deciding convergence
// means encoding the live child and reading its managed fields, which for a
// PodCliqueSet of 5000 replicas is 15 000 encodings per sync; a sync starts on
// every change of a PodClique's ready or scheduled count, yet between two
// syncs almost no child changed. Convergence is a function of the wanted
// configuration and of the child without its status (the status and the
// managed fields of subresources are never compared), so a child whose wanted
// configuration and content are the ones remembered is converged without
// that work: at the same resourceVersion at once, at a newer one (a status
// write) after a digest of its content. A caller that can name the inputs of
// the wanted configuration (see Shared.Inputs) is spared building it: the
// entry remembers those inputs too. Entries end when the informer reports
// the child deleted. A nil *ConvergedChildren remembers nothing.
type ConvergedChildren struct {
	mu      sync.Mutex
	entries map[types.UID]convergedAt
}

// convergedAt is a child's version, the digest of its content, the digest
// of the apply configuration it matched and the inputs that configuration
// was built from ("" when unknown).
type convergedAt struct {
	resourceVersion string
	content         [sha256.Size]byte
	want            [sha256.Size]byte
	inputs          string
}

// NewConvergedChildren returns an empty memory.
func NewConvergedChildren() *ConvergedChildren {
	return &ConvergedChildren{entries: map[types.UID]convergedAt{}}
}

// Track forgets children of objs' kinds when their informers report them
// deleted. Call it before the manager starts.
func (c *ConvergedChildren) Track(ctx context.Context, informers cache.Informers, objs ...client.Object) error {
	for _, obj := range objs {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("getting informer for %T: %w", obj, err)
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(o any) {
			if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if co, ok := o.(client.Object); ok {
				c.forget(co.GetUID())
			}
		}}); err != nil {
			return fmt.Errorf("watching %T for deleted children: %w", obj, err)
		}
	}
	return nil
}

// view is a child as deciding its convergence reads it: child names the
// UID and resourceVersion; unshared, when set, returns what is compared of
// it (a copy without what other writers own, see Shared.Unshared) and is
// called only when the content must be digested, so a child at its
// remembered version is converged without that copy.
type view struct {
	child    client.Object
	unshared func() client.Object
}

// viewOf is the view of a child compared as it is.
func viewOf(child client.Object) view { return view{child: child} }

func (v view) compared() client.Object {
	if v.unshared != nil {
		return v.unshared()
	}
	return v.child
}

// holds reports whether the child was found to match the apply configuration
// encoded as want, at its current resourceVersion or with the same content.
// inputs, when not empty, are what want was built from: remembered, they let
// the next sync with the same inputs skip building want (holdsInputs).
func (c *ConvergedChildren) holds(v view, want []byte, inputs string) bool {
	if c == nil {
		return false
	}
	digest := sha256.Sum256(want)
	return c.holdsIf(v, func(e convergedAt) bool { return e.want == digest }, inputs)
}

// holdsInputs reports whether the child was found to match the apply
// configuration built from inputs, at its current resourceVersion or with
// the same content. Empty inputs are unknown and never match.
func (c *ConvergedChildren) holdsInputs(v view, inputs string) bool {
	if c == nil || inputs == "" {
		return false
	}
	return c.holdsIf(v, func(e convergedAt) bool { return e.inputs == inputs }, inputs)
}

// holdsIf reports whether the child's entry satisfies match at the child's
// resourceVersion or content; a match brings the entry to that version and,
// when not empty, those inputs.
func (c *ConvergedChildren) holdsIf(v view, match func(convergedAt) bool, inputs string) bool {
	live := v.child
	c.mu.Lock()
	e, ok := c.entries[live.GetUID()]
	c.mu.Unlock()
	if !ok || !match(e) {
		return false
	}
	if e.resourceVersion != live.GetResourceVersion() {
		content, err := contentDigest(v.compared())
		if err != nil || content != e.content {
			return false
		}
	}
	if e.resourceVersion == live.GetResourceVersion() && (inputs == "" || e.inputs == inputs) {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.entries[live.GetUID()]; ok && cur == e {
		e.resourceVersion = live.GetResourceVersion()
		if inputs != "" {
			e.inputs = inputs
		}
		c.entries[live.GetUID()] = e
	}
	return true
}

// record remembers that the child, at its current resourceVersion, matches
// the apply configuration encoded as want, built from inputs ("" when
// unknown).
func (c *ConvergedChildren) record(v view, want []byte, inputs string) {
	live := v.child
	if c == nil || live.GetUID() == "" {
		return
	}
	content, err := contentDigest(v.compared())
	if err != nil {
		return
	}
	digest := sha256.Sum256(want)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[live.GetUID()] = convergedAt{resourceVersion: live.GetResourceVersion(), content: content, want: digest, inputs: inputs}
}

// contentDigest digests what deciding convergence reads of obj: the object
// without its status and resourceVersion, with the managed fields of the main
// resource only. obj is not changed: the digest encodes a shallow copy.
func contentDigest(obj client.Object) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return sum, fmt.Errorf("%T is not a pointer to a struct", obj)
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	if st := cp.Elem().FieldByName("Status"); st.IsValid() && st.CanSet() {
		st.SetZero()
	}
	o, ok := cp.Interface().(client.Object)
	if !ok {
		return sum, fmt.Errorf("%T is not an object", obj)
	}
	o.SetResourceVersion("")
	var main []metav1.ManagedFieldsEntry
	for _, e := range obj.GetManagedFields() {
		if e.Subresource == "" {
			main = append(main, e)
		}
	}
	o.SetManagedFields(main)
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(o); err != nil {
		return sum, fmt.Errorf("encoding %s: %w", obj.GetName(), err)
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

func (c *ConvergedChildren) forget(uid types.UID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, uid)
}

// len is the number of children remembered (for tests).
func (c *ConvergedChildren) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
