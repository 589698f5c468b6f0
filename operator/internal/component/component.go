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
// object a controller manages on behalf of its owner (pods, Services, HPAs,
// PodGangs, …). A reconciler runs its components in order; each brings the
// objects of its kind in line with the owner.
package component

import (
	"context"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Operator manages the objects of one kind that belong to an owner of type T.
type Operator[T client.Object] interface {
	// Kind names the managed kind, for logs and errors.
	Kind() string
	// Sync creates, updates and deletes the owner's objects of this kind so
	// they match the owner's spec. It must be idempotent and safe to run on a
	// stale cache.
	Sync(ctx context.Context, log logr.Logger, owner T) error
}
