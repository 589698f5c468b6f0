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
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
)

// writeStatus patches the status computed in memory when anything but
// timestamps changed since base, the object as the reconcile read it. It is
// the reconcile's one status write. The events of the status computation are
// posted only after it succeeded (see statusEvents).
func (r *Reconciler) writeStatus(ctx context.Context, base, pcs *grovecorev1alpha1.PodCliqueSet, ev statusEvents) error {
	wrote, err := common.PatchStatusIfChanged(ctx, r.client, base, pcs, pcsStatus)
	if err != nil {
		return groveerr.Wrap(err, "ERR_UPDATE_PCS_STATUS", groveerr.OperationSync, "patching PodCliqueSet status")
	}
	if wrote {
		ev.post(r.recorder, pcs)
		r.recordTopologyChange(pcs, base.Status.Conditions)
	}
	return nil
}

func pcsStatus(pcs *grovecorev1alpha1.PodCliqueSet) any { return pcs.Status }

// computeStatus computes the PodCliqueSet status from its children in the
// cache. observedGeneration advances only after a sync without errors. The
// children are read, never changed, so they are listed without copies of
// the cached objects (a set of 5000 replicas would copy 25 MB of PodCliques
// on every status computation).
func (r *Reconciler) computeStatus(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, synced bool, ev *statusEvents) error {
	if synced {
		pcs.Status.ObservedGeneration = ptr.To(pcs.Generation)
	}
	children := childsync.ReadChildren(pcs, "")
	pclqs := &grovecorev1alpha1.PodCliqueList{}
	if err := r.client.List(ctx, pclqs, children...); err != nil {
		return groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing PodCliques for status")
	}
	pcsgs := &grovecorev1alpha1.PodCliqueScalingGroupList{}
	if err := r.client.List(ctx, pcsgs, children...); err != nil {
		return groveerr.Wrap(err, "ERR_LIST_PODCLIQUESCALINGGROUP", groveerr.OperationSync, "listing PodCliqueScalingGroups for status")
	}
	gangs := &groveschedulerv1alpha1.PodGangList{}
	if err := r.client.List(ctx, gangs, children...); err != nil {
		return groveerr.Wrap(err, "ERR_LIST_PODGANGS", groveerr.OperationSync, "listing PodGangs for status")
	}
	hashes, err := hash.Of(pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_COMPUTE_HASH", groveerr.OperationSync, "computing the template hashes")
	}

	byName := map[string]*grovecorev1alpha1.PodClique{}
	for i := range pclqs.Items {
		byName[pclqs.Items[i].Name] = &pclqs.Items[i]
	}
	pcsgByName := map[string]*grovecorev1alpha1.PodCliqueScalingGroup{}
	for i := range pcsgs.Items {
		pcsgByName[pcsgs.Items[i].Name] = &pcsgs.Items[i]
	}

	var unavailable []int32
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		if !replicaAvailable(pcs, i, byName, pcsgByName) {
			unavailable = append(unavailable, i)
		}
	}

	st := &pcs.Status
	st.Replicas = pcs.Spec.Replicas
	st.AvailableReplicas = pcs.Spec.Replicas - int32(len(unavailable))
	setReadyCondition(pcs, unavailable)
	st.HPAPodSelector = apicommon.PodCliqueSetSelector(pcs.Name)
	st.PodGangStatuses = podGangStatuses(gangs.Items)
	r.trackUpdate(pcs, hashes.Generation, hashes.Cliques, byName, pcsgByName, metav1.Now(), ev)
	return r.setTopologyCondition(ctx, pcs)
}

// maxNamedUnavailable is how many unavailable replicas the Ready message names.
const maxNamedUnavailable = 5

