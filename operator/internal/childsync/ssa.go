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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/util/csaupgrade"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Field managers of the controllers' server-side applies (Deps.FieldManager).
// The fields of a child a controller stops setting are removed from the child
// by its next apply.
const (
	PodCliqueSetFieldManager          = "grove-podcliqueset-controller"
	PodCliqueScalingGroupFieldManager = "grove-podcliquescalinggroup-controller"
	// PodCliqueFieldManager writes a PodClique's pod references into its
	// group of the PodGang.
	PodCliqueFieldManager = "grove-podclique-controller"
)

// CreateFieldManager records Grove's plain creates and merge patches of
// children. Before children were applied server-side every write of the
// operator was recorded under this name (a request without a field manager is
// recorded under the client's user agent, the binary's name).
const CreateFieldManager = "grove-operator"

// legacyFieldManagers are the managers whose fields move to FieldManager
// once (client-go's csaupgrade), so an upgraded Grove still removes a field
// that an older Grove had set.
var legacyFieldManagers = sets.New(CreateFieldManager)

// ApplyConfiguration is a generated apply configuration of a named object.
type ApplyConfiguration interface {
	runtime.ApplyConfiguration
	GetName() *string
	GetNamespace() *string
}

// ErrControlledByOther is returned for a child whose name is taken by an
// object another controller owns; Grove never takes it over.
type ErrControlledByOther struct {
	Name       string
	Controller metav1.OwnerReference
}

func (e ErrControlledByOther) Error() string {
	return fmt.Sprintf("%s exists and is controlled by %s %s, not by this PodCliqueSet", e.Name, e.Controller.Kind, e.Controller.Name)
}

// ServerSideApply makes the child desired names match desired, by a
// server-side apply under d.FieldManager. live is an empty object of the
// child's kind; it is filled from the cache without a copy (see readLive).
// The apply is sent only when the child lacks a field desired sets (or holds
// another value) or still has a field the manager owns that desired no longer
// sets, so a converged child costs no request. A child created by an earlier
// apply that the cache has not shown yet is not applied again (see Creates).
func ServerSideApply(ctx context.Context, d Deps, owner metav1.Object, desired ApplyConfiguration, live client.Object) (Result, error) {
	key := client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}
	return ServerSideApplyBuilt(ctx, d, owner, key, "", func() (ApplyConfiguration, error) { return desired, nil }, live)
}

// ServerSideApplyBuilt is ServerSideApply of the child named key, whose apply
// configuration build returns, built only when needed: inputs, when not
// empty, identify everything build depends on (see Shared.Inputs), and a
// child found converged under the same inputs is left alone unbuilt.
func ServerSideApplyBuilt(ctx context.Context, d Deps, owner metav1.Object, key client.ObjectKey, inputs string,
	build func() (ApplyConfiguration, error), live client.Object) (Result, error) {
	if err := readLive(ctx, d, key, live); err != nil {
		if !apierrors.IsNotFound(err) {
			return Unchanged, err
		}
		live.SetNamespace(key.Namespace)
		live.SetName(key.Name)
		if d.Creates.awaiting(live) {
			return Unchanged, nil
		}
		desired, err := build()
		if err != nil {
			return Unchanged, err
		}
		if err := apply(ctx, d, desired); err != nil {
			return Unchanged, err
		}
		d.Creates.created(live)
		// As in ApplyShared, the child as created is remembered under its
		// inputs; the apply's answer is the stored child.
		if inputs != "" {
			if err := fromResponse(desired, live); err != nil {
				return Created, fmt.Errorf("reading the created %s: %w", key.Name, err)
			}
			d.Converged.record(viewOf(live), nil, inputs)
		}
		return Created, nil
	}
	if err := controlledBy(live, owner); err != nil {
		return Unchanged, err
	}
	if d.Converged.holdsInputs(viewOf(live), inputs) {
		return Unchanged, nil
	}
	desired, err := build()
	if err != nil {
		return Unchanged, err
	}
	raw, err := json.Marshal(desired)
	if err != nil {
		return Unchanged, fmt.Errorf("encoding the apply configuration of %s: %w", key.Name, err)
	}
	if d.Converged.holds(viewOf(live), raw, inputs) {
		return Unchanged, nil
	}
	upgraded, err := upgradeLegacyFields(ctx, d, live)
	if err != nil {
		return Unchanged, err
	}
	if !upgraded {
		want, err := decodeMap(raw)
		if err != nil {
			return Unchanged, fmt.Errorf("decoding the apply configuration of %s: %w", key.Name, err)
		}
		converged, err := isConverged(want, live, d.FieldManager)
		if err != nil {
			return Unchanged, err
		}
		if converged {
			d.Converged.record(viewOf(live), raw, inputs)
			return Unchanged, nil
		}
	}
	if err := apply(ctx, d, desired); err != nil {
		return Unchanged, err
	}
	return Patched, nil
}

