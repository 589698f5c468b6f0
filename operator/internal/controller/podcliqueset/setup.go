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
	"strconv"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/mnnvl"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/podganginit"
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
// Watches, each mapped to the owning PodCliqueSet through the part-of label
// and, for the work of one replica, the replica-index label: the
// PodCliqueSet itself (a spec change or the grove.io/reconcile-trigger
// annotation queues every replica and the set-level pass; deletion and
// finalizers the set-level pass); its PodCliques, scaling groups and
// PodGangs (what the status reads queues the set-level pass; a change of
// what a replica's children are built from, or of a child's own metadata,
// spec or existence, queues that replica); the ClusterTopologyBindings their
// constraints name; deletion and metadata changes of the other objects it
// owns but Secrets (ComputeDomains too with MNNVL), to recreate or restore them.
//
// writes records the operator's own writes the cache has not shown yet (the
// children created); it must track the kinds of the children.
func Setup(mgr ctrl.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry, writes *ownwrites.Tracker) error {
	// Every write of the controller is recorded under its field manager.
	c := client.WithFieldOwner(mgr.GetClient(), childsync.PodCliqueSetFieldManager)
	d := childsync.Deps{Client: c, Scheme: mgr.GetScheme(), Recorder: common.NewEventRecorder(mgr, ControllerName), Writes: writes, FieldManager: childsync.PodCliqueSetFieldManager}
	r := NewReconciler(c, mgr.GetAPIReader(), d, cfg, backends)
	setOnly := func(old, cur client.Object) (bool, bool) { return old == nil || cur == nil, false }
	b := builder.TypedControllerManagedBy[Request](mgr).
		Named(ControllerName).
		WithOptions(controller.TypedOptions[Request]{
			MaxConcurrentReconciles: cfg.Controllers.PodCliqueSet.ConcurrentSyncs,
			RecoverPanic:            ptr.To(true),
		}).
		Watches(&grovecorev1alpha1.PodCliqueSet{}, podCliqueSetHandler()).
		Watches(&grovecorev1alpha1.PodClique{}, childHandler(podCliqueChanged)).
		Watches(&grovecorev1alpha1.PodCliqueScalingGroup{}, childHandler(scalingGroupChanged)).
		Watches(&groveschedulerv1alpha1.PodGang{}, childHandler(podGangChanged)).
		Watches(&grovecorev1alpha1.ClusterTopologyBinding{}, handler.TypedEnqueueRequestsFromMapFunc(podCliqueSetsUsingTopology(mgr.GetClient())),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Service{}, childHandler(metadataChanged)).
		Watches(&autoscalingv2.HorizontalPodAutoscaler{}, childHandler(metadataChanged)).
		Watches(&corev1.ServiceAccount{}, childHandler(setOnly)).
		Watches(&rbacv1.Role{}, childHandler(setOnly)).
		Watches(&rbacv1.RoleBinding{}, childHandler(setOnly))
	if cfg.Network.AutoMNNVLEnabled {
		// ComputeDomains, read as unstructured objects (the preflight made
		// sure their CRD is served).
		b = b.Watches(mnnvl.New(), childHandler(metadataChanged))
	}
	return b.Complete(r)
}

// everyReplica is the set-level request of pcs and the one of all its
// replicas.
func everyReplica(pcs *grovecorev1alpha1.PodCliqueSet) []Request {
	key := client.ObjectKeyFromObject(pcs)
	return []Request{SetLevel(key), {NamespacedName: key, Replica: component.AllReplicas}}
}

