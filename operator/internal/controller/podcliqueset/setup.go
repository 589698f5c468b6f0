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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/topology"
)

// The PodCliqueSet controller reads and patches PodCliqueSets (finalizer,
// status), watches the ClusterTopologyBindings their constraints name, records
// Events, and sets blockOwnerDeletion on the children it owns (which needs
// update on podcliquesets/finalizers where OwnerReferencesPermissionEnforcement
// is on). Secrets are not watched: that needs list/watch of Secrets in every
// namespace; a deleted token Secret is recreated at the PodCliqueSet's next sync.
//
// +kubebuilder:rbac:groups=grove.io,resources=podcliquesets,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliquesets/status,verbs=patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliquesets/finalizers,verbs=update
// +kubebuilder:rbac:groups=grove.io,resources=clustertopologybindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup registers the PodCliqueSet controller with the manager.
//
// Watches: the PodCliqueSet itself (spec changes, deletion, the
// grove.io/reconcile-trigger annotation); its PodCliques, scaling groups and
// PodGangs, mapped to the owning PodCliqueSet through the part-of label, when
// something the sync or the status reads changes; the
// ClusterTopologyBindings their constraints name; deletion of
// the other objects it owns but Secrets, to recreate them.
func Setup(mgr ctrl.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry) error {
	d := childsync.Deps{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: common.NewEventRecorder(mgr, ControllerName), Creates: childsync.NewCreates(), Converged: childsync.NewConvergedChildren(), FieldManager: childsync.PodCliqueSetFieldManager}
	if err := d.Creates.Track(context.Background(), mgr.GetCache(), &grovecorev1alpha1.PodClique{}, &grovecorev1alpha1.PodCliqueScalingGroup{},
		&groveschedulerv1alpha1.PodGang{}, &corev1.Service{}, &autoscalingv2.HorizontalPodAutoscaler{}); err != nil {
		return err
	}
	if err := d.Converged.Track(context.Background(), mgr.GetCache(), &grovecorev1alpha1.PodClique{}, &grovecorev1alpha1.PodCliqueScalingGroup{},
		&groveschedulerv1alpha1.PodGang{}, &corev1.Service{}, &autoscalingv2.HorizontalPodAutoscaler{},
		&corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}); err != nil {
		return err
	}
	r := NewReconciler(mgr.GetClient(), mgr.GetAPIReader(), d, cfg, backends)
	if err := r.syncs.track(context.Background(), mgr.GetCache()); err != nil {
		return err
	}
	toPCS := handler.EnqueueRequestsFromMapFunc(mapToPodCliqueSet)
	deleteOnly := builder.WithPredicates(predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(event.UpdateEvent) bool { return false },
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: cfg.Controllers.PodCliqueSet.ConcurrentSyncs,
			RecoverPanic:            ptr.To(true),
		}).
		For(&grovecorev1alpha1.PodCliqueSet{}, builder.WithPredicates(podCliqueSetChanged())).
		Watches(&grovecorev1alpha1.PodClique{}, toPCS, builder.WithPredicates(podCliqueChanged())).
		Watches(&grovecorev1alpha1.PodCliqueScalingGroup{}, toPCS, builder.WithPredicates(scalingGroupChanged())).
		Watches(&groveschedulerv1alpha1.PodGang{}, toPCS, builder.WithPredicates(podGangChanged())).
		Watches(&grovecorev1alpha1.ClusterTopologyBinding{}, handler.EnqueueRequestsFromMapFunc(podCliqueSetsUsingTopology(mgr.GetClient())),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.Service{}, deleteOnly).
		Owns(&autoscalingv2.HorizontalPodAutoscaler{}, deleteOnly).
		Owns(&corev1.ServiceAccount{}, deleteOnly).
		Owns(&rbacv1.Role{}, deleteOnly).
		Owns(&rbacv1.RoleBinding{}, deleteOnly).
		Complete(r)
}

// mapToPodCliqueSet maps a Grove-managed object to its PodCliqueSet.
func mapToPodCliqueSet(_ context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	if labels[apicommon.LabelManagedByKey] != apicommon.LabelManagedByValue || labels[apicommon.LabelPartOfKey] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: labels[apicommon.LabelPartOfKey]}}}
}

