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
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Devices in the placement search. A gang pod's ResourceClaims are
// allocated in the search the way kube-scheduler's DynamicResources plugin
// allocates them for one pod: devices from the ResourceSlices, filtered by
// the DeviceClass and request selectors, by the structured allocator of
// k8s.io/dynamic-resource-allocation, with every device already allocated or
// in flight taken out. Unlike the per-pod plugin, the search allocates a
// claim shared by several pods of the gang once, on the node of its first
// consumer, and then admits its other consumers only where the allocation's
// node selector allows. A gang is admitted only where every member's claims
// can be allocated that way.
//
// The per-pod plugin cannot place such a gang itself: the first consumer's
// Reserve keeps the shared claim's allocation in flight (in memory) until its
// PreBind writes it, which only comes after Permit, and the plugin refuses
// every other pod of the claim while the allocation is in flight ("resource
// claim … is in the process of being allocated"). So the gang's first pod
// writes the search's allocations to the claims' status (claims.go) before
// any pod of the gang reserves: the per-pod plugin then finds the claims
// allocated, filters by their node selectors and only adds each pod to
// status.reservedFor at PreBind.

// unallocatedDevices is kube-scheduler's DynamicResources reason for a node
// where a pod's claims cannot be allocated.
const unallocatedDevices = "cannot allocate all claims"

// deviceEnv is the cluster's devices as one search sees them: the
// ResourceSlices, the DeviceClasses, the devices allocated or in flight, the
// claims by name and the allocator features of the scheduler's feature gates.
type deviceEnv struct {
	dra      fwk.SharedDRAManager
	features structured.Features
	// slices are the ResourceSlices, onNode those of each node and shared
	// those of no single node: an allocation on a node reads only its own
	// and the shared ones, so the allocator is given only those.
	slices []*resourcev1.ResourceSlice
	onNode map[string][]*resourcev1.ResourceSlice
	shared []*resourcev1.ResourceSlice
	// allocated is the cluster's allocated state, its AllocatedDevices
	// holding the devices of the running search's allocations too (deviceSim
	// adds and removes them), so no copy is made per allocation.
	allocated *structured.AllocatedState
	cel       *cel.Cache
	// selectors are the allocations' node selectors, parsed once per search.
	selectors map[*resourcev1.AllocationResult]*nodeaffinity.NodeSelector
}

// deviceCELCache holds the compiled selectors across searches, like the
// per-pod plugin's own cache.
var deviceCELCache = cel.NewCache(64, cel.Features{})

// allocatorFeatures are the structured allocator's features as the
// scheduler's feature gates set them, the same the per-pod plugin uses.
func allocatorFeatures() structured.Features {
	return dynamicresources.AllocatorFeatures(plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
}

// newDeviceEnv reads the devices for one search; nil without DRA.
func newDeviceEnv(dra fwk.SharedDRAManager) (*deviceEnv, error) {
	if dra == nil {
		return nil, nil
	}
	sl, err := dra.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return nil, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	allocated, err := dra.ResourceClaims().GatherAllocatedState()
	if err != nil {
		return nil, fmt.Errorf("gathering allocated devices: %w", err)
	}
	// The search adds its own devices: never to the tracker's set.
	allocated.AllocatedDevices = allocated.AllocatedDevices.Clone()
	e := &deviceEnv{dra: dra, features: allocatorFeatures(), slices: sl, onNode: map[string][]*resourcev1.ResourceSlice{},
		allocated: allocated, cel: deviceCELCache, selectors: map[*resourcev1.AllocationResult]*nodeaffinity.NodeSelector{}}
	for _, s := range sl {
		if s.Spec.NodeName != nil && *s.Spec.NodeName != "" {
			e.onNode[*s.Spec.NodeName] = append(e.onNode[*s.Spec.NodeName], s)
		} else {
			e.shared = append(e.shared, s)
		}
	}
	return e, nil
}

// podClaims returns the pod's ResourceClaims as the DRA manager holds them,
// in spec order, and names the first one that does not exist yet ("" when
// all do): such a pod cannot be placed, and placing its gang without it
// would leave that claim to the per-pod plugin.
func (e *deviceEnv) podClaims(pod *corev1.Pod) ([]*resourcev1.ResourceClaim, string) {
	if e == nil || len(pod.Spec.ResourceClaims) == 0 {
		return nil, ""
	}
	var out []*resourcev1.ResourceClaim
	for _, ref := range pod.Spec.ResourceClaims {
		name := claimName(pod, ref)
		if name == "" {
			return nil, ref.Name
		}
		c, err := e.dra.ResourceClaims().Get(pod.Namespace, name)
		if err != nil {
			return nil, name
		}
		out = append(out, c)
	}
	return out, ""
}

// claimName is the name of the claim a pod's entry stands for: the one it
// names, or the one generated from its template (from the pod's status).
func claimName(pod *corev1.Pod, ref corev1.PodResourceClaim) string {
	if ref.ResourceClaimName != nil {
		return *ref.ResourceClaimName
	}
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.Name == ref.Name && s.ResourceClaimName != nil {
			return *s.ResourceClaimName
		}
	}
	return ""
}

