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

// Package podgang is the PodGang controller for scheduler backends that
// translate gangs into their own scheduler's objects (default-scheduler with
// the Workload API, scheduler-plugins-scheduler, volcano, kai-scheduler).
// grove-scheduler reads PodGangs and writes their status itself; for the
// other backends this controller does both halves: it has the backend write
// its objects for each PodGang (owned by the gang, so deleted with it) and
// writes the gang's phase and Scheduled and Ready conditions from the pods it
// references and the verdict the backend's scheduler gives.
package podgang

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/controller/common"
	podcomponent "github.com/grove-project/grove/operator/internal/controller/podclique/components/pod"
)

// ControllerName is the name of the controller.
const ControllerName = "podgang-backend-controller"

// unavailableRecheck is how often a gang whose backend kinds the cluster
// lacks is looked at again (a backend installed later is picked up).
const unavailableRecheck = 30 * time.Second

// Reconciler reconciles PodGangs of translating backends.
type Reconciler struct {
	client      client.Client
	mapper      meta.RESTMapper
	scheme      *runtime.Scheme
	translators map[string]backend.Translator
	recorder    events.EventRecorder
}

// The rules for each backend's own objects are markers in the backend's
// package: the chart grants them only for the profiles it enables.
//
// +kubebuilder:rbac:groups=scheduler.grove.io,resources=podgangs,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduler.grove.io,resources=podgangs/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup registers the controller when a translating backend is enabled.
//
// Watches: PodGangs of translating backends (grove.io/scheduler-name);
// the backend objects they own, for the kinds the cluster serves at start
// (their status carries the scheduler's verdict); pods of those backends,
// mapped to their PodGang, when they are bound, change readiness or go away;
// ClusterTopologyBindings, mapped to the PodGangs translated with them.
func Setup(mgr ctrl.Manager, backends *backend.Registry) error {
	translators := backends.Translators()
	if len(translators) == 0 {
		return nil
	}
	r := &Reconciler{
		client: mgr.GetClient(), mapper: mgr.GetRESTMapper(), scheme: mgr.GetScheme(), translators: translators,
		recorder: common.NewEventRecorder(mgr, ControllerName),
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{RecoverPanic: ptr.To(true)}).
		For(&groveschedulerv1alpha1.PodGang{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			_, ok := translators[o.GetLabels()[apicommon.LabelSchedulerName]]
			return ok
		}))).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToPodGang), builder.WithPredicates(r.podChanged())).
		// kai-scheduler names the KAI Topology of a ClusterTopologyBinding
		// in its PodGroups: a binding added or changed there is picked up.
		Watches(&grovecorev1alpha1.ClusterTopologyBinding{}, handler.EnqueueRequestsFromMapFunc(r.podGangsUsingTopology),
			builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	for _, t := range translators {
		for _, obj := range t.Types() {
			if err := r.served(obj); err != nil {
				mgr.GetLogger().Info("Not watching a scheduler backend kind the cluster does not serve", "backend", t.Name(), "reason", err.Error())
				continue
			}
			b = b.Owns(obj)
		}
	}
	return b.Complete(r)
}

// podToPodGang maps a pod to the PodGang named by its grove.io/podgang label.
func podToPodGang(_ context.Context, obj client.Object) []reconcile.Request {
	gang := obj.GetLabels()[apicommon.LabelPodGang]
	if gang == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: gang}}}
}

// podGangsUsingTopology maps a ClusterTopologyBinding to the translated
// PodGangs whose constraints were translated with it.
func (r *Reconciler) podGangsUsingTopology(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &groveschedulerv1alpha1.PodGangList{}
	if err := r.client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing PodGangs of a changed ClusterTopologyBinding", "clusterTopologyBinding", obj.GetName())
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		pg := &list.Items[i]
		if _, ok := r.translators[pg.Labels[apicommon.LabelSchedulerName]]; ok && pg.Annotations[apicommon.AnnotationTopologyName] == obj.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(pg)})
		}
	}
	return out
}

