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

package mnnvl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// These markers become charts/grove/files/mnnvl-rbac.yaml, which the chart
// adds to the operator's ClusterRole only with network.autoMNNVLEnabled (see
// hack/generate.sh). The operator applies (patch, create), reads, watches
// and deletes ComputeDomains; their ResourceClaimTemplates are the driver's.
// +kubebuilder:rbac:groups=resource.nvidia.com,resources=computedomains,verbs=get;list;watch;create;patch;delete

// New returns an empty ComputeDomain object of the kind set.
func New() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(GVK)
	return u
}

// NewList returns an empty ComputeDomain list.
func NewList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(GVK.GroupVersion().WithKind(Kind + "List"))
	return l
}

// Desired returns the ComputeDomain of replica i and group, controlled by
// the PodCliqueSet: spec.numNodes 0 (the driver follows the pods that use
// the channel), spec.channel.resourceClaimTemplate.name its own name (the
// ResourceClaimTemplate NVIDIA's driver creates and the pods claim from),
// Grove's finalizer, and the labels of a PodCliqueSet child with the group.
func Desired(pcs *grovecorev1alpha1.PodCliqueSet, i int32, group string, owner metav1.OwnerReference) *unstructured.Unstructured {
	name := Name(pcs.Name, i, group)
	u := New()
	u.SetNamespace(pcs.Namespace)
	u.SetName(name)
	labels := childsync.Labels(pcs.Name, name, apicommon.LabelComponentComputeDomain)
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = fmt.Sprint(i)
	labels[apicommon.AnnotationMNNVLGroup] = group
	u.SetLabels(labels)
	u.SetFinalizers([]string{apicommon.FinalizerComputeDomain})
	u.SetOwnerReferences([]metav1.OwnerReference{owner})
	u.Object["spec"] = map[string]any{
		"numNodes": int64(0),
		"channel":  map[string]any{"resourceClaimTemplate": map[string]any{"name": name}},
	}
	return u
}

// ApplyConfiguration makes an unstructured object a childsync.ApplyConfiguration.
type ApplyConfiguration struct{ Object *unstructured.Unstructured }

var _ childsync.ApplyConfiguration = ApplyConfiguration{}

// IsApplyConfiguration marks the type as an apply configuration.
func (ApplyConfiguration) IsApplyConfiguration() {}

// GetName returns the object's name.
func (a ApplyConfiguration) GetName() *string { n := a.Object.GetName(); return &n }

// GetNamespace returns the object's namespace.
func (a ApplyConfiguration) GetNamespace() *string { n := a.Object.GetNamespace(); return &n }

// MarshalJSON encodes the object.
func (a ApplyConfiguration) MarshalJSON() ([]byte, error) { return json.Marshal(a.Object.Object) }

// Release removes Grove's finalizer from the ComputeDomain (a merge patch
// at the version read) and deletes it. A ComputeDomain already gone is no error.
func Release(ctx context.Context, c client.Client, cd *unstructured.Unstructured) error {
	if fs := cd.GetFinalizers(); slices.Contains(fs, apicommon.FinalizerComputeDomain) {
		patched := cd.DeepCopy()
		patched.SetFinalizers(slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == apicommon.FinalizerComputeDomain }))
		if err := c.Patch(ctx, patched, client.MergeFromWithOptions(cd, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing %s from ComputeDomain %s: %w", apicommon.FinalizerComputeDomain, cd.GetName(), err)
		}
	}
	if err := c.Delete(ctx, cd); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ComputeDomain %s: %w", cd.GetName(), err)
	}
	return nil
}

// ReleaseAll releases (Release) every ComputeDomain of the PodCliqueSet
// named pcsName whose controller reference has its name, read from the API
// server; keep names those to leave.
func ReleaseAll(ctx context.Context, c client.Client, namespace, pcsName string, keep map[string]bool) error {
	list := NewList()
	if err := c.List(ctx, list, client.InNamespace(namespace), childsync.Selector(pcsName, apicommon.LabelComponentComputeDomain)); err != nil {
		return fmt.Errorf("listing the ComputeDomains of PodCliqueSet %s: %w", pcsName, err)
	}
	var errs []error
	for i := range list.Items {
		cd := &list.Items[i]
		ref := metav1.GetControllerOfNoCopy(cd)
		if keep[cd.GetName()] || ref == nil || ref.Kind != "PodCliqueSet" || ref.Name != pcsName {
			continue
		}
		if err := Release(ctx, c, cd); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