// podCliqueSetsUsingTopology maps a ClusterTopologyBinding to the PodCliqueSets
// whose constraints name it, so PodGangs follow changes of its levels.
func podCliqueSetsUsingTopology(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := &grovecorev1alpha1.PodCliqueSetList{}
		if err := c.List(ctx, list); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing PodCliqueSets for ClusterTopologyBinding", "clusterTopologyBinding", obj.GetName())
			return nil
		}
		var reqs []reconcile.Request
		for i := range list.Items {
			if topology.Name(&list.Items[i]) == obj.GetName() {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}})
			}
		}
		return reqs
	}
}

func podCliqueSetChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, n := e.ObjectOld, e.ObjectNew
			return o.GetGeneration() != n.GetGeneration() ||
				(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
				o.GetAnnotations()[apicommon.AnnotationReconcileTrigger] != n.GetAnnotations()[apicommon.AnnotationReconcileTrigger] ||
				!equality.Semantic.DeepEqual(o.GetFinalizers(), n.GetFinalizers())
		},
	}
}

func podCliqueChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*grovecorev1alpha1.PodClique)
			n, ok2 := e.ObjectNew.(*grovecorev1alpha1.PodClique)
			if !ok1 || !ok2 {
				return false
			}
			return o.Spec.Replicas != n.Spec.Replicas ||
				(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) ||
				!equality.Semantic.DeepEqual(o.Labels, n.Labels) ||
				o.Status.ReadyReplicas != n.Status.ReadyReplicas ||
				o.Status.UpdatedReplicas != n.Status.UpdatedReplicas ||
				o.Status.ScheduledReplicas != n.Status.ScheduledReplicas ||
				o.Status.Replicas != n.Status.Replicas ||
				breachChanged(o.Status.Conditions, n.Status.Conditions) || o.Status.WasScheduled != n.Status.WasScheduled ||
				updateStatusChanged(o.Status.ObservedGeneration, n.Status.ObservedGeneration, o.Status.CurrentPodTemplateHash, n.Status.CurrentPodTemplateHash, o.Status.Conditions, n.Status.Conditions)
		},
	}
}

func scalingGroupChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*grovecorev1alpha1.PodCliqueScalingGroup)
			n, ok2 := e.ObjectNew.(*grovecorev1alpha1.PodCliqueScalingGroup)
			if !ok1 || !ok2 {
				return false
			}
			return o.Spec.Replicas != n.Spec.Replicas ||
				(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) ||
				o.Status.AvailableReplicas != n.Status.AvailableReplicas ||
				o.Status.UpdatedReplicas != n.Status.UpdatedReplicas ||
				o.Status.ScheduledReplicas != n.Status.ScheduledReplicas ||
				breachChanged(o.Status.Conditions, n.Status.Conditions) ||
				updateStatusChanged(nil, nil, o.Status.CurrentPodCliqueSetGenerationHash, n.Status.CurrentPodCliqueSetGenerationHash, o.Status.Conditions, n.Status.Conditions)
		},
	}
}

func podGangChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*groveschedulerv1alpha1.PodGang)
			n, ok2 := e.ObjectNew.(*groveschedulerv1alpha1.PodGang)
			if !ok1 || !ok2 {
				return false
			}
			// A new generation means a PodClique changed its pod references,
			// which decide the Initialized condition.
			return o.Generation != n.Generation ||
				!equality.Semantic.DeepEqual(o.Status, n.Status) ||
				(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)
		},
	}
}

// breachChanged reports a change of the MinAvailableBreached condition's
// status, which starts or stops a gang-termination countdown.
func breachChanged(o, n []metav1.Condition) bool {
	oc := meta.FindStatusCondition(o, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
	nc := meta.FindStatusCondition(n, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
	if oc == nil || nc == nil {
		return oc != nc
	}
	return oc.Status != nc.Status || !oc.LastTransitionTime.Equal(&nc.LastTransitionTime)
}
