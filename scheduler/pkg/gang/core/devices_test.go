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
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"
)

const testDriver = "gpu.example.com"

// fakeDRA is the scheduler's DRA view for the search's tests: slices,
// classes and claims, nothing in flight.
type fakeDRA struct {
	slices  []*resourcev1.ResourceSlice
	classes map[string]*resourcev1.DeviceClass
	claims  map[string]*resourcev1.ResourceClaim
}

func (f *fakeDRA) ResourceClaims() fwk.ResourceClaimTracker { return fakeClaims{f: f} }
func (f *fakeDRA) ResourceSlices() fwk.ResourceSliceLister  { return f }
func (f *fakeDRA) DeviceClasses() fwk.DeviceClassLister     { return f }
func (f *fakeDRA) DeviceClassResolver() fwk.DeviceClassResolver {
	return nil
}
func (f *fakeDRA) ListWithDeviceTaintRules() ([]*resourcev1.ResourceSlice, error) {
	return f.slices, nil
}
func (f *fakeDRA) List() ([]*resourcev1.DeviceClass, error) {
	var out []*resourcev1.DeviceClass
	for _, c := range f.classes {
		out = append(out, c)
	}
	return out, nil
}
func (f *fakeDRA) Get(name string) (*resourcev1.DeviceClass, error) {
	if c, ok := f.classes[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "deviceclasses"}, name)
}

// fakeClaims implements the tracker's reads; the writes are the per-pod plugin's, not the search's.
type fakeClaims struct {
	fwk.ResourceClaimTracker
	f *fakeDRA
}

func (c fakeClaims) Get(ns, name string) (*resourcev1.ResourceClaim, error) {
	if rc, ok := c.f.claims[ns+"/"+name]; ok {
		return rc, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "resourceclaims"}, name)
}
func (c fakeClaims) GetPendingAllocation(types.UID) *resourcev1.AllocationResult { return nil }
func (c fakeClaims) AssumeClaimAfterAPICall(*resourcev1.ResourceClaim) error     { return nil }
func (c fakeClaims) GatherAllocatedState() (*structured.AllocatedState, error) {
	state := &structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
	for _, rc := range c.f.claims {
		if rc.Status.Allocation != nil {
			for _, r := range rc.Status.Allocation.Devices.Results {
				state.AllocatedDevices.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
			}
		}
	}
	return state, nil
}

// gpuSlice publishes n devices on the node, each with a model attribute.
func gpuSlice(node string, n int, model string) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{Driver: testDriver, NodeName: ptr.To(node),
			Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}},
	}
	for i := range n {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: ptr.To(model)}}})
	}
	return s
}

// gpuClaim requests count devices of the class.
func gpuClaim(name, class string, count int64) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count},
		}}}},
	}
}

// classOf selects the driver's devices, and only the model when set.
func classOf(name, model string) *resourcev1.DeviceClass {
	expr := fmt.Sprintf("device.driver == %q", testDriver)
	if model != "" {
		expr += fmt.Sprintf(" && device.attributes[%q].model == %q", testDriver, model)
	}
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}}}
}

// allocatedOn is the claim allocated device gpu-0 of the node, as the per-pod plugin writes it.
func allocatedOn(c *resourcev1.ResourceClaim, node string) *resourcev1.ResourceClaim {
	c = c.DeepCopy()
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: testDriver, Pool: node, Device: "gpu-0"}}},
		NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}},
	}
	return c
}

