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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// podTraits is what a group's pod template brings to the placement search
// beyond its request and node constraints: its required inter-pod affinity
// and anti-affinity terms and host ports, and its labels and namespace, which
// the terms of other pods are matched against.
type podTraits struct {
	pod      *corev1.Pod
	affinity []fwk.AffinityTerm
	anti     []fwk.AffinityTerm
	ports    []corev1.ContainerPort
	// namespaceLabels returns a namespace's labels, for terms with a namespaceSelector.
	namespaceLabels func(string) labels.Set
}

// newPodTraits reads the template's terms the way kube-scheduler does
// (framework.NewPodInfo: the pod's own namespace when a term names none). A
// template whose terms do not parse gets none here; kube-scheduler's
// InterPodAffinity PreFilter rejects such a pod itself.
func newPodTraits(pod *corev1.Pod, namespaceLabels func(string) labels.Set) *podTraits {
	t := &podTraits{pod: pod, ports: schedutil.GetHostPorts(pod), namespaceLabels: namespaceLabels}
	if pi, err := framework.NewPodInfo(pod); err == nil {
		t.affinity = pi.GetRequiredAffinityTerms()
		t.anti = pi.GetRequiredAntiAffinityTerms()
	}
	return t
}

// matches reports whether a term selects the pod.
func (t *podTraits) matches(term *fwk.AffinityTerm, pod *corev1.Pod) bool {
	var nsLabels labels.Set
	if t.namespaceLabels != nil && !term.NamespaceSelector.Empty() {
		nsLabels = t.namespaceLabels(pod.Namespace)
	}
	return term.Matches(pod, nsLabels)
}

// matchesAll reports whether every one of the terms selects the pod.
func (t *podTraits) matchesAll(terms []fwk.AffinityTerm, pod *corev1.Pod) bool {
	for i := range terms {
		if !t.matches(&terms[i], pod) {
			return false
		}
	}
	return true
}

type topologyPair struct{ key, value string }

// groupConflict says a pod of one group may not share a domain of key with a
// placed pod of group (an anti-affinity term of either side selects the other).
type groupConflict struct {
	key   string
	group int
}

// simGroup is what the search checks for one group's pods.
type simGroup struct {
	// constrained groups are placed one pod at a time through fits.
	constrained bool
	ports       []corev1.ContainerPort
	// existingBlocked are the domains (key → values) where pods already on
	// nodes forbid this group's pods: its anti-affinity selects them, or theirs selects it.
	existingBlocked map[string]sets.Set[string]
	conflicts       []groupConflict
	affinity        []fwk.AffinityTerm
	// affinityExisting are, per affinity term, the domains holding a pod
	// already on a node that every affinity term selects.
	affinityExisting []sets.Set[string]
	anyExisting      bool
	// affinitySources are the groups whose pods every affinity term selects.
	affinitySources []int
	// selfAffine is set when the group's own pods satisfy its affinity terms:
	// its first pod may go where no selected pod is yet, as in kube-scheduler.
	selfAffine bool
	// refused names the checks that turned a node down, for the failure message.
	refused sets.Set[string]
}

// simEntry is one placement the search made, to be undone when its trial fails.
type simEntry struct {
	group int
	node  *SimNode
	count int64
}

// podSim models, for the groups whose pods have inter-pod (anti-)affinity or
// host ports, the per-pod filters kube-scheduler applies (InterPodAffinity's
// required terms and NodePorts) against the pods on the nodes plus the pods
// the search itself placed. It is nil when no group needs it.
type podSim struct {
	groups []simGroup
	// keys are the topology keys whose domains count placed pods.
	keys   []string
	counts map[topologyPair]map[int]int64
	totals map[int]int64
	ports  map[string]fwk.HostPortInfo
	log    []simEntry
}

