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

	"github.com/go-logr/logr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

const kind = "PodClique"

type operator struct{ d childsync.Deps }

// New returns the standalone PodClique component operator.
func New(d childsync.Deps) component.Operator[*grovecorev1alpha1.PodCliqueSet] {
	return operator{d}
}

func (operator) Kind() string { return kind }

type work struct {
	want             *grovecorev1alpha1.PodClique
	templateReplicas int32
}

// Sync deletes PodCliques of removed replicas or cliques, then creates or
// patches the expected ones.
func (o operator) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	var todo []work
	keep := map[string]bool{}
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		for _, tmpl := range desired.StandaloneCliques(pcs) {
			want, err := desired.PodClique(o.d.Scheme, pcs, i, tmpl, nil, pcs)
			if err != nil {
				return groveerr.Wrapf(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "building PodClique for clique %s replica %d", tmpl.Name, i)
			}
			keep[want.Name] = true
			todo = append(todo, work{want: want, templateReplicas: tmpl.Spec.Replicas})
		}
	}
	if err := o.deleteExcept(ctx, pcs, keep); err != nil {
		return err
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(todo), childsync.DefaultParallelism, func(i int) error {
		w := todo[i]
		res, err := childsync.ApplyShared(ctx, o.d, pcs, desired.PodCliqueChild(w.want, w.templateReplicas, func(*grovecorev1alpha1.PodClique) *grovecorev1alpha1.PodClique { return w.want }), &grovecorev1alpha1.PodClique{})
		report.Applied(w.want, res, err)
		return groveerr.Wrapf(err, "ERR_CREATE_OR_UPDATE_PODCLIQUE", groveerr.OperationSync, "applying PodClique %s", w.want.Name)
	})
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &grovecorev1alpha1.PodCliqueList{}, Component: apicommon.LabelComponentPCSPodClique, Kind: kind, ListCode: "ERR_LIST_PODCLIQUE", DeleteCode: "ERR_DELETE_PODCLIQUE",
	}, keep)
}