func TestSearchAllocatesClaims(t *testing.T) {
	shared := gpuClaim("shared", "gpu", 1)
	own := func(i int, count int64) *resourcev1.ResourceClaim {
		return gpuClaim(fmt.Sprintf("worker-%d-gpu", i), "gpu", count)
	}
	tests := []struct {
		name   string
		slices []*resourcev1.ResourceSlice
		class  *resourcev1.DeviceClass
		// leader and workers are the claims of the leader pod and of each worker pod.
		leader  []*resourcev1.ResourceClaim
		workers [][]*resourcev1.ResourceClaim
		// wantNode is where every pod lands; wantClaims the claims the search allocated, each on wantNode.
		wantNode   string
		wantClaims []string
		wantFail   string
	}{
		{
			name:       "a claim shared by both groups is allocated once, all its pods on its node",
			slices:     []*resourcev1.ResourceSlice{gpuSlice("n0", 4, "a"), gpuSlice("n1", 4, "a")},
			leader:     []*resourcev1.ResourceClaim{shared},
			workers:    [][]*resourcev1.ResourceClaim{{shared, own(0, 1)}, {shared, own(1, 1)}},
			wantNode:   "n0",
			wantClaims: []string{"shared", "worker-0-gpu", "worker-1-gpu"},
		},
		{
			name:       "when the first consumer's node cannot hold the rest, the shared claim goes where the whole gang fits",
			slices:     []*resourcev1.ResourceSlice{gpuSlice("n0", 2, "a"), gpuSlice("n1", 3, "a")},
			leader:     []*resourcev1.ResourceClaim{shared},
			workers:    [][]*resourcev1.ResourceClaim{{shared, own(0, 1)}, {shared, own(1, 1)}},
			wantNode:   "n1",
			wantClaims: []string{"shared", "worker-0-gpu", "worker-1-gpu"},
		},
		{
			name:       "the DeviceClass selector leaves out devices of another model",
			slices:     []*resourcev1.ResourceSlice{gpuSlice("n0", 8, "b"), gpuSlice("n1", 3, "a")},
			class:      classOf("gpu", "a"),
			leader:     []*resourcev1.ResourceClaim{shared},
			workers:    [][]*resourcev1.ResourceClaim{{shared, own(0, 1)}, {shared, own(1, 1)}},
			wantNode:   "n1",
			wantClaims: []string{"shared", "worker-0-gpu", "worker-1-gpu"},
		},
		{
			name:       "a claim allocated before the search pins its pods to its node and is not allocated again",
			slices:     []*resourcev1.ResourceSlice{gpuSlice("n0", 4, "a"), gpuSlice("n1", 4, "a")},
			leader:     []*resourcev1.ResourceClaim{allocatedOn(shared, "n1")},
			workers:    [][]*resourcev1.ResourceClaim{{allocatedOn(shared, "n1"), own(0, 1)}, {allocatedOn(shared, "n1"), own(1, 1)}},
			wantNode:   "n1",
			wantClaims: []string{"worker-0-gpu", "worker-1-gpu"},
		},
		{
			name:    "a gang needing more devices on one node than any has fails naming the request",
			slices:  []*resourcev1.ResourceSlice{gpuSlice("n0", 4, "a"), gpuSlice("n1", 4, "a")},
			leader:  []*resourcev1.ResourceClaim{shared},
			workers: [][]*resourcev1.ResourceClaim{{shared, own(0, 2)}, {shared, own(1, 2)}},
			wantFail: "group worker needs 2 pods with 100m cpu, 1 fit: 0/2 nodes are available: 2 cannot allocate all claims; " +
				"claim worker-1-gpu request gpu needs 2 devices of class gpu on one node, at most 1 free on the nodes its allocated claims allow",
		},
		{
			name:    "a class no node has a device of",
			slices:  []*resourcev1.ResourceSlice{gpuSlice("n0", 4, "b")},
			class:   classOf("gpu", "a"),
			leader:  []*resourcev1.ResourceClaim{gpuClaim("leader-gpu", "gpu", 1)},
			workers: [][]*resourcev1.ResourceClaim{{}, {}},
			wantFail: "group leader needs 1 pods with 100m cpu, 0 fit: 0/1 nodes are available: 1 cannot allocate all claims; " +
				"claim leader-gpu request gpu needs 1 device of class gpu on one node, at most 0 free on a node",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class := tt.class
			if class == nil {
				class = classOf("gpu", "")
			}
			dra := &fakeDRA{slices: tt.slices, classes: map[string]*resourcev1.DeviceClass{class.Name: class}, claims: map[string]*resourcev1.ResourceClaim{}}
			var nodes []*SimNode
			for _, s := range tt.slices {
				name := *s.Spec.NodeName
				nodes = append(nodes, &SimNode{Name: name, Free: Resources{MilliCPU: 8000, Pods: 110}, node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}})
			}
			env, err := newDeviceEnv(dra)
			if err != nil {
				t.Fatal(err)
			}
			req := Resources{Pods: 1, MilliCPU: 100}
			demands := []GroupDemand{
				{Name: "leader", Count: 1, Request: req, claims: [][]*resourcev1.ResourceClaim{tt.leader}, devices: env},
				{Name: "worker", Count: int64(len(tt.workers)), Request: req, claims: tt.workers, devices: env},
			}
			p, fail := Search(nodes, demands, &Scope{Name: "podgang pg", Groups: []int{0, 1}})
			if tt.wantFail != "" {
				if fail == nil || fail.Message != tt.wantFail {
					t.Fatalf("failure = %v, want %q", fail, tt.wantFail)
				}
				return
			}
			if fail != nil {
				t.Fatalf("search failed: %s", fail.Message)
			}
			for gi, on := range p.Nodes {
				for _, n := range on {
					if n != tt.wantNode {
						t.Errorf("group %d placed on %v, want all on %s", gi, on, tt.wantNode)
					}
				}
			}
			var names []string
			devices := sets.New[string]()
			for _, a := range p.Claims {
				names = append(names, a.Claim.Name)
				for _, r := range a.Result.Devices.Results {
					if r.Pool != tt.wantNode || devices.Has(r.Device) {
						t.Errorf("claim %s got device %s/%s (devices so far %v)", a.Claim.Name, r.Pool, r.Device, sets.List(devices))
					}
					devices.Insert(r.Device)
				}
			}
			sort.Strings(names)
			if !slices.Equal(names, tt.wantClaims) {
				t.Errorf("allocated claims %v, want %v", names, tt.wantClaims)
			}
		})
	}
}

