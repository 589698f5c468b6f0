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
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// replicasPath is spec.replicas of a PodClique or PodCliqueScalingGroup.
var replicasPath = fieldpath.MakePathOrDie("spec", "replicas")

// Shared describes a child some of whose fields other writers own. A
// PodClique's or PodCliqueScalingGroup's spec.replicas is shared with HPAs and
// kubectl scale, which change it through the scale subresource; Grove sets it
// only at creation and when the template's value changes (design decision 3).
// A PodGang's pod references are written by each group's PodClique
// controller. Such a child is created by a plain create under
// CreateFieldManager; afterwards every other field is applied server-side
// under Deps.FieldManager. The Apply entry never owns a shared field, so an
// apply can neither drop it nor overwrite it from a stale cache.
type Shared[T client.Object] struct {
	// Name is the child's namespace and name.
	Name client.ObjectKey
	// Create builds the child as created when none exists.
	Create func() (T, error)
	// Want returns the apply configuration of the live child, without the
	// shared fields.
	Want func(live T) (ApplyConfiguration, error)
	// Inputs, when not empty, identifies everything Create and Want depend
	// on: equal Inputs give the child the same apply configuration. A child
	// found converged under the same Inputs, at its current version or
	// content, is then left alone without building it (building every
	// PodClique of a 1500-replica set on every sync was a tenth of the
	// operator's allocations in a 3000-pod run).
	Inputs string
	// Shared reports whether the field at a path is a shared one; nil means
	// spec.replicas.
	Shared func(fieldpath.Path) bool
	// Unshared, when set, returns a shallow copy of live without what other
	// writers own (the shared fields' values and those writers'
	// managed-fields entries): what deciding convergence reads. The children
	// remembered as converged are compared by it, so a write of a shared
	// field alone does not make the next sync check the child field by field.
	Unshared func(live T) T
	// Replicas returns the spec.replicas Grove wants for the live child and
	// whether that differs from its value; nil for a child Grove never
	// rescales.
	Replicas func(live T) (int32, bool)
	// SetReplicas sets spec.replicas.
	SetReplicas func(obj T, replicas int32)
}

func (s Shared[T]) shared() func(fieldpath.Path) bool {
	if s.Shared != nil {
		return s.Shared
	}
	return func(p fieldpath.Path) bool { return p.Equals(replicasPath) }
}

// compared is what convergence is decided on for live: live itself, or its
// Unshared copy, made at most once and only when its content is read (a
// child at its remembered version needs no copy).
func (s Shared[T]) compared(live T) view {
	if s.Unshared == nil {
		return viewOf(live)
	}
	var c client.Object
	return view{child: live, unshared: func() client.Object {
		if c == nil {
			c = s.Unshared(live)
		}
		return c
	}}
}

// OwnerInputs are the Inputs of a child built from its owner's spec, name
// and UID alone: the owner's UID and generation (the API server raises the
// generation with every change of the spec).
func OwnerInputs(owner metav1.Object) string {
	return fmt.Sprintf("%s/%d", owner.GetUID(), owner.GetGeneration())
}

