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

// Package component defines the component operator: one small type per kind of
// object a controller manages on behalf of its owner (Services, HPAs,
// PodGangs, …). A reconciler runs its components in order; each brings the
// objects of its kind in line with the owner.
package component

import (
	"context"

	"github.com/go-logr/logr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Operator manages the objects of one kind that belong to the owner a unit
// of work of type T names.
type Operator[T any] interface {
	// Kind names the managed kind, for logs and errors.
	Kind() string
	// Sync creates, updates and deletes the owner's objects of this kind so
	// they match the owner's spec. It must be idempotent and safe to run on a
	// stale cache.
	Sync(ctx context.Context, log logr.Logger, work T) error
}

// SetWork is one unit of the PodCliqueSet controller's work: the set-level
// pass, which deletes the children no longer wanted and keeps the set-wide
// objects, or the children of one replica, or of every replica (the set's
// spec changed). A change of one replica's children costs work for that
// replica, not for the set.
type SetWork struct {
	// PCS is the PodCliqueSet as the reconcile read it; never changed.
	PCS *grovecorev1alpha1.PodCliqueSet
	// Replica is the replica whose children are applied, AllReplicas or
	// SetLevel.
	Replica int32
}

// Replica values besides replica indices.
const (
	// SetLevel is the set-level pass.
	SetLevel int32 = -1
	// AllReplicas applies the children of every replica.
	AllReplicas int32 = -2
)

// IsSetLevel reports whether w is the set-level pass.
func (w SetWork) IsSetLevel() bool { return w.Replica == SetLevel }

// Replicas are the replica indices whose children w applies, in [0,
// spec.replicas): a replica at or above it has none (the set-level pass
// deletes them).
func (w SetWork) Replicas() []int32 {
	var out []int32
	switch {
	case w.Replica == AllReplicas:
		for i := int32(0); i < w.PCS.Spec.Replicas; i++ {
			out = append(out, i)
		}
	case w.Replica >= 0 && w.Replica < w.PCS.Spec.Replicas:
		out = []int32{w.Replica}
	}
	return out
}
