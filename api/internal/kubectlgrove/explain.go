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

package kubectlgrove

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// maxEvents is how many Warning events are shown per object, the latest first.
const maxEvents = 3

// eventNotes are the object's last Warning events.
func (s *snapshot) eventNotes(kind, name string) []string {
	events := s.warnings[kind+"/"+name]
	out := make([]string, 0, min(len(events), maxEvents))
	for _, e := range events[:min(len(events), maxEvents)] {
		when := duration.HumanDuration(s.now.Sub(lastSeen(e))) + " ago"
		if n := eventCount(e); n > 1 {
			when = fmt.Sprintf("x%d, last %s", n, when)
		}
		out = append(out, fmt.Sprintf("Warning %s (%s): %s", e.Reason, when, oneLine(e.Message)))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// conditionNote prints a condition as "Type=Status Reason: message".
func conditionNote(c *metav1.Condition) string {
	note := fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason)
	if c.Message != "" {
		note += ": " + oneLine(c.Message)
	}
	return note
}

// gangLine summarises a PodGang: its phase and how many pods are bound of the
// minimum it needs.
func gangLine(pg *groveschedulerv1alpha1.PodGang) string {
	phase := string(pg.Status.Phase)
	if phase == "" {
		phase = "no status yet"
	}
	var minimum int32
	for _, g := range pg.Spec.PodGroups {
		minimum += g.MinReplicas
	}
	return fmt.Sprintf("PodGang %s: %s, %d bound, %d needed together", pg.Name, phase, pg.Status.BoundPods, minimum)
}

// gangRunning reports a PodGang whose minimum set is bound and ready.
func gangRunning(pg *groveschedulerv1alpha1.PodGang) bool {
	return pg.Status.Phase == groveschedulerv1alpha1.PodGangPhaseRunning
}

// gangNotes explain a PodGang that is not Running: why it is not placed
// (Scheduled), or not ready, or still being initialized, and its events. A
// Running gang has nothing to explain; warnings from before it ran are left
// out.
func (s *snapshot) gangNotes(pg *groveschedulerv1alpha1.PodGang) []string {
	if gangRunning(pg) {
		return nil
	}
	var out []string
	if c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized); c != nil && c.Status != metav1.ConditionTrue {
		out = append(out, conditionNote(c))
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled); c != nil && c.Status != metav1.ConditionTrue {
		out = append(out, conditionNote(c))
	} else if c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeReady); c != nil && c.Status != metav1.ConditionTrue {
		out = append(out, conditionNote(c))
	}
	return append(out, s.eventNotes("PodGang", pg.Name)...)
}

// podReady reports the pod's Ready condition.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podFine reports a pod that runs and is ready: nothing to explain.
func podFine(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && podReady(p)
}

// podState is a pod's phase as a user reads it.
func podState(p *corev1.Pod) string {
	switch {
	case p.DeletionTimestamp != nil:
		return "Terminating"
	case p.Status.Phase == corev1.PodRunning && podReady(p):
		return "Running"
	case p.Status.Phase == corev1.PodRunning:
		return "Running, not ready"
	case p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "":
		return "Pending, not scheduled"
	case p.Status.Phase == corev1.PodPending:
		return "Pending"
	case p.Status.Phase == "":
		return "no status yet"
	}
	return string(p.Status.Phase)
}

// podNotes explain a pod that is not running and ready: the scheduling gates
// that hold it, why it is not scheduled (with its PodGang's reason when
// withGang, else a pointer to it), grove-initc waiting for its parent
// PodCliques, containers waiting or failed, and its events.
func (s *snapshot) podNotes(p *corev1.Pod, withGang bool) []string {
	if podFine(p) {
		return nil
	}
	var out []string
	gang := s.gangs[p.Labels[apicommon.LabelPodGang]]
	for _, g := range p.Spec.SchedulingGates {
		if g.Name == apicommon.PodGangSchedulingGate {
			out = append(out, fmt.Sprintf("held by scheduling gate %s: its PodGang %s does not reference it yet", g.Name, p.Labels[apicommon.LabelPodGang]))
		} else {
			out = append(out, fmt.Sprintf("held by scheduling gate %s, which Grove does not manage", g.Name))
		}
	}
	if p.Spec.NodeName == "" && len(p.Spec.SchedulingGates) == 0 && p.DeletionTimestamp == nil {
		switch {
		case gang != nil && !meta.IsStatusConditionTrue(gang.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled) && withGang:
			out = append(out, "not scheduled: "+gangLine(gang))
			for _, n := range s.gangNotes(gang) {
				out = append(out, "  "+n)
			}
		case gang != nil && !meta.IsStatusConditionTrue(gang.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled):
			out = append(out, fmt.Sprintf("not scheduled: its PodGang %s is not placed", gang.Name))
		default:
			out = append(out, "not scheduled: "+scheduledConditionText(p))
		}
	}
	out = append(out, s.initcNotes(p)...)
	out = append(out, containerNotes(p.Status.ContainerStatuses)...)
	return append(out, s.eventNotes("Pod", p.Name)...)
}

// scheduledConditionText is the pod's PodScheduled condition as the scheduler left it.
func scheduledConditionText(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
			if c.Message == "" {
				return c.Reason
			}
			return c.Reason + ": " + oneLine(c.Message)
		}
	}
	return "no scheduler has looked at it yet"
}

