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

package podclique

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
)

// releaseReferences empties the PodClique's group of its PodGang once its
// pods are gone, before the PodClique is released. The PodClique controller
// owns its group's references; without this they would keep naming the
// deleted pods until a PodClique of the same name writes again. A PodGang
// outlives its PodCliques when a Coherent update replaces its gang (same
// name, new pods), gang termination recreates it, or a scaling group replaces
// a group replica: meanwhile `kubectl get podgang` would list pods that no
// longer exist and the gang would still count as initialized (see
// podganginit.Write). A PodGang that is gone, or that another set controls, is
// left alone, and so is one whose set is gone: it is deleted with the set,
// and emptying it first would cost a write (74-182 per 500-replica set
// deleted in make bench-e2e) and change the version its delete carries as a
// precondition. The patch pins the group by name, so a reordered list fails it
// and the reconcile is retried.
func (r *Reconciler) releaseReferences(ctx context.Context, pclq *grovecorev1alpha1.PodClique) error {
	name := pclq.Labels[apicommon.LabelPodGang]
	if name == "" {
		return nil
	}
	pg := &groveschedulerv1alpha1.PodGang{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: pclq.Namespace, Name: name}, pg); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !pod.GangOfSet(pg, pclq) {
		return nil
	}
	if gone, err := r.setGone(ctx, pg); gone || err != nil {
		return err
	}
	group := slices.IndexFunc(pg.Spec.PodGroups, func(g groveschedulerv1alpha1.PodGroup) bool { return g.Name == pclq.Name })
	if group < 0 || len(pg.Spec.PodGroups[group].PodReferences) == 0 {
		return nil
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": fmt.Sprintf("/spec/podgroups/%d/name", group), "value": pclq.Name},
		{"op": "replace", "path": fmt.Sprintf("/spec/podgroups/%d/podReferences", group), "value": []groveschedulerv1alpha1.NamespacedName{}},
	})
	if err != nil {
		return err
	}
	if err := r.client.Patch(ctx, pg, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(childsync.PodCliqueFieldManager)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("emptying the pod references of group %s in PodGang %s: %w", pclq.Name, name, err))
	}
	return nil
}

// setGone reports whether the PodCliqueSet that controls pg is gone from the
// cache: absent, or replaced by a set of the same name (another UID).
func (r *Reconciler) setGone(ctx context.Context, pg *groveschedulerv1alpha1.PodGang) (bool, error) {
	ref := metav1.GetControllerOfNoCopy(pg)
	if ref == nil {
		return false, nil
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	// Only its UID is read: no copy of the cached object.
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: pg.Namespace, Name: ref.Name}, pcs, client.UnsafeDisableDeepCopy); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("getting PodCliqueSet %s of PodGang %s: %w", ref.Name, pg.Name, err)
	}
	return pcs.UID != ref.UID, nil
}