// podCliqueSetHandler queues every replica of a set created (a restart sees
// every set created) or changed in its spec or reconcile trigger, and the
// set-level pass of one deleted or with other finalizers.
func podCliqueSetHandler() handler.TypedEventHandler[client.Object, Request] {
	add := func(q workqueue.TypedRateLimitingInterface[Request], reqs ...Request) {
		for _, req := range reqs {
			q.Add(req)
		}
	}
	return handler.TypedFuncs[client.Object, Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			if pcs, ok := e.Object.(*grovecorev1alpha1.PodCliqueSet); ok {
				add(q, everyReplica(pcs)...)
			}
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			o, n := e.ObjectOld, e.ObjectNew
			pcs, ok := n.(*grovecorev1alpha1.PodCliqueSet)
			switch {
			case !ok:
			case o.GetGeneration() != n.GetGeneration() ||
				o.GetAnnotations()[apicommon.AnnotationReconcileTrigger] != n.GetAnnotations()[apicommon.AnnotationReconcileTrigger]:
				add(q, everyReplica(pcs)...)
			case (o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
				!equality.Semantic.DeepEqual(o.GetFinalizers(), n.GetFinalizers()):
				add(q, SetLevel(client.ObjectKeyFromObject(n)))
			}
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			add(q, SetLevel(client.ObjectKeyFromObject(e.Object)))
		},
	}
}

// changeRule says, for a child's event, whether it concerns the set-level
// pass and whether it concerns the child's replica. old is nil for a
// create, cur nil for a delete.
type changeRule func(old, cur client.Object) (setLevel, replica bool)

// childHandler maps the events of a Grove-managed child to its
// PodCliqueSet's requests by rule.
func childHandler(rule changeRule) handler.TypedEventHandler[client.Object, Request] {
	enqueue := func(q workqueue.TypedRateLimitingInterface[Request], obj client.Object, setLevel, replica bool) {
		labels := obj.GetLabels()
		if labels[apicommon.LabelManagedByKey] != apicommon.LabelManagedByValue || labels[apicommon.LabelPartOfKey] == "" {
			return
		}
		key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: labels[apicommon.LabelPartOfKey]}
		if setLevel {
			q.Add(SetLevel(key))
		}
		if i, err := strconv.ParseInt(labels[apicommon.LabelPodCliqueSetReplicaIndex], 10, 32); replica && err == nil {
			q.Add(Request{NamespacedName: key, Replica: int32(i)})
		}
	}
	return handler.TypedFuncs[client.Object, Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			s, rep := rule(nil, e.Object)
			enqueue(q, e.Object, s, rep)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			s, rep := rule(e.ObjectOld, e.ObjectNew)
			enqueue(q, e.ObjectNew, s, rep)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[Request]) {
			s, rep := rule(e.Object, nil)
			enqueue(q, e.Object, s, rep)
		},
	}
}

// podCliqueSetsUsingTopology maps a ClusterTopologyBinding to every replica
// of the PodCliqueSets whose constraints name it, so PodGangs follow changes
// of its levels.
func podCliqueSetsUsingTopology(c client.Client) handler.TypedMapFunc[client.Object, Request] {
	return func(ctx context.Context, obj client.Object) []Request {
		list := &grovecorev1alpha1.PodCliqueSetList{}
		if err := c.List(ctx, list); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing PodCliqueSets for ClusterTopologyBinding", "clusterTopologyBinding", obj.GetName())
			return nil
		}
		var reqs []Request
		for i := range list.Items {
			if topology.Name(&list.Items[i]) == obj.GetName() {
				reqs = append(reqs, everyReplica(&list.Items[i])...)
			}
		}
		return reqs
	}
}

// ownChanged reports a change of what a replica's apply writes or reads of
// its own child: its existence, spec (generation), labels or annotations.
func ownChanged(old, cur client.Object) bool {
	return old == nil || cur == nil || old.GetGeneration() != cur.GetGeneration() ||
		(old.GetDeletionTimestamp() == nil) != (cur.GetDeletionTimestamp() == nil) ||
		!equality.Semantic.DeepEqual(old.GetLabels(), cur.GetLabels()) ||
		!equality.Semantic.DeepEqual(old.GetAnnotations(), cur.GetAnnotations())
}

// metadataChanged is the rule of Services and HPAs: a deletion concerns the
// set-level pass too (deleted on purpose, on scale-in, or not); any change of
// their own concerns their replica.
func metadataChanged(old, cur client.Object) (bool, bool) {
	if old == nil {
		return false, false // created by the replica's own apply
	}
	return cur == nil, cur == nil || ownChanged(old, cur)
}

