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

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatusIfChanged writes obj's status, computed in memory, with one
// merge patch against base (the object as the reconcile read it), and only
// when status(base) and status(obj) differ. The patch carries the
// resourceVersion: a status computed on a stale cached object must not
// overwrite a newer one, so the write fails with a conflict and the caller
// retries once its cache caught up. It reports whether it wrote.
func PatchStatusIfChanged[T client.Object](ctx context.Context, c client.Client, base, obj T, status func(T) any) (bool, error) {
	if equality.Semantic.DeepEqual(status(base), status(obj)) {
		return false, nil
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return false, err
	}
	return true, nil
}