// newPodSim prepares the model for the demands on the nodes. The pods on the
// nodes are read once: those with required anti-affinity always (they may
// forbid any group), all pods only for groups with terms of their own.
func newPodSim(nodes []*SimNode, demands []GroupDemand) *podSim {
	type existingPod struct {
		node *SimNode
		pod  fwk.PodInfo
	}
	var withAnti []existingPod
	for _, n := range nodes {
		if n.info == nil {
			continue
		}
		for _, pi := range n.info.GetPodsWithRequiredAntiAffinity() {
			withAnti = append(withAnti, existingPod{n, pi})
		}
	}
	sim := &podSim{groups: make([]simGroup, len(demands)), counts: map[topologyPair]map[int]int64{}, totals: map[int]int64{}, ports: map[string]fwk.HostPortInfo{}}
	keys := sets.New[string]()
	needed := false
	for gi := range demands {
		t := demands[gi].pod
		if t == nil {
			continue
		}
		sg := &sim.groups[gi]
		sg.refused = sets.New[string]()
		sg.ports = t.ports
		sg.existingBlocked = map[string]sets.Set[string]{}
		block := func(n *SimNode, key string) {
			if v, ok := n.Labels[key]; ok {
				if sg.existingBlocked[key] == nil {
					sg.existingBlocked[key] = sets.New[string]()
				}
				sg.existingBlocked[key].Insert(v)
			}
		}
		for _, e := range withAnti {
			for i, term := range e.pod.GetRequiredAntiAffinityTerms() {
				if t.matches(&e.pod.GetRequiredAntiAffinityTerms()[i], t.pod) {
					block(e.node, term.TopologyKey)
				}
			}
		}
		sg.affinity = t.affinity
		sg.affinityExisting = make([]sets.Set[string], len(t.affinity))
		for i := range sg.affinityExisting {
			sg.affinityExisting[i] = sets.New[string]()
		}
		if len(t.anti) > 0 || len(t.affinity) > 0 {
			for _, n := range nodes {
				if n.info == nil {
					continue
				}
				for _, pi := range n.info.GetPods() {
					p := pi.GetPod()
					for i := range t.anti {
						if t.matches(&t.anti[i], p) {
							block(n, t.anti[i].TopologyKey)
						}
					}
					if len(t.affinity) > 0 && t.matchesAll(t.affinity, p) {
						sg.anyExisting = true
						for i, term := range t.affinity {
							if v, ok := n.Labels[term.TopologyKey]; ok {
								sg.affinityExisting[i].Insert(v)
							}
						}
					}
				}
			}
		}
		for hi := range demands {
			h := demands[hi].pod
			if h == nil {
				continue
			}
			for i := range t.anti {
				if t.matches(&t.anti[i], h.pod) {
					sg.conflicts = append(sg.conflicts, groupConflict{key: t.anti[i].TopologyKey, group: hi})
					keys.Insert(t.anti[i].TopologyKey)
				}
			}
			for i := range h.anti {
				if h.matches(&h.anti[i], t.pod) {
					sg.conflicts = append(sg.conflicts, groupConflict{key: h.anti[i].TopologyKey, group: hi})
					keys.Insert(h.anti[i].TopologyKey)
				}
			}
			if len(t.affinity) > 0 && t.matchesAll(t.affinity, h.pod) {
				sg.affinitySources = append(sg.affinitySources, hi)
				if hi == gi {
					sg.selfAffine = true
				}
			}
		}
		for _, term := range t.affinity {
			keys.Insert(term.TopologyKey)
		}
		sg.constrained = len(sg.ports) > 0 || len(sg.existingBlocked) > 0 || len(sg.conflicts) > 0 || len(sg.affinity) > 0
		needed = needed || sg.constrained
	}
	if !needed {
		return nil
	}
	sim.keys = sets.List(keys)
	return sim
}

// constrained reports whether the group's pods must be placed one at a time through fits.
func (s *podSim) constrained(gi int) bool {
	return s != nil && s.groups[gi].constrained
}

// selfStart returns the topology keys of the group's affinity terms when its
// first pod may start a domain of its own: the group is affine to itself and
// nothing its terms select is on a node or placed yet. Nil otherwise.
func (s *podSim) selfStart(gi int) []string {
	if s == nil {
		return nil
	}
	sg := &s.groups[gi]
	if !sg.selfAffine || sg.anyExisting {
		return nil
	}
	for _, h := range sg.affinitySources {
		if s.totals[h] > 0 {
			return nil
		}
	}
	keys := make([]string, 0, len(sg.affinity))
	for _, term := range sg.affinity {
		keys = append(keys, term.TopologyKey)
	}
	return keys
}

