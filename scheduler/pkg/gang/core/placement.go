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
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// Resources is a compact request or capacity vector: milli-CPU, bytes of memory,
// pod slots and scalar (extended) resources by name.
type Resources struct {
	MilliCPU int64
	Memory   int64
	Pods     int64
	Scalar   map[corev1.ResourceName]int64
}

// copyOf returns a deep copy so simulations never alias the caller's maps.
func (r Resources) copyOf() Resources {
	out := r
	if r.Scalar != nil {
		out.Scalar = make(map[corev1.ResourceName]int64, len(r.Scalar))
		for k, v := range r.Scalar {
			out.Scalar[k] = v
		}
	}
	return out
}

// copies returns how many copies of req fit into r.
func (r Resources) copies(req Resources) int64 {
	n := int64(1 << 40)
	limit := func(free, want int64) {
		if want <= 0 {
			return
		}
		if free < 0 {
			free = 0
		}
		if c := free / want; c < n {
			n = c
		}
	}
	limit(r.MilliCPU, req.MilliCPU)
	limit(r.Memory, req.Memory)
	limit(r.Pods, req.Pods)
	for name, want := range req.Scalar {
		limit(r.Scalar[name], want)
	}
	return n
}

// sub removes n copies of req from r.
func (r *Resources) sub(req Resources, n int64) {
	r.MilliCPU -= req.MilliCPU * n
	r.Memory -= req.Memory * n
	r.Pods -= req.Pods * n
	for name, want := range req.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[name] -= want * n
	}
}

// Add adds req to r (used to give back the resources of preemption victims).
func (r *Resources) Add(req Resources) {
	r.sub(req, -1)
}

// String renders the request the way users write it, extended resources first,
// e.g. "4 nvidia.com/gpu, 500m cpu, 1Gi memory".
func (r Resources) String() string {
	var parts []string
	names := make([]string, 0, len(r.Scalar))
	for name, v := range r.Scalar {
		if v > 0 {
			names = append(names, string(name))
		}
	}
	sort.Strings(names)
	for _, name := range names {
		parts = append(parts, quantity(corev1.ResourceName(name), r.Scalar[corev1.ResourceName(name)])+" "+name)
	}
	if r.MilliCPU > 0 {
		parts = append(parts, quantity(corev1.ResourceCPU, r.MilliCPU)+" cpu")
	}
	if r.Memory > 0 {
		parts = append(parts, quantity(corev1.ResourceMemory, r.Memory)+" memory")
	}
	if len(parts) == 0 {
		return "no resources"
	}
	return strings.Join(parts, ", ")
}

// SimNode is a node as the placement search sees it: its name, labels and free resources.
type SimNode struct {
	Name   string
	Labels map[string]string
	Free   Resources

	node *corev1.Node
	// info is the snapshot's view of the node: the pods on it and their host ports; nil in tests of the search alone.
	info fwk.NodeInfo
}

// GroupDemand is what one pod group still needs placed for its gang's minimum set.
type GroupDemand struct {
	// Name is the pod group name.
	Name string
	// Count is the number of pods still to place.
	Count int64
	// Request is the per-pod request.
	Request Resources
	// Eligible reports whether a node may host this group's pods at all
	// (taints, node selectors, node affinity); nil means every node.
	Eligible func(*SimNode) bool
	// Ineligible says why a node may not host the group's pods ("" when it
	// may), for the message of a gang that does not fit; nil falls back to
	// Eligible.
	Ineligible func(*SimNode) string

	// pod is the group's pod template, for the constraints that depend on
	// where other pods are (inter-pod (anti-)affinity, host ports); nil for none.
	pod *podTraits
	// claims are the ResourceClaims of each pod still to place, in the order
	// the search places them, and devices the cluster's devices they are
	// allocated from (devices.go); nil when the group's pods claim no devices.
	claims  [][]*resourcev1.ResourceClaim
	devices *deviceEnv
}

