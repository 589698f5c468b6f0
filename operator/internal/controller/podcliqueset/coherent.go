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

package podcliqueset

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/update"
)

// ReasonGangsReplaced is the event of a Coherent update deleting the gangs of
// a replica's old revision.
const ReasonGangsReplaced = "CoherentGangsReplaced"

// replaceGangs is the deleting step of a Coherent update, run after the
// status write. For every replica whose turn the written status records (so
// a turn is never acted on before it is stored), every gang that holds a PodClique of an older template is
// deleted whole: all its PodCliques, whose controllers delete their pods.
// The owners create them again from the current templates only once no
// PodClique of the replica is left being deleted or of an older template
// (update.CreationHeld), so no gang ever holds pods of two revisions.
// Gangs of unchanged cliques only (a scaling-group replica in a scaled gang
// of its own) keep their pods. It returns when the progress deadline of a
// turn passes, to report it then.
func (r *Reconciler) replaceGangs(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) (time.Duration, error) {
	rec := pcs.Status.UpdateProgress
	if !update.Coherent(pcs) || rec == nil || rec.UpdateEndedAt != nil || len(rec.CurrentlyUpdating) == 0 {
		return 0, nil
	}
	hashes, err := hash.Of(pcs)
	if err != nil {
		return 0, groveerr.Wrap(err, "ERR_COMPUTE_HASH", groveerr.OperationSync, "computing the template hashes")
	}
	if rec.PodCliqueSetGenerationHash != hashes.Generation {
		// The status has not caught up with a new template yet; the next
		// pass opens its record.
		return 0, nil
	}
	list := &grovecorev1alpha1.PodCliqueList{}
	// Read (and deleted), never changed: listed without copies of the cached objects.
	if err := r.client.List(ctx, list, childsync.ReadChildren(pcs, "")...); err != nil {
		return 0, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing PodCliques for the Coherent update")
	}
	_, deadline := update.ReplicaBudget(pcs)
	var requeue time.Duration
	for _, cu := range rec.CurrentlyUpdating {
		if cu.UpdateEndedAt != nil {
			continue
		}
		if _, after := update.Deadline(cu.UpdateStartedAt.Time, deadline, time.Now()); after > 0 {
			requeue = common.Earliest(requeue, after)
		}
		victims := oldGangs(list.Items, cu.ReplicaIndex, hashes.Cliques)
		if len(victims) == 0 {
			continue
		}
		names := make([]string, 0, len(victims))
		gangs := map[string]bool{}
		for _, p := range victims {
			if err := childsync.DeleteIgnoringNotFound(ctx, r.client, p); err != nil {
				return 0, groveerr.Wrapf(err, "ERR_DELETE_PODCLIQUE", groveerr.OperationSync, "replacing replica %d: deleting PodClique %s", cu.ReplicaIndex, p.Name)
			}
			names = append(names, p.Name)
			gangs[p.Labels[apicommon.LabelPodGang]] = true
		}
		gangNames := sortedKeys(gangs)
		log.Info("Coherent update: replacing the gangs of the old revision", "replica", cu.ReplicaIndex, "podGangs", gangNames, "podCliques", names)
		r.recorder.Eventf(pcs, nil, corev1.EventTypeNormal, ReasonGangsReplaced, common.ActionUpdate,
			"Replica %d: deleted the PodCliques %s of PodGangs %s; their pods are created from generation hash %s once the old ones are gone",
			cu.ReplicaIndex, strings.Join(names, ", "), strings.Join(gangNames, ", "), hashes.Generation)
	}
	return requeue, nil
}

// oldGangs returns the PodCliques of PodCliqueSet replica i, not yet being
// deleted, that belong to a gang (grove.io/podgang) with a PodClique of an
// older template, by name.
func oldGangs(pclqs []grovecorev1alpha1.PodClique, i int32, cliqueHashes map[string]string) []*grovecorev1alpha1.PodClique {
	index := desired.ReplicaIndexLabel(i)
	old := map[string]bool{}
	for k := range pclqs {
		p := &pclqs[k]
		if p.Labels[apicommon.LabelPodCliqueSetReplicaIndex] == index && p.DeletionTimestamp == nil && update.Outdated(p, cliqueHashes) {
			old[p.Labels[apicommon.LabelPodGang]] = true
		}
	}
	var out []*grovecorev1alpha1.PodClique
	for k := range pclqs {
		p := &pclqs[k]
		if p.Labels[apicommon.LabelPodCliqueSetReplicaIndex] == index && p.DeletionTimestamp == nil && old[p.Labels[apicommon.LabelPodGang]] {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}
