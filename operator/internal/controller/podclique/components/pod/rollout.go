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

package pod

import (
	"context"
	"slices"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/update"
)

// Rollout is what the PodClique's status needs to know about updates: where
// the PodClique stands in its PodCliqueSet's update, and which ready pods
// this Sync replaced.
type Rollout struct {
	// OnDelete says the PodCliqueSet uses the OnDelete strategy.
	OnDelete bool
	// ReplicaUpdating says the PodClique's PodCliqueSet replica is the one
	// being rolled now (RollingRecreate).
	ReplicaUpdating bool
	// Rolling says Grove replaces this PodClique's pods now: a standalone
	// clique in the replica being rolled, whose spec already carries the
	// current template.
	Rolling bool
	// GenerationHash is the PodCliqueSet's generation hash when the
	// PodClique's template is the current one; empty otherwise.
	GenerationHash string
	// SelectedReady are the ready pods of an older template this Sync deleted
	// (within maxUnavailable), in deletion order.
	SelectedReady []string
}

// rollOut replaces the pods of an older template of a standalone PodClique
// while its PodCliqueSet replica is the one being rolled (RollingRecreate):
// old pods that are not ready are deleted at once, since they serve nothing;
// ready ones only while fewer than maxUnavailable pods are unavailable,
// counting missing, starting and not-ready pods (design decision 5). The
// replica sync then recreates them from the PodClique's spec, which already
// carries the new template. It returns the pods still active.
//
// Members of a scaling group are never rolled pod by pod: the
// PodCliqueScalingGroup controller replaces whole group replicas.
func (c *Component) rollOut(ctx context.Context, log logr.Logger, pclq *grovecorev1alpha1.PodClique, pcs *grovecorev1alpha1.PodCliqueSet,
	id Identity, active []*corev1.Pod, pendingCreates int) ([]*corev1.Pod, Rollout, error) {
	var ro Rollout
	ro.OnDelete = update.Strategy(pcs) == grovecorev1alpha1.OnDeleteStrategyType
	hashes, err := hash.Of(pcs)
	if err != nil {
		return active, ro, groveerr.Wrap(err, ErrInvalidPodClique, groveerr.OperationSync, "computing the template hashes")
	}
	ro.ReplicaUpdating = update.ReplicaUpdating(pcs, id.PCSReplicaIndex, hashes.Generation)
	current := templateIsCurrent(pclq, hashes, id)
	if current {
		ro.GenerationHash = hashes.Generation
	}
	// Until the PodCliqueSet controller patched the new template into this
	// PodClique, replacements would be built from the old one; the label
	// change brings the next sync.
	ro.Rolling = current && ro.ReplicaUpdating && id.PCSGName == ""
	if !ro.Rolling {
		return active, ro, nil
	}

	templateHash := pclq.Labels[apicommon.LabelPodTemplateHash]
	var notReady, ready []*corev1.Pod
	readyActive := 0
	for _, p := range active {
		isReady := IsReady(p)
		if isReady {
			readyActive++
		}
		if p.Labels[apicommon.LabelPodTemplateHash] == templateHash {
			continue
		}
		if isReady {
			ready = append(ready, p)
		} else {
			notReady = append(notReady, p)
		}
	}
	if len(notReady)+len(ready) == 0 {
		return active, ro, nil
	}
	// Lowest pod index first, so the order is predictable for whoever watches.
	slices.SortStableFunc(ready, func(a, b *corev1.Pod) int {
		ia, _ := podIndexOf(pclq.Name, a)
		ib, _ := podIndexOf(pclq.Name, b)
		return ia - ib
	})
	unavailable := max(0, int(pclq.Spec.Replicas)-readyActive)
	budget := int(update.MaxUnavailable(pclq.Spec.RollingUpdate, pclq.Spec.Replicas)) - unavailable
	selected := ready[:min(max(budget, 0), len(ready))]
	doomed := append(slices.Clone(notReady), selected...)
	if len(doomed) == 0 {
		return active, ro, nil
	}
	log.Info("Replacing pods of an older template", "notReady", len(notReady), "readySelected", len(selected),
		"readyOld", len(ready), "unavailable", unavailable, "pendingCreates", pendingCreates)
	if err := c.deletePods(ctx, log, pclq, doomed); err != nil {
		return active, ro, groveerr.Wrapf(err, ErrDeletePod, groveerr.OperationSync, "replacing pods of an older template in PodClique %s", pclq.Name)
	}
	for _, p := range selected {
		ro.SelectedReady = append(ro.SelectedReady, p.Name)
	}
	remaining := slices.DeleteFunc(slices.Clone(active), func(p *corev1.Pod) bool { return slices.Contains(doomed, p) })
	return remaining, ro, nil
}

// templateIsCurrent reports whether the PodClique's spec carries the current
// template of its clique in the PodCliqueSet.
func templateIsCurrent(pclq *grovecorev1alpha1.PodClique, hashes hash.Hashes, id Identity) bool {
	h, ok := hashes.Cliques[id.TemplateName]
	return ok && h == pclq.Labels[apicommon.LabelPodTemplateHash]
}
