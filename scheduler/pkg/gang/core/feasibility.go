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
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/pkg/util"

	apicommon "github.com/grove-project/grove/api/common"
)

// Decision is what PreFilter learned for a pod: the node labels it must and should land on.
type Decision struct {
	// Required node labels (hard topology packing); nil means any node.
	Required map[string]string
	// Preferred node labels (soft topology packing).
	Preferred map[string]string
	// BestEffort is set for pods beyond their group's minReplicas: they never
	// fail or preempt on behalf of the gang, and wait until the minimum set is placed.
	BestEffort bool
	// Node is the node the gang's plan gives the pod (groupcycle.go): its
	// cycle filters that node only. Empty leaves the choice to kube-scheduler.
	Node string
	// AwaitingClaims is set for a pod turned back until the scheduler sees
	// the ResourceClaims its gang's search allocated (claims.go): it neither
	// preempts nor fails its gang.
	AwaitingClaims bool
}

// PreFilter runs the gang feasibility and placement search for a pod of a gang
// against the cycle's snapshot. A nil Decision with nil status means the pod is
// not in a gang.
func (m *Manager) PreFilter(pod *corev1.Pod, nodeInfos []fwk.NodeInfo) (*Decision, *fwk.Status) {
	key, ok := GangKey(pod)
	if !ok {
		return nil, nil
	}
	spec := m.spec(key)
	if spec == nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("PodGang %s not found", key))
	}
	gi, ok := spec.refIndex[pod.Name]
	if !ok {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("pod is not referenced by PodGang %s", key))
	}

	m.mu.Lock()
	st := m.stateLocked(key)
	view := m.viewOfLocked(spec, st)
	met := view.minSetMet()
	if !met && view.counts[gi] >= spec.groups[gi].min {
		m.mu.Unlock()
		return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable,
			fmt.Sprintf("best-effort pod of group %s waits until the minimum set of PodGang %s is placed", spec.groups[gi].name, key))
	}
	if !met {
		m.transitionLocked(key, st, evAttemptStarted)
		if st.attemptStart.IsZero() {
			st.attemptStart = time.Now()
		}
	}
	m.mu.Unlock()
	if !met {
		if n := m.claimsUnobserved(key); n > 0 {
			m.activateAfter(spec, claimsObservedPoll)
			return &Decision{AwaitingClaims: true}, fwk.NewStatus(fwk.Unschedulable,
				fmt.Sprintf("waits until the scheduler sees the %d ResourceClaims allocated for PodGang %s", n, key))
		}
		if d := m.plannedDecision(key, gi, pod, nodeInfos); d != nil {
			return d, nil
		}
	}

	nodes, byName := simNodes(nodeInfos)
	var demands []GroupDemand
	if met {
		blockers, waiting := m.pendingSiblings(spec, nodes, byName)
		if len(blockers) > 0 {
			return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable,
				fmt.Sprintf("best-effort pod of group %s yields to the pending minimum sets of PodGangs %s", spec.groups[gi].name, strings.Join(blockers, ", ")))
		}
		if left := m.settling(); waiting && left > 0 {
			m.activateAfter(spec, left)
			return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable,
				fmt.Sprintf("best-effort pod of group %s waits for new capacity to settle before the pending minimum sets of its PodCliqueSet's other gangs", spec.groups[gi].name))
		}
		// The minimum set is placed: this pod is best effort and only needs a spot
		// of its own inside the domains its gang already occupies.
		demands = m.singleDemand(spec, gi, pod)
	} else {
		var msg string
		demands, msg = m.gangDemands(view, gi, pod, false)
		if msg != "" {
			m.recordFailure(key, msg)
			return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, podMessage(msg))
		}
	}
	placement, fail := Search(nodes, demands, view.scope(byName))
	if fail != nil {
		if met {
			return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable, podMessage(fail.Message))
		}
		m.recordFailure(key, fail.Message)
		return nil, fwk.NewStatus(fwk.Unschedulable, podMessage(fail.Message))
	}
	if !met && len(placement.Claims) > 0 {
		// The per-pod plugin only lets the gang's pods share a claim it sees
		// allocated: write the allocations, and try the gang's pods again
		// once the scheduler sees them (devices.go).
		if err := m.writeClaims(key, placement.Claims); err != nil {
			m.activateAfter(spec, claimsObservedPoll)
			return &Decision{AwaitingClaims: true}, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("PodGang %s: %v", key, err))
		}
		m.activateAfter(spec, claimsObservedPoll)
		return &Decision{AwaitingClaims: true}, fwk.NewStatus(fwk.Unschedulable,
			fmt.Sprintf("allocated %d ResourceClaims for PodGang %s; its pods go once the scheduler sees them", len(placement.Claims), key))
	}
	d := &Decision{Required: placement.Required[gi], Preferred: placement.Preferred[gi], BestEffort: met}
	if !met {
		m.mu.Lock()
		d.Node = m.storePlanLocked(m.stateLocked(key), gi, pod, placement)
		m.mu.Unlock()
	}
	return d, nil
}

