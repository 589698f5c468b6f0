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

package common

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatusIfChanged writes obj's status, computed in memory, with one
// merge patch against base (the object as the reconcile read it), and only
// when status(base) and status(obj) differ. The patch carries the
// resourceVersion: a status computed on a stale cached object must not
// overwrite a newer one, so the write fails with a conflict and the caller
// retries once its cache caught up. It reports whether it wrote.
func PatchStatusIfChanged[T client.Object](ctx context.Context, c client.Client, base, obj T, status func(T) any) (bool, error) {
	old := status(base)
	if equality.Semantic.DeepEqual(old, status(obj)) {
		return false, nil
	}
	if err := c.Status().Patch(ctx, obj, StatusMergeFrom(base.GetResourceVersion(), old, status)); err != nil {
		return false, err
	}
	return true, nil
}

// StatusMergeFrom is a JSON merge patch, for the status subresource, that
// changes the status from old to status(obj) of the object it is sent with,
// and fails with a conflict unless the stored object is still at
// resourceVersion (optimistic locking). Only the statuses are encoded and
// compared: a merge patch of whole objects (client.MergeFrom) encodes and
// diffs the spec too, which for a PodClique carries its pod template and made
// status writes one of the operator's largest sources of allocations.
func StatusMergeFrom[T client.Object](resourceVersion string, old any, status func(T) any) client.Patch {
	return statusMerge[T]{resourceVersion: resourceVersion, old: old, status: status}
}

type statusMerge[T client.Object] struct {
	resourceVersion string
	old             any
	status          func(T) any
}

func (statusMerge[T]) Type() types.PatchType { return types.MergePatchType }

func (p statusMerge[T]) Data(obj client.Object) ([]byte, error) {
	o, ok := obj.(T)
	if !ok {
		return nil, fmt.Errorf("status patch built for %T sent with %T", *new(T), obj)
	}
	before, err := json.Marshal(p.old)
	if err != nil {
		return nil, fmt.Errorf("encoding the old status of %s: %w", obj.GetName(), err)
	}
	after, err := json.Marshal(p.status(o))
	if err != nil {
		return nil, fmt.Errorf("encoding the status of %s: %w", obj.GetName(), err)
	}
	diff, err := jsonpatch.CreateMergePatch(before, after)
	if err != nil {
		return nil, fmt.Errorf("computing the status patch of %s: %w", obj.GetName(), err)
	}
	return json.Marshal(statusPatchBody{
		Metadata: statusPatchMetadata{ResourceVersion: p.resourceVersion},
		Status:   diff,
	})
}

type statusPatchBody struct {
	Metadata statusPatchMetadata `json:"metadata"`
	Status   json.RawMessage     `json:"status"`
}

type statusPatchMetadata struct {
	ResourceVersion string `json:"resourceVersion"`
}
