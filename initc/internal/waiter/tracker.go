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

package waiter

import (
	corev1 "k8s.io/api/core/v1"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/initc/internal/parents"
)

// ParentStatus is how far one parent is from letting the pod start.
type ParentStatus struct {
	// PodClique is the parent's name.
	PodClique string
	// Ready is the number of the parent's pods that are Ready and not terminating.
	Ready int
	// Required is the parent's minAvailable.
	Required int
}

// Satisfied reports whether the parent has enough Ready pods.
func (s ParentStatus) Satisfied() bool { return s.Ready >= s.Required }

// tracker keeps the set of Ready pods of each parent. Pods are matched to a
// parent only by the exact value of their grove.io/podclique label: parent
// "worker" must not count pods of "worker-b", which a name-prefix match would.
// It is not safe for concurrent use; the waiter serialises calls.
type tracker struct {
	parents []parents.Parent
	// ready maps a parent PodClique to the keys of its Ready pods.
	ready map[string]map[string]struct{}
}

func newTracker(ps []parents.Parent) *tracker {
	t := &tracker{parents: ps, ready: make(map[string]map[string]struct{}, len(ps))}
	for _, p := range ps {
		t.ready[p.PodClique] = map[string]struct{}{}
	}
	return t
}

// observe records the current state of a pod (added or updated) under key.
func (t *tracker) observe(key string, pod *corev1.Pod) {
	// A pod's clique label never changes in practice, but dropping the key
	// everywhere first keeps the counts right even if it did.
	t.forget(key)
	set, isParent := t.ready[pod.Labels[apicommon.LabelPodClique]]
	if isParent && isReady(pod) {
		set[key] = struct{}{}
	}
}

// forget drops a deleted pod.
func (t *tracker) forget(key string) {
	for _, set := range t.ready {
		delete(set, key)
	}
}

// statuses returns the status of every parent, in argument order.
func (t *tracker) statuses() []ParentStatus {
	out := make([]ParentStatus, 0, len(t.parents))
	for _, p := range t.parents {
		out = append(out, ParentStatus{PodClique: p.PodClique, Ready: len(t.ready[p.PodClique]), Required: p.MinAvailable})
	}
	return out
}

// satisfied reports whether every parent has at least its minAvailable Ready pods.
func (t *tracker) satisfied() bool {
	for _, s := range t.statuses() {
		if !s.Satisfied() {
			return false
		}
	}
	return true
}

// isReady reports whether a pod counts towards its parent: Ready and not
// being deleted, since a terminating pod is about to stop serving.
func isReady(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