// ApplyShared makes the child s describes match it. live is an empty object
// of its kind, filled from the cache without a copy (see readLive); a child
// it creates is copied into it. live carries at least the child's name when
// ApplyShared returns.
func ApplyShared[T client.Object](ctx context.Context, d Deps, owner metav1.Object, s Shared[T], live T) (Result, error) {
	defer func() {
		if live.GetName() == "" {
			live.SetNamespace(s.Name.Namespace)
			live.SetName(s.Name.Name)
		}
	}()
	if err := readLive(ctx, d, s.Name, live); err != nil {
		if !apierrors.IsNotFound(err) {
			return Unchanged, err
		}
		obj, err := s.Create()
		if err != nil {
			return Unchanged, err
		}
		created, err := d.Creates.Create(ctx, d.Client, obj)
		if err != nil || !created {
			return Unchanged, err
		}
		reflect.ValueOf(live).Elem().Set(reflect.ValueOf(obj).Elem())
		// The child as created is what its inputs want: remembered, the
		// syncs after its creation leave it alone instead of checking it
		// field by field (as long as it changes only in status).
		if s.Inputs != "" {
			d.Converged.record(s.compared(live), nil, s.Inputs)
		}
		return Created, nil
	}
	if err := controlledBy(live, owner); err != nil {
		return Unchanged, err
	}
	// Whether spec.replicas changes is read from the child as it was: the
	// apply below records the template's value that this decision compares.
	var replicas int32
	rescale := false
	if s.Replicas != nil {
		replicas, rescale = s.Replicas(live)
	}
	own := s.compared(live)
	if !rescale && d.Converged.holdsInputs(own, s.Inputs) {
		return Unchanged, nil
	}
	desired, err := s.Want(live)
	if err != nil {
		return Unchanged, err
	}
	raw, err := json.Marshal(desired)
	if err != nil {
		return Unchanged, fmt.Errorf("encoding the apply configuration of %s: %w", live.GetName(), err)
	}
	if !rescale && d.Converged.holds(own, raw, s.Inputs) {
		return Unchanged, nil
	}
	want, err := decodeMap(raw)
	if err != nil {
		return Unchanged, fmt.Errorf("decoding the apply configuration of %s: %w", live.GetName(), err)
	}
	created, err := createdFields(live.GetManagedFields(), s.shared())
	if err != nil {
		return Unchanged, fmt.Errorf("reading the managed fields of %s: %w", live.GetName(), err)
	}
	moved := false
	if !allPresent(want, created) {
		// The create (or an older Grove) set a field that is no longer
		// wanted: only an Apply entry's field is removed by an apply.
		if moved, err = moveCreatedFieldsToApply(ctx, d, live, s.shared()); err != nil {
			return Unchanged, err
		}
	}
	res := Unchanged
	converged := false
	if !moved {
		if converged, err = isConverged(want, live, d.FieldManager); err != nil {
			return Unchanged, err
		}
	}
	if converged {
		d.Converged.record(own, raw, s.Inputs)
	} else {
		if err := apply(ctx, d, desired); err != nil {
			return Unchanged, err
		}
		res = Patched
		// The apply answered with the stored child: callers go on with it,
		// not with the cache's older copy.
		if err := fromResponse(desired, live); err != nil {
			return res, fmt.Errorf("reading the applied %s: %w", live.GetName(), err)
		}
	}
	if rescale {
		base, ok := live.DeepCopyObject().(T)
		if !ok {
			return res, fmt.Errorf("cannot copy %s", live.GetName())
		}
		s.SetReplicas(live, replicas)
		if err := d.Client.Patch(ctx, live, client.MergeFrom(base), client.FieldOwner(CreateFieldManager)); err != nil {
			return res, fmt.Errorf("setting spec.replicas of %s: %w", live.GetName(), err)
		}
		res = Patched
	}
	return res, nil
}

// fromResponse replaces obj with the object an apply configuration holds
// after the apply filled it from the API server's answer.
func fromResponse(ac ApplyConfiguration, obj client.Object) error {
	raw, err := json.Marshal(ac)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type()))
	return json.Unmarshal(raw, obj)
}

// createdFields are the fields CreateFieldManager's Update entry holds, but
// the shared ones.
func createdFields(entries []metav1.ManagedFieldsEntry, shared func(fieldpath.Path) bool) (*fieldpath.Set, error) {
	out := &fieldpath.Set{}
	for _, e := range entries {
		if e.Manager != CreateFieldManager || e.Operation != metav1.ManagedFieldsOperationUpdate || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
			return nil, err
		}
		out = out.Union(set)
	}
	_, own := split(out, shared)
	return own, nil
}

