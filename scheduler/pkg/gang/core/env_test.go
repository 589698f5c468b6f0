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
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	grovefake "github.com/grove-project/grove/api/client/clientset/versioned/fake"
	schedlisters "github.com/grove-project/grove/api/client/listers/scheduler/v1alpha1"
	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// testEnv is a Manager on indexer-backed listers, fake clients and a fake
// scheduler handle that records what the Manager does to waiting and queued pods.
type testEnv struct {
	t        *testing.T
	m        *Manager
	handle   *fakeHandle
	pods     cache.Indexer
	nodes    cache.Indexer
	podGangs cache.Indexer
	classes  cache.Indexer
	pdbs     cache.Indexer
	kube     *kubefake.Clientset
	grove    *grovefake.Clientset
	recorder *events.FakeRecorder
}

const testPermitTimeout = 10 * time.Second

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, gangIndex: gangIndexFunc})
	e := &testEnv{t: t, handle: &fakeHandle{}, pods: pods, nodes: idx(), podGangs: idx(), classes: idx(), pdbs: idx(),
		kube: kubefake.NewClientset(), grove: grovefake.NewClientset(), recorder: events.NewFakeRecorder(100)}
	e.m = newManager(klog.Background(), e.handle, e.kube, schedlisters.NewPodGangLister(e.podGangs),
		corelisters.NewPodLister(e.pods), corelisters.NewNodeLister(e.nodes),
		schedulinglisters.NewPriorityClassLister(e.classes), policylisters.NewPodDisruptionBudgetLister(e.pdbs), testPermitTimeout)
	e.m.podsByGang = e.pods
	e.m.status = newStatusWriter(klog.Background(), e.grove, e.m, e.recorder)
	t.Cleanup(e.m.status.queue.ShutDown)
	return e
}

// addPodGang stores the PodGang as its informer would and tells the Manager.
func (e *testEnv) addPodGang(pg *groveschedulerv1alpha1.PodGang) {
	e.t.Helper()
	if err := e.podGangs.Add(pg); err != nil {
		e.t.Fatal(err)
	}
	if err := e.grove.Tracker().Add(pg); err != nil {
		e.t.Fatal(err)
	}
	e.m.onPodGang(nil, pg)
}

// updatePodGang stores the PodGang's new version as its informer would and tells the Manager.
func (e *testEnv) updatePodGang(old, pg *groveschedulerv1alpha1.PodGang) {
	e.t.Helper()
	if err := e.podGangs.Update(pg); err != nil {
		e.t.Fatal(err)
	}
	e.m.onPodGang(old, pg)
}

// addPods stores pods as the pod informer would and tells the Manager.
func (e *testEnv) addPods(pods ...*corev1.Pod) {
	e.t.Helper()
	for _, p := range pods {
		if err := e.pods.Add(p); err != nil {
			e.t.Fatal(err)
		}
		if err := e.kube.Tracker().Add(p); err != nil {
			e.t.Fatal(err)
		}
		e.m.onPod(p)
	}
}

func (e *testEnv) addNodes(nodes ...*corev1.Node) {
	e.t.Helper()
	for _, n := range nodes {
		if err := e.nodes.Add(n); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *testEnv) addPriorityClass(name string, value int32) {
	e.t.Helper()
	if err := e.classes.Add(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}); err != nil {
		e.t.Fatal(err)
	}
}