// readLive fills live with the cached child named key, without the deep copy
// a cached read makes by default: a sync reads every child of a set, most of
// them converged, and copying each (a PodClique carries its pod template) was
// a tenth of the operator's allocations in a 3000-pod run. live is the
// cache's object in a struct of its own: its own fields may be set and a
// write's answer may be decoded into it (the client zeroes it first), but its
// maps, lists and pointers are the cache's and must not be changed in place,
// here or by the callers that go on with it.
func readLive(ctx context.Context, d Deps, key client.ObjectKey, live client.Object) error {
	return d.Client.Get(ctx, key, live, client.UnsafeDisableDeepCopy)
}

// controlledBy returns ErrControlledByOther when another controller owns live.
func controlledBy(live, owner metav1.Object) error {
	if c := metav1.GetControllerOfNoCopy(live); c != nil && c.UID != owner.GetUID() {
		return ErrControlledByOther{Name: live.GetName(), Controller: *c}
	}
	return nil
}

func apply(ctx context.Context, d Deps, desired ApplyConfiguration) error {
	if d.FieldManager == "" {
		return errors.New("no field manager for server-side apply")
	}
	return d.Client.Apply(ctx, desired, client.FieldOwner(d.FieldManager), client.ForceOwnership)
}

// upgradeLegacyFields moves the fields of legacyFieldManagers to
// d.FieldManager. It reports whether it did, in which case the caller applies
// once so that fields Grove no longer sets are dropped.
func upgradeLegacyFields(ctx context.Context, d Deps, live client.Object) (bool, error) {
	legacy := slices.ContainsFunc(live.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool {
		return legacyFieldManagers.Has(e.Manager) && e.Operation == metav1.ManagedFieldsOperationUpdate
	})
	if !legacy {
		return false, nil
	}
	// csaupgrade rewrites the field sets of the entries it is given in
	// place; live's are the cache's.
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(live.DeepCopyObject(), legacyFieldManagers, d.FieldManager)
	if err != nil || patch == nil {
		return false, err
	}
	if err := d.Client.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return false, fmt.Errorf("moving the fields of %s to field manager %s: %w", live.GetName(), d.FieldManager, err)
	}
	return true, nil
}

// appliedFields returns the fields manager set by its last apply.
func appliedFields(entries []metav1.ManagedFieldsEntry, manager string) (*fieldpath.Set, error) {
	owned := &fieldpath.Set{}
	for _, e := range entries {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
			return nil, err
		}
		owned = owned.Union(s)
	}
	return owned, nil
}

// Converged reports whether a child with content have, of which the field
// manager owns owned, needs no apply of want: every field of want is in have
// with the same value (the API server only adds defaults to it), and every
// owned field is still in want (none is left to remove).
func Converged(want, have map[string]any, owned *fieldpath.Set) bool {
	for k, v := range want {
		if k == "apiVersion" || k == "kind" {
			continue // typed objects from the cache carry no type meta
		}
		if !contains(have[k], v) {
			return false
		}
	}
	return allPresent(want, owned)
}

// contains reports whether have holds every field of want: maps key by key,
// lists element by element (same length), scalars equal.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !contains(h[k], v) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}

// present reports whether the field at p exists in obj.
func present(obj any, p fieldpath.Path) bool {
	cur := obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			if cur, ok = m[*pe.FieldName]; !ok {
				return false
			}
		case pe.Key != nil:
			l, ok := cur.([]any)
			if !ok {
				return false
			}
			cur = nil
			for _, e := range l {
				if m, ok := e.(map[string]any); ok && keyMatches(m, *pe.Key) {
					cur = e
					break
				}
			}
			if cur == nil {
				return false
			}
		case pe.Value != nil:
			l, ok := cur.([]any)
			if !ok {
				return false
			}
			cur = nil
			for _, e := range l {
				if value.Equals(value.NewValueInterface(e), *pe.Value) {
					cur = e
					break
				}
			}
			if cur == nil {
				return false
			}
		case pe.Index != nil:
			l, ok := cur.([]any)
			if !ok || *pe.Index >= len(l) {
				return false
			}
			cur = l[*pe.Index]
		}
	}
	return true
}

// keyMatches reports whether the list element m has the key of an owned
// element. The API server computes keys after defaulting, so a key field the
// wanted element leaves out (a Service port's protocol) matches any value.
func keyMatches(m map[string]any, key value.FieldList) bool {
	for _, f := range key {
		v, ok := m[f.Name]
		if ok && !value.Equals(value.NewValueInterface(v), f.Value) {
			return false
		}
	}
	return true
}

// jsonMap is obj as its JSON object: only the fields it sets, numbers as
// float64, the same for apply configurations and typed objects.
func jsonMap(obj any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return decodeMap(raw)
}

// decodeMap is jsonMap of an object already encoded as raw.
func decodeMap(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	return m, nil
}

// ControllerReference is the controller owner reference to owner, as an
// apply configuration.
func ControllerReference(scheme *runtime.Scheme, owner client.Object) (*metav1ac.OwnerReferenceApplyConfiguration, error) {
	gvk, err := apiutil.GVKForObject(owner, scheme)
	if err != nil {
		return nil, err
	}
	return metav1ac.OwnerReference().
		WithAPIVersion(gvk.GroupVersion().String()).WithKind(gvk.Kind).
		WithName(owner.GetName()).WithUID(owner.GetUID()).
		WithController(true).WithBlockOwnerDeletion(true), nil
}