// initcNotes explain grove-initc: while it runs, which parent PodCliques
// (the pod's grove.io/starts-after annotation) lack ready pods; or why it
// failed or cannot start.
func (s *snapshot) initcNotes(p *corev1.Pod) []string {
	var st *corev1.ContainerStatus
	for i := range p.Status.InitContainerStatuses {
		if p.Status.InitContainerStatuses[i].Name == apicommon.InitContainerName {
			st = &p.Status.InitContainerStatuses[i]
		}
	}
	if st == nil || p.Spec.NodeName == "" {
		return nil
	}
	switch {
	case st.State.Terminated != nil && st.State.Terminated.ExitCode == 0:
		return nil
	case st.State.Terminated != nil:
		return []string{fmt.Sprintf("%s failed: %s (exit code %d) %s", apicommon.InitContainerName, st.State.Terminated.Reason, st.State.Terminated.ExitCode, oneLine(st.State.Terminated.Message))}
	case st.State.Waiting != nil && st.State.Waiting.Reason != "" && st.State.Waiting.Reason != "PodInitializing":
		return []string{fmt.Sprintf("%s cannot start: %s: %s", apicommon.InitContainerName, st.State.Waiting.Reason, oneLine(st.State.Waiting.Message))}
	}
	var waits []string
	for _, parent := range strings.Split(p.Annotations[apicommon.AnnotationStartsAfter], ",") {
		parent = strings.TrimSpace(parent)
		if parent == "" {
			continue
		}
		q, ok := s.pclqs[parent]
		if !ok {
			waits = append(waits, fmt.Sprintf("PodClique %s (not found)", parent))
			continue
		}
		if need := minAvailable(q); q.Status.ReadyReplicas < need {
			waits = append(waits, fmt.Sprintf("PodClique %s (%d of %d pods ready, needs %d)", parent, q.Status.ReadyReplicas, q.Spec.Replicas, need))
		}
	}
	if len(waits) == 0 {
		return []string{fmt.Sprintf("%s has not exited yet; its parent PodCliques are ready", apicommon.InitContainerName)}
	}
	return []string{fmt.Sprintf("%s waits for %s", apicommon.InitContainerName, strings.Join(waits, ", "))}
}

// containerNotes name containers that wait for a reason or ended in an error.
func containerNotes(statuses []corev1.ContainerStatus) []string {
	var out []string
	for _, c := range statuses {
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "ContainerCreating" && c.State.Waiting.Reason != "PodInitializing":
			note := fmt.Sprintf("container %s waiting: %s", c.Name, c.State.Waiting.Reason)
			if c.State.Waiting.Message != "" {
				note += ": " + oneLine(c.State.Waiting.Message)
			}
			out = append(out, note)
		case c.State.Terminated != nil && c.State.Terminated.ExitCode != 0:
			out = append(out, fmt.Sprintf("container %s terminated: %s (exit code %d)", c.Name, c.State.Terminated.Reason, c.State.Terminated.ExitCode))
		}
	}
	return out
}

// minAvailable is a PodClique's minAvailable (its replicas when unset).
func minAvailable(q *grovecorev1alpha1.PodClique) int32 {
	return ptrOr(q.Spec.MinAvailable, q.Spec.Replicas)
}

// cliqueLine summarises a PodClique: ready pods of its replicas against its minAvailable.
func cliqueLine(q *grovecorev1alpha1.PodClique) string {
	line := fmt.Sprintf("PodClique %s: %d of %d pods ready (minAvailable %d)", q.Name, q.Status.ReadyReplicas, q.Spec.Replicas, minAvailable(q))
	if q.Status.ScheduleGatedReplicas > 0 {
		line += fmt.Sprintf(", %d gated", q.Status.ScheduleGatedReplicas)
	}
	return line
}

// cliqueNotes are a PodClique's breached condition and events, while some
// of its pods are not ready.
func (s *snapshot) cliqueNotes(q *grovecorev1alpha1.PodClique) []string {
	if q.Status.ReadyReplicas >= q.Spec.Replicas {
		return nil
	}
	var out []string
	if c := meta.FindStatusCondition(q.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached); c != nil && c.Status == metav1.ConditionTrue {
		out = append(out, conditionNote(c))
	}
	return append(out, s.eventNotes("PodClique", q.Name)...)
}

// scalingGroupLine summarises a PodCliqueScalingGroup.
func scalingGroupLine(g *grovecorev1alpha1.PodCliqueScalingGroup) string {
	return fmt.Sprintf("PodCliqueScalingGroup %s: %d of %d replicas available (minAvailable %d)",
		g.Name, g.Status.AvailableReplicas, g.Spec.Replicas, ptrOr(g.Spec.MinAvailable, 1))
}

// scalingGroupNotes are a scaling group's breached and gang-termination
// conditions and events, while some of its replicas are not available.
func (s *snapshot) scalingGroupNotes(g *grovecorev1alpha1.PodCliqueScalingGroup) []string {
	if g.Status.AvailableReplicas >= g.Spec.Replicas {
		return nil
	}
	var out []string
	for _, t := range []string{grovecorev1alpha1.ConditionTypeMinAvailableBreached, grovecorev1alpha1.ConditionTypeGangTerminationInProgress} {
		if c := meta.FindStatusCondition(g.Status.Conditions, t); c != nil && c.Status == metav1.ConditionTrue {
			out = append(out, conditionNote(c))
		}
	}
	return append(out, s.eventNotes("PodCliqueScalingGroup", g.Name)...)
}
