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

// Package computedomain is the PodCliqueSet's component for MNNVL
// ComputeDomains (network.autoMNNVLEnabled): <pcs>-<i>-<group> per replica
// and grove.io/mnnvl-group of its GPU cliques, applied server-side and
// controlled by the PodCliqueSet. It is registered only when MNNVL is enabled.
package computedomain

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/mnnvl"
)

type operator struct{ d childsync.Deps }

// New returns the ComputeDomain component.
func New(d childsync.Deps) component.Operator[component.SetWork] { return operator{d} }

func (operator) Kind() string { return mnnvl.Kind }

// Sync applies the ComputeDomains of the work's replicas; the set-level pass
// applies those of every replica and releases the ones no longer wanted
// (replicas removed by a scale-in, groups no GPU clique uses any more).
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	groups := mnnvl.Groups(pcs)
	ref, err := childsync.ControllerReference(o.d.Scheme, pcs)
	if err != nil {
		return err
	}
	owner := metav1.OwnerReference{APIVersion: *ref.APIVersion, Kind: *ref.Kind, Name: *ref.Name, UID: *ref.UID,
		Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}
	report := o.d.NewReport(pcs, mnnvl.Kind)
	defer report.Emit()
	var errs []error
	for _, i := range w.Replicas() {
		for _, g := range groups {
			want := mnnvl.Desired(pcs, i, g, owner)
			live := mnnvl.New()
			if err := o.notOwned(ctx, pcs, want); err != nil {
				report.Applied(want, childsync.Unchanged, err)
				errs = append(errs, err)
				continue
			}
			res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{
				Key:   client.ObjectKeyFromObject(want),
				Live:  live,
				Build: func() (childsync.ApplyConfiguration, error) { return mnnvl.ApplyConfiguration{Object: want}, nil },
			})
			report.Applied(want, res, err)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if w.IsSetLevel() {
		keep := map[string]bool{}
		for i := int32(0); i < pcs.Spec.Replicas; i++ {
			for _, g := range groups {
				keep[mnnvl.Name(pcs.Name, i, g)] = true
			}
		}
		if err := mnnvl.ReleaseAll(ctx, o.d.Client, pcs.Namespace, pcs.Name, keep); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// notOwned reports a ComputeDomain of the wanted name that the PodCliqueSet
// does not control, with or without another controller: Grove never takes
// over a ComputeDomain it did not make for this set.
func (o operator) notOwned(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, want *unstructured.Unstructured) error {
	live := mnnvl.New()
	if err := o.d.Client.Get(ctx, client.ObjectKeyFromObject(want), live); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading ComputeDomain %s: %w", want.GetName(), err)
	}
	return childsync.ControlledBy(o.d.Scheme, live, pcs)
}