// BenchmarkSearchDevices is the placement search's cost for one gang with
// claims against the same gang asking for an extended resource instead, side
// by side (make bench-search-devices, docs/dev/benchmarks.md): 500 nodes of 8
// GPUs, 4 pods each with a GPU of its own and one shared by all (5 devices
// on one node); the claims case includes reading the devices (the slices and
// allocated devices) as PreFilter does. The extended-resource gang asks 2
// nvidia.com/gpu per pod in one required hostname domain (the shared
// device's one node), which over-counts the shared GPU but poses the same
// search. "nofit" asks 3 GPUs of its own per pod: the search fails, and with
// claims tries the shared claim on every node.
func BenchmarkSearchDevices(b *testing.B) {
	const nodesN, gpusPerNode, pods = 500, 8, 4
	for _, fit := range []bool{true, false} {
		perPod := int64(1)
		name := "fit"
		if !fit {
			perPod, name = 3, "nofit"
		}
		var nodes []*SimNode
		dra := &fakeDRA{classes: map[string]*resourcev1.DeviceClass{"gpu": classOf("gpu", "")}, claims: map[string]*resourcev1.ResourceClaim{}}
		for i := range nodesN {
			n := fmt.Sprintf("node-%03d", i)
			dra.slices = append(dra.slices, gpuSlice(n, gpusPerNode, "a"))
			nodes = append(nodes, &SimNode{Name: n, Labels: map[string]string{corev1.LabelHostname: n}, node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}},
				Free: Resources{MilliCPU: 32000, Memory: 128 << 30, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: gpusPerNode}}})
		}
		shared := gpuClaim("shared", "gpu", 1)
		claims := make([][]*resourcev1.ResourceClaim, pods)
		for k := range claims {
			claims[k] = []*resourcev1.ResourceClaim{shared, gpuClaim(fmt.Sprintf("worker-%d-gpu", k), "gpu", perPod)}
		}
		root := &Scope{Name: "podgang pg", Groups: []int{0}}
		b.Run(name+"/extended-resource", func(b *testing.B) {
			// The shared device's "one node" as a required hostname domain.
			oneNode := &Scope{Name: "podgang pg", RequiredKey: corev1.LabelHostname, Groups: []int{0}}
			d := []GroupDemand{{Name: "worker", Count: pods, Request: Resources{Pods: 1, MilliCPU: 100, Scalar: map[corev1.ResourceName]int64{gpu: perPod}}}}
			d[0].Request.Scalar[gpu] = perPod + 1
			for b.Loop() {
				if _, fail := Search(nodes, d, oneNode); (fail == nil) != fit {
					b.Fatalf("search: %v", fail)
				}
			}
		})
		b.Run(name+"/claims", func(b *testing.B) {
			for b.Loop() {
				env, err := newDeviceEnv(dra)
				if err != nil {
					b.Fatal(err)
				}
				d := []GroupDemand{{Name: "worker", Count: pods, Request: Resources{Pods: 1, MilliCPU: 100}, claims: claims, devices: env}}
				if _, fail := Search(nodes, d, root); (fail == nil) != fit {
					b.Fatalf("search: %v", fail)
				}
			}
		})
	}
}

// A pod's claims are read by the names its entries give (their own, or the
// generated one from the pod's status); the first one missing is named.
func TestPodClaims(t *testing.T) {
	dra := &fakeDRA{claims: map[string]*resourcev1.ResourceClaim{"ns/shared": gpuClaim("shared", "gpu", 1), "ns/p-gpu-x7": gpuClaim("p-gpu-x7", "gpu", 1)}}
	env, err := newDeviceEnv(dra)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(refs ...corev1.PodResourceClaim) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: corev1.PodSpec{ResourceClaims: refs}}
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("p-gpu-x7")}}
		return p
	}
	named := func(name string) corev1.PodResourceClaim {
		return corev1.PodResourceClaim{Name: name, ResourceClaimName: ptr.To(name)}
	}
	fromTemplate := corev1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}
	tests := []struct {
		name        string
		pod         *corev1.Pod
		wantClaims  []string
		wantMissing string
	}{
		{name: "named and generated claims", pod: pod(named("shared"), fromTemplate), wantClaims: []string{"shared", "p-gpu-x7"}},
		{name: "a named claim not created yet", pod: pod(named("shared"), named("link")), wantMissing: "link"},
		{name: "a template whose claim is not generated yet", pod: pod(corev1.PodResourceClaim{Name: "nic", ResourceClaimTemplateName: ptr.To("nic")}), wantMissing: "nic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, missing := env.podClaims(tt.pod)
			var names []string
			for _, c := range claims {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, tt.wantClaims) || missing != tt.wantMissing {
				t.Errorf("podClaims = %v, missing %q; want %v, %q", names, missing, tt.wantClaims, tt.wantMissing)
			}
		})
	}
}
