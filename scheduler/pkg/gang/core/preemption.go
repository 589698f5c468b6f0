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
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
)

// victimUnit is what preemption removes as a whole: every placed pod of one
// lower-priority gang, or one lower-priority ordinary pod.
type victimUnit struct {
	gangKey  string
	priority int32
	created  time.Time
	pods     []*corev1.Pod
	freed    map[string]Resources
}

// PreemptionOutcome tells the plugin what PostFilter did.
type PreemptionOutcome int

const (
	// NoPreemption means no set of lower-priority units makes room, or the preemptor may not preempt.
	NoPreemption PreemptionOutcome = iota
	// Preempting means victims were evicted (now or earlier) and the gang waits for them to go.
	Preempting
)

// PreemptionResult is what Preempt did and what the plugin reports.
type PreemptionResult struct {
	Outcome PreemptionOutcome
	// Message says why nothing was preempted (empty when there is nothing
	// to say beyond "no room") or what was preempted.
	Message string
	// NominatedNode is the node the placement search chose for the preemptor
	// once its victims are gone; set only by the call that evicted them.
	NominatedNode string
}

// Preempt looks for the cheapest set of whole lower-priority units (gangs or
// ordinary pods) whose removal lets the pod's gang (or the ordinary pod alone)
// fit in the current cycle's snapshot, violating as few PodDisruptionBudgets
// as possible, and evicts them.
func (m *Manager) Preempt(ctx context.Context, pod *corev1.Pod) (PreemptionResult, error) {
	nodeInfos, err := m.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return PreemptionResult{}, fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	return m.preempt(ctx, pod, nodeInfos), nil
}

// preempt is Preempt against the given nodes. Pods with equal or higher
// priority are never victims, best-effort pods and pods (or gangs) whose
// preemptionPolicy is Never never preempt, and a victim gang loses all its pods.
func (m *Manager) preempt(ctx context.Context, pod *corev1.Pod, nodeInfos []fwk.NodeInfo) PreemptionResult {
	key, inGang := GangKey(pod)
	priority := corev1helpers.PodPriority(pod)
	var spec *gangSpec
	if inGang {
		spec = m.spec(key)
		if spec == nil {
			return PreemptionResult{}
		}
	}
	if msg := m.neverPreempts(pod, spec); msg != "" {
		return PreemptionResult{Message: msg}
	}
	if inGang {
		priority = m.priorityOf(spec)
		if msg, busy := m.preemptionInFlight(key); busy {
			return PreemptionResult{Outcome: Preempting, Message: msg}
		}
	}

	var demands []GroupDemand
	var scope func(map[string]*SimNode) *Scope
	self := 0
	if inGang {
		view := m.view(spec)
		if view.minSetMet() {
			// Best-effort extras never preempt: they are not part of the guarantee.
			return PreemptionResult{}
		}
		var msg string
		self = spec.refIndex[pod.Name]
		demands, msg = m.gangDemands(view, self, pod, false)
		if msg != "" {
			return PreemptionResult{}
		}
		scope = view.scope
	} else {
		demands = []GroupDemand{m.demandFor("pod "+pod.Name, 1, pod, m.volumeTopologyOf(pod))}
		scope = func(map[string]*SimNode) *Scope { return &Scope{Name: "pod " + pod.Name, Groups: []int{0}} }
	}

	units := m.victimUnits(nodeInfos, priority, key)
	victims, placement := chooseVictimsPDBAware(nodeInfos, demands, scope, units, m.disruptionBudgets(units))
	if len(victims) == 0 {
		return PreemptionResult{}
	}
	res := PreemptionResult{Outcome: Preempting, Message: m.evict(ctx, key, inGang, pod, victims)}
	if placement != nil && len(placement.Nodes[self]) > 0 {
		res.NominatedNode = placement.Nodes[self][0]
	}
	return res
}

// neverPreempts returns why the pod may not preempt when its preemptionPolicy,
// or that of its gang's PriorityClass, is Never; empty otherwise.
func (m *Manager) neverPreempts(pod *corev1.Pod, spec *gangSpec) string {
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == corev1.PreemptNever {
		return fmt.Sprintf("pod %s has preemptionPolicy Never: lower-priority pods are not preempted", pod.Name)
	}
	if spec == nil || spec.priorityClassName == "" {
		return ""
	}
	pc, err := m.priorities.Get(spec.priorityClassName)
	if err != nil || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptNever {
		return ""
	}
	return fmt.Sprintf("PriorityClass %s of PodGang %s has preemptionPolicy Never: lower-priority pods are not preempted", pc.Name, spec.key)
}