// podChanged passes pods of translating backends when what the status counts
// changes: creation, deletion, binding, readiness.
func (r *Reconciler) podChanged() predicate.Predicate {
	ours := func(o client.Object) bool {
		p, ok := o.(*corev1.Pod)
		if !ok {
			return false
		}
		_, t := r.translators[p.Spec.SchedulerName]
		return t
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return ours(e.Object) },
		DeleteFunc: func(e event.DeleteEvent) bool { return ours(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPod, ok1 := e.ObjectOld.(*corev1.Pod)
			newPod, ok2 := e.ObjectNew.(*corev1.Pod)
			if !ok1 || !ok2 || !ours(newPod) {
				return false
			}
			return oldPod.Spec.NodeName != newPod.Spec.NodeName || podcomponent.IsReady(oldPod) != podcomponent.IsReady(newPod) ||
				(oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// served reports whether the cluster serves the object's kind.
func (r *Reconciler) served(obj client.Object) error {
	gvk, err := apiutil.GVKForObject(obj, r.scheme)
	if err != nil {
		return err
	}
	if _, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		return fmt.Errorf("the cluster serves no %s (%s): %w", gvk.Kind, gvk.GroupVersion(), err)
	}
	return nil
}

// Reconcile syncs the gang's backend objects and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pg := &groveschedulerv1alpha1.PodGang{}
	if err := r.client.Get(ctx, req.NamespacedName, pg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	t, ok := r.translators[pg.Labels[apicommon.LabelSchedulerName]]
	if !ok || pg.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	pcs, err := common.GetPodCliqueSet(ctx, r.client, types.NamespacedName{Namespace: pg.Namespace, Name: pg.Labels[apicommon.LabelPartOfKey]})
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	verdict, requeue, err := r.syncBackend(ctx, t, pg, pcs)
	if err != nil {
		return ctrl.Result{}, err
	}
	obs, err := r.observePods(ctx, pg)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, pg, pcs, verdict, obs); err != nil {
		if apierrors.IsConflict(err) {
			// The gang changed meanwhile (the PodClique controller patches
			// its pod references); that change is an event of its own, whose
			// reconcile computes the status from the newer gang.
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// syncBackend has the backend write its objects. A kind the cluster does not
// serve and a gang the backend cannot express become the verdict (the gang
// reports them) rather than errors retried in a loop.
func (r *Reconciler) syncBackend(ctx context.Context, t backend.Translator, pg *groveschedulerv1alpha1.PodGang, pcs *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, time.Duration, error) {
	for _, obj := range t.Types() {
		if err := r.served(obj); err != nil {
			return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonBackendUnavailable, Message: fmt.Sprintf("scheduler backend %s: %v", t.Name(), err)}, unavailableRecheck, nil
		}
	}
	v, err := t.Sync(ctx, r.client, pg, pcs)
	var mapping *translation.MappingError
	if errors.As(err, &mapping) {
		return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonBackendMappingFailed, Message: fmt.Sprintf("scheduler backend %s: %s", t.Name(), mapping.Message)}, 0, nil
	}
	if err != nil {
		return v, 0, fmt.Errorf("syncing the %s objects of PodGang %s: %w", t.Name(), pg.Name, err)
	}
	return v, 0, nil
}

// observation counts the referenced pods per pod group.
type observation struct {
	refs, bound, ready, min int
	boundMin, readyMin      bool
}

func (r *Reconciler) observePods(ctx context.Context, pg *groveschedulerv1alpha1.PodGang) (observation, error) {
	pods := &corev1.PodList{}
	if err := r.client.List(ctx, pods, client.InNamespace(pg.Namespace), client.MatchingLabels{apicommon.LabelPodGang: pg.Name}); err != nil {
		return observation{}, fmt.Errorf("listing pods of PodGang %s: %w", pg.Name, err)
	}
	byName := make(map[string]*corev1.Pod, len(pods.Items))
	for i := range pods.Items {
		byName[pods.Items[i].Name] = &pods.Items[i]
	}
	obs := observation{boundMin: len(pg.Spec.PodGroups) > 0, readyMin: len(pg.Spec.PodGroups) > 0}
	for _, g := range pg.Spec.PodGroups {
		bound, ready := 0, 0
		for _, ref := range g.PodReferences {
			p := byName[ref.Name]
			obs.refs++
			if p == nil || p.DeletionTimestamp != nil {
				continue
			}
			if p.Spec.NodeName != "" {
				bound++
			}
			if podcomponent.IsReady(p) {
				ready++
			}
		}
		obs.bound += bound
		obs.min += int(g.MinReplicas)
		obs.ready += ready
		obs.boundMin = obs.boundMin && bound >= int(g.MinReplicas)
		obs.readyMin = obs.readyMin && ready >= int(g.MinReplicas)
	}
	return obs, nil
}

// writeStatus writes phase, Scheduled and Ready in one patch, and announces a
// change of the Scheduled reason to a backend problem on the PodCliqueSet.
func (r *Reconciler) writeStatus(ctx context.Context, pg *groveschedulerv1alpha1.PodGang, pcs *grovecorev1alpha1.PodCliqueSet, v translation.Verdict, obs observation) error {
	base := pg.DeepCopy()
	scheduled := obs.boundMin || v.Scheduled
	switch {
	case scheduled && obs.readyMin:
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
	case scheduled:
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseStarting
	default:
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
	}
	cond := metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeScheduled, ObservedGeneration: pg.Generation,
		Status: metav1.ConditionFalse, Reason: v.Reason, Message: v.Message}
	if scheduled {
		cond.Status = metav1.ConditionTrue
		if !v.Scheduled {
			cond.Reason = groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled
			cond.Message = fmt.Sprintf("every pod group has its minReplicas bound; %d of %d referenced pods bound", obs.bound, obs.refs)
		}
	}
	if cond.Reason == "" {
		cond.Reason = groveschedulerv1alpha1.PodGangReasonSchedulingPending
	}
	previous := meta.FindStatusCondition(base.Status.Conditions, cond.Type)
	meta.SetStatusCondition(&pg.Status.Conditions, cond)
	ready := metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeReady, ObservedGeneration: pg.Generation,
		Status: metav1.ConditionFalse, Reason: groveschedulerv1alpha1.PodGangReasonMinimumSetNotReady,
		Message: fmt.Sprintf("%d of %d referenced pods Ready; some pod group is below minReplicas", obs.ready, obs.refs)}
	if obs.readyMin {
		ready.Status, ready.Reason = metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetReady
		ready.Message = fmt.Sprintf("every pod group has its minReplicas Ready; %d of %d referenced pods Ready", obs.ready, obs.refs)
	}
	meta.SetStatusCondition(&pg.Status.Conditions, ready)
	pg.Status.MinimumPods, pg.Status.BoundPods = int32(obs.min), int32(obs.bound)
	if _, err := common.PatchStatusIfChanged(ctx, r.client, base, pg, func(p *groveschedulerv1alpha1.PodGang) any { return p.Status }); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patching status of PodGang %s: %w", pg.Name, err)
	}
	if (cond.Reason == groveschedulerv1alpha1.PodGangReasonBackendUnavailable || cond.Reason == groveschedulerv1alpha1.PodGangReasonBackendMappingFailed) &&
		(previous == nil || previous.Reason != cond.Reason || previous.Message != cond.Message) {
		r.recorder.Eventf(pcs, pg, corev1.EventTypeWarning, cond.Reason, "SyncSchedulerBackend", "PodGang %s: %s", pg.Name, cond.Message)
	}
	return nil
}
