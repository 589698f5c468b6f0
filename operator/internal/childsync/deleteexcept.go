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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/index"
)

// Excess names the objects of one kind an owner may have too many of.
type Excess struct {
	// List receives the objects, e.g. &corev1.ServiceList{}.
	List client.ObjectList
	// Set is the name of the PodCliqueSet the owner belongs to (the
	// part-of label, indexed by the cache).
	Set string
	// Selector selects the owner's objects of the kind (see Selector).
	Selector client.MatchingLabels
	// Kind names the objects in events and errors.
	Kind string
	// ListCode and DeleteCode are the error codes of a failed list or delete.
	ListCode, DeleteCode grovecorev1alpha1.ErrorCode
}

// DeleteExcept deletes the objects e selects that owner controls, are not
// being deleted and whose names are not in keep, and emits one event per
// outcome on owner. It serves every owner: a PodCliqueSet for its
// components, a PodCliqueScalingGroup for its member PodCliques.
func DeleteExcept(ctx context.Context, d Deps, owner client.Object, e Excess, keep map[string]bool) error {
	// The listed objects are only read and deleted: no copies of the cache's.
	opts := []client.ListOption{client.InNamespace(owner.GetNamespace()), index.InSet(e.Set), e.Selector, client.UnsafeDisableDeepCopy}
	if err := d.Client.List(ctx, e.List, opts...); err != nil {
		return groveerr.Wrapf(err, e.ListCode, groveerr.OperationSync, "listing %ss", e.Kind)
	}
	items, err := meta.ExtractList(e.List)
	if err != nil {
		return groveerr.Wrapf(err, e.ListCode, groveerr.OperationSync, "reading %s list", e.Kind)
	}
	var excess []client.Object
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok {
			return groveerr.Wrap(fmt.Errorf("%T is not an object", item), e.ListCode, groveerr.OperationSync, "reading list")
		}
		if !keep[obj.GetName()] && obj.GetDeletionTimestamp() == nil && metav1.IsControlledBy(obj, owner) {
			excess = append(excess, obj)
		}
	}
	report := d.NewReport(owner, e.Kind)
	defer report.Emit()
	return Parallel(len(excess), DefaultParallelism, func(i int) error {
		err := DeleteIgnoringNotFound(ctx, d.Client, excess[i])
		report.Deleted(excess[i], err)
		return groveerr.Wrapf(err, e.DeleteCode, groveerr.OperationDelete, "deleting %s %s", e.Kind, excess[i].GetName())
	})
}
