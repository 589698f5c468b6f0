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
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"

	apicommon "github.com/grove-project/grove/api/common"
)

// A PodCliqueSet's gangs are placed in order: the base gang's minimum set,
// then the scaled gangs' minimum sets, then the best-effort remainder. A
// best-effort pod of a placed gang therefore yields to every other gang of the
// same PodCliqueSet (same namespace and part-of label, equal or higher
// priority) whose minimum set is not placed yet but fits on the free capacity
// right now. A gang that does not fit, whose pods are held by a scheduling gate
// other than Grove's, or whose placement failed although the search said it
// fits (misfit) never holds extras back, so extras cannot starve. Right after
// a node change, extras also hold back for a short settle window while a
// sibling gang waits but does not fit yet, since capacity often arrives one
// node at a time.

// addToFamilyLocked indexes a gang under its PodCliqueSet; m.mu must be held.
func (m *Manager) addToFamilyLocked(spec *gangSpec) {
	if spec.family == "" {
		return
	}
	members := m.families[spec.family]
	if members == nil {
		members = map[string]struct{}{}
		m.families[spec.family] = members
	}
	members[spec.key] = struct{}{}
}

// removeFromFamilyLocked drops a gang from its PodCliqueSet's index; m.mu must be held.
func (m *Manager) removeFromFamilyLocked(spec *gangSpec) {
	if spec == nil || spec.family == "" {
		return
	}
	members := m.families[spec.family]
	delete(members, spec.key)
	if len(members) == 0 {
		delete(m.families, spec.family)
	}
}

// pendingSiblings returns the keys of the gangs a best-effort pod of spec
// must yield to, sorted, and marks them as holding extras back so their
// outcome wakes those extras. waiting reports pending sibling gangs that could
// go but do not fit yet. The cost is one placement search per pending sibling
// gang of the same PodCliqueSet, against the nodes already converted for this
// cycle; no pod is listed.
func (m *Manager) pendingSiblings(spec *gangSpec, nodes []*SimNode, byName map[string]*SimNode) (blockers []string, waiting bool) {
	if spec.family == "" {
		return nil, false
	}
	var candidates []gangView
	m.mu.RLock()
	for key := range m.families[spec.family] {
		sib := m.specs[key]
		if key == spec.key || sib == nil {
			continue
		}
		v := m.viewOfLocked(sib, m.states[key])
		if v.phase.misfit() || v.minSetMet() {
			continue
		}
		candidates = append(candidates, v)
	}
	m.mu.RUnlock()
	if len(candidates) == 0 {
		return nil, false
	}

	own := m.priorityOf(spec)
	for _, sib := range candidates {
		if m.priorityOf(sib.spec) < own {
			continue
		}
		demands, msg := m.gangDemands(sib, -1, nil, true)
		if msg != "" {
			continue
		}
		if _, fail := Search(nodes, demands, sib.scope(byName)); fail != nil {
			waiting = true
			continue
		}
		blockers = append(blockers, sib.spec.key)
	}
	if len(blockers) == 0 {
		return nil, waiting
	}
	sort.Strings(blockers)
	m.mu.Lock()
	m.wakeups.holding.Insert(blockers...)
	m.mu.Unlock()
	return blockers, waiting
}

// capacitySettleWindow is how long best-effort pods hold back after capacity
// appeared while a sibling gang's minimum set waits but does not fit yet.
// Nodes are often added or uncordoned one by one; without the window the
// first node alone would go to an extra before the gang's second node shows.
const capacitySettleWindow = time.Second

// onNodeChange notes when schedulable capacity may have appeared.
func (m *Manager) onNodeChange(oldObj, newObj any) {
	node, ok := newObj.(*corev1.Node)
	if !ok {
		return
	}
	if old, ok := oldObj.(*corev1.Node); ok && old != nil {
		if old.Spec.Unschedulable == node.Spec.Unschedulable &&
			equality.Semantic.DeepEqual(old.Spec.Taints, node.Spec.Taints) &&
			equality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) &&
			equality.Semantic.DeepEqual(old.Labels, node.Labels) {
			return
		}
	}
	m.lastNodeChange.Store(time.Now().UnixNano())
}

// settling reports how much longer extras hold back after the latest node
// change (0 once the window has passed).
func (m *Manager) settling() time.Duration {
	last := m.lastNodeChange.Load()
	if last == 0 {
		return 0
	}
	left := capacitySettleWindow - time.Since(time.Unix(0, last))
	if left < 0 {
		return 0
	}
	return left
}

// familyWakeups are the pending wake-ups of best-effort pods that hold back
// for their PodCliqueSet's other gangs, guarded by Manager.mu. They are not
// part of a gang's phase: they record what other gangs' pods wait for.
type familyWakeups struct {
	// holding are the gangs whose outcome (minimum set placed, or attempt
	// failed) must wake the best-effort pods that yielded to them.
	holding sets.Set[string]
	// timers are the gangs with a settle-window activation pending.
	timers sets.Set[string]
}

func newFamilyWakeups() familyWakeups {
	return familyWakeups{holding: sets.New[string](), timers: sets.New[string]()}
}

// forget drops a deleted gang's wake-ups.
func (w familyWakeups) forget(key string) {
	w.holding.Delete(key)
	w.timers.Delete(key)
}

// activateAfter wakes the gang's unplaced pods once the settle window is over;
// one timer per gang at a time.
func (m *Manager) activateAfter(spec *gangSpec, d time.Duration) {
	m.mu.Lock()
	if m.wakeups.timers.Has(spec.key) {
		m.mu.Unlock()
		return
	}
	m.wakeups.timers.Insert(spec.key)
	m.mu.Unlock()
	time.AfterFunc(d+50*time.Millisecond, func() {
		m.mu.Lock()
		m.wakeups.timers.Delete(spec.key)
		m.mu.Unlock()
		if m.queueReady.Load() {
			m.activateUnplaced(spec)
		}
	})
}

// releaseExtras wakes the best-effort pods a gang held back, once that gang's
// minimum set is placed or its attempt failed: they would otherwise wait for
// an unrelated cluster event, since a pod binding is not one they listen to.
func (m *Manager) releaseExtras(key string, family string) {
	m.mu.Lock()
	if !m.wakeups.holding.Has(key) {
		m.mu.Unlock()
		return
	}
	m.wakeups.holding.Delete(key)
	var placed []*gangSpec
	for k := range m.families[family] {
		sib := m.specs[k]
		if k == key || sib == nil {
			continue
		}
		if sst := m.states[k]; sst != nil && minSetMet(sib, counts(sib, sst)) {
			placed = append(placed, sib)
		}
	}
	m.mu.Unlock()
	if !m.queueReady.Load() {
		return
	}
	for _, sib := range placed {
		m.activateUnplaced(sib)
	}
}

// heldByForeignGate reports whether a scheduling gate other than Grove's holds
// the pod: the operator lifts Grove's own gate when the gang may go, any other
// gate may never be lifted, so such a pod does not count as about to schedule.
func heldByForeignGate(pod *corev1.Pod) bool {
	for _, g := range pod.Spec.SchedulingGates {
		if g.Name != apicommon.PodGangSchedulingGate {
			return true
		}
	}
	return false
}
