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
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
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
	"github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
	"github.com/grove-project/grove/operator/internal/expect"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// The PodClique controller reads and patches PodCliques (finalizer, status),
// creates, patches and deletes their pods, reads the PodCliqueSet and the
// PodGangs the pods belong to (and patches its group's pod references in a
// PodGang; the PodCliqueSet controller writes the Initialized condition),
// records Events, and sets blockOwnerDeletion on the pods it owns.
//
// +kubebuilder:rbac:groups=grove.io,resources=podcliques,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliques/status,verbs=patch
// +kubebuilder:rbac:groups=grove.io,resources=podcliques/finalizers,verbs=update
// +kubebuilder:rbac:groups=grove.io,resources=podcliquesets,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduler.grove.io,resources=podgangs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup registers the PodClique controller with the manager.
// writes records the operator's own writes (the PodClique's status, the
// gates lifted) until the cache shows them; it must track PodCliques and
// pods.
func Setup(mgr ctrl.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry, writes *ownwrites.Tracker) error {
	return setup(mgr, cfg, backends, writes, expect.DefaultTimeout)
}

// setup is Setup with the expectations' deadline as a parameter (tests shorten it).
func setup(mgr ctrl.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry, writes *ownwrites.Tracker, expectationTimeout time.Duration) error {
	expectations := expect.NewStore(expectationTimeout)
	recorder := common.NewEventRecorder(mgr, ControllerName)
	initcImage := startuporder.Image{Ref: cfg.InitContainer.Image, PullPolicy: cfg.InitContainer.ImagePullPolicy}
	// Every write of the controller (pods, its status, its groups' pod
	// references) is recorded under its field manager.
	c := client.WithFieldOwner(mgr.GetClient(), childsync.PodCliqueFieldManager)
	r := &Reconciler{
		client:   c,
		recorder: recorder,
		pods:     pod.New(c, mgr.GetAPIReader(), recorder, backends, expectations, writes, initcImage, cfg.Network.AutoMNNVLEnabled),
		writes:   writes,
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&grovecorev1alpha1.PodClique{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Watches(&corev1.Pod{}, podEvents(expectations), builder.WithPredicates(podChanged())).
		Watches(&groveschedulerv1alpha1.PodGang{}, handler.EnqueueRequestsFromMapFunc(podCliquesOfPodGang),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&grovecorev1alpha1.PodClique{}, handler.EnqueueRequestsFromMapFunc(r.scaledPodCliquesWaitingOn),
			builder.WithPredicates(scheduledReplicasChanged())).
		Watches(&grovecorev1alpha1.PodCliqueSet{}, r.updatingReplicaChanged()).
		WithOptions(controller.Options{MaxConcurrentReconciles: cfg.Controllers.PodClique.ConcurrentSyncs}).
		Complete(r)
}

// podUpdateBatch is how long a PodClique waits after a pod update before it
// reconciles. The pods of a gang are bound together and start together, so
// their updates arrive within milliseconds of each other; one reconcile
// after the batch reports them in one status write instead of one each,
// which is most of what a PodClique writes to the API server.
const podUpdateBatch = 500 * time.Millisecond

// podEvents enqueues the PodClique that controls a pod. A deletion is first
// reported to the expectations, so a pod removed before any reconcile saw it
// frees its index at once. Updates that only report progress (scheduling,
// readiness, a lifted gate) are batched; a pod that is terminating or has
// ended is acted on at once, since it may need a replacement.
func podEvents(expectations *expect.Store) handler.EventHandler {
	enqueue := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if key, ok := controllingPodClique(obj); ok {
			q.Add(reconcile.Request{NamespacedName: key})
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			key, ok := controllingPodClique(e.ObjectNew)
			if !ok {
				return
			}
			if urgentPodUpdate(e.ObjectOld, e.ObjectNew) {
				q.Add(reconcile.Request{NamespacedName: key})
				return
			}
			q.AddAfter(reconcile.Request{NamespacedName: key}, podUpdateBatch)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if key, ok := controllingPodClique(e.Object); ok {
				expectations.ObservedDeletion(key.String(), e.Object.GetUID())
			}
			enqueue(e.Object, q)
		},
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
	}
}

// controllingPodClique returns the PodClique that is the controller of obj.
func controllingPodClique(obj client.Object) (types.NamespacedName, bool) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "PodClique" || !strings.HasPrefix(ref.APIVersion, grovecorev1alpha1.GroupName+"/") {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, true
}

// podChanged passes pod events that can change what the controller does or
// reports: creation, deletion, and updates of readiness, scheduling, phase,
// gates, labels or the deletion timestamp.
func podChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPod, okOld := e.ObjectOld.(*corev1.Pod)
			newPod, okNew := e.ObjectNew.(*corev1.Pod)
			if !okOld || !okNew {
				return true
			}
			return oldPod.Spec.NodeName != newPod.Spec.NodeName ||
				oldPod.Status.Phase != newPod.Status.Phase ||
				!reflect.DeepEqual(oldPod.Status.Conditions, newPod.Status.Conditions) ||
				!reflect.DeepEqual(oldPod.Status.ContainerStatuses, newPod.Status.ContainerStatuses) ||
				!reflect.DeepEqual(oldPod.Spec.SchedulingGates, newPod.Spec.SchedulingGates) ||
				!reflect.DeepEqual(oldPod.Labels, newPod.Labels) ||
				!oldPod.DeletionTimestamp.Equal(newPod.DeletionTimestamp)
		},
	}
}