// ClaimAllocation is a claim the search allocated: the claim as read and
// the allocation to write to its status.
type ClaimAllocation struct {
	Claim  *resourcev1.ResourceClaim
	Result resourcev1.AllocationResult
}

// deviceSim is the search's what-if state of devices: the claims it has
// allocated so far, their devices added to env.allocated, undone with
// failed trials and, by the search, when it ends.
type deviceSim struct {
	env     *deviceEnv
	demands []GroupDemand
	// allocs are the search's allocations by claim UID; order keeps them in
	// the order made, for undo and for the writes.
	allocs map[types.UID]*ClaimAllocation
	order  []types.UID
	// err is the first allocator error (bad selector, unknown class): the
	// search fails with it.
	err error
}

// newDeviceSim returns nil when no demand carries claims.
func newDeviceSim(env *deviceEnv, demands []GroupDemand) *deviceSim {
	if env == nil || !slices.ContainsFunc(demands, func(d GroupDemand) bool { return d.claims != nil }) {
		return nil
	}
	return &deviceSim{env: env, demands: demands, allocs: map[types.UID]*ClaimAllocation{}}
}

// claimed reports whether the group's pods carry claims the search allocates.
func (s *deviceSim) claimed(gi int) bool {
	return s != nil && s.demands[gi].claims != nil
}

// allocation is the claim's allocation: its own, one in flight in the
// scheduler, or the search's; nil when it is still to be made.
func (s *deviceSim) allocation(c *resourcev1.ResourceClaim) *resourcev1.AllocationResult {
	if c.Status.Allocation != nil {
		return c.Status.Allocation
	}
	if a := s.env.dra.ResourceClaims().GetPendingAllocation(c.UID); a != nil {
		return a
	}
	if a := s.allocs[c.UID]; a != nil {
		return &a.Result
	}
	return nil
}

// fits allocates the claims of the k-th pod of group gi on node n and
// reports whether they fit; on success the allocations are kept.
func (s *deviceSim) fits(gi, k int, n *SimNode) bool {
	if !s.claimed(gi) {
		return true
	}
	todo, results, ok := s.try(gi, k, n)
	if ok {
		s.keep(todo, results)
	}
	return ok
}

// allocateOn allocates the claims together on node n and keeps the
// allocations; false when they do not fit there.
func (s *deviceSim) allocateOn(n *SimNode, claims []*resourcev1.ResourceClaim) bool {
	if s == nil || n.node == nil {
		return false
	}
	results, err := s.allocate(n.node, claims)
	if err != nil || results == nil {
		return false
	}
	s.keep(claims, results)
	return true
}

// keep records the search's allocations of the claims.
func (s *deviceSim) keep(claims []*resourcev1.ResourceClaim, results []resourcev1.AllocationResult) {
	for i, c := range claims {
		s.allocs[c.UID] = &ClaimAllocation{Claim: c, Result: results[i]}
		s.order = append(s.order, c.UID)
		for _, d := range results[i].Devices.Results {
			s.env.allocated.AllocatedDevices.Insert(structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
		}
	}
}

// sharedClaims returns the claims more than one of the demands' pods uses
// that are not allocated yet, and how many devices at least the pods that
// use them ask in all (their unallocated claims' requests): a node with
// fewer free devices cannot hold them together.
func sharedClaims(env *deviceEnv, demands []GroupDemand) ([]*resourcev1.ResourceClaim, int64) {
	if env == nil {
		return nil, 0
	}
	unallocated := func(c *resourcev1.ResourceClaim) bool {
		return c.Status.Allocation == nil && env.dra.ResourceClaims().GetPendingAllocation(c.UID) == nil
	}
	users := map[types.UID]int{}
	for _, d := range demands {
		for _, pod := range d.claims {
			for _, c := range pod {
				if unallocated(c) {
					users[c.UID]++
				}
			}
		}
	}
	seen := sets.New[types.UID]()
	var shared []*resourcev1.ResourceClaim
	var devices int64
	for _, d := range demands {
		for _, pod := range d.claims {
			if !slices.ContainsFunc(pod, func(c *resourcev1.ResourceClaim) bool { return users[c.UID] > 1 }) {
				continue
			}
			for _, c := range pod {
				if !unallocated(c) || seen.Has(c.UID) {
					continue
				}
				seen.Insert(c.UID)
				devices += requestedDevices(c)
				if users[c.UID] > 1 {
					shared = append(shared, c)
				}
			}
		}
	}
	return shared, devices
}

// requestedDevices is the least number of devices the claim asks for.
func requestedDevices(c *resourcev1.ResourceClaim) int64 {
	var n int64
	for _, r := range c.Spec.Devices.Requests {
		if r.Exactly != nil && r.Exactly.AllocationMode != resourcev1.DeviceAllocationModeAll {
			n += max(r.Exactly.Count, 1)
		}
	}
	return n
}

// freeDevices counts the devices not allocated that the node can use.
func (e *deviceEnv) freeDevices(node *corev1.Node) int64 {
	var n int64
	for _, group := range [][]*resourcev1.ResourceSlice{e.onNode[node.Name], e.shared} {
		for _, sl := range group {
			if !sliceReaches(sl, node) {
				continue
			}
			for _, d := range sl.Spec.Devices {
				if !e.allocated.AllocatedDevices.Has(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, d.Name)) {
					n++
				}
			}
		}
	}
	return n
}

