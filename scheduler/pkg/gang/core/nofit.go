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
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Reasons a node is excluded for a pod group, in kube-scheduler's words, so
// that a gang's message reads like the one users know from a single pod.
const (
	reasonNodeUnschedulable = "node(s) were unschedulable"
	reasonNodeAffinity      = "node(s) didn't match Pod's node affinity/selector"
	reasonVolumeAffinity    = "node(s) had volume node affinity conflict"
	reasonNodeUnknown       = "node(s) not found"
	reasonNotEligible       = "node(s) didn't match the pod's node constraints"
	reasonTooManyPods       = "Too many pods"
	reasonUntoleratedTaint  = "node(s) had untolerated taint"
)

// untoleratedTaint is kube-scheduler's reason for a taint the pod does not tolerate.
func untoleratedTaint(t *corev1.Taint) string {
	return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
}

// nodesAvailable says, in kube-scheduler's style, how many of the candidate
// nodes could take one more pod of group gi (and how many pods they have room
// for in all) and, per constraint, how many nodes it excluded: "0/40 nodes are
// available: 40 Insufficient cpu, 12 Insufficient memory". A node is counted under every resource it lacks, as kube-scheduler
// counts it under every filter that rejects it. free is the search's what-if
// state; the pods of the group that the failed attempt left in it (on) are
// given back first, so the message describes the nodes as the group found them.
func (se *search) nodesAvailable(nodes []*SimNode, free map[string]Resources, gi int, on []string) string {
	d := se.demands[gi]
	before := free
	if se.sim.selfStart(gi) == nil && len(on) > 0 {
		// placeGreedy leaves the group's pods in free; placeGroup's
		// per-domain trials do not.
		before = cloneFree(free, nodes)
		for _, name := range on {
			r := before[name]
			r.Add(d.Request)
			before[name] = r
		}
	}
	excluded := map[string]int{}
	var available, room int64
	for _, n := range nodes {
		if why := d.ineligible(n); why != "" {
			excluded[why]++
			continue
		}
		lacks := before[n.Name].lacks(d.Request)
		if len(lacks) == 0 && se.dev.refuses(gi, len(on), n) {
			lacks = append(lacks, unallocatedDevices)
		}
		if len(lacks) == 0 {
			available++
			room += before[n.Name].copies(d.Request)
			continue
		}
		for _, l := range lacks {
			excluded[l]++
		}
	}
	msg := fmt.Sprintf("%d/%d nodes are available", available, len(nodes))
	if available > 0 && se.sim.why(gi) == "" {
		// With nodes refused by inter-pod (anti-)affinity or host ports the
		// resources' room says little; the refusal is named instead.
		msg += fmt.Sprintf(", with room for %d pods", room)
	}
	if len(excluded) == 0 {
		return msg
	}
	reasons := make([]string, 0, len(excluded))
	for r := range excluded {
		reasons = append(reasons, r)
	}
	// Most nodes first, then by reason, so the message is stable.
	slices.SortFunc(reasons, func(a, b string) int {
		return cmp.Or(cmp.Compare(excluded[b], excluded[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", excluded[r], r)
	}
	return msg + ": " + strings.Join(parts, ", ")
}

// nodesAvailablePhrase matches nodesAvailable's count of the candidate nodes.
var nodesAvailablePhrase = regexp.MustCompile(`(\d+)/(\d+) nodes are available(, with room for (\d+) pods)?`)

// podMessage is a no-fit message as a pod's status and FailedScheduling
// event give it. kube-scheduler starts those with its own "0/<all nodes>
// nodes are available: " before a PreFilter's message, so the candidate
// count is worded differently there, not repeated: "0/40 nodes are
// available: group w needs 4 pods with 1 cpu, 0 fit: 0 of 40 nodes have
// room: 40 Insufficient cpu". The PodGang's condition keeps nodesAvailable's
// wording.
func podMessage(msg string) string {
	return nodesAvailablePhrase.ReplaceAllStringFunc(msg, func(m string) string {
		g := nodesAvailablePhrase.FindStringSubmatch(m)
		out := fmt.Sprintf("%s of %s nodes have room", g[1], g[2])
		if g[4] != "" {
			out += fmt.Sprintf(" for %s pods", g[4])
		}
		return out
	})
}

// ineligible says why a node may not host the group's pods at all ("" when
// it may).
func (d GroupDemand) ineligible(n *SimNode) string {
	switch {
	case d.Ineligible != nil:
		return d.Ineligible(n)
	case d.Eligible != nil && !d.Eligible(n):
		return reasonNotEligible
	}
	return ""
}

// lacks names the resources free has too little of for one copy of req, in
// kube-scheduler's words ("Insufficient cpu", "Too many pods").
func (r Resources) lacks(req Resources) []string {
	var out []string
	if req.MilliCPU > 0 && r.MilliCPU < req.MilliCPU {
		out = append(out, "Insufficient cpu")
	}
	if req.Memory > 0 && r.Memory < req.Memory {
		out = append(out, "Insufficient memory")
	}
	if req.Pods > 0 && r.Pods < req.Pods {
		out = append(out, reasonTooManyPods)
	}
	for name, want := range req.Scalar {
		if want > 0 && r.Scalar[name] < want {
			out = append(out, "Insufficient "+string(name))
		}
	}
	return out
}

// quantity prints an amount of a resource the way users write it in a pod
// spec: bytes with binary suffixes when whole KiBs (1Gi), else decimal ones
// (1G); cpu in cores or millicores (1, 500m); counts as plain numbers.
func quantity(name corev1.ResourceName, v int64) string {
	switch {
	case name == corev1.ResourceCPU:
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case (name == corev1.ResourceMemory || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)) && v%1024 == 0:
		return resource.NewQuantity(v, resource.BinarySI).String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

// why names, for the k-th pod of group gi that found no node, each device
// request of its unallocated claims that no candidate node can serve, with
// how many devices it needs and the most any one node has free, counting
// only the nodes its allocated claims allow when it has some:
// "; claim c request gpu needs 2 devices of class gpu.example.com on one node, at most 1 free on a node".
// An allocated claim none of whose nodes is a candidate is named too.
func (s *deviceSim) why(gi, k int, nodes []*SimNode) string {
	if !s.claimed(gi) || k >= len(s.demands[gi].claims) {
		return ""
	}
	if s.err != nil {
		return "; " + s.err.Error()
	}
	var parts, todo []string
	where, reach := "on a node", nodes
	for _, c := range s.demands[gi].claims[k] {
		a := s.allocation(c)
		if a == nil {
			continue
		}
		reach = slices.DeleteFunc(slices.Clone(reach), func(n *SimNode) bool { return !s.env.reaches(a, n.node) })
		where = "on the nodes its allocated claims allow"
		if len(reach) == 0 {
			parts = append(parts, fmt.Sprintf("claim %s is allocated on nodes none of which can take the pod", c.Name))
			return "; " + strings.Join(parts, "; ")
		}
	}
	for _, c := range s.demands[gi].claims[k] {
		if s.allocation(c) != nil || slices.Contains(todo, c.Name) {
			continue
		}
		todo = append(todo, c.Name)
		for _, r := range c.Spec.Devices.Requests {
			if r.Exactly == nil {
				continue
			}
			need := r.Exactly.Count
			if r.Exactly.AllocationMode == resourcev1.DeviceAllocationModeAll || need < 1 {
				need = 1
			}
			if most := s.mostFree(r.Exactly, reach); most < need {
				parts = append(parts, fmt.Sprintf("claim %s request %s needs %d %s on one node, at most %d free %s",
					c.Name, r.Name, need, devicesOf(r.Exactly.DeviceClassName, need), most, where))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// devicesOf words a count of devices of a class.
func devicesOf(class string, n int64) string {
	if n == 1 {
		return "device of class " + class
	}
	return "devices of class " + class
}

// mostFree is the largest number of free devices matching the request (its
// class's selectors and its own) that any one candidate node can reach.
func (s *deviceSim) mostFree(r *resourcev1.ExactDeviceRequest, nodes []*SimNode) int64 {
	var selectors []resourcev1.DeviceSelector
	if class, err := s.env.dra.DeviceClasses().Get(r.DeviceClassName); err == nil {
		selectors = append(selectors, class.Spec.Selectors...)
	} else {
		return 0
	}
	selectors = append(selectors, r.Selectors...)
	var most int64
	for _, n := range nodes {
		if n.node == nil {
			continue
		}
		var free int64
		for _, sl := range s.env.slices {
			if !sliceReaches(sl, n.node) {
				continue
			}
			for i := range sl.Spec.Devices {
				d := &sl.Spec.Devices[i]
				id := structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, d.Name)
				if s.env.allocated.AllocatedDevices.Has(id) || !s.matches(sl.Spec.Driver, d, selectors) {
					continue
				}
				free++
			}
		}
		most = max(most, free)
	}
	return most
}

// matches evaluates CEL selectors against a device.
func (s *deviceSim) matches(driver string, d *resourcev1.Device, selectors []resourcev1.DeviceSelector) bool {
	for _, sel := range selectors {
		if sel.CEL == nil {
			continue
		}
		compiled := s.env.cel.GetOrCompile(sel.CEL.Expression)
		if compiled.Error != nil {
			return false
		}
		ok, _, err := compiled.DeviceMatches(context.Background(), cel.Device{Driver: driver, Attributes: d.Attributes, Capacity: d.Capacity})
		if err != nil || !ok {
			return false
		}
	}
	return true
}