// urgentPodUpdate reports whether a pod update needs the PodClique's
// reconcile without the batch delay: the pod began terminating, reached a
// terminal phase, or its labels changed (which can move it out of the
// PodClique's counts).
func urgentPodUpdate(oldObj, newObj client.Object) bool {
	oldPod, okOld := oldObj.(*corev1.Pod)
	newPod, okNew := newObj.(*corev1.Pod)
	if !okOld || !okNew {
		return true
	}
	if oldPod.DeletionTimestamp.IsZero() != newPod.DeletionTimestamp.IsZero() {
		return true
	}
	terminal := func(p corev1.PodPhase) bool { return p == corev1.PodFailed || p == corev1.PodSucceeded }
	if terminal(newPod.Status.Phase) && !terminal(oldPod.Status.Phase) {
		return true
	}
	return !reflect.DeepEqual(oldPod.Labels, newPod.Labels)
}

// podCliquesOfPodGang maps a PodGang to the PodCliques of its groups (group
// names are PodClique names), so gates are lifted as soon as pods are referenced.
func podCliquesOfPodGang(_ context.Context, obj client.Object) []reconcile.Request {
	pg, ok := obj.(*groveschedulerv1alpha1.PodGang)
	if !ok {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(pg.Spec.PodGroups))
	for _, g := range pg.Spec.PodGroups {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pg.Namespace, Name: g.Name}})
	}
	return reqs
}

// scheduledReplicasChanged passes PodClique updates that change how many of
// its pods are scheduled: they can release the pods of scaled PodGangs.
func scheduledReplicasChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPCLQ, okOld := e.ObjectOld.(*grovecorev1alpha1.PodClique)
			newPCLQ, okNew := e.ObjectNew.(*grovecorev1alpha1.PodClique)
			return okOld && okNew && oldPCLQ.Status.ScheduledReplicas != newPCLQ.Status.ScheduledReplicas &&
				newPCLQ.Labels[apicommon.LabelBasePodGang] == ""
		},
	}
}

// scaledPodCliquesWaitingOn maps a PodClique of a base PodGang to the
// PodCliques of the scaled PodGangs that wait for that base gang.
func (r *Reconciler) scaledPodCliquesWaitingOn(ctx context.Context, obj client.Object) []reconcile.Request {
	podGang := obj.GetLabels()[apicommon.LabelPodGang]
	if podGang == "" {
		return nil
	}
	list := &grovecorev1alpha1.PodCliqueList{}
	// Only the names are read: no copies of the cached PodCliques.
	if err := r.client.List(ctx, list, client.InNamespace(obj.GetNamespace()), index.WaitingOn(podGang), client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing PodCliques waiting on base PodGang", "podGang", podGang)
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, p := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)})
	}
	return reqs
}
