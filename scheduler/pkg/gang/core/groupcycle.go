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
)

// The group-level cycle. The placement search of a gang's first pod decides
// where every pod of the minimum set goes (Placement.Nodes); that decision is
// the gang's plan. Each pod of the set is then pinned to its planned node
// (PreFilterResult with that one node), so its own scheduling cycle runs
// kube-scheduler's per-pod filters on that node only — they still decide, so
// the search can never admit what a filter refuses — skips scoring (one
// feasible node) and reserves it. The set is reserved in consecutive cycles
// without a search per pod, and the last reservation releases the whole set to
// bind together at Permit.
//
// A plan is only a shortcut: a pod whose planned node no longer has room in
// the cycle's snapshot (another pod took it since) drops the plan and runs the
// search again, and any end of the attempt (complete, failed, rejected) drops
// it. A gang the per-pod filters refused although the search placed it
// (Misfit) is not pinned: its pods go back to the domain-only decision and
// kube-scheduler's own node choice.

// planLifetime bounds how long a plan is used: a gang's pods are queued next
// to each other, so its set is normally reserved within milliseconds; a plan
// older than this is stale and the search runs again.
const planLifetime = 2 * time.Second

// gangPlan is the nodes the search chose for the pods a gang's minimum set
// still needs, handed out one per pod.
type gangPlan struct {
	// nodes maps a group index to the planned nodes not handed out yet.
	nodes map[int][]string
	// required and preferred are the search's topology decision per group.
	required, preferred map[int]map[string]string
	expires             time.Time
}

// pinnable reports whether a pod may be pinned to a planned node: only pods
// whose every constraint and preference the search models. Topology spread
// constraints, claims of volumes or devices, and preferred node or inter-pod
// (anti-)affinity terms keep kube-scheduler's own node choice inside the
// decided domain: a pinned pod has one feasible node, so kube-scheduler
// skips scoring and a preference would be ignored.
func pinnable(pod *corev1.Pod) bool {
	if len(pod.Spec.TopologySpreadConstraints) > 0 || len(pod.Spec.ResourceClaims) > 0 || hasPreferredAffinity(pod.Spec.Affinity) {
		return false
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return false
		}
	}
	return true
}

// hasPreferredAffinity reports whether the affinity states any preferred
// (scoring-only) term.
func hasPreferredAffinity(a *corev1.Affinity) bool {
	switch {
	case a == nil:
		return false
	case a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0,
		a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0,
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0:
		return true
	}
	return false
}

// storePlanLocked keeps the search's placement as the gang's plan, the node
// handed to the pod at hand (group gi) taken out, and returns that node ("" when
// the pod is not pinned). m.mu must be held for writing.
func (m *Manager) storePlanLocked(st *gangState, gi int, pod *corev1.Pod, p *Placement) string {
	st.plan = nil
	if st.phase.misfit() || !pinnable(pod) || len(p.Nodes[gi]) == 0 {
		return ""
	}
	plan := &gangPlan{nodes: make(map[int][]string, len(p.Nodes)), required: p.Required, preferred: p.Preferred, expires: time.Now().Add(planLifetime)}
	for g, nodes := range p.Nodes {
		plan.nodes[g] = nodes
	}
	node := plan.nodes[gi][0]
	plan.nodes[gi] = plan.nodes[gi][1:]
	st.plan = plan
	return node
}

// plannedDecision hands the pod its planned node if the gang has a live plan
// with a node left for its group and that node still has room for the pod in
// the cycle's snapshot; nil means run the search. A plan that failed the check
// is dropped.
func (m *Manager) plannedDecision(key string, gi int, pod *corev1.Pod, nodeInfos []fwk.NodeInfo) *Decision {
	if !pinnable(pod) {
		return nil
	}
	m.mu.Lock()
	st := m.stateLocked(key)
	plan := st.plan
	if plan == nil || st.phase.misfit() || time.Now().After(plan.expires) || len(plan.nodes[gi]) == 0 {
		st.plan = nil
		m.mu.Unlock()
		return nil
	}
	node := plan.nodes[gi][0]
	plan.nodes[gi] = plan.nodes[gi][1:]
	m.mu.Unlock()
	if !hasRoom(nodeInfos, node, requestOf(pod)) {
		m.mu.Lock()
		if st.plan == plan {
			st.plan = nil
		}
		m.mu.Unlock()
		return nil
	}
	return &Decision{Node: node, Required: plan.required[gi], Preferred: plan.preferred[gi]}
}

// hasRoom reports whether the node has the request free in the cycle's
// snapshot (pods assumed by earlier cycles included). A scan of the
// snapshot's node list by name, far cheaper than the search it replaces.
func hasRoom(nodeInfos []fwk.NodeInfo, node string, req Resources) bool {
	for _, ni := range nodeInfos {
		if n := ni.Node(); n != nil && n.Name == node {
			nodes, _ := simNodes([]fwk.NodeInfo{ni})
			return nodes[0].Free.copies(req) >= 1
		}
	}
	return false
}
