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
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Field managers. Every field a controller sets on a child is applied
// server-side under its manager with Force, so a field it stops setting is
// removed by its next apply.
const (
	PodCliqueSetFieldManager          = "grove-podcliqueset-controller"
	PodCliqueScalingGroupFieldManager = "grove-podcliquescalinggroup-controller"
	// PodCliqueFieldManager writes a PodClique's pod references into its
	// group of the PodGang.
	PodCliqueFieldManager = "grove-podclique-controller"
	// ReplicasFieldManager holds spec.replicas of the PodCliques and
	// PodCliqueScalingGroups Grove creates, beside HPAs and kubectl scale
	// (Kubernetes' "transferring ownership" of a shared field): it applies
	// spec.replicas alone, forced when the template's value changes (design
	// decision 3), so the controllers' applies can leave it out without the
	// field losing its last owner.
	ReplicasFieldManager = "grove-replicas"
)

// CreateFieldManager records Grove's plain creates (the grove-initc token
// Secret). Grove releases up to e430b4b created every child by a plain
// create under this name; such a child's fields move once to the applying
// controller's manager (see upgradeLegacyFields).
const CreateFieldManager = "grove-operator"

// AppliedHashAnnotation holds the hash of the configuration a controller
// last applied to a child. A child whose annotation matches what is wanted
// now, whose labels and annotations still hold the wanted values and that no
// writer outside Grove changed (see changedByOthers) is left alone: a
// converged child costs no request.
const AppliedHashAnnotation = "grove.io/applied-hash"

// legacyFieldManagers are the managers whose fields move to the applying
// controller's manager once (client-go's csaupgrade, as kubectl apply
// --server-side does), so an upgraded Grove still removes a field an older
// Grove had set.
var legacyFieldManagers = sets.New(CreateFieldManager)

// ApplyConfiguration is a generated apply configuration of a named object.
type ApplyConfiguration interface {
	runtime.ApplyConfiguration
	GetName() *string
	GetNamespace() *string
}

// ErrNotOwned is returned for a child whose name is taken by an object its
// owner does not control: a user's object, or another controller's. Grove
// never takes such an object over: it is neither changed nor deleted, and
// the owner reports it instead (see Report, NotOwned).
type ErrNotOwned struct {
	// Kind and Name name the object that holds the child's name.
	Kind, Name string
	// Controller is the object's controller reference; nil when it has none.
	Controller *metav1.OwnerReference
	// OwnerKind is the kind of the owner that wanted the child.
	OwnerKind string
}

func (e ErrNotOwned) Error() string {
	return fmt.Sprintf("%s %s exists (%s), not controlled by this %s: left untouched", e.Kind, e.Name, e.Holder(), e.OwnerKind)
}

// Holder says who controls the object: "no controller" or "controlled by
// <Kind> <name>".
func (e ErrNotOwned) Holder() string {
	if e.Controller == nil {
		return "no controller"
	}
	return fmt.Sprintf("controlled by %s %s", e.Controller.Kind, e.Controller.Name)
}

// Child is one child its owner wants.
type Child struct {
	// Key names the child.
	Key client.ObjectKey
	// Live is an empty object of the child's kind. Apply fills it with the
	// cached child, or with the API server's answer to its write.
	Live client.Object
	// Build returns the apply configuration of every field the owner sets,
	// without spec.replicas (see Scale).
	Build func() (ApplyConfiguration, error)
	// Scale is set for a child whose spec.replicas HPAs and kubectl scale
	// write too.
	Scale *Scale
}

// Scale describes the spec.replicas of a child: the owner's apply sets it at
// creation; afterwards ReplicasFieldManager writes it when Want says so.
type Scale struct {
	// Initial is spec.replicas at creation.
	Initial int32
	// Want returns the live child's spec.replicas and the value it should
	// have (design decision 3: the template's when its value changed, the
	// live one otherwise).
	Want func(live client.Object) (current, want int32)
}

