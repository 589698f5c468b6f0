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
)

// Excess names one component's objects to delete: those of the PodCliqueSet
// (listed into List by the component label) whose names are not in Keep.
type Excess struct {
	// List receives the component's objects, e.g. &corev1.ServiceList{}.
	List client.ObjectList
	// Component is the value of the app.kubernetes.io/component label.
	Component string
	// Kind names the objects in events and errors.
	Kind string
	// ListCode and DeleteCode are the error codes of a failed list or delete.
	ListCode, DeleteCode grovecorev1alpha1.ErrorCode
}

// DeleteExcept deletes the PodCliqueSet's objects of one component whose
// names are not in keep (nil keep: all of them), in parallel, reporting each
// deletion as an event. Objects already being deleted, and objects with the
// PodCliqueSet's labels that it does not control, are left alone.
func DeleteExcept(ctx context.Context, d Deps, pcs *grovecorev1alpha1.PodCliqueSet, e Excess, keep map[string]bool) error {
	// The listed objects are only read and deleted: no copies of the cache's.
	if err := d.Client.List(ctx, e.List, ReadChildren(pcs, e.Component)...); err != nil {
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
		if !keep[obj.GetName()] && obj.GetDeletionTimestamp() == nil && metav1.IsControlledBy(obj, pcs) {
			excess = append(excess, obj)
		}
	}
	report := d.NewReport(pcs, e.Kind)
	defer report.Emit()
	return Parallel(len(excess), DefaultParallelism, func(i int) error {
		err := DeleteIgnoringNotFound(ctx, d.Client, excess[i])
		report.Deleted(excess[i], err)
		return groveerr.Wrapf(err, e.DeleteCode, groveerr.OperationDelete, "deleting %s %s", e.Kind, excess[i].GetName())
	})
}