// podCliqueChanged is the rule of PodCliques: the set-level pass reads
// their counts and conditions and removes a replica's leftovers; a replica's
// PodGangs are built from their replicas.
func podCliqueChanged(oldObj, curObj client.Object) (bool, bool) {
	if oldObj == nil || curObj == nil {
		return true, curObj == nil
	}
	o, ok1 := oldObj.(*grovecorev1alpha1.PodClique)
	n, ok2 := curObj.(*grovecorev1alpha1.PodClique)
	if !ok1 || !ok2 {
		return false, false
	}
	setLevel := o.Spec.Replicas != n.Spec.Replicas ||
		(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) ||
		!equality.Semantic.DeepEqual(o.Labels, n.Labels) ||
		o.Status.ReadyReplicas != n.Status.ReadyReplicas ||
		o.Status.UpdatedReplicas != n.Status.UpdatedReplicas ||
		o.Status.ScheduledReplicas != n.Status.ScheduledReplicas ||
		o.Status.Replicas != n.Status.Replicas ||
		breachChanged(o.Status.Conditions, n.Status.Conditions) || o.Status.WasScheduled != n.Status.WasScheduled ||
		updateStatusChanged(o.Status.ObservedGeneration, n.Status.ObservedGeneration, o.Status.CurrentPodTemplateHash, n.Status.CurrentPodTemplateHash, o.Status.Conditions, n.Status.Conditions)
	return setLevel, ownChanged(o, n)
}

// scalingGroupChanged is the rule of PodCliqueScalingGroups.
func scalingGroupChanged(oldObj, curObj client.Object) (bool, bool) {
	if oldObj == nil || curObj == nil {
		return true, curObj == nil
	}
	o, ok1 := oldObj.(*grovecorev1alpha1.PodCliqueScalingGroup)
	n, ok2 := curObj.(*grovecorev1alpha1.PodCliqueScalingGroup)
	if !ok1 || !ok2 {
		return false, false
	}
	setLevel := o.Spec.Replicas != n.Spec.Replicas ||
		(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) ||
		o.Status.AvailableReplicas != n.Status.AvailableReplicas ||
		o.Status.UpdatedReplicas != n.Status.UpdatedReplicas ||
		o.Status.ScheduledReplicas != n.Status.ScheduledReplicas ||
		breachChanged(o.Status.Conditions, n.Status.Conditions) ||
		updateStatusChanged(nil, nil, o.Status.CurrentPodCliqueSetGenerationHash, n.Status.CurrentPodCliqueSetGenerationHash, o.Status.Conditions, n.Status.Conditions)
	return setLevel, ownChanged(o, n)
}

// podGangChanged is the rule of PodGangs: the set-level pass reads their
// status; a new generation means a PodClique changed its pod references,
// which decide the Initialized condition the replica's pass writes. Until
// Initialized is True every write of the PodGang by another writer queues
// its replica: the pass's write of the condition fails with a conflict when
// grove-scheduler (or anyone) wrote the PodGang after the cache's copy, and
// leaves the write to the pass that the newer PodGang's update queues.
func podGangChanged(oldObj, curObj client.Object) (bool, bool) {
	if oldObj == nil {
		return false, false // created by the replica's own apply
	}
	if curObj == nil {
		return true, true
	}
	o, ok1 := oldObj.(*groveschedulerv1alpha1.PodGang)
	n, ok2 := curObj.(*groveschedulerv1alpha1.PodGang)
	if !ok1 || !ok2 {
		return false, false
	}
	setLevel := !equality.Semantic.DeepEqual(o.Status, n.Status) || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)
	return setLevel, othersWroteUninitialized(o, n) || ownChanged(o, n)
}

// othersWroteUninitialized reports an update of a PodGang that is not
// Initialized yet by another writer than the replica's pass, whose own write
// changes the condition: its write may have met this one in a conflict.
func othersWroteUninitialized(o, n *groveschedulerv1alpha1.PodGang) bool {
	initialized := func(pg *groveschedulerv1alpha1.PodGang) *metav1.Condition {
		return meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
	}
	return !podganginit.IsTrue(n) && o.ResourceVersion != n.ResourceVersion && equality.Semantic.DeepEqual(initialized(o), initialized(n))
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
