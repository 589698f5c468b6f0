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

// Package podclique manages the standalone PodCliques of a PodCliqueSet,
// <pcs>-<i>-<clique> for every replica i and every clique in no scaling
// group. Scaling-group members belong to the PodCliqueScalingGroup controller.
package podclique

// +kubebuilder:rbac:groups=grove.io,resources=podcliques,verbs=get;list;watch;create;patch;delete

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
)

const kind = "PodClique"

type operator struct{ d childsync.Deps }

// New returns the standalone PodClique component operator.
func New(d childsync.Deps) component.Operator[*grovecorev1alpha1.PodCliqueSet] {
	return operator{d}
}

func (operator) Kind() string { return kind }

type work struct {
	replica int32
	tmpl    *grovecorev1alpha1.PodCliqueTemplateSpec
}

// Sync deletes PodCliques of removed replicas or cliques, then creates or
// patches the expected ones. Each wanted PodClique is built by the worker
// that applies it: a set of thousands of replicas never holds all of them.
func (o operator) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	var todo []work
	keep := map[string]bool{}
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		for _, tmpl := range desired.StandaloneCliques(pcs) {
			keep[apicommon.PodCliqueName(pcs.Name, i, tmpl.Name)] = true
			todo = append(todo, work{replica: i, tmpl: tmpl})
		}
	}
	if err := o.deleteExcept(ctx, pcs, keep); err != nil {
		return err
	}
	hashes, err := hash.Of(pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "hashing the clique templates")
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	// A standalone PodClique is a function of the set's spec, name and UID.
	inputs := childsync.OwnerInputs(pcs)
	return childsync.Parallel(len(todo), childsync.DefaultParallelism, func(i int) error {
		w := todo[i]
		name := client.ObjectKey{Namespace: pcs.Namespace, Name: apicommon.PodCliqueName(pcs.Name, w.replica, w.tmpl.Name)}
		build := sync.OnceValues(func() (*grovecorev1alpha1.PodClique, error) {
			want, err := desired.PodClique(o.d.Scheme, pcs, w.replica, w.tmpl, hashes.Cliques[w.tmpl.Name], nil, pcs)
			if err != nil {
				return nil, groveerr.Wrapf(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "building PodClique for clique %s replica %d", w.tmpl.Name, w.replica)
			}
			return want, nil
		})
		live := &grovecorev1alpha1.PodClique{}
		res, err := childsync.ApplyShared(ctx, o.d, pcs, desired.PodCliqueChild(name, &w.tmpl.Spec, inputs, build,
			func(_, want *grovecorev1alpha1.PodClique) *grovecorev1alpha1.PodClique { return want }), live)
		report.Applied(live, res, err)
		return groveerr.Wrapf(err, "ERR_CREATE_OR_UPDATE_PODCLIQUE", groveerr.OperationSync, "applying PodClique %s", name.Name)
	})
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &grovecorev1alpha1.PodCliqueList{}, Component: apicommon.LabelComponentPCSPodClique, Kind: kind, ListCode: "ERR_LIST_PODCLIQUE", DeleteCode: "ERR_DELETE_PODCLIQUE",
	}, keep)
}
