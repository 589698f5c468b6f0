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

package core

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// statusDebounce batches the burst of pod events of one gang into one write.
const statusDebounce = 100 * time.Millisecond

// StatusWriter owns PodGang status: phase, Scheduled and Ready conditions and
// placementScore. It leaves the operator's Initialized condition untouched.
type StatusWriter struct {
	log      logr.Logger
	client   groveclient.Interface
	manager  *Manager
	recorder events.EventRecorder
	queue    workqueue.TypedDelayingInterface[string]
}

func newStatusWriter(log logr.Logger, client groveclient.Interface, m *Manager, recorder events.EventRecorder) *StatusWriter {
	return &StatusWriter{
		log:      log,
		client:   client,
		manager:  m,
		recorder: recorder,
		queue:    workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "grove-podgang-status"}),
	}
}

// Enqueue schedules a status recomputation for a gang ("namespace/name").
func (w *StatusWriter) Enqueue(key string) {
	w.queue.AddAfter(key, statusDebounce)
}

// Run writes statuses with the given number of workers until ctx ends.
func (w *StatusWriter) Run(ctx context.Context, workers int) {
	go func() {
		<-ctx.Done()
		w.queue.ShutDown()
	}()
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, w.work, time.Second)
	}
}

func (w *StatusWriter) work(ctx context.Context) {
	for {
		key, shutdown := w.queue.Get()
		if shutdown {
			return
		}
		if err := w.sync(ctx, key); err != nil {
			// Shown at default verbosity: a status that cannot be written is
			// invisible to users otherwise.
			w.log.Info("Retrying PodGang status", "podGang", key, "error", err.Error())
			w.queue.AddAfter(key, time.Second)
		}
		w.queue.Done(key)
	}
}

// gangObservation is what the pods of a gang say right now.
type gangObservation struct {
	boundMin, readyMin      bool
	bound, ready, refs, min int
	score                   *float64
}

func (w *StatusWriter) observe(spec *gangSpec, pg *groveschedulerv1alpha1.PodGang) gangObservation {
	o := gangObservation{boundMin: true, readyMin: true}
	nodeOf := map[string]string{}
	for _, g := range spec.groups {
		var bound, ready int64
		for _, ref := range g.refs {
			o.refs++
			p, err := w.manager.pods.Pods(spec.namespace).Get(ref)
			if err != nil || p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
				continue
			}
			bound++
			nodeOf[ref] = p.Spec.NodeName
			if podReady(p) {
				ready++
			}
		}
		o.bound += int(bound)
		o.min += int(g.min)
		o.ready += int(ready)
		if bound < g.min {
			o.boundMin = false
		}
		if ready < g.min {
			o.readyMin = false
		}
	}
	if o.boundMin {
		o.score = w.placementScore(pg, nodeOf)
	}
	return o
}