// chooseVictimsPDBAware picks among candidate victim sets the one that
// violates the fewest PodDisruptionBudgets, and on a tie the one of the cost
// order. The candidates are the cost order's choice and the choice made with
// the units ordered by how many violations evicting each alone causes (cost
// order among equals), so units a budget protects are taken last and spared
// first. It returns the victims and the placement the search finds once they
// are gone (nil, nil when no set makes room).
func chooseVictimsPDBAware(nodeInfos []fwk.NodeInfo, demands []GroupDemand, scope func(map[string]*SimNode) *Scope,
	units []*victimUnit, budgets disruptionBudgets) ([]*victimUnit, *Placement) {
	choose := func(order []*victimUnit) []*victimUnit {
		nodes, byName := simNodes(nodeInfos)
		return chooseVictims(nodes, byName, demands, scope(byName), order)
	}
	victims := choose(units)
	if victims == nil {
		return nil, nil
	}
	if violations := budgets.violations(units, victims); violations > 0 {
		alone := make(map[*victimUnit]int, len(units))
		for _, u := range units {
			alone[u] = budgets.violations(units, []*victimUnit{u})
		}
		protectedLast := append([]*victimUnit(nil), units...)
		sort.SliceStable(protectedLast, func(i, j int) bool { return alone[protectedLast[i]] < alone[protectedLast[j]] })
		if alt := choose(protectedLast); alt != nil && budgets.violations(units, alt) < violations {
			victims = alt
		}
	}
	nodes, byName := simNodes(nodeInfos)
	for _, u := range victims {
		giveBack(byName, u, 1)
	}
	placement, _ := Search(nodes, demands, scope(byName))
	return victims, placement
}