// split divides set into its shared fields and the rest.
func split(set *fieldpath.Set, shared func(fieldpath.Path) bool) (sharedFields, rest *fieldpath.Set) {
	var a, b []fieldpath.Path
	set.Iterate(func(p fieldpath.Path) {
		if shared(p) {
			a = append(a, p.Copy())
		} else {
			b = append(b, p.Copy())
		}
	})
	return fieldpath.NewSet(a...), fieldpath.NewSet(b...)
}

// allPresent reports whether every field of set is in want.
func allPresent(want map[string]any, set *fieldpath.Set) bool {
	ok := true
	set.Iterate(func(p fieldpath.Path) {
		if ok && !present(want, p) {
			ok = false
		}
	})
	return ok
}

func isConverged(want map[string]any, live client.Object, manager string) (bool, error) {
	have, err := jsonMap(live)
	if err != nil {
		return false, fmt.Errorf("encoding %s: %w", live.GetName(), err)
	}
	owned, err := appliedFields(live.GetManagedFields(), manager)
	if err != nil {
		return false, fmt.Errorf("reading the managed fields of %s: %w", live.GetName(), err)
	}
	return Converged(want, have, owned), nil
}

// moveCreatedFieldsToApply gives d.FieldManager's Apply entry every field that
// CreateFieldManager's Update entry holds but the shared ones: what the create
// (or an older Grove's patches) set is from then on removed by an apply that
// no longer sets it. It runs once per child, before its first apply, and
// reports whether it moved anything.
func moveCreatedFieldsToApply(ctx context.Context, d Deps, live client.Object, shared func(fieldpath.Path) bool) (bool, error) {
	entries, moved, err := movedManagedFields(live.GetManagedFields(), d.FieldManager, shared)
	if err != nil || !moved {
		return false, err
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
		{"op": "replace", "path": "/metadata/managedFields", "value": entries},
	})
	if err != nil {
		return false, err
	}
	if err := d.Client.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return false, fmt.Errorf("moving the fields of %s to field manager %s: %w", live.GetName(), d.FieldManager, err)
	}
	return true, nil
}

// movedManagedFields returns entries with the fields of CreateFieldManager's
// Update entry, but the shared ones, moved into manager's Apply entry,
// and whether there was anything to move.
func movedManagedFields(entries []metav1.ManagedFieldsEntry, manager string, shared func(fieldpath.Path) bool) ([]metav1.ManagedFieldsEntry, bool, error) {
	toApply := &fieldpath.Set{}
	applyAt, apiVersion := -1, ""
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		switch {
		case e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "":
			applyAt = len(out)
		case e.Manager == CreateFieldManager && e.Operation == metav1.ManagedFieldsOperationUpdate && e.Subresource == "" && e.FieldsV1 != nil:
			set := &fieldpath.Set{}
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
				return nil, false, err
			}
			kept, moved := split(set, shared)
			if !moved.Empty() {
				toApply = toApply.Union(moved)
				apiVersion = e.APIVersion
			}
			if kept.Empty() {
				continue
			}
			raw, err := kept.ToJSON()
			if err != nil {
				return nil, false, err
			}
			e.FieldsV1 = metav1.NewFieldsV1(string(raw))
		}
		out = append(out, e)
	}
	if toApply.Empty() {
		return entries, false, nil
	}
	if applyAt >= 0 {
		set := &fieldpath.Set{}
		if f := out[applyAt].FieldsV1; f != nil {
			if err := set.FromJSON(bytes.NewReader(f.GetRawBytes())); err != nil {
				return nil, false, err
			}
		}
		toApply = toApply.Union(set)
	}
	raw, err := toApply.ToJSON()
	if err != nil {
		return nil, false, err
	}
	entry := metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: apiVersion,
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)),
	}
	if applyAt >= 0 {
		entry.Time = out[applyAt].Time
		out[applyAt] = entry
	} else {
		out = append(out, entry)
	}
	return out, true, nil
}