// Scope is a topology pack scope: a set of pod groups (directly or through
// child scopes) that must share one domain of RequiredKey, and should share one
// of PreferredKey. The root scope is the gang itself.
type Scope struct {
	// Name names the scope in messages (gang, group config or group name).
	Name string
	// RequiredKey is a node label key all pods of the scope must share a value of; empty means none.
	RequiredKey string
	// PreferredKey is a node label key the scope's pods should share a value of.
	PreferredKey string
	// FixedRequired is the domain value already chosen (pods of the scope are placed); empty means free.
	FixedRequired string
	// FixedBy names who holds FixedRequired when it is not the scope's own
	// pods (a scaled gang's base PodGang); the failure message then names the
	// domain the scope waits for.
	FixedBy string
	// PreferredFirst is the PreferredKey value tried before the others.
	PreferredFirst string
	// Unavailable, when set, says why the scope cannot be placed now.
	Unavailable string
	// Groups are indexes into the demand list placed directly in this scope.
	Groups []int
	// Children are nested scopes.
	Children []*Scope
}

// Placement is the outcome of a successful search: for every group, the
// label constraints its pods must satisfy (hard) and should satisfy (soft).
type Placement struct {
	// Required maps group index to required node labels.
	Required map[int]map[string]string
	// Preferred maps group index to preferred node labels.
	Preferred map[int]map[string]string
	// Nodes maps group index to the nodes the search put the group's pods on,
	// one entry per pod, in placement order.
	Nodes map[int][]string
	// Claims are the ResourceClaims the search allocated (devices.go), in the
	// order it allocated them; claims allocated before the search are not
	// in it.
	Claims []ClaimAllocation
}

// Infeasible explains why a search failed.
type Infeasible struct {
	// Message is the human readable reason, e.g. "group decode needs 4 pods
	// with 4 nvidia.com/gpu, 2 fit: 1/40 nodes are available: 39 Insufficient
	// nvidia.com/gpu".
	Message string
}

// Search places every demand onto nodes (a what-if on copies of the free
// resources) honouring the pack scopes. It tries required domains smallest
// first so gangs pack tightly and leave large domains for large gangs; preferred
// keys pick the domain that holds the whole scope when one exists. The cost is
// O(nodes × groups × domains tried), independent of the number of pods in the
// cluster, for groups whose pods carry no inter-pod (anti-)affinity or host
// ports; those are placed one pod at a time against the pods already on the
// nodes and the ones the search itself placed (affinity.go).
//
// Claims shared by several pods are allocated with their first consumer, on
// the node the greedy placement gives it. When that fails, the search is
// run again on each node with free devices for all the claims of the shared
// claims' pods, with the shared claims allocated there up front
// (devices.go), so a gang is not turned down for its first consumer's
// choice; the failure reported is the first run's.
func Search(nodes []*SimNode, demands []GroupDemand, root *Scope) (*Placement, *Infeasible) {
	p, fail := searchOnce(nodes, demands, root, nil)
	if fail == nil {
		return p, nil
	}
	env := demandDevices(demands)
	shared, devices := sharedClaims(env, demands)
	if len(shared) == 0 {
		return nil, fail
	}
	for _, n := range nodes {
		if n.node == nil || env.freeDevices(n.node) < devices {
			continue
		}
		if p, retry := searchOnce(nodes, demands, root, &sharedPin{node: n, claims: shared}); retry == nil {
			return p, nil
		}
	}
	return nil, fail
}

// sharedPin allocates a gang's shared claims on one node before its pods are placed.
type sharedPin struct {
	node   *SimNode
	claims []*resourcev1.ResourceClaim
}

// searchOnce is one run of the search, the shared claims allocated on pin's
// node first when pin is set.
func searchOnce(nodes []*SimNode, demands []GroupDemand, root *Scope, pin *sharedPin) (*Placement, *Infeasible) {
	free := make(map[string]Resources, len(nodes))
	for _, n := range nodes {
		free[n.Name] = n.Free.copyOf()
	}
	se := &search{
		demands: demands,
		p:       &Placement{Required: map[int]map[string]string{}, Preferred: map[int]map[string]string{}, Nodes: map[int][]string{}},
		sim:     newPodSim(nodes, demands),
		dev:     newDeviceSim(demandDevices(demands), demands),
		// A retry's failure is not reported: it words none.
		quiet: pin != nil,
	}
	// The devices the run allocated leave the shared allocated state with it.
	defer se.dev.undo(0)
	if pin != nil && !se.dev.allocateOn(pin.node, pin.claims) {
		return nil, errRetryFailed
	}
	if fail := se.placeScope(nodes, free, root, nil, nil); fail != nil {
		return nil, fail
	}
	se.p.Claims = se.dev.made()
	return se.p, nil
}