// recordFailure remembers why the gang does not fit, for its status and Events.
func (m *Manager) recordFailure(key, msg string) {
	m.mu.Lock()
	st := m.stateLocked(key)
	changed := st.reason != msg
	st.reason = msg
	m.transitionLocked(key, st, evSearchRejected)
	m.mu.Unlock()
	m.releaseClaims(key)
	if spec := m.spec(key); spec != nil {
		m.releaseExtras(key, spec.family)
	}
	if changed {
		m.status.EventOnGang(key, corev1.EventTypeWarning, "Unschedulable", msg)
	}
	m.status.Enqueue(key)
}

// singleDemand is the demand of one best-effort pod.
func (m *Manager) singleDemand(spec *gangSpec, gi int, pod *corev1.Pod) []GroupDemand {
	demands := make([]GroupDemand, len(spec.groups))
	for i, g := range spec.groups {
		demands[i] = GroupDemand{Name: g.name}
	}
	demands[gi] = m.demandFor(spec.groups[gi].name, 1, pod, m.volumeTopologyOf(pod))
	// A missing claim holds the pod back in the per-pod plugin already.
	demands[gi].withClaims(m.deviceEnvFor(nil, pod), []*corev1.Pod{pod})
	return demands
}

// gangDemands computes what each group still needs for the minimum set, using
// the pod at hand for its own group (gi; -1 for none) and one unplaced
// referenced pod as the template for every other group. A non-empty message
// means the gang cannot be complete because pods are missing; with
// skipForeignGated, pods held by a foreign scheduling gate count as missing.
// Groups whose pods claim devices carry each pod's claims (devices.go).
func (m *Manager) gangDemands(v gangView, gi int, pod *corev1.Pod, skipForeignGated bool) ([]GroupDemand, string) {
	spec := v.spec
	demands := make([]GroupDemand, len(spec.groups))
	var env *deviceEnv
	for i, g := range spec.groups {
		need := g.min - v.counts[i]
		if need <= 0 {
			demands[i] = GroupDemand{Name: g.name}
			continue
		}
		var first *corev1.Pod
		if i == gi {
			first = pod
		}
		pending := m.unplacedPods(v, i, need, first, skipForeignGated)
		if i != gi && int64(len(pending)) < need {
			return nil, fmt.Sprintf("group %s needs %d more pods but only %d of its referenced pods exist unplaced", g.name, need, len(pending))
		}
		if i == gi {
			demands[i] = m.demandFor(g.name, need, pod, m.groupVolumeTopology(v, i, pod))
		} else {
			demands[i] = m.demandFor(g.name, need, pending[0], m.groupVolumeTopology(v, i, nil))
		}
		env = m.deviceEnvFor(env, pending...)
		if msg := demands[i].withClaims(env, pending); msg != "" {
			return nil, msg
		}
	}
	return demands, ""
}

