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
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// hintEnv holds PodGang ns/g (group w of two 1-GPU pods packed by "rack") and its scaled PodGang ns/s;
// its pods run only on nodes labelled pool=gpu and tolerate dedicated=gpu:NoSchedule.
func hintEnv(t *testing.T) *testEnv {
	e := newTestEnv(t)
	pg := newTestPodGang("ns", "g", testGroup{name: "w", pods: 2, min: 2, gpus: 1})
	pg.Spec.TopologyConstraint = pack("rack", "")
	e.addPodGang(pg)
	// ns/s is a scaled gang of base gang ns/g.
	scaled := newTestPodGang("ns", "s", testGroup{name: "w", pods: 1, min: 1, gpus: 1})
	scaled.Spec.BasePodGang = &groveschedulerv1alpha1.BasePodGangReference{Name: "g", TopologyConstraint: pack("rack", "")}
	e.addPodGang(scaled)
	e.addNodes(hintNode("n-gpu", true, nil), hintNode("n-cpu", false, nil))
	return e
}

// hintPod is a pod of gang ns/<gang> named name, confined like hintEnv says.
func hintPod(name, gang string) *corev1.Pod {
	p := newTestPod("ns", name, gang, 1)
	p.Spec.NodeSelector = map[string]string{"pool": "gpu"}
	p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	return p
}

// hintNode builds a node in pool gpu (or cpu) with 4 GPUs and the given taints.
func hintNode(name string, inPool bool, taints []corev1.Taint, change ...func(*corev1.Node)) *corev1.Node {
	pool := "cpu"
	if inPool {
		pool = "gpu"
	}
	n := newTestNode(name, 4, map[string]string{"pool": pool, "rack": "r1"})
	n.Spec.Taints = taints
	for _, c := range change {
		c(n)
	}
	return n
}

var (
	notReady    = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	dedicated   = corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	cordoned    = func(n *corev1.Node) { n.Spec.Unschedulable = true }
	moreGPUs    = func(n *corev1.Node) { n.Status.Allocatable[gpu] = resource.MustParse("8") }
	fewerGPUs   = func(n *corev1.Node) { n.Status.Allocatable[gpu] = resource.MustParse("2") }
	morePods    = func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("220") }
	moreStorage = func(n *corev1.Node) {
		n.Status.Allocatable[corev1.ResourceEphemeralStorage] = resource.MustParse("1Ti")
	}
	otherRack  = func(n *corev1.Node) { n.Labels["rack"] = "r2" }
	noRack     = func(n *corev1.Node) { delete(n.Labels, "rack") }
	otherLabel = func(n *corev1.Node) { n.Labels["example.com/team"] = "a" }
	intoPool   = func(n *corev1.Node) { n.Labels["pool"] = "gpu" }
)