// chooseVictims removes units in the given order (cheapest first) from the
// simulated capacity until the demands fit, then spares every unit the final
// choice made unnecessary, latest first. It returns nil when even removing all
// units does not make room. The simulated free capacity of the nodes is changed.
func chooseVictims(nodes []*SimNode, byName map[string]*SimNode, demands []GroupDemand, root *Scope, units []*victimUnit) []*victimUnit {
	chosen := -1
	for i, u := range units {
		giveBack(byName, u, 1)
		if _, fail := Search(nodes, demands, root); fail == nil {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		return nil
	}
	victims := []*victimUnit{units[chosen]}
	for i := chosen - 1; i >= 0; i-- {
		giveBack(byName, units[i], -1)
		if _, fail := Search(nodes, demands, root); fail == nil {
			continue
		}
		giveBack(byName, units[i], 1)
		victims = append(victims, units[i])
	}
	return victims
}

// preemptionInFlight reports whether victims of an earlier preemption by this gang still exist.
func (m *Manager) preemptionInFlight(key string) (string, bool) {
	m.mu.RLock()
	st := m.states[key]
	var victims map[string]string
	var deadline time.Time
	if st != nil {
		victims, deadline = st.victims, st.victimsDeadline
	}
	m.mu.RUnlock()
	if len(victims) == 0 || time.Now().After(deadline) {
		return "", false
	}
	remaining := 0
	for nsName, uid := range victims {
		ns, name := splitKey(nsName)
		if p, err := m.pods.Pods(ns).Get(name); err == nil && string(p.UID) == uid {
			remaining++
		}
	}
	if remaining == 0 {
		return "", false
	}
	return fmt.Sprintf("waiting for %d preempted pods to terminate", remaining), true
}

// victimUnits groups the placed pods of lower priority into whole units, cheapest first.
func (m *Manager) victimUnits(nodeInfos []fwk.NodeInfo, priority int32, selfKey string) []*victimUnit {
	byKey := map[string]*victimUnit{}
	for _, ni := range nodeInfos {
		if ni.Node() == nil {
			continue
		}
		for _, pi := range ni.GetPods() {
			p := pi.GetPod()
			if p.DeletionTimestamp != nil {
				continue
			}
			unitKey := "pod:" + p.Namespace + "/" + p.Name
			unitPriority := corev1helpers.PodPriority(p)
			created := p.CreationTimestamp.Time
			gk, inGang := GangKey(p)
			if inGang {
				if gk == selfKey {
					continue
				}
				unitKey = "gang:" + gk
				if vs := m.spec(gk); vs != nil {
					unitPriority = m.priorityOf(vs)
					created = vs.created
				}
			}
			if unitPriority >= priority {
				continue
			}
			u := byKey[unitKey]
			if u == nil {
				u = &victimUnit{priority: unitPriority, created: created, freed: map[string]Resources{}}
				if inGang {
					u.gangKey = gk
				}
				byKey[unitKey] = u
			}
			if inGang && unitPriority < u.priority {
				u.priority = unitPriority
			}
			u.pods = append(u.pods, p)
			r := u.freed[ni.Node().Name]
			r.Add(requestOf(p))
			u.freed[ni.Node().Name] = r
		}
	}
	units := make([]*victimUnit, 0, len(byKey))
	for _, u := range byKey {
		units = append(units, u)
	}
	sort.Slice(units, func(i, j int) bool {
		if units[i].priority != units[j].priority {
			return units[i].priority < units[j].priority
		}
		if !units[i].created.Equal(units[j].created) {
			return units[i].created.After(units[j].created)
		}
		return len(units[i].pods) < len(units[j].pods)
	})
	return units
}

// giveBack adds (sign 1) or removes (sign -1) a unit's resources to the simulated free capacity.
func giveBack(byName map[string]*SimNode, u *victimUnit, sign int64) {
	for node, r := range u.freed {
		if n := byName[node]; n != nil {
			n.Free.sub(r, -sign)
		}
	}
}

// evict marks every pod of every victim unit (for a gang: all pods its
// PodGang references, placed or not) with the DisruptionTarget condition,
// deletes it, and records Events on the PodGangs involved.
func (m *Manager) evict(ctx context.Context, key string, inGang bool, preemptor *corev1.Pod, victims []*victimUnit) string {
	preemptorName := "pod " + preemptor.Namespace + "/" + preemptor.Name
	if inGang {
		preemptorName = "PodGang " + key
	}
	evicted := map[string]string{}
	gangs := 0
	for _, u := range victims {
		pods := u.pods
		if u.gangKey != "" {
			gangs++
			if vs := m.spec(u.gangKey); vs != nil {
				pods = m.gangPods(vs)
			}
			m.rejectWaiting(u.gangKey, "preempted by "+preemptorName)
			m.status.EventOnGang(u.gangKey, corev1.EventTypeWarning, "Preempted", fmt.Sprintf("all pods of the gang are preempted by higher-priority %s", preemptorName))
		}
		for _, p := range pods {
			if err := m.markDisruptionTarget(ctx, p, preemptor.Spec.SchedulerName, preemptorName); err != nil {
				if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
					continue
				}
				// The condition only informs; the eviction goes ahead without it.
				m.log.Error(err, "Marking preemption victim with the DisruptionTarget condition", "pod", p.Namespace+"/"+p.Name, "preemptor", preemptorName)
			}
			if err := m.kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
				Preconditions: &metav1.Preconditions{UID: &p.UID},
			}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				m.log.Error(err, "Evicting preemption victim", "pod", p.Namespace+"/"+p.Name, "preemptor", preemptorName)
				continue
			}
			evicted[p.Namespace+"/"+p.Name] = string(p.UID)
		}
	}
	msg := fmt.Sprintf("preempting %d pods (%d gangs, %d ordinary pods) of lower priority", len(evicted), gangs, len(victims)-gangs)
	m.log.Info("Preempting", "preemptor", preemptorName, "pods", len(evicted), "gangs", gangs)
	if inGang {
		m.mu.Lock()
		st := m.stateLocked(key)
		st.victims = evicted
		st.victimsDeadline = time.Now().Add(2*m.permitTimeout + 30*time.Second)
		m.mu.Unlock()
		m.status.EventOnGang(key, corev1.EventTypeNormal, "Preempting", msg)
	}
	return msg
}

// markDisruptionTarget sets the pod's DisruptionTarget condition (reason
// PreemptionByScheduler) so its controllers and users learn why it goes, as
// kube-scheduler's own preemption does. The patch names the pod's UID, so a
// pod recreated under the same name is left alone (Conflict).
func (m *Manager) markDisruptionTarget(ctx context.Context, p *corev1.Pod, schedulerName, preemptorName string) error {
	patch := map[string]any{
		"metadata": map[string]any{"uid": p.UID},
		"status": map[string]any{"conditions": []corev1.PodCondition{{
			Type:               corev1.DisruptionTarget,
			Status:             corev1.ConditionTrue,
			Reason:             corev1.PodReasonPreemptionByScheduler,
			Message:            fmt.Sprintf("%s: preempting to accommodate higher-priority %s", schedulerName, preemptorName),
			LastTransitionTime: metav1.Now(),
		}}},
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encoding the DisruptionTarget patch: %w", err)
	}
	if _, err := m.kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, data, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("patching the status of pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}