// setReadyCondition writes Ready: True when every replica is available (or
// none is wanted), else False naming the first unavailable replica indices,
// so that `kubectl wait --for=condition=Ready` waits for the whole system.
func setReadyCondition(pcs *grovecorev1alpha1.PodCliqueSet, unavailable []int32) {
	cond := metav1.Condition{Type: grovecorev1alpha1.ConditionTypeReady, ObservedGeneration: pcs.Generation}
	replicas := pcs.Spec.Replicas
	available := replicas - int32(len(unavailable))
	switch {
	case replicas == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonScaledToZero, "0 replicas wanted"
	case len(unavailable) == 0:
		cond.Status, cond.Reason = metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonAllReplicasAvailable
		cond.Message = fmt.Sprintf("%d of %d replicas available", available, replicas)
	default:
		named := make([]string, 0, maxNamedUnavailable)
		for _, i := range unavailable[:min(len(unavailable), maxNamedUnavailable)] {
			named = append(named, strconv.Itoa(int(i)))
		}
		list := strings.Join(named, ", ")
		if more := len(unavailable) - len(named); more > 0 {
			list = fmt.Sprintf("%s and %d more", list, more)
		}
		cond.Status, cond.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonReplicasUnavailable
		cond.Message = fmt.Sprintf("%d of %d replicas available; unavailable: %s", available, replicas, list)
	}
	meta.SetStatusCondition(&pcs.Status.Conditions, cond)
}

// replicaAvailable says whether PodCliqueSet replica i is available: every
// standalone PodClique has minAvailable ready pods and every scaling group
// minAvailable available replicas; those scaled to zero lack nothing.
func replicaAvailable(pcs *grovecorev1alpha1.PodCliqueSet, i int32, pclqs map[string]*grovecorev1alpha1.PodClique,
	pcsgs map[string]*grovecorev1alpha1.PodCliqueScalingGroup) bool {
	for _, c := range desired.StandaloneCliques(pcs) {
		p, ok := pclqs[apicommon.PodCliqueName(pcs.Name, i, c.Name)]
		if !ok || p.DeletionTimestamp != nil {
			return false
		}
		if p.Spec.Replicas != 0 && p.Status.ReadyReplicas < desired.CliqueMinAvailable(&p.Spec) {
			return false
		}
	}
	for k := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		cfg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[k]
		g, ok := pcsgs[apicommon.PodCliqueScalingGroupName(pcs.Name, i, cfg.Name)]
		if !ok || g.DeletionTimestamp != nil {
			return false
		}
		if g.Spec.Replicas != 0 && g.Status.AvailableReplicas < desired.PCSGMinAvailable(g) {
			return false
		}
	}
	return true
}

// maxPodGangStatuses is how many PodGangs status.podGangStatuses shows (its
// API documentation and CRD say the same). Mirroring every PodGang of a
// 5000-replica set made a status of megabytes, which the API server timed out
// writing, so the set's counts and conditions were never reported either.
const maxPodGangStatuses = 100

// podGangStatuses mirrors the phase and conditions the scheduler wrote on
// the PodGangs, sorted by name: all of them, or, past maxPodGangStatuses,
// those that are not Running first. PodGangs without a phase yet are left out.
// gangs are the cache's own objects: the conditions kept are copied.
func podGangStatuses(gangs []groveschedulerv1alpha1.PodGang) []grovecorev1alpha1.PodGangStatus {
	var out []grovecorev1alpha1.PodGangStatus
	for i := range gangs {
		g := &gangs[i]
		if g.Status.Phase == "" || g.DeletionTimestamp != nil {
			continue
		}
		out = append(out, grovecorev1alpha1.PodGangStatus{Name: g.Name, Phase: g.Status.Phase, Conditions: g.Status.Conditions})
	}
	byName := func(a, b grovecorev1alpha1.PodGangStatus) int { return strings.Compare(a.Name, b.Name) }
	if len(out) > maxPodGangStatuses {
		running := func(g grovecorev1alpha1.PodGangStatus) bool {
			return g.Phase == groveschedulerv1alpha1.PodGangPhaseRunning
		}
		slices.SortFunc(out, func(a, b grovecorev1alpha1.PodGangStatus) int {
			if ra, rb := running(a), running(b); ra != rb {
				if ra {
					return 1
				}
				return -1
			}
			return byName(a, b)
		})
		out = out[:maxPodGangStatuses]
	}
	slices.SortFunc(out, byName)
	for i := range out {
		out[i].Conditions = slices.Clone(out[i].Conditions)
	}
	return out
}