// Apply makes the child match what c.Build returns, by one server-side
// apply under d.FieldManager with Force, sent only when the child is
// missing, its AppliedHashAnnotation differs from the hash of the wanted
// configuration, or a wanted label or annotation lost its value. A child
// created by an earlier apply that the cache has not shown yet is not
// applied again (d.Writes): that apply would force the creating values back,
// spec.replicas among them.
//
// An object of the child's name that owner does not control is never
// written: Apply returns ErrNotOwned. The cache holds every object of the
// kinds Grove applies, its own or not (the manager's cache options), so a
// child the cache does not show is absent; a write to a child the cache
// shows carries its UID, so an object replaced since under the same name is
// not written either.
func Apply(ctx context.Context, d Deps, owner client.Object, c Child) (Result, error) {
	if d.FieldManager == "" {
		return Unchanged, fmt.Errorf("no field manager to apply %s", c.Key.Name)
	}
	if err := readLive(ctx, d, c.Key, c.Live); err != nil {
		if !apierrors.IsNotFound(err) {
			return Unchanged, err
		}
		return create(ctx, d, c)
	}
	if err := ControlledBy(d.Scheme, c.Live, owner); err != nil {
		return Unchanged, err
	}
	upgraded, err := upgradeLegacyFields(ctx, d, c.Live)
	if err != nil {
		return Unchanged, err
	}
	res := Unchanged
	rescaled := false
	if c.Scale != nil {
		if current, want := c.Scale.Want(c.Live); current != want {
			if err := applyReplicas(ctx, d, c.Live, want, true); err != nil {
				return Unchanged, fmt.Errorf("setting spec.replicas of %s: %w", c.Key.Name, err)
			}
			res, rescaled = Patched, true
		}
	}
	wanted, err := c.Build()
	if err != nil {
		return res, err
	}
	obj, hash, err := stamped(wanted)
	if err != nil {
		return res, fmt.Errorf("encoding the apply configuration of %s: %w", c.Key.Name, err)
	}
	if !upgraded && c.Live.GetAnnotations()[AppliedHashAnnotation] == hash && metadataHeld(obj, c.Live) && !changedByOthers(c.Live) {
		return res, nil
	}
	if c.Scale != nil && !rescaled && ownsReplicas(c.Live, d.FieldManager) {
		// The owner's apply at creation set spec.replicas; before this
		// apply leaves it out, ReplicasFieldManager takes the live value
		// over. Not forced: when an HPA or kubectl scale owns the field by
		// now with another value (a cache behind them), theirs stays.
		current, _ := c.Scale.Want(c.Live)
		if err := applyReplicas(ctx, d, c.Live, current, false); err != nil && !apierrors.IsConflict(err) {
			return res, fmt.Errorf("handing spec.replicas of %s to %s: %w", c.Key.Name, ReplicasFieldManager, err)
		}
	}
	obj.SetUID(c.Live.GetUID())
	if err := apply(ctx, d, obj, c.Live, d.FieldManager); err != nil {
		return res, err
	}
	return Patched, nil
}

// create applies the child as the owner wants it, spec.replicas included.
func create(ctx context.Context, d Deps, c Child) (Result, error) {
	c.Live.SetNamespace(c.Key.Namespace)
	c.Live.SetName(c.Key.Name)
	// Reserved before the request is sent, so of two passes that find the
	// child missing at once (a replica's and the pass over every replica)
	// only one sends it.
	if !d.Writes.Begin(c.Live) {
		return Unchanged, nil
	}
	res, err := createReserved(ctx, d, c)
	if err != nil {
		d.Writes.Forget(c.Live) // nothing was created: free to try again
		return res, err
	}
	d.Writes.Wrote(c.Live)
	return res, nil
}

func createReserved(ctx context.Context, d Deps, c Child) (Result, error) {
	wanted, err := c.Build()
	if err != nil {
		return Unchanged, err
	}
	obj, _, err := stamped(wanted)
	if err != nil {
		return Unchanged, fmt.Errorf("encoding the apply configuration of %s: %w", c.Key.Name, err)
	}
	if c.Scale != nil {
		if err := unstructured.SetNestedField(obj.Object, int64(c.Scale.Initial), "spec", "replicas"); err != nil {
			return Unchanged, err
		}
	}
	if err := apply(ctx, d, obj, c.Live, d.FieldManager); err != nil {
		return Unchanged, err
	}
	return Created, nil
}

// stamped is the apply configuration as an object, with the hash of its
// content in AppliedHashAnnotation, and that hash.
func stamped(ac ApplyConfiguration) (*unstructured.Unstructured, string, error) {
	raw, err := json.Marshal(ac)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:16])
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return nil, "", err
	}
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AppliedHashAnnotation] = hash
	obj.SetAnnotations(annotations)
	return obj, hash, nil
}

// metadataHeld reports whether live still carries every label and
// annotation of want with its value: another writer that removed or changed
// one leaves the hash in place but not the value.
func metadataHeld(want *unstructured.Unstructured, live metav1.Object) bool {
	held := func(want, live map[string]string) bool {
		for k, v := range want {
			if lv, ok := live[k]; !ok || lv != v {
				return false
			}
		}
		return true
	}
	return held(want.GetLabels(), live.GetLabels()) && held(want.GetAnnotations(), live.GetAnnotations())
}