// demandDevices is the device view the demands' claims come from; nil when
// no demand carries claims.
func demandDevices(demands []GroupDemand) *deviceEnv {
	for _, d := range demands {
		if d.devices != nil {
			return d.devices
		}
	}
	return nil
}

// search is one run of Search: the demands, the placement being built, the
// pods it placed so far and the claims it allocated (each nil when no group
// needs them).
type search struct {
	demands []GroupDemand
	p       *Placement
	sim     *podSim
	dev     *deviceSim
	quiet   bool
}

// errRetryFailed is the failure of a quiet search.
var errRetryFailed = &Infeasible{Message: "the gang does not fit with its shared claims on this node"}

// trial is a point a failed trial goes back to.
type trial struct{ pods, claims int }

func (se *search) mark() trial {
	return trial{pods: se.sim.mark(), claims: se.dev.mark()}
}

func (se *search) undo(t trial) {
	se.sim.undo(t.pods)
	se.dev.undo(t.claims)
}

// placeScope places one scope within candidate nodes, committing to free only on success.
func (se *search) placeScope(nodes []*SimNode, free map[string]Resources, s *Scope, req, pref map[string]string) *Infeasible {
	if s.Unavailable != "" {
		return &Infeasible{Message: s.Unavailable}
	}
	if s.RequiredKey == "" {
		return se.placeWithPreference(nodes, free, s, req, pref)
	}
	domains, order := partition(nodes, s.RequiredKey)
	if s.FixedRequired != "" {
		order = []string{s.FixedRequired}
	}
	var lastFail *Infeasible
	for _, value := range order {
		trial := cloneFree(free, domains[value])
		mark := se.mark()
		childReq := withLabel(req, s.RequiredKey, value)
		if fail := se.placeWithPreference(domains[value], trial, s, childReq, pref); fail != nil {
			se.undo(mark)
			lastFail = fail
			continue
		}
		for name, r := range trial {
			free[name] = r
		}
		return nil
	}
	if s.FixedBy != "" {
		why := "no node has the label"
		if lastFail != nil {
			why = lastFail.Message
		}
		return &Infeasible{Message: fmt.Sprintf("waits for room in %s=%s, the domain %s holds: %s", s.RequiredKey, s.FixedRequired, s.FixedBy, why)}
	}
	if lastFail == nil {
		return &Infeasible{Message: fmt.Sprintf("no node has topology label %q required by %s", s.RequiredKey, s.Name)}
	}
	if len(order) == 1 {
		return lastFail
	}
	return &Infeasible{Message: fmt.Sprintf("%s does not fit in any single %q domain (%d tried): %s", s.Name, s.RequiredKey, len(order), lastFail.Message)}
}

// placeWithPreference tries the preferred domains first and falls back to all nodes.
func (se *search) placeWithPreference(nodes []*SimNode, free map[string]Resources, s *Scope, req, pref map[string]string) *Infeasible {
	if s.PreferredKey != "" {
		domains, order := partition(nodes, s.PreferredKey)
		if first := s.PreferredFirst; first != "" && domains[first] != nil {
			order = append([]string{first}, slices.DeleteFunc(slices.Clone(order), func(v string) bool { return v == first })...)
		}
		for _, value := range order {
			trial := cloneFree(free, domains[value])
			mark := se.mark()
			if se.placeMembers(domains[value], trial, s, req, withLabel(pref, s.PreferredKey, value)) == nil {
				for name, r := range trial {
					free[name] = r
				}
				return nil
			}
			se.undo(mark)
		}
	}
	return se.placeMembers(nodes, free, s, req, pref)
}

// placeMembers places child scopes first (they are the most constrained), then direct groups.
func (se *search) placeMembers(nodes []*SimNode, free map[string]Resources, s *Scope, req, pref map[string]string) *Infeasible {
	for _, child := range s.Children {
		if fail := se.placeScope(nodes, free, child, req, pref); fail != nil {
			return fail
		}
	}
	for _, gi := range s.Groups {
		d := se.demands[gi]
		on := se.placeGroup(nodes, free, gi)
		if placed := int64(len(on)); placed < d.Count {
			if se.quiet {
				return errRetryFailed
			}
			return &Infeasible{Message: fmt.Sprintf("group %s needs %d pods with %s, %d fit: %s%s%s",
				d.Name, d.Count, d.Request, placed, se.nodesAvailable(nodes, free, gi, on), se.sim.why(gi), se.dev.why(gi, len(on), nodes))}
		}
		se.p.Required[gi] = req
		se.p.Preferred[gi] = pref
		se.p.Nodes[gi] = on
	}
	return nil
}

