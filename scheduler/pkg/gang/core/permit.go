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
	"time"

	corev1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// PermitResult is the Manager's verdict at the Permit extension point.
type PermitResult int

const (
	// NotInGang means the pod is an ordinary pod and needs no gang decision.
	NotInGang PermitResult = iota
	// Allow means the gang's minimum set is complete (or the pod is a best-effort extra).
	Allow
	// Wait means the pod holds its reservation until the rest of the minimum set arrives.
	Wait
)

// Reserve records that the pod holds a node.
func (m *Manager) Reserve(pod *corev1.Pod, nodeName string) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	m.mu.Lock()
	m.stateLocked(key).reserved[pod.Name] = nodeName
	m.mu.Unlock()
}

// Permit lets a pod through once every group of its gang has minReplicas pods
// reserved or bound, releasing the gang's waiting pods at the same moment.
func (m *Manager) Permit(pod *corev1.Pod) (PermitResult, time.Duration) {
	key, ok := GangKey(pod)
	if !ok {
		return NotInGang, 0
	}
	spec := m.spec(key)
	if spec == nil {
		return Wait, m.permitTimeout
	}
	m.mu.Lock()
	st := m.stateLocked(key)
	wasWaiting := st.phase.waitingAtPermit()
	if minSetMet(spec, counts(spec, st)) {
		m.transitionLocked(key, st, evPermitComplete)
		st.reason = ""
		st.keepClaims()
		m.mu.Unlock()
		if wasWaiting {
			m.allowWaiting(key)
		}
		m.endAttempt(key, metrics.ResultScheduled)
		// Best-effort extras were held back in PreFilter; now they may go, and so
		// may the extras of sibling gangs that yielded to this minimum set.
		m.activateUnplaced(spec)
		m.releaseExtras(key, spec.family)
		return Allow, 0
	}
	m.transitionLocked(key, st, evPermitWaiting)
	m.mu.Unlock()
	if !wasWaiting {
		// The first pod of this attempt to wait: the status says so (Scheduled
		// False, WaitingForMinimumSet) if the wait outlasts the status
		// debounce, and the rest of the gang is brought forward so the whole
		// gang is tried together. No Event: every gang of more than one pod
		// waits here on its way to being placed, so an Event would cost an
		// API write per gang for a normal step.
		m.status.Enqueue(key)
		m.activateUnplaced(spec)
	}
	return Wait, m.permitTimeout
}

// Unreserve releases the pod's reservation and, while the gang's minimum set
// is incomplete, rejects every other waiting pod of the gang so the whole
// gang releases its resources and backs off together.
func (m *Manager) Unreserve(pod *corev1.Pod, reason string) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	spec := m.spec(key)
	m.mu.Lock()
	st := m.stateLocked(key)
	delete(st.reserved, pod.Name)
	wasWaiting := st.phase.waitingAtPermit()
	met := spec != nil && minSetMet(spec, counts(spec, st))
	if !met {
		m.transitionLocked(key, st, evAttemptFailed)
	}
	m.mu.Unlock()
	if met {
		return
	}
	if spec != nil {
		m.releaseExtras(key, spec.family)
	}
	m.rejectWaiting(key, reason)
	m.releaseClaims(key)
	if wasWaiting {
		m.endAttempt(key, metrics.ResultTimeout)
	}
}

// RejectGang ends a failed attempt from PostFilter: the gang's waiting pods
// are rejected so all of its pods back off together. searchPassed says the
// placement search had found room for the minimum set, so the failure came
// from something the search does not model and the gang is a misfit.
func (m *Manager) RejectGang(pod *corev1.Pod, reason string, searchPassed bool) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	ev := evAttemptRejected
	if searchPassed {
		ev = evAttemptFailed
	}
	m.mu.Lock()
	m.transitionLocked(key, m.stateLocked(key), ev)
	m.mu.Unlock()
	if spec := m.spec(key); spec != nil {
		m.releaseExtras(key, spec.family)
	}
	m.rejectWaiting(key, reason)
	m.releaseClaims(key)
	m.endAttempt(key, metrics.ResultUnschedulable)
}

// allowWaiting lets every pod of the gang waiting at Permit through.
func (m *Manager) allowWaiting(key string) {
	m.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if k, ok := GangKey(wp.GetPod()); ok && k == key {
			wp.Allow(PluginName)
		}
	})
}

// rejectWaiting rejects every pod of the gang waiting at Permit.
func (m *Manager) rejectWaiting(key, reason string) {
	m.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if k, ok := GangKey(wp.GetPod()); ok && k == key {
			wp.Reject(PluginName, reason)
		}
	})
}

// activateUnplaced moves the gang's unplaced pods to the active queue so the
// whole gang is tried together instead of waiting out individual backoffs.
func (m *Manager) activateUnplaced(spec *gangSpec) {
	pods := map[string]*corev1.Pod{}
	for _, ref := range spec.refs() {
		p, err := m.pods.Pods(spec.namespace).Get(ref)
		if err != nil || p.Spec.NodeName != "" {
			continue
		}
		pods[p.Namespace+"/"+p.Name] = p
	}
	if len(pods) > 0 {
		m.handle.Activate(m.log, pods)
	}
}

// endAttempt closes the gang's current attempt in the metrics.
func (m *Manager) endAttempt(key, result string) {
	m.mu.Lock()
	st := m.stateLocked(key)
	start := st.attemptStart
	st.attemptStart = time.Time{}
	m.mu.Unlock()
	if start.IsZero() {
		return
	}
	metrics.RecordAttempt(result, time.Since(start))
}
