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

package podcliquescalinggroup

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// The PodCliqueScalingGroup controller reads and patches scaling groups
// (finalizer, status), reads the PodCliqueSet, reads and deletes member
// PodCliques (gang termination), records Events, and sets blockOwnerDeletion
// on the PodCliques it owns.
//
// +kubebuilder:rbac:groups=grove.io,resources=podcliquescalinggroups,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliquescalinggroups/status,verbs=patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliquescalinggroups/finalizers,verbs=update
// +kubebuilder:rbac:groups=grove.io,resources=podcliques,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=grove.io,resources=podcliquesets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup registers the PodCliqueScalingGroup controller with the manager.
//
// Watches: the scaling group (spec changes such as /scale, deletion); its
// member PodCliques (deletion, spec.replicas, status the status reads); the
// PodCliqueSet (template changes reach every scaling group of the set, and
// update-record changes start or end a group's turn to be rolled).
//
// writes records the operator's own writes the cache has not shown yet (the
// PodCliques created); it must track PodCliques.
func Setup(mgr ctrl.Manager, cfg *config.OperatorConfiguration, writes *ownwrites.Tracker) error {
	// Every write of the controller is recorded under its field manager.
	d := childsync.Deps{Client: client.WithFieldOwner(mgr.GetClient(), childsync.PodCliqueScalingGroupFieldManager), Scheme: mgr.GetScheme(), Recorder: common.NewEventRecorder(mgr, ControllerName), Writes: writes, FieldManager: childsync.PodCliqueScalingGroupFieldManager}
	r := NewReconciler(d, mgr.GetAPIReader())
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: cfg.Controllers.PodCliqueScalingGroup.ConcurrentSyncs,
			RecoverPanic:            ptr.To(true),
		}).
		For(&grovecorev1alpha1.PodCliqueScalingGroup{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
				return (e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil)
			}},
		))).
		Owns(&grovecorev1alpha1.PodClique{}, builder.WithPredicates(memberChanged())).
		Watches(&grovecorev1alpha1.PodCliqueSet{}, handler.EnqueueRequestsFromMapFunc(scalingGroupsOf(mgr.GetClient())),
			builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, updateRecordChanged()))).
		Complete(r)
}

func memberChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*grovecorev1alpha1.PodClique)
			n, ok2 := e.ObjectNew.(*grovecorev1alpha1.PodClique)
			if !ok1 || !ok2 {
				return false
			}
			return (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) ||
				o.Labels[apicommon.LabelPodTemplateHash] != n.Labels[apicommon.LabelPodTemplateHash] ||
				o.Status.ReadyReplicas != n.Status.ReadyReplicas ||
				o.Status.UpdatedReplicas != n.Status.UpdatedReplicas ||
				!equality.Semantic.DeepEqual(o.Status.ObservedGeneration, n.Status.ObservedGeneration) ||
				!equality.Semantic.DeepEqual(o.Status.CurrentPodTemplateHash, n.Status.CurrentPodTemplateHash) ||
				!equality.Semantic.DeepEqual(o.Status.Conditions, n.Status.Conditions)
		},
	}
}

// scalingGroupsOf maps a PodCliqueSet to its scaling groups.
func scalingGroupsOf(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := &grovecorev1alpha1.PodCliqueScalingGroupList{}
		if err := c.List(ctx, list, client.InNamespace(obj.GetNamespace()), index.InSet(obj.GetName()), childsync.Selector(obj.GetName(), apicommon.LabelComponentPCSG)); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing scaling groups of PodCliqueSet", "podCliqueSet", obj.GetName())
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for i := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}})
		}
		return reqs
	}
}