// placeGroup places up to d.Count copies of the request and returns the node
// of each copy it placed. A group whose pods must join their own first pod's
// domain (required affinity to itself, nothing selected placed yet) tries each
// such domain in turn, smallest first, and keeps the first that holds it all.
func (se *search) placeGroup(nodes []*SimNode, free map[string]Resources, gi int) []string {
	keys := se.sim.selfStart(gi)
	if keys == nil {
		return se.placeGreedy(nodes, free, gi)
	}
	var best []string
	for _, domain := range partitionAll(nodes, keys) {
		trial := cloneFree(free, domain)
		mark := se.mark()
		on := se.placeGreedy(domain, trial, gi)
		if int64(len(on)) >= se.demands[gi].Count {
			for name, r := range trial {
				free[name] = r
			}
			return on
		}
		se.undo(mark)
		if len(on) > len(best) {
			best = on
		}
	}
	return best
}

// placeGreedy places up to d.Count copies of the request, most-allocated
// nodes first (in node order), and returns the node of each copy it placed.
// Pods whose placement depends on other pods go one at a time, each checked
// against the pods placed before it.
func (se *search) placeGreedy(nodes []*SimNode, free map[string]Resources, gi int) []string {
	d := se.demands[gi]
	// Pods with claims go one at a time too: each has claims of its own.
	single := se.sim.constrained(gi) || se.dev.claimed(gi)
	var on []string
	for _, n := range nodes {
		if int64(len(on)) >= d.Count {
			break
		}
		if d.Eligible != nil && !d.Eligible(n) {
			continue
		}
		r := free[n.Name]
		for int64(len(on)) < d.Count {
			c := r.copies(d.Request)
			if c <= 0 {
				break
			}
			if single {
				if !se.sim.fits(gi, n) || !se.dev.fits(gi, len(on), n) {
					break
				}
				c = 1
			}
			if c > d.Count-int64(len(on)) {
				c = d.Count - int64(len(on))
			}
			r.sub(d.Request, c)
			se.sim.place(gi, n, c)
			for i := int64(0); i < c; i++ {
				on = append(on, n.Name)
			}
		}
		free[n.Name] = r
	}
	return on
}

// partition groups nodes by the value of key, ordering domains smallest first, then by value.
func partition(nodes []*SimNode, key string) (map[string][]*SimNode, []string) {
	domains := map[string][]*SimNode{}
	for _, n := range nodes {
		if v, ok := n.Labels[key]; ok {
			domains[v] = append(domains[v], n)
		}
	}
	order := make([]string, 0, len(domains))
	for v := range domains {
		order = append(order, v)
	}
	sort.Slice(order, func(i, j int) bool {
		if len(domains[order[i]]) != len(domains[order[j]]) {
			return len(domains[order[i]]) < len(domains[order[j]])
		}
		return order[i] < order[j]
	})
	return domains, order
}

// partitionAll groups the nodes that carry every key by their values of the
// keys, smallest group first, then by values.
func partitionAll(nodes []*SimNode, keys []string) [][]*SimNode {
	byValues := map[string][]*SimNode{}
	var order []string
	for _, n := range nodes {
		values := make([]string, 0, len(keys))
		for _, k := range keys {
			v, ok := n.Labels[k]
			if !ok {
				break
			}
			values = append(values, v)
		}
		if len(values) < len(keys) {
			continue
		}
		id := strings.Join(values, "\x00")
		if _, seen := byValues[id]; !seen {
			order = append(order, id)
		}
		byValues[id] = append(byValues[id], n)
	}
	sort.Slice(order, func(i, j int) bool {
		if len(byValues[order[i]]) != len(byValues[order[j]]) {
			return len(byValues[order[i]]) < len(byValues[order[j]])
		}
		return order[i] < order[j]
	})
	out := make([][]*SimNode, 0, len(order))
	for _, id := range order {
		out = append(out, byValues[id])
	}
	return out
}

func cloneFree(free map[string]Resources, nodes []*SimNode) map[string]Resources {
	out := make(map[string]Resources, len(nodes))
	for _, n := range nodes {
		out[n.Name] = free[n.Name].copyOf()
	}
	return out
}

func withLabel(m map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[key] = value
	return out
}
