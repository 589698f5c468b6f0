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
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/update"
)

const kind = "PodClique"

type operator struct{ d childsync.Deps }

// New returns the standalone PodClique component operator.
func New(d childsync.Deps) component.Operator[component.SetWork] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync deletes, in the set-level pass, the PodCliques of removed replicas
// or cliques and reports the wanted names others' objects hold, and
// otherwise applies the standalone PodCliques of the work's replicas.
func (o operator) Sync(ctx context.Context, log logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	cliques := desired.StandaloneCliques(pcs)
	if w.IsSetLevel() {
		keep := map[string]bool{}
		for i := int32(0); i < pcs.Spec.Replicas; i++ {
			for _, tmpl := range cliques {
				keep[apicommon.PodCliqueName(pcs.Name, i, tmpl.Name)] = true
			}
		}
		if err := o.deleteExcept(ctx, pcs, keep); err != nil {
			return err
		}
		return childsync.NotOwnedAmong(ctx, o.d, pcs, func() client.Object { return &grovecorev1alpha1.PodClique{} }, keep)
	}
	hashes, err := hash.Of(pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "hashing the clique templates")
	}
	replicas := w.Replicas()
	holds, err := o.heldReplicas(ctx, pcs, replicas, hashes.Cliques)
	if err != nil {
		return err
	}
	coherent := update.Coherent(pcs)
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(replicas)*len(cliques), childsync.DefaultParallelism, func(i int) error {
		replica, tmpl := replicas[i/len(cliques)], cliques[i%len(cliques)]
		name := client.ObjectKey{Namespace: pcs.Namespace, Name: apicommon.PodCliqueName(pcs.Name, replica, tmpl.Name)}
		if why, ok := holds.reasons[replica]; ok && !holds.exists(name.Name) {
			log.V(1).Info("PodClique creation held for the Coherent update", "podClique", name.Name, "reason", why)
			return nil
		}
		live := &grovecorev1alpha1.PodClique{}
		res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{Key: name, Live: live, Scale: desired.PodCliqueScale(&tmpl.Spec),
			Build: func() (childsync.ApplyConfiguration, error) {
				want, err := desired.PodClique(o.d.Scheme, pcs, replica, tmpl, hashes.Cliques[tmpl.Name], hashes.Generation, nil, pcs)
				if err != nil {
					return nil, groveerr.Wrapf(err, "ERR_BUILD_PODCLIQUE", groveerr.OperationSync, "building PodClique for clique %s replica %d", tmpl.Name, replica)
				}
				if live.UID != "" {
					// Under Coherent a PodClique of an older template keeps
					// it until its replica's turn deletes it with its gang.
					want = update.Revision(live, want, coherent)
				}
				return desired.PodCliqueApply(want)
			}})
		report.Applied(live, res, err)
		return groveerr.Wrapf(err, "ERR_CREATE_OR_UPDATE_PODCLIQUE", groveerr.OperationSync, "applying PodClique %s", name.Name)
	})
}

// held maps the replicas whose missing PodCliques are not created now (see
// update.CreationHeld) to the reason; names are the PodCliques that exist.
type held struct {
	reasons map[int32]string
	names   map[string]bool
}

func (h held) exists(name string) bool { return h.names[name] }

// heldReplicas reads, under Coherent, the PodCliques of the given replicas
// and says which replicas hold back creation.
func (o operator) heldReplicas(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, replicas []int32, cliqueHashes map[string]string) (held, error) {
	h := held{reasons: map[int32]string{}, names: map[string]bool{}}
	if !update.Coherent(pcs) {
		return h, nil
	}
	list := &grovecorev1alpha1.PodCliqueList{}
	// Read only: listed without copies of the cached objects.
	if err := o.d.Client.List(ctx, list, childsync.ReadChildren(pcs, "")...); err != nil {
		return h, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing PodCliques")
	}
	byReplica := map[string][]*grovecorev1alpha1.PodClique{}
	for i := range list.Items {
		p := &list.Items[i]
		h.names[p.Name] = true
		byReplica[p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]] = append(byReplica[p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]], p)
	}
	for _, r := range replicas {
		if why := update.CreationHeld(pcs, byReplica[desired.ReplicaIndexLabel(r)], cliqueHashes); why != "" {
			h.reasons[r] = why
		}
	}
	return h, nil
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &grovecorev1alpha1.PodCliqueList{}, Set: pcs.Name, Selector: childsync.Selector(pcs.Name, apicommon.LabelComponentPCSPodClique), Kind: kind, ListCode: "ERR_LIST_PODCLIQUE", DeleteCode: "ERR_DELETE_PODCLIQUE",
	}, keep)
}
