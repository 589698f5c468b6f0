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
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/index"
)

// deleteChildrenOfDeleted deletes the children a PodCliqueSet that is gone
// controlled, in two waves. The garbage collector deletes them too, and still
// does when the operator is not running, but at kube-controller-manager's
// request rate (by default 20 a second, and it reads each child before
// deleting it): for a set of 5000 replicas, 15 000 children, that took it more
// than ten minutes. The operator deletes them at its own rate:
//
//   - first the PodCliques, scaling groups and HPAs: the pods, what a user
//     waits for, go only once their PodClique is deleted and drains them;
//   - then, once no PodClique of the set is left, the PodGangs and Services,
//     which hold no pod. Until then the garbage collector alone deletes them,
//     so that a fast collector and the operator do not both delete each
//     (half of the operator's deletes of them met a 404 or a conflict when
//     both ran at once), and the operator's own deletes go first to what
//     frees pods. The last PodClique's deletion queues the pass that does it.
//
// Only a child whose controller reference names the PodCliqueSet is deleted,
// and only at the version the cache shows (UID and resourceVersion are the
// preconditions). A deletion with propagation Orphan has the garbage
// collector remove the owner references before the PodCliqueSet goes, so a
// child that the cache still shows with its reference has a newer version and
// is left alone. It returns when to look again: after a second when some
// deletes met a newer version, by then the cache has caught up. A child
// deleted once is not deleted again while the cache does not show the
// deletion yet (r.writes): a child with a finalizer changes its version when
// deleted, and the repeated delete would only meet a conflict.
func (r *Reconciler) deleteChildrenOfDeleted(ctx context.Context, log logr.Logger, key types.NamespacedName) (time.Duration, error) {
	children, podCliquesLeft, err := r.childrenOfDeleted(ctx, key, &grovecorev1alpha1.PodCliqueScalingGroupList{},
		&grovecorev1alpha1.PodCliqueList{}, &autoscalingv2.HorizontalPodAutoscalerList{})
	if err != nil {
		return 0, err
	}
	if !podCliquesLeft {
		children, _, err = r.childrenOfDeleted(ctx, key, &groveschedulerv1alpha1.PodGangList{}, &corev1.ServiceList{})
		if err != nil {
			return 0, err
		}
	}
	if len(children) == 0 {
		return 0, nil
	}
	// The cache may lag behind a PodCliqueSet created again under the same
	// name; only the API server's answer that none exists lets children go.
	if err := r.apiReader.Get(ctx, key, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{
		APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodCliqueSet"}}); !apierrors.IsNotFound(err) {
		return 0, err
	}
	var deleted, stale atomic.Int32
	err = childsync.Parallel(len(children), childsync.DefaultParallelism, func(i int) error {
		obj := children[i]
		uid, version := obj.GetUID(), obj.GetResourceVersion()
		err := r.client.Delete(ctx, obj, client.Preconditions{UID: &uid, ResourceVersion: &version}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		switch {
		case err == nil:
			r.writes.Deleted(obj)
			deleted.Add(1)
		case apierrors.IsConflict(err):
			stale.Add(1)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("deleting %T %s of deleted PodCliqueSet %s: %w", obj, obj.GetName(), key.Name, err)
		}
		return nil
	})
	log.Info("Deleted the children of the deleted PodCliqueSet", "deleted", deleted.Load(), "changedSinceCached", stale.Load(), "listed", len(children))
	if stale.Load() > 0 && err == nil {
		return staleChildRetry, nil
	}
	return 0, err
}

// childrenOfDeleted lists, from the cache, the objects of lists' kinds that
// the gone PodCliqueSet key controls and that are to be deleted: not being
// deleted yet, and not deleted by the operator already. podCliquesLeft tells
// whether any PodClique of the set is left, being deleted or not, whoever
// controls it (a scaling group's too).
func (r *Reconciler) childrenOfDeleted(ctx context.Context, key types.NamespacedName, lists ...client.ObjectList) (children []client.Object, podCliquesLeft bool, err error) {
	for _, list := range lists {
		// Only read and deleted: no copies of the cached objects.
		if err := r.client.List(ctx, list, client.InNamespace(key.Namespace), index.InSet(key.Name), client.UnsafeDisableDeepCopy); err != nil {
			return nil, false, fmt.Errorf("listing %T of deleted PodCliqueSet %s: %w", list, key.Name, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, false, err
		}
		if _, ok := list.(*grovecorev1alpha1.PodCliqueList); ok && len(items) > 0 {
			podCliquesLeft = true
		}
		for _, item := range items {
			if obj, ok := item.(client.Object); ok && controlledByDeleted(obj, key.Name) && !r.writes.Behind(obj) {
				children = append(children, obj)
			}
		}
	}
	return children, podCliquesLeft, nil
}

// staleChildRetry is when children whose delete met a newer version than the
// cache's are tried again: by then the cache normally shows that version.
const staleChildRetry = time.Second

// controlledByDeleted reports whether obj is not being deleted yet and its
// controller is the PodCliqueSet called name.
func controlledByDeleted(obj client.Object, name string) bool {
	if obj.GetDeletionTimestamp() != nil {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.Kind == "PodCliqueSet" && ref.Name == name &&
		ref.APIVersion == grovecorev1alpha1.SchemeGroupVersion.String()
}