// fits reports whether one more pod of the group may go on the node as far as
// inter-pod (anti-)affinity and host ports are concerned.
func (s *podSim) fits(gi int, n *SimNode) bool {
	if s == nil {
		return true
	}
	sg := &s.groups[gi]
	for key, values := range sg.existingBlocked {
		if v, ok := n.Labels[key]; ok && values.Has(v) {
			sg.refused.Insert("pod anti-affinity")
			return false
		}
	}
	for _, c := range sg.conflicts {
		if v, ok := n.Labels[c.key]; ok && s.counts[topologyPair{c.key, v}][c.group] > 0 {
			sg.refused.Insert("pod anti-affinity")
			return false
		}
	}
	for _, p := range sg.ports {
		if (n.info != nil && n.info.GetUsedPorts().CheckConflict(p.HostIP, string(p.Protocol), p.HostPort)) ||
			s.ports[n.Name].CheckConflict(p.HostIP, string(p.Protocol), p.HostPort) {
			sg.refused.Insert("host ports")
			return false
		}
	}
	if len(sg.affinity) > 0 && !s.affinityHolds(sg, n) {
		sg.refused.Insert("pod affinity")
		return false
	}
	return true
}

// affinityHolds applies the group's required affinity terms to the node: each
// term's domain must hold a pod every term selects, on a node already or
// placed by the search; failing that, a self-affine group's first pod may go
// anywhere the topology labels exist.
func (s *podSim) affinityHolds(sg *simGroup, n *SimNode) bool {
	found := true
	for i, term := range sg.affinity {
		v, ok := n.Labels[term.TopologyKey]
		if !ok {
			return false
		}
		if sg.affinityExisting[i].Has(v) {
			continue
		}
		placed := false
		for _, h := range sg.affinitySources {
			if s.counts[topologyPair{term.TopologyKey, v}][h] > 0 {
				placed = true
				break
			}
		}
		if !placed {
			found = false
		}
	}
	if found {
		return true
	}
	if sg.anyExisting || !sg.selfAffine {
		return false
	}
	for _, h := range sg.affinitySources {
		if s.totals[h] > 0 {
			return false
		}
	}
	return true
}

// place records count pods of the group on the node.
func (s *podSim) place(gi int, n *SimNode, count int64) {
	if s == nil {
		return
	}
	s.apply(simEntry{group: gi, node: n, count: count}, 1)
	s.log = append(s.log, simEntry{group: gi, node: n, count: count})
}

func (s *podSim) apply(e simEntry, sign int64) {
	for _, key := range s.keys {
		v, ok := e.node.Labels[key]
		if !ok {
			continue
		}
		pair := topologyPair{key, v}
		if s.counts[pair] == nil {
			s.counts[pair] = map[int]int64{}
		}
		s.counts[pair][e.group] += sign * e.count
	}
	s.totals[e.group] += sign * e.count
	ports := s.groups[e.group].ports
	if len(ports) == 0 {
		return
	}
	used := s.ports[e.node.Name]
	if used == nil {
		used = fwk.HostPortInfo{}
		s.ports[e.node.Name] = used
	}
	for _, p := range ports {
		if sign > 0 {
			used.Add(p.HostIP, string(p.Protocol), p.HostPort)
		} else {
			used.Remove(p.HostIP, string(p.Protocol), p.HostPort)
		}
	}
}

// mark returns the point undo goes back to.
func (s *podSim) mark() int {
	if s == nil {
		return 0
	}
	return len(s.log)
}

// undo forgets the placements made since the mark (a failed trial).
func (s *podSim) undo(mark int) {
	if s == nil {
		return
	}
	for i := len(s.log) - 1; i >= mark; i-- {
		s.apply(s.log[i], -1)
	}
	s.log = s.log[:mark]
}

// why names the checks that turned nodes down for the group, for the failure message.
func (s *podSim) why(gi int) string {
	if s == nil || s.groups[gi].refused.Len() == 0 {
		return ""
	}
	reasons := sets.List(s.groups[gi].refused)
	sort.Strings(reasons)
	return " (nodes refused by " + strings.Join(reasons, ", ") + ")"
}