// placementScore is the share of bound pods inside the most common domain of
// the gang's pack key (preferred, else required); 1 when the gang has no key.
func (w *StatusWriter) placementScore(pg *groveschedulerv1alpha1.PodGang, nodeOf map[string]string) *float64 {
	req, pref := packKeys(pg.Spec.TopologyConstraint)
	key := pref
	if key == "" {
		key = req
	}
	score := 1.0
	if key == "" || len(nodeOf) == 0 {
		return &score
	}
	labelsOf := w.manager.nodeLabels
	perDomain := map[string]int{}
	best := 0
	for _, node := range nodeOf {
		v := labelsOf(node)[key]
		perDomain[v]++
		if perDomain[v] > best {
			best = perDomain[v]
		}
	}
	score = float64(best) / float64(len(nodeOf))
	return &score
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (w *StatusWriter) sync(ctx context.Context, key string) error {
	spec := w.manager.spec(key)
	if spec == nil {
		return nil
	}
	pg, err := w.manager.podGangs.PodGangs(spec.namespace).Get(spec.name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	obs := w.observe(spec, pg)
	if obs.bound == 0 && initializing(pg) {
		// The operator still creates the gang's pods, which stay gated until
		// it is done: nothing can be scheduled, and the status written now
		// (Pending, with counts that grow as pod references arrive) would
		// cost a write of the PodGang per step. The first write comes with
		// Initialized True, whose update enqueues the gang.
		return nil
	}
	w.manager.mu.RLock()
	var attempt attemptState
	if st := w.manager.states[key]; st != nil {
		attempt = attemptState{phase: st.phase, reason: st.reason}
	}
	w.manager.mu.RUnlock()

	desired := desiredStatus(pg, obs, attempt)
	if equality.Semantic.DeepEqual(desired, &pg.Status) {
		return nil
	}
	updated := pg.DeepCopy()
	updated.Status = *desired
	if _, err := w.client.SchedulerV1alpha1().PodGangs(spec.namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating status of PodGang %s: %w", key, err)
	}
	if obs.boundMin && (pg.Status.Phase == "" || pg.Status.Phase == groveschedulerv1alpha1.PodGangPhasePending) {
		metrics.TimeToMinimumSetBound.Observe(time.Since(spec.created).Seconds())
	}
	return nil
}

// initializing reports whether the gang's creator says its pods are still
// being created: Initialized is False. A PodGang without the condition (its
// creator does not write it) is not initializing.
func initializing(pg *groveschedulerv1alpha1.PodGang) bool {
	c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized)
	return c != nil && c.Status == metav1.ConditionFalse
}

// attemptState is what the gang's scheduling attempts say: its phase and the
// latest reason the placement search gave.
type attemptState struct {
	phase  Phase
	reason string
}

// desiredStatus is the PodGang status the pods and the attempts call for:
// phase, Scheduled and Ready conditions and placementScore. Other conditions
// (the operator's Initialized) are kept as they are.
func desiredStatus(pg *groveschedulerv1alpha1.PodGang, obs gangObservation, attempt attemptState) *groveschedulerv1alpha1.PodGangStatus {
	desired := pg.Status.DeepCopy()
	switch {
	case obs.boundMin && obs.readyMin:
		desired.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
	case obs.boundMin:
		desired.Phase = groveschedulerv1alpha1.PodGangPhaseStarting
	default:
		desired.Phase = groveschedulerv1alpha1.PodGangPhasePending
	}
	scheduled := metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeScheduled, ObservedGeneration: pg.Generation}
	switch {
	case obs.boundMin:
		scheduled.Status, scheduled.Reason = metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled
		scheduled.Message = fmt.Sprintf("every pod group has its minReplicas bound; %d of %d referenced pods bound", obs.bound, obs.refs)
	case attempt.reason != "":
		scheduled.Status, scheduled.Reason, scheduled.Message = metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable, attempt.reason
	case attempt.phase.waitingAtPermit():
		scheduled.Status, scheduled.Reason = metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonWaitingForMinimumSet
		scheduled.Message = "some pods hold their nodes at Permit while the rest of the minimum set is scheduled"
	default:
		scheduled.Status, scheduled.Reason = metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonSchedulingPending
		scheduled.Message = fmt.Sprintf("%d of %d referenced pods bound; the minimum set is not placed yet", obs.bound, obs.refs)
	}
	meta.SetStatusCondition(&desired.Conditions, scheduled)
	ready := metav1.Condition{Type: groveschedulerv1alpha1.PodGangConditionTypeReady, ObservedGeneration: pg.Generation}
	if obs.readyMin {
		ready.Status, ready.Reason = metav1.ConditionTrue, groveschedulerv1alpha1.PodGangReasonMinimumSetReady
		ready.Message = fmt.Sprintf("every pod group has its minReplicas Ready; %d of %d referenced pods Ready", obs.ready, obs.refs)
	} else {
		ready.Status, ready.Reason = metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonMinimumSetNotReady
		ready.Message = fmt.Sprintf("%d of %d referenced pods Ready; some pod group is below minReplicas", obs.ready, obs.refs)
	}
	meta.SetStatusCondition(&desired.Conditions, ready)
	desired.PlacementScore = obs.score
	desired.MinimumPods, desired.BoundPods = int32(obs.min), int32(obs.bound)
	return desired
}

// EventOnGang records an Event on the PodGang named by key.
func (w *StatusWriter) EventOnGang(key, eventType, reason, note string) {
	spec := w.manager.spec(key)
	if spec == nil || w.recorder == nil {
		return
	}
	pg, err := w.manager.podGangs.PodGangs(spec.namespace).Get(spec.name)
	if err != nil {
		return
	}
	ref := pg.DeepCopy()
	// Lister objects carry no TypeMeta; the recorder needs it to build the reference.
	ref.APIVersion = groveschedulerv1alpha1.SchemeGroupVersion.String()
	ref.Kind = "PodGang"
	w.recorder.Eventf(ref, nil, eventType, reason, "Scheduling", "%s", note)
}