// unplacedPods returns up to need of group i's referenced pods that hold no
// node, first (when set) in front.
func (m *Manager) unplacedPods(v gangView, i int, need int64, first *corev1.Pod, skipForeignGated bool) []*corev1.Pod {
	var out []*corev1.Pod
	if first != nil {
		out = append(out, first)
	}
	for _, ref := range v.spec.groups[i].refs {
		if int64(len(out)) >= need {
			break
		}
		if _, ok := v.assigned[ref]; ok || (first != nil && ref == first.Name) {
			continue
		}
		p, err := m.pods.Pods(v.spec.namespace).Get(ref)
		if err != nil || p.DeletionTimestamp != nil || (skipForeignGated && heldByForeignGate(p)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// deviceEnvFor returns env, or a new view of the cluster's devices when env
// is nil and one of the pods claims devices; nil when none does or the
// scheduler has no DRA.
func (m *Manager) deviceEnvFor(env *deviceEnv, pods ...*corev1.Pod) *deviceEnv {
	if env != nil || m.dra == nil || !slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return len(p.Spec.ResourceClaims) > 0 }) {
		return env
	}
	env, err := newDeviceEnv(m.dra)
	if err != nil {
		m.log.Error(err, "Reading devices for the placement search")
		return nil
	}
	return env
}

// withClaims gives the demand the claims of the pods it places, in order,
// when any of them claims devices. A non-empty message names a pod whose
// claim does not exist yet.
func (d *GroupDemand) withClaims(env *deviceEnv, pods []*corev1.Pod) string {
	if env == nil {
		return ""
	}
	// By pod index, so that the search (and its message) does not depend on
	// which pod of the group is at hand.
	pods = slices.Clone(pods)
	slices.SortStableFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(podIndex(a), podIndex(b)), strings.Compare(a.Name, b.Name))
	})
	claims := make([][]*resourcev1.ResourceClaim, len(pods))
	claimed := false
	for k, p := range pods {
		var missing string
		if claims[k], missing = env.podClaims(p); missing != "" {
			return fmt.Sprintf("group %s: pod %s waits for its ResourceClaim %s to be created", d.Name, p.Name, missing)
		}
		claimed = claimed || len(claims[k]) > 0
	}
	if claimed {
		d.claims, d.devices = claims, env
	}
	return ""
}

// podIndex is the pod's index in its PodClique; -1 without the label.
func podIndex(p *corev1.Pod) int {
	i, err := strconv.Atoi(p.Labels[apicommon.LabelPodCliquePodIndex])
	if err != nil {
		return -1
	}
	return i
}

// scope instantiates the gang's pack scopes, fixing the domains its placed
// pods occupy, and for a scaled gang the domain its base gang's pods occupy.
func (v gangView) scope(byName map[string]*SimNode) *Scope {
	anchor := baseAnchor{key: v.spec.base}
	for _, nodeName := range v.baseAssigned {
		if n := byName[nodeName]; n != nil {
			anchor.nodes = append(anchor.nodes, n)
		}
	}
	return v.spec.root.instantiate(domainResolver(v.spec, v.assigned, byName), anchor)
}

// demandFor builds a demand from a pod's effective request (init containers and
// overhead included, via scheduler-plugins' helper), its node constraints, the
// topology of its bound volumes (volumes.go) and the traits the search checks
// against other pods (affinity.go).
func (m *Manager) demandFor(name string, count int64, pod *corev1.Pod, volumes volumeTopology) GroupDemand {
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	tolerations := pod.Spec.Tolerations
	// why names the constraint that excludes a node; the search asks only
	// whether one does (detailed false: no message is formatted on its path).
	why := func(n *SimNode, detailed bool) string {
		switch {
		case n.node == nil:
			return reasonNodeUnknown
		case !volumes.allows(n.node):
			return reasonVolumeAffinity
		}
		return exclusion(n.node, affinity, tolerations, detailed)
	}
	return GroupDemand{Name: name, Count: count, Request: requestOf(pod),
		Eligible:   func(n *SimNode) bool { return why(n, false) == "" },
		Ineligible: func(n *SimNode) string { return why(n, true) },
		pod:        newPodTraits(pod, m.namespaceLabels)}
}