func TestQueueingHints(t *testing.T) {
	placed := func(node string) *corev1.Pod { return bound(hintPod("x", ""), node) }

	type hintFn func(*Manager) fwk.QueueingHintFn
	var (
		podAdded         hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintPodAdded }
		podDeleted       hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintPodDeleted }
		nodeAdded        hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintNodeAdded }
		nodeAllocatable  hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintNodeAllocatable }
		nodeTaint        hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintNodeTaint }
		nodeLabel        hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintNodeLabel }
		claimChanged     hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintClaimChanged }
		volumesChanged   hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintVolumesChanged }
		devicesChanged   hintFn = func(m *Manager) fwk.QueueingHintFn { return m.hintDevicesChanged }
		withDevices             = withResourceClaim(hintPod("g-w-0", "g"), "gpu")
		withClaim               = claiming(hintPod("g-w-0", "g"), "model")
		member                  = hintPod("g-w-0", "g")
		unreferenced            = hintPod("g-w-9", "g")
		ofUnknownPodGang        = hintPod("h-w-0", "h")
	)
	tests := []struct {
		name     string
		hint     hintFn
		pod      *corev1.Pod
		old, new any
		want     fwk.QueueingHint
	}{
		// Pod bound (kube-scheduler reports only assigned pods as added to other pods).
		{name: "a pod of its own gang is bound", hint: podAdded, pod: member, new: bound(hintPod("g-w-1", "g"), "n-gpu"), want: fwk.Queue},
		{name: "a pod of another gang is bound", hint: podAdded, pod: member, new: bound(hintPod("h-w-1", "h"), "n-gpu"), want: fwk.QueueSkip},
		{name: "a pod of its base gang is bound", hint: podAdded, pod: hintPod("s-w-0", "s"), new: bound(hintPod("g-w-1", "g"), "n-gpu"), want: fwk.Queue},
		{name: "a pod of a scaled gang of its gang is bound", hint: podAdded, pod: member, new: bound(hintPod("s-w-0", "s"), "n-gpu"), want: fwk.QueueSkip},
		{name: "an ordinary pod is bound", hint: podAdded, pod: member, new: placed("n-gpu"), want: fwk.QueueSkip},
		{name: "a sibling is bound while the pod is not referenced yet", hint: podAdded, pod: unreferenced, new: bound(hintPod("g-w-1", "g"), "n-gpu"), want: fwk.QueueSkip},
		{name: "a pod its required pod affinity selects is bound", hint: podAdded, pod: affine(hintPod("g-w-0", "g"), "db", "kubernetes.io/hostname"),
			new: labelled(placed("n-gpu"), "app", "db"), want: fwk.Queue},
		{name: "a pod its required pod affinity does not select is bound", hint: podAdded, pod: affine(hintPod("g-w-0", "g"), "db", "kubernetes.io/hostname"),
			new: labelled(placed("n-gpu"), "app", "web"), want: fwk.QueueSkip},

		// Pod deleted.
		{name: "a pod on a node it may run on is deleted", hint: podDeleted, pod: member, old: placed("n-gpu"), want: fwk.Queue},
		{name: "a pod on a node outside its node selector is deleted", hint: podDeleted, pod: member, old: placed("n-cpu"), want: fwk.QueueSkip},
		{name: "a pod that waited at Permit is deleted", hint: podDeleted, pod: member, old: hintPod("x", ""), want: fwk.Queue},
		{name: "a pod on a node the cache does not know is deleted", hint: podDeleted, pod: member, old: placed("n-gone"), want: fwk.Queue},
		{name: "a deleted pod's last known state", hint: podDeleted, pod: member, old: cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: placed("n-gpu")}, want: fwk.Queue},
		{name: "capacity freed while its PodGang does not exist yet", hint: podDeleted, pod: ofUnknownPodGang, old: placed("n-gpu"), want: fwk.QueueSkip},
		{name: "capacity freed while its PodGang does not reference it yet", hint: podDeleted, pod: unreferenced, old: placed("n-gpu"), want: fwk.QueueSkip},

		// Node added.
		{name: "a node it may run on is added", hint: nodeAdded, pod: member, new: hintNode("n", true, []corev1.Taint{dedicated}), want: fwk.Queue},
		{name: "a node outside its node selector is added", hint: nodeAdded, pod: member, new: hintNode("n", false, nil), want: fwk.QueueSkip},
		{name: "a node with a taint it does not tolerate is added", hint: nodeAdded, pod: member, new: hintNode("n", true, []corev1.Taint{notReady}), want: fwk.QueueSkip},
		{name: "a cordoned node is added", hint: nodeAdded, pod: member, new: hintNode("n", true, nil, cordoned), want: fwk.QueueSkip},
		{name: "a node is added while its PodGang does not exist yet", hint: nodeAdded, pod: ofUnknownPodGang, new: hintNode("n", true, nil), want: fwk.QueueSkip},

		// Node allocatable changed.
		{name: "GPUs grow on a node it may run on", hint: nodeAllocatable, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, moreGPUs), want: fwk.Queue},
		{name: "pod slots grow on a node it may run on", hint: nodeAllocatable, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, morePods), want: fwk.Queue},
		{name: "a resource it does not request grows", hint: nodeAllocatable, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, moreStorage), want: fwk.QueueSkip},
		{name: "GPUs shrink", hint: nodeAllocatable, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, fewerGPUs), want: fwk.QueueSkip},
		{name: "GPUs grow on a node it may not run on", hint: nodeAllocatable, pod: member, old: hintNode("n", true, []corev1.Taint{notReady}), new: hintNode("n", true, []corev1.Taint{notReady}, moreGPUs), want: fwk.QueueSkip},

		// Node taints or cordon changed.
		{name: "the not-ready taint is lifted", hint: nodeTaint, pod: member, old: hintNode("n", true, []corev1.Taint{notReady}), new: hintNode("n", true, nil), want: fwk.Queue},
		{name: "a node is uncordoned", hint: nodeTaint, pod: member, old: hintNode("n", true, nil, cordoned), new: hintNode("n", true, nil), want: fwk.Queue},
		{name: "a taint it tolerates is lifted", hint: nodeTaint, pod: member, old: hintNode("n", true, []corev1.Taint{dedicated}), new: hintNode("n", true, nil), want: fwk.QueueSkip},
		{name: "a taint is added", hint: nodeTaint, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, []corev1.Taint{notReady}), want: fwk.QueueSkip},
		{name: "a node outside its node selector is uncordoned", hint: nodeTaint, pod: member, old: hintNode("n", false, nil, cordoned), new: hintNode("n", false, nil), want: fwk.QueueSkip},

		// Node labels changed.
		{name: "a node joins the pool its node selector asks for", hint: nodeLabel, pod: member, old: hintNode("n", false, nil), new: hintNode("n", false, nil, intoPool), want: fwk.Queue},
		{name: "a node moves to another domain of its gang's pack key", hint: nodeLabel, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, otherRack), want: fwk.Queue},
		{name: "a node loses its gang's pack key", hint: nodeLabel, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, noRack), want: fwk.Queue},
		{name: "a label its gang does not pack by changes", hint: nodeLabel, pod: member, old: hintNode("n", true, nil), new: hintNode("n", true, nil, otherLabel), want: fwk.QueueSkip},
		{name: "a node it may not run on changes domain", hint: nodeLabel, pod: member, old: hintNode("n", false, nil), new: hintNode("n", false, nil, otherRack), want: fwk.QueueSkip},

		// Claims, volumes and storage classes.
		{name: "its claim is bound", hint: claimChanged, pod: withClaim, new: claim("model", "pv-n1"), want: fwk.Queue},
		{name: "another claim changes", hint: claimChanged, pod: withClaim, new: claim("cache", "pv-n1"), want: fwk.QueueSkip},
		{name: "a claim of its name in another namespace changes", hint: claimChanged, pod: withClaim,
			new: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "model"}}, want: fwk.QueueSkip},
		{name: "a volume appears for a pod with claims", hint: volumesChanged, pod: withClaim, new: pinnedVolume("pv-n1", "n1"), want: fwk.Queue},
		{name: "a volume appears for a pod without claims", hint: volumesChanged, pod: member, new: pinnedVolume("pv-n1", "n1"), want: fwk.QueueSkip},
		{name: "a volume appears while its PodGang does not exist yet", hint: volumesChanged, pod: claiming(hintPod("h-w-0", "h"), "model"),
			new: pinnedVolume("pv-n1", "n1"), want: fwk.QueueSkip},

		// DRA devices.
		{name: "a ResourceSlice appears for a pod with DRA claims", hint: devicesChanged, pod: withDevices, new: gpuSlice("n1", 4, "a"), want: fwk.Queue},
		{name: "a ResourceClaim is deallocated for a pod with DRA claims", hint: devicesChanged, pod: withDevices,
			old: allocatedOn(gpuClaim("other", "gpu", 1), "n1"), new: gpuClaim("other", "gpu", 1), want: fwk.Queue},
		{name: "a ResourceSlice appears for a pod without DRA claims", hint: devicesChanged, pod: member, new: gpuSlice("n1", 4, "a"), want: fwk.QueueSkip},
		{name: "a ResourceSlice appears while its PodGang does not exist yet", hint: devicesChanged, pod: withResourceClaim(hintPod("h-w-0", "h"), "gpu"),
			new: gpuSlice("n1", 4, "a"), want: fwk.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := hintEnv(t)
			got, err := tt.hint(e.m)(klog.Background(), tt.pod, tt.old, tt.new)
			if err != nil {
				t.Fatalf("hint error: %v", err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQueueingHintsQueueOnUnexpectedObjects(t *testing.T) {
	e := hintEnv(t)
	pod := hintPod("g-w-0", "g")
	for name, hint := range map[string]fwk.QueueingHintFn{
		"pod added":        e.m.hintPodAdded,
		"pod deleted":      e.m.hintPodDeleted,
		"node added":       e.m.hintNodeAdded,
		"node allocatable": e.m.hintNodeAllocatable,
		"node taint":       e.m.hintNodeTaint,
		"node label":       e.m.hintNodeLabel,
	} {
		t.Run(name, func(t *testing.T) {
			// An error makes kube-scheduler queue the pod anyway, so it never gets stuck.
			if got, err := hint(klog.Background(), pod, "unexpected", "unexpected"); err == nil || got != fwk.Queue {
				t.Errorf("hint on a string = %v, %v; want Queue with an error", got, err)
			}
		})
	}
}

func TestEventsToRegisterHaveAHintEach(t *testing.T) {
	e := hintEnv(t)
	events := e.m.EventsToRegister()
	want := []fwk.ClusterEvent{
		{Resource: fwk.Pod, ActionType: fwk.Add},
		{Resource: fwk.Pod, ActionType: fwk.Delete},
		{Resource: fwk.Node, ActionType: fwk.Add},
		{Resource: fwk.Node, ActionType: fwk.UpdateNodeAllocatable},
		{Resource: fwk.Node, ActionType: fwk.UpdateNodeTaint},
		{Resource: fwk.Node, ActionType: fwk.UpdateNodeLabel},
		{Resource: fwk.PersistentVolumeClaim, ActionType: fwk.Add | fwk.Update},
		{Resource: fwk.PersistentVolume, ActionType: fwk.Add | fwk.Update},
		{Resource: fwk.StorageClass, ActionType: fwk.Add | fwk.Update},
		{Resource: fwk.ResourceSlice, ActionType: fwk.Add | fwk.Update},
		{Resource: fwk.DeviceClass, ActionType: fwk.Add | fwk.Update},
		{Resource: fwk.ResourceClaim, ActionType: fwk.Add | fwk.Update | fwk.Delete},
	}
	if len(events) != len(want) {
		t.Fatalf("%d events registered, want %d", len(events), len(want))
	}
	for i, ev := range events {
		if ev.Event != want[i] || ev.QueueingHintFn == nil {
			t.Errorf("event %d = %v (hint set: %v), want %v with a hint", i, ev.Event, ev.QueueingHintFn != nil, want[i])
		}
	}
}

func TestPodGangChangesActivateTheGangsWaitingPods(t *testing.T) {
	gang := func(change ...func(*groveschedulerv1alpha1.PodGang)) *groveschedulerv1alpha1.PodGang {
		pg := newTestPodGang("ns", "g", testGroup{name: "w", pods: 2, min: 2, gpus: 1})
		pg.Generation = 1
		for _, c := range change {
			c(pg)
		}
		return pg
	}
	specChanged := func(pg *groveschedulerv1alpha1.PodGang) { pg.Generation = 2 }
	joinedPCS := func(pg *groveschedulerv1alpha1.PodGang) {
		pg.Labels = map[string]string{apicommon.LabelPartOfKey: "pcs"}
	}
	statusChanged := func(pg *groveschedulerv1alpha1.PodGang) {
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseStarting
	}
	waiting := []string{"g-w-0", "g-w-9"}
	tests := []struct {
		name       string
		old, new   *groveschedulerv1alpha1.PodGang
		queueReady bool
		want       [][]string
	}{
		{name: "its PodGang is created", new: gang(), queueReady: true, want: [][]string{waiting}},
		{name: "its PodGang's spec changes", old: gang(), new: gang(specChanged), queueReady: true, want: [][]string{waiting}},
		{name: "its PodGang joins a PodCliqueSet", old: gang(), new: gang(joinedPCS), queueReady: true, want: [][]string{waiting}},
		{name: "only its PodGang's status changes", old: gang(), new: gang(statusChanged), queueReady: true},
		{name: "a PodGang none of whose pods waits is created", new: newTestPodGang("ns", "idle"), queueReady: true},
		{name: "a PodGang is created before the scheduling queue calls in", new: gang()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			gated := hintPod("g-w-1", "g")
			gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}
			deleting := hintPod("g-w-3", "g")
			deleting.DeletionTimestamp = &metav1.Time{}
			for _, p := range []*corev1.Pod{hintPod("g-w-0", "g"), hintPod("g-w-9", "g"), gated, bound(hintPod("g-w-2", "g"), "n-gpu"),
				deleting, hintPod("h-w-0", "h"), hintPod("plain", "")} {
				if err := e.pods.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			e.m.queueReady.Store(tt.queueReady)
			if tt.old == nil {
				e.addPodGang(tt.new)
			} else {
				if err := e.podGangs.Add(tt.old); err != nil {
					t.Fatal(err)
				}
				e.m.onPodGang(nil, tt.old)
				e.handle.activated = nil
				e.updatePodGang(tt.old, tt.new)
			}
			if got := e.handle.activated; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("activated %v, want %v", got, tt.want)
			}
		})
	}
}

// withResourceClaim gives the pod a DRA claim of that name.
func withResourceClaim(p *corev1.Pod, name string) *corev1.Pod {
	p = p.DeepCopy()
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, corev1.PodResourceClaim{Name: name, ResourceClaimName: &name})
	return p
}