// pod returns the stored pod.
func (e *testEnv) pod(ns, name string) *corev1.Pod {
	e.t.Helper()
	p, err := e.m.pods.Pods(ns).Get(name)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// phase returns the gang's phase and reason.
func (e *testEnv) phase(key string) (Phase, string) {
	e.m.mu.RLock()
	defer e.m.mu.RUnlock()
	st := e.m.states[key]
	if st == nil {
		return PhasePending, ""
	}
	return st.phase, st.reason
}

// events drains the Events recorded so far ("type reason note").
func (e *testEnv) events() []string {
	var out []string
	for {
		select {
		case ev := <-e.recorder.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// fakeHandle records activations and holds the pods waiting at Permit.
type fakeHandle struct {
	mu        sync.Mutex
	waiting   []*fakeWaitingPod
	activated [][]string
}

// IterateOverWaitingPods visits the pods still waiting: as in the framework,
// a pod leaves the waiting set once allowed or rejected.
func (h *fakeHandle) IterateOverWaitingPods(cb func(fwk.WaitingPod)) {
	h.mu.Lock()
	var waiting []*fakeWaitingPod
	for _, wp := range h.waiting {
		if wp.verdict == "" {
			waiting = append(waiting, wp)
		}
	}
	h.mu.Unlock()
	for _, wp := range waiting {
		cb(wp)
	}
}

// verdicts lists, in the order the pods began to wait, "pod: verdict" with
// "waiting" for a pod neither allowed nor rejected.
func (h *fakeHandle) verdicts() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, wp := range h.waiting {
		v := wp.verdict
		if v == "" {
			v = "waiting"
		}
		out = append(out, wp.pod.Name+": "+v)
	}
	return out
}

// Activate records the names of the activated pods, sorted, one entry per call.
func (h *fakeHandle) Activate(_ klog.Logger, pods map[string]*corev1.Pod) {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	h.mu.Lock()
	h.activated = append(h.activated, names)
	h.mu.Unlock()
}

func (h *fakeHandle) SnapshotSharedLister() fwk.SharedLister { return nil }

// wait puts a pod at Permit, as the framework does after Permit returns Wait.
func (h *fakeHandle) wait(pod *corev1.Pod) *fakeWaitingPod {
	wp := &fakeWaitingPod{pod: pod}
	h.mu.Lock()
	h.waiting = append(h.waiting, wp)
	h.mu.Unlock()
	return wp
}

// fakeWaitingPod records the verdict given to a pod waiting at Permit.
type fakeWaitingPod struct {
	pod     *corev1.Pod
	verdict string
}

func (w *fakeWaitingPod) GetPod() *corev1.Pod         { return w.pod }
func (w *fakeWaitingPod) GetPendingPlugins() []string { return []string{PluginName} }
func (w *fakeWaitingPod) Allow(plugin string)         { w.verdict = "allowed by " + plugin }
func (w *fakeWaitingPod) Reject(plugin, reason string) bool {
	w.verdict = "rejected by " + plugin + ": " + reason
	return true
}
func (w *fakeWaitingPod) Preempt(plugin, reason string) bool {
	w.verdict = "preempted by " + plugin + ": " + reason
	return true
}

// testGroup is one pod group of a test gang: pods named <gang>-<name>-<i>.
type testGroup struct {
	name string
	pods int
	min  int32
	gpus int64
}

func (g testGroup) podNames(gang string) []string {
	out := make([]string, 0, g.pods)
	for i := 0; i < g.pods; i++ {
		out = append(out, fmt.Sprintf("%s-%s-%d", gang, g.name, i))
	}
	return out
}

// newTestPodGang builds a PodGang in namespace ns referencing every pod of every group.
func newTestPodGang(ns, name string, groups ...testGroup) *groveschedulerv1alpha1.PodGang {
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(name)}}
	for _, g := range groups {
		pg.Spec.PodGroups = append(pg.Spec.PodGroups, groveschedulerv1alpha1.PodGroup{Name: g.name, MinReplicas: g.min, PodReferences: refs(ns, g.podNames(name)...)})
	}
	return pg
}

// newTestGangPods builds the unscheduled pods of a gang.
func newTestGangPods(ns, gang string, groups ...testGroup) []*corev1.Pod {
	var out []*corev1.Pod
	for _, g := range groups {
		for _, name := range g.podNames(gang) {
			out = append(out, newTestPod(ns, name, gang, g.gpus))
		}
	}
	return out
}

// newTestPod builds an unscheduled pod asking for 100m cpu and the given GPUs;
// gang "" makes it an ordinary pod.
func newTestPod(ns, name, gang string, gpus int64) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), Labels: map[string]string{}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("100m"),
		}}}}},
	}
	if gpus > 0 {
		p.Spec.Containers[0].Resources.Requests[gpu] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	if gang != "" {
		p.Labels[apicommon.LabelPodGang] = gang
	}
	return p
}

// bound returns a copy of the pod bound to the node.
func bound(p *corev1.Pod, node string) *corev1.Pod {
	out := p.DeepCopy()
	out.Spec.NodeName = node
	return out
}

// newTestNode builds a Ready node with 8 cpu, 110 pods and the given GPUs.
func newTestNode(name string, gpus int64, labels map[string]string) *corev1.Node {
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:  resource.MustParse("8"),
		corev1.ResourcePods: resource.MustParse("110"),
		gpu:                 *resource.NewQuantity(gpus, resource.DecimalSI),
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Status: corev1.NodeStatus{Allocatable: alloc, Capacity: alloc}}
}

// nodeInfos builds the scheduler's snapshot view of nodes and the pods bound to them.
func nodeInfos(nodes []*corev1.Node, pods ...*corev1.Pod) []fwk.NodeInfo {
	out := make([]fwk.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		for _, p := range pods {
			if p.Spec.NodeName == n.Name {
				ni.AddPod(p)
			}
		}
		out = append(out, ni)
	}
	return out
}