// groveFieldManagers are the field managers of Grove's own writes.
var groveFieldManagers = sets.New(PodCliqueSetFieldManager, PodCliqueScalingGroupFieldManager, PodCliqueFieldManager, ReplicasFieldManager, CreateFieldManager)

// changedByOthers reports whether a writer outside Grove holds fields of
// live's main resource (its subresources, status and scale, are others' to
// write). A write that changes a field Grove applies takes that field over
// (kubectl edit of a PodClique's pod spec, say), so the apply that follows
// forces it back; the writer's entry then goes, unless it holds fields Grove
// does not apply too, in which case every pass sends an apply the API server
// finds has nothing to change.
func changedByOthers(live metav1.Object) bool {
	return slices.ContainsFunc(live.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool {
		return e.Subresource == "" && !groveFieldManagers.Has(e.Manager)
	})
}

// ownsReplicas reports whether manager's apply holds spec.replicas of live.
func ownsReplicas(live metav1.Object, manager string) bool {
	for _, e := range live.GetManagedFields() {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields) == nil {
			if _, ok := fields.Spec["f:replicas"]; ok {
				return true
			}
		}
	}
	return false
}

// applyReplicas applies spec.replicas of live alone under
// ReplicasFieldManager.
func applyReplicas(ctx context.Context, d Deps, live client.Object, replicas int32, force bool) error {
	gvk, err := apiutil.GVKForObject(live, d.Scheme)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	obj.SetNamespace(live.GetNamespace())
	obj.SetName(live.GetName())
	obj.SetUID(live.GetUID())
	if err := unstructured.SetNestedField(obj.Object, int64(replicas), "spec", "replicas"); err != nil {
		return err
	}
	opts := []client.ApplyOption{client.FieldOwner(ReplicasFieldManager)}
	if force {
		opts = append(opts, client.ForceOwnership)
	}
	return d.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), opts...)
}

// apply applies obj under manager with Force and decodes the stored child
// the API server answers with into live.
func apply(ctx context.Context, d Deps, obj *unstructured.Unstructured, live client.Object, manager string) error {
	if err := d.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(manager), client.ForceOwnership); err != nil {
		return err
	}
	// live may share maps with the cache (readLive): decoded into from
	// scratch, never into them.
	v := reflect.ValueOf(live).Elem()
	v.SetZero()
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, live)
}

// readLive fills live with the cached child named key, without the deep copy
// a cached read makes by default: a sync reads every child of a set, most of
// them converged, and copying each (a PodClique carries its pod template) was
// a tenth of the operator's allocations in a 3000-pod run. live is the
// cache's object in a struct of its own: its own fields may be set and a
// write's answer may be decoded into it, but its maps, lists and pointers
// are the cache's and must not be changed in place, here or by the callers
// that go on with it.
func readLive(ctx context.Context, d Deps, key client.ObjectKey, live client.Object) error {
	return d.Client.Get(ctx, key, live, client.UnsafeDisableDeepCopy)
}

// ControlledBy returns ErrNotOwned unless owner is live's controller.
func ControlledBy(scheme *runtime.Scheme, live, owner client.Object) error {
	c := metav1.GetControllerOfNoCopy(live)
	if c != nil && c.UID == owner.GetUID() {
		return nil
	}
	e := ErrNotOwned{Kind: kindOf(scheme, live), Name: live.GetName(), OwnerKind: kindOf(scheme, owner)}
	if c != nil {
		ref := *c
		e.Controller = &ref
	}
	return e
}

// kindOf is obj's kind as the scheme knows it.
func kindOf(scheme *runtime.Scheme, obj runtime.Object) string {
	if gvk, err := apiutil.GVKForObject(obj, scheme); err == nil {
		return gvk.Kind
	}
	return fmt.Sprintf("%T", obj)
}

// upgradeLegacyFields moves the fields of legacyFieldManagers to
// d.FieldManager, as kubectl apply --server-side does for objects it wrote
// before. It reports whether it did; the caller then applies once, so that
// fields Grove no longer sets are dropped.
func upgradeLegacyFields(ctx context.Context, d Deps, live client.Object) (bool, error) {
	legacy := slices.ContainsFunc(live.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool {
		return legacyFieldManagers.Has(e.Manager) && e.Operation == metav1.ManagedFieldsOperationUpdate && e.Subresource == ""
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
