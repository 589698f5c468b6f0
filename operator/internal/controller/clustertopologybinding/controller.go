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

// Package clustertopologybinding is the ClusterTopologyBinding controller: it
// reports in the NodesLabelled condition how many nodes, and how many
// distinct domains, carry the label key of each level, so an administrator
// sees a level no node is labelled for before a required constraint on it
// leaves gangs pending. PodCliqueSets follow their binding through the
// PodCliqueSet controller's own watch.
package clustertopologybinding

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/controller/common"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// ControllerName is the name of the ClusterTopologyBinding controller.
const ControllerName = "clustertopology-controller"

// Reconciler reconciles ClusterTopologyBindings.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
}

// The controller reads ClusterTopologyBindings and patches their status,
// watches the metadata of nodes, and records Events.
//
// +kubebuilder:rbac:groups=grove.io,resources=clustertopologybindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=grove.io,resources=clustertopologybindings/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup registers the controller with the manager.
//
// Watches: ClusterTopologyBindings (create, spec changes); nodes, as metadata
// only, when they are created or deleted or their labels change, mapped to
// every ClusterTopologyBinding since any level key may be among the labels.
func Setup(mgr ctrl.Manager) error {
	r := &Reconciler{client: mgr.GetClient(), recorder: common.NewEventRecorder(mgr, ControllerName)}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{RecoverPanic: ptr.To(true)}).
		For(&grovecorev1alpha1.ClusterTopologyBinding{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.allBindings), builder.OnlyMetadata,
			builder.WithPredicates(nodeLabelsChanged())).
		Complete(r)
}

// nodeLabelsChanged passes node creations, deletions and label changes; a
// node's status heartbeats never change what the controller counts.
func nodeLabelsChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !equality.Semantic.DeepEqual(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

func (r *Reconciler) allBindings(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &grovecorev1alpha1.ClusterTopologyBindingList{}
	if err := r.client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing ClusterTopologyBindings for a node change")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}

// Reconcile counts the nodes carrying each level's label key and writes the
// NodesLabelled condition and observedGeneration; a transition of the
// condition's status is announced by an event.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctb := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := r.client.Get(ctx, req.NamespacedName, ctb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	nodes := &metav1.PartialObjectMetadataList{}
	nodes.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	// The nodes' labels are only read: no copy of the cache (a cluster's
	// nodes arrive as a burst of events when the operator starts, each
	// bringing a reconcile that lists them all).
	if err := r.client.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return ctrl.Result{}, groveerr.Wrap(err, "ERR_LIST_NODES", groveerr.OperationSync, "listing nodes")
	}
	labels := make([]map[string]string, len(nodes.Items))
	for i := range nodes.Items {
		labels[i] = nodes.Items[i].Labels
	}
	cond := NodesLabelledCondition(ctb.Spec.Levels, labels)
	cond.ObservedGeneration = ctb.Generation

	base := ctb.DeepCopy()
	previous := meta.FindStatusCondition(ctb.Status.Conditions, grovecorev1alpha1.ConditionTypeNodesLabelled)
	transitioned := previous == nil || previous.Status != cond.Status
	meta.SetStatusCondition(&ctb.Status.Conditions, cond)
	ctb.Status.ObservedGeneration = ctb.Generation
	if equality.Semantic.DeepEqual(base.Status, ctb.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.client.Status().Patch(ctx, ctb, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsConflict(err) {
			// Node events come in bursts (a whole cluster at operator start),
			// so the next reconcile often reads the binding from a cache that
			// does not show the previous write yet. The count is recomputed
			// once the cache caught up; nothing failed.
			ctrl.LoggerFrom(ctx).V(1).Info("ClusterTopologyBinding changed since it was cached; counting again", "clusterTopologyBinding", ctb.Name)
			return ctrl.Result{RequeueAfter: common.RetryAfterConflict}, nil
		}
		return ctrl.Result{}, groveerr.Wrap(client.IgnoreNotFound(err), "ERR_UPDATE_CLUSTERTOPOLOGYBINDING_STATUS", groveerr.OperationSync,
			"patching ClusterTopologyBinding status")
	}
	if transitioned {
		eventType := corev1.EventTypeNormal
		if cond.Status != metav1.ConditionTrue {
			eventType = corev1.EventTypeWarning
		}
		r.recorder.Eventf(ctb, nil, eventType, cond.Reason, common.ActionReconcile, "%s", cond.Message)
	}
	return ctrl.Result{}, nil
}

// NodesLabelledCondition is True when at least one node carries the key of
// every level. Its message lists, per level from broadest to narrowest, the
// nodes carrying the key and the distinct values (domains) among them, for
// example "zone (topology.kubernetes.io/zone): 100 nodes, 4 domains".
func NodesLabelledCondition(levels []grovecorev1alpha1.TopologyLevel, nodeLabels []map[string]string) metav1.Condition {
	counts := make([]string, 0, len(levels))
	var missing []string
	for _, l := range levels {
		nodes, domains := 0, map[string]bool{}
		for _, lbls := range nodeLabels {
			if v, ok := lbls[l.Key]; ok {
				nodes++
				domains[v] = true
			}
		}
		counts = append(counts, fmt.Sprintf("%s (%s): %d nodes, %d domains", l.Domain, l.Key, nodes, len(domains)))
		if nodes == 0 {
			missing = append(missing, string(l.Domain))
		}
	}
	cond := metav1.Condition{
		Type: grovecorev1alpha1.ConditionTypeNodesLabelled, Status: metav1.ConditionTrue,
		Reason:  grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
		Message: strings.Join(counts, "; "),
	}
	if len(missing) > 0 {
		cond.Status, cond.Reason = metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonLevelsNotLabelled
		cond.Message = fmt.Sprintf("no node carries the label key of level %s; %s", strings.Join(missing, ", "), cond.Message)
	}
	return cond
}
