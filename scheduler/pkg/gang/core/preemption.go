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
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// NoPreemption means no set of lower-priority units makes room.
	NoPreemption PreemptionOutcome = iota
	// Preempting means victims were evicted (now or earlier) and the gang waits for them to go.
	Preempting
)

// Preempt looks for the cheapest set of whole lower-priority units (gangs or
// ordinary pods) whose removal lets the pod's gang (or the ordinary pod alone)
// fit in the current cycle's snapshot, and evicts them.
func (m *Manager) Preempt(ctx context.Context, pod *corev1.Pod) (PreemptionOutcome, string, error) {
	nodeInfos, err := m.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return NoPreemption, "", fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	outcome, msg := m.preempt(ctx, pod, nodeInfos)
	return outcome, msg, nil
}

// preempt is Preempt against the given nodes. Pods with equal or higher
// priority are never victims, best-effort pods never preempt, and a victim
// gang loses all its pods.
func (m *Manager) preempt(ctx context.Context, pod *corev1.Pod, nodeInfos []fwk.NodeInfo) (PreemptionOutcome, string) {
	key, inGang := GangKey(pod)
	priority := corev1helpers.PodPriority(pod)
	var spec *gangSpec
	if inGang {
		spec = m.spec(key)
		if spec == nil {
			return NoPreemption, ""
		}
		priority = m.priorityOf(spec)
		if msg, busy := m.preemptionInFlight(key); busy {
			return Preempting, msg
		}
	}

	nodes, byName := simNodes(nodeInfos)
	var demands []GroupDemand
	var root *Scope
	if inGang {
		view := m.view(spec)
		if view.minSetMet() {
			// Best-effort extras never preempt: they are not part of the guarantee.
			return NoPreemption, ""
		}
		var msg string
		demands, msg = m.gangDemands(view, spec.refIndex[pod.Name], pod, false)
		if msg != "" {
			return NoPreemption, ""
		}
		root = view.scope(byName)
	} else {
		demands = []GroupDemand{demandFor("pod "+pod.Name, 1, pod)}
		root = &Scope{Name: "pod " + pod.Name, Groups: []int{0}}
	}

	victims := chooseVictims(nodes, byName, demands, root, m.victimUnits(nodeInfos, priority, key))
	if len(victims) == 0 {
		return NoPreemption, ""
	}
	return Preempting, m.evict(ctx, key, inGang, pod, victims)
}

// chooseVictims removes units in the given order (cheapest first) from the
// simulated capacity until the demands fit, then spares every unit the final
// choice made unnecessary. It returns nil when even removing all units does
// not make room. The simulated free capacity of the nodes is changed.
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

// evict deletes every pod of every victim unit (for a gang: all pods its PodGang
// references, placed or not) and records Events on the PodGangs involved.
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

func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}