// requestOf is a pod's effective request as a Resources vector.
func requestOf(pod *corev1.Pod) Resources {
	req := Resources{Pods: 1}
	for rname, q := range util.GetPodEffectiveRequest(pod) {
		switch rname {
		case corev1.ResourceCPU:
			req.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			req.Memory = q.Value()
		case corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		default:
			if req.Scalar == nil {
				req.Scalar = map[corev1.ResourceName]int64{}
			}
			req.Scalar[rname] = q.Value()
		}
	}
	return req
}

// eligible reports whether a pod with the given required node affinity and
// tolerations may run on the node at all: not cordoned, affinity matched, no
// untolerated NoSchedule or NoExecute taint. Toleration comparison operators
// (Gt/Lt, the alpha TaintTolerationComparisonOperators feature of 1.37, off by
// default) are not evaluated, as by kube-scheduler's default configuration.
func eligible(node *corev1.Node, affinity nodeaffinity.RequiredNodeAffinity, tolerations []corev1.Toleration) bool {
	return exclusion(node, affinity, tolerations, false) == ""
}

// exclusion says, in kube-scheduler's words, why such a pod may not run on
// the node at all; "" when it may. Only detailed names the untolerated taint
// (formatting it on the search's path would allocate per node).
func exclusion(node *corev1.Node, affinity nodeaffinity.RequiredNodeAffinity, tolerations []corev1.Toleration, detailed bool) string {
	if node.Spec.Unschedulable {
		return reasonNodeUnschedulable
	}
	if ok, _ := affinity.Match(node); !ok {
		return reasonNodeAffinity
	}
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	switch {
	case untolerated && detailed:
		return untoleratedTaint(&taint)
	case untolerated:
		return reasonUntoleratedTaint
	}
	return ""
}

// simNodes converts the snapshot into the search's view: allocatable minus requested.
func simNodes(nodeInfos []fwk.NodeInfo) ([]*SimNode, map[string]*SimNode) {
	nodes := make([]*SimNode, 0, len(nodeInfos))
	byName := make(map[string]*SimNode, len(nodeInfos))
	for _, ni := range nodeInfos {
		node := ni.Node()
		if node == nil {
			continue
		}
		alloc, used := ni.GetAllocatable(), ni.GetRequested()
		free := Resources{
			MilliCPU: alloc.GetMilliCPU() - used.GetMilliCPU(),
			Memory:   alloc.GetMemory() - used.GetMemory(),
			Pods:     int64(alloc.GetAllowedPodNumber() - len(ni.GetPods())),
		}
		for name, v := range alloc.GetScalarResources() {
			if free.Scalar == nil {
				free.Scalar = map[corev1.ResourceName]int64{}
			}
			free.Scalar[name] = v - used.GetScalarResources()[name]
		}
		sn := &SimNode{Name: node.Name, Labels: node.Labels, Free: free, node: node, info: ni}
		nodes = append(nodes, sn)
		byName[node.Name] = sn
	}
	return nodes, byName
}

// domainResolver finds the domain a scope's already placed pods occupy.
func domainResolver(spec *gangSpec, assigned map[string]string, byName map[string]*SimNode) func([]int, string) string {
	return func(groups []int, key string) string {
		for _, gi := range groups {
			for _, ref := range spec.groups[gi].refs {
				nodeName, ok := assigned[ref]
				if !ok {
					continue
				}
				if n := byName[nodeName]; n != nil {
					if v, ok := n.Labels[key]; ok {
						return v
					}
				}
			}
		}
		return ""
	}
}