// try works out, without keeping anything, whether the claims of the k-th
// pod of group gi can be used on node n: the allocated ones reach it and
// the others (todo) can be allocated there (results).
func (s *deviceSim) try(gi, k int, n *SimNode) (todo []*resourcev1.ResourceClaim, results []resourcev1.AllocationResult, ok bool) {
	claims := s.demands[gi].claims
	if k >= len(claims) {
		return nil, nil, true
	}
	for _, c := range claims[k] {
		a := s.allocation(c)
		if a == nil {
			if !slices.ContainsFunc(todo, func(t *resourcev1.ResourceClaim) bool { return t.UID == c.UID }) {
				todo = append(todo, c)
			}
			continue
		}
		if !s.env.reaches(a, n.node) {
			return nil, nil, false
		}
	}
	if len(todo) == 0 {
		return nil, nil, true
	}
	if s.err != nil || n.node == nil {
		return nil, nil, false
	}
	results, err := s.allocate(n.node, todo)
	if err != nil {
		s.err = err
		return nil, nil, false
	}
	return todo, results, results != nil
}

// refuses reports whether the claims of the k-th pod of group gi cannot be
// used on node n, for the message of a group that does not fit.
func (s *deviceSim) refuses(gi, k int, n *SimNode) bool {
	if !s.claimed(gi) {
		return false
	}
	_, _, ok := s.try(gi, k, n)
	return !ok
}

// allocate runs the structured allocator for the claims on the node, with
// the devices the search already took counted as allocated. An allocator
// is cheap to make on the node's slices alone, and sees the search's
// devices as they are now.
func (s *deviceSim) allocate(node *corev1.Node, claims []*resourcev1.ResourceClaim) ([]resourcev1.AllocationResult, error) {
	nodeSlices := append(slices.Clip(s.env.onNode[node.Name]), s.env.shared...)
	a, err := structured.NewAllocator(context.Background(), s.env.features, *s.env.allocated, s.env.dra.DeviceClasses(), nodeSlices, s.env.cel)
	if err != nil {
		return nil, fmt.Errorf("preparing the device allocator: %w", err)
	}
	results, err := a.Allocate(context.Background(), node, claims)
	if err != nil {
		return nil, fmt.Errorf("allocating ResourceClaims on node %s: %w", node.Name, err)
	}
	return results, nil
}

// reaches reports whether an allocated claim can be used on the node.
func (e *deviceEnv) reaches(a *resourcev1.AllocationResult, node *corev1.Node) bool {
	if a.NodeSelector == nil {
		return true
	}
	if node == nil {
		return false
	}
	sel, ok := e.selectors[a]
	if !ok {
		var err error
		if sel, err = nodeaffinity.NewNodeSelector(a.NodeSelector); err != nil {
			sel = nil
		}
		e.selectors[a] = sel
	}
	return sel != nil && sel.Match(node)
}

// mark returns the point undo goes back to.
func (s *deviceSim) mark() int {
	if s == nil {
		return 0
	}
	return len(s.order)
}

// undo forgets the allocations made since the mark (a failed trial).
func (s *deviceSim) undo(mark int) {
	if s == nil || mark == len(s.order) {
		return
	}
	for _, uid := range s.order[mark:] {
		for _, d := range s.allocs[uid].Result.Devices.Results {
			s.env.allocated.AllocatedDevices.Delete(structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
		}
		delete(s.allocs, uid)
	}
	s.order = s.order[:mark]
}

// made returns the search's allocations in the order made.
func (s *deviceSim) made() []ClaimAllocation {
	if s == nil {
		return nil
	}
	out := make([]ClaimAllocation, 0, len(s.order))
	for _, uid := range s.order {
		out = append(out, *s.allocs[uid])
	}
	return out
}

// sliceReaches reports whether the slice's devices can be used on the node.
func sliceReaches(sl *resourcev1.ResourceSlice, node *corev1.Node) bool {
	switch {
	case sl.Spec.NodeName != nil:
		return *sl.Spec.NodeName == node.Name
	case sl.Spec.AllNodes != nil && *sl.Spec.AllNodes:
		return true
	case sl.Spec.NodeSelector != nil:
		ok, err := corev1helpers.MatchNodeSelectorTerms(node, sl.Spec.NodeSelector)
		return err == nil && ok
	}
	return false
}
