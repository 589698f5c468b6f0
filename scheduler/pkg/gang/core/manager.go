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

// Package core holds the gang bookkeeping behind the GroveGang plugin: the
// digested PodGangs, which pods of each gang are reserved or bound, the
// feasibility and topology search, whole-gang preemption and the PodGang
// status writer. The plugin facade in package gang only translates framework
// calls into calls on the Manager.
package core

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/pkg/util"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	schedlisters "github.com/grove-project/grove/api/client/listers/scheduler/v1alpha1"
	"github.com/grove-project/grove/api/common"
	schedv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// PermitResult is the Manager's verdict at the Permit extension point.
type PermitResult int

const (
	// NotInGang means the pod is an ordinary pod and needs no gang decision.
	NotInGang PermitResult = iota
	// Allow means the gang's minimum set is complete (or the pod is a best-effort extra).
	Allow
	// Wait means the pod holds its reservation until the rest of the minimum set arrives.
	Wait
)

// gangState is the mutable per-gang bookkeeping, guarded by Manager.mu.
type gangState struct {
	// reserved holds pods assumed by this scheduler but not yet seen bound.
	reserved map[string]string
	// bound holds pods the informer reports bound (pod name → node).
	bound map[string]string
	// waiting is true while pods of the gang hold reservations at Permit.
	waiting bool
	// activated avoids re-activating the siblings for every pod of one attempt.
	activated bool
	// attemptStart is when the current gang attempt began (zero between attempts).
	attemptStart time.Time
	// lastFailure explains the most recent failed attempt, for the Scheduled condition.
	lastFailure string
	// victims are pods (namespace/name → UID) this gang is preempting.
	victims map[string]string
	// victimsDeadline bounds how long the gang waits for its victims before preempting again.
	victimsDeadline time.Time
	// blocking is set while best-effort pods of sibling gangs yield to this
	// gang's pending minimum set; its outcome must wake them.
	blocking bool
	// misfit is set when an attempt failed although the search said the minimum
	// set fits; such a gang holds no extras back until it is placed or the
	// search itself says it does not fit.
	misfit bool
	// settleTimer is set while a delayed activation of the gang's extras is pending.
	settleTimer bool
}

// Manager is the gang bookkeeping shared by all extension points of the plugin.
type Manager struct {
	log           logr.Logger
	handle        framework.Handle
	podGangs      schedlisters.PodGangLister
	pods          corelisters.PodLister
	nodes         corelisters.NodeLister
	priorities    schedulinglisters.PriorityClassLister
	permitTimeout time.Duration
	status        *StatusWriter

	// queueReady turns true once the scheduling queue calls in; before that the
	// framework has no pod activator and Activate must not be called.
	queueReady atomic.Bool
	// lastNodeChange is when capacity last may have appeared (UnixNano).
	lastNodeChange atomic.Int64

	mu     sync.RWMutex
	specs  map[string]*gangSpec
	states map[string]*gangState
	// families indexes gang keys by PodCliqueSet ("namespace/part-of").
	families map[string]map[string]struct{}
}

// NewManager wires the Manager to the scheduler's pod and PriorityClass
// informers and to a PodGang informer it owns; informers must be started by the caller.
func NewManager(log logr.Logger, handle framework.Handle, client groveclient.Interface, podGangInformer cache.SharedIndexInformer, podGangs schedlisters.PodGangLister, permitTimeout time.Duration) (*Manager, error) {
	factory := handle.SharedInformerFactory()
	m := &Manager{
		log:           log,
		handle:        handle,
		podGangs:      podGangs,
		pods:          factory.Core().V1().Pods().Lister(),
		nodes:         factory.Core().V1().Nodes().Lister(),
		priorities:    factory.Scheduling().V1().PriorityClasses().Lister(),
		permitTimeout: permitTimeout,
		specs:         map[string]*gangSpec{},
		states:        map[string]*gangState{},
		families:      map[string]map[string]struct{}{},
	}
	m.status = newStatusWriter(log.WithName("status"), client, m, handle.EventRecorder())
	if _, err := podGangInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { m.onPodGang(obj) },
		UpdateFunc: func(_, obj interface{}) { m.onPodGang(obj) },
		DeleteFunc: m.onPodGangDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching PodGangs: %w", err)
	}
	if _, err := factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { m.onNodeChange(nil, obj) },
		UpdateFunc: m.onNodeChange,
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	// Registering the PriorityClass informer here makes the factory start it.
	factory.Scheduling().V1().PriorityClasses().Informer()
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { m.onPod(obj) },
		UpdateFunc: func(_, obj interface{}) { m.onPod(obj) },
		DeleteFunc: m.onPodDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return m, nil
}

// StatusWriter returns the writer of PodGang status; the caller runs it.
func (m *Manager) StatusWriter() *StatusWriter { return m.status }

// GangKey returns "namespace/podgang" for a pod of a gang.
func GangKey(pod *v1.Pod) (string, bool) {
	name, ok := pod.Labels[common.LabelPodGang]
	if !ok || name == "" {
		return "", false
	}
	return pod.Namespace + "/" + name, true
}

func (m *Manager) onPodGang(obj interface{}) {
	pg, ok := obj.(*schedv1alpha1.PodGang)
	if !ok {
		return
	}
	spec := newGangSpec(pg)
	m.mu.Lock()
	m.removeFromFamilyLocked(m.specs[spec.key])
	m.specs[spec.key] = spec
	m.addToFamilyLocked(spec)
	m.mu.Unlock()
	m.status.Enqueue(spec.key)
	// The queue learns about the PodGang from its own informer, possibly before
	// this one; re-running PreEnqueue for the referenced pods closes that race.
	if m.queueReady.Load() {
		m.activateUnplaced(spec)
	}
}

func (m *Manager) onPodGangDelete(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pg, ok := obj.(*schedv1alpha1.PodGang)
	if !ok {
		return
	}
	key := pg.Namespace + "/" + pg.Name
	if spec := m.spec(key); spec != nil {
		m.releaseExtras(key, spec.family)
	}
	m.mu.Lock()
	m.removeFromFamilyLocked(m.specs[key])
	delete(m.specs, key)
	if st := m.states[key]; st != nil && st.waiting {
		st.waiting = false
		m.updateWaitingGaugeLocked()
	}
	delete(m.states, key)
	m.mu.Unlock()
}

func (m *Manager) onPod(obj interface{}) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	if pod.Spec.NodeName != "" {
		m.mu.Lock()
		st := m.stateLocked(key)
		if pod.DeletionTimestamp == nil {
			st.bound[pod.Name] = pod.Spec.NodeName
		} else {
			delete(st.bound, pod.Name)
		}
		delete(st.reserved, pod.Name)
		m.mu.Unlock()
	}
	m.status.Enqueue(key)
}

func (m *Manager) onPodDelete(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	m.mu.Lock()
	if st := m.states[key]; st != nil {
		delete(st.bound, pod.Name)
		delete(st.reserved, pod.Name)
	}
	m.mu.Unlock()
	m.status.Enqueue(key)
}

func (m *Manager) stateLocked(key string) *gangState {
	st := m.states[key]
	if st == nil {
		st = &gangState{reserved: map[string]string{}, bound: map[string]string{}}
		m.states[key] = st
	}
	return st
}

func (m *Manager) updateWaitingGaugeLocked() {
	n := 0
	for _, st := range m.states {
		if st.waiting {
			n++
		}
	}
	metrics.GangsWaitingAtPermit.Set(float64(n))
}

// spec returns the digested PodGang, or nil.
func (m *Manager) spec(key string) *gangSpec {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.specs[key]
}

// priorityOf resolves a PodGang's priorityClassName to its value; an unknown
// or empty class is priority 0, the same as a pod without a class.
func (m *Manager) priorityOf(spec *gangSpec) int32 {
	if spec.priorityClassName == "" {
		return 0
	}
	pc, err := m.priorities.Get(spec.priorityClassName)
	if err != nil {
		return 0
	}
	return pc.Value
}

// SortKey returns what QueueSort orders by: priority (gang priority for pods
// of a gang), the gang's creation time (ok=false means use the pod's own queue
// time) and a tie-breaking key that keeps a gang's pods adjacent.
func (m *Manager) SortKey(pod *v1.Pod) (priority int32, created time.Time, group string, ok bool) {
	key, inGang := GangKey(pod)
	if !inGang {
		return corev1helpers.PodPriority(pod), time.Time{}, "", false
	}
	spec := m.spec(key)
	if spec == nil {
		return corev1helpers.PodPriority(pod), time.Time{}, key, false
	}
	return m.priorityOf(spec), spec.created, key, true
}

// PreEnqueue keeps a gang pod out of the active queue until its PodGang exists and references it.
func (m *Manager) PreEnqueue(pod *v1.Pod) *fwk.Status {
	m.queueReady.Store(true)
	key, ok := GangKey(pod)
	if !ok {
		return nil
	}
	spec := m.spec(key)
	if spec == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("PodGang %s does not exist yet", key))
	}
	if _, ok := spec.refIndex[pod.Name]; !ok {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("pod is not yet referenced by PodGang %s", key))
	}
	return nil
}

// counts returns, per group, how many referenced pods hold a node (reserved or bound).
func counts(spec *gangSpec, st *gangState) []int64 {
	out := make([]int64, len(spec.groups))
	for name, gi := range spec.refIndex {
		if _, ok := st.bound[name]; ok {
			out[gi]++
		} else if _, ok := st.reserved[name]; ok {
			out[gi]++
		}
	}
	return out
}

func minSetMet(spec *gangSpec, c []int64) bool {
	for i, g := range spec.groups {
		if c[i] < g.min {
			return false
		}
	}
	return true
}

// Decision is what PreFilter learned for a pod: the node labels it must and should land on.
type Decision struct {
	// Required node labels (hard topology packing); nil means any node.
	Required map[string]string
	// Preferred node labels (soft topology packing).
	Preferred map[string]string
	// BestEffort is set for pods beyond their group's minReplicas: they never
	// fail or preempt on behalf of the gang, and wait until the minimum set is placed.
	BestEffort bool
}

// PreFilter runs the gang feasibility and placement search for a pod of a gang
// against the cycle's snapshot. A nil Decision with nil status means the pod is
// not in a gang.
func (m *Manager) PreFilter(pod *v1.Pod, nodeInfos []fwk.NodeInfo) (*Decision, *fwk.Status) {
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
	c := counts(spec, st)
	met := minSetMet(spec, c)
	if !met && c[gi] >= spec.groups[gi].min {
		m.mu.Unlock()
		return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable,
			fmt.Sprintf("best-effort pod of group %s waits until the minimum set of PodGang %s is placed", spec.groups[gi].name, key))
	}
	if !met && st.attemptStart.IsZero() {
		st.attemptStart = time.Now()
	}
	assigned := make(map[string]string, len(st.reserved)+len(st.bound))
	for n, node := range st.reserved {
		assigned[n] = node
	}
	for n, node := range st.bound {
		assigned[n] = node
	}
	m.mu.Unlock()

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
		demands, msg = m.gangDemands(spec, c, gi, pod, assigned, false)
		if msg != "" {
			m.recordFailure(key, msg)
			return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
		}
	}
	root := spec.root.instantiate(domainResolver(spec, assigned, byName))
	placement, fail := Search(nodes, demands, root)
	if fail != nil {
		if met {
			return &Decision{BestEffort: true}, fwk.NewStatus(fwk.Unschedulable, fail.Message)
		}
		m.recordFailure(key, fail.Message)
		return nil, fwk.NewStatus(fwk.Unschedulable, fail.Message)
	}
	return &Decision{Required: placement.Required[gi], Preferred: placement.Preferred[gi], BestEffort: met}, nil
}

// singleDemand is the demand of one best-effort pod.
func (m *Manager) singleDemand(spec *gangSpec, gi int, pod *v1.Pod) []GroupDemand {
	demands := make([]GroupDemand, len(spec.groups))
	for i, g := range spec.groups {
		demands[i] = GroupDemand{Name: g.name}
	}
	demands[gi] = demandFor(spec.groups[gi].name, 1, pod)
	return demands
}

// gangDemands computes what each group still needs for the minimum set, using
// the pod at hand for its own group and one unplaced referenced pod as the
// template for every other group. A non-empty message means the gang cannot be
// complete because pods are missing.
func (m *Manager) gangDemands(spec *gangSpec, c []int64, gi int, pod *v1.Pod, assigned map[string]string, skipForeignGated bool) ([]GroupDemand, string) {
	demands := make([]GroupDemand, len(spec.groups))
	for i, g := range spec.groups {
		need := g.min - c[i]
		if need <= 0 {
			demands[i] = GroupDemand{Name: g.name}
			continue
		}
		if i == gi {
			demands[i] = demandFor(g.name, need, pod)
			continue
		}
		var template *v1.Pod
		var pending int64
		for _, ref := range g.refs {
			if _, ok := assigned[ref]; ok {
				continue
			}
			p, err := m.pods.Pods(spec.namespace).Get(ref)
			if err != nil || p.DeletionTimestamp != nil || (skipForeignGated && heldByForeignGate(p)) {
				continue
			}
			pending++
			if template == nil {
				template = p
			}
			if pending >= need {
				break
			}
		}
		if pending < need {
			return nil, fmt.Sprintf("group %s needs %d more pods but only %d of its referenced pods exist unplaced", g.name, need, pending)
		}
		demands[i] = demandFor(g.name, need, template)
	}
	return demands, ""
}

// demandFor builds a demand from a pod's effective request (init containers and
// overhead included, via scheduler-plugins' helper) and its node constraints.
func demandFor(name string, count int64, pod *v1.Pod) GroupDemand {
	rl := util.GetPodEffectiveRequest(pod)
	req := Resources{Pods: 1}
	for rname, q := range rl {
		switch rname {
		case v1.ResourceCPU:
			req.MilliCPU = q.MilliValue()
		case v1.ResourceMemory:
			req.Memory = q.Value()
		case v1.ResourcePods, v1.ResourceEphemeralStorage:
		default:
			if req.Scalar == nil {
				req.Scalar = map[v1.ResourceName]int64{}
			}
			req.Scalar[rname] = q.Value()
		}
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	tolerations := pod.Spec.Tolerations
	return GroupDemand{Name: name, Count: count, Request: req, Eligible: func(n *SimNode) bool {
		return n.node != nil && eligible(n.node, affinity, tolerations)
	}}
}

func eligible(node *v1.Node, affinity nodeaffinity.RequiredNodeAffinity, tolerations []v1.Toleration) bool {
	if node.Spec.Unschedulable {
		return false
	}
	if ok, _ := affinity.Match(node); !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(node.Spec.Taints, tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	})
	return !untolerated
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
				free.Scalar = map[v1.ResourceName]int64{}
			}
			free.Scalar[name] = v - used.GetScalarResources()[name]
		}
		sn := &SimNode{Name: node.Name, Labels: node.Labels, Free: free, node: node}
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

// recordFailure remembers why the gang does not fit, for its status and Events.
func (m *Manager) recordFailure(key, msg string) {
	m.mu.Lock()
	st := m.stateLocked(key)
	changed := st.lastFailure != msg
	st.lastFailure = msg
	// The search itself says the gang does not fit: a former misfit is judged
	// by the search again from now on.
	st.misfit = false
	m.mu.Unlock()
	if spec := m.spec(key); spec != nil {
		m.releaseExtras(key, spec.family)
	}
	if changed {
		m.status.EventOnGang(key, v1.EventTypeWarning, "Unschedulable", msg)
	}
	m.status.Enqueue(key)
}

// Reserve records that the pod holds a node.
func (m *Manager) Reserve(pod *v1.Pod, nodeName string) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	m.mu.Lock()
	m.stateLocked(key).reserved[pod.Name] = nodeName
	m.mu.Unlock()
}

// Unreserve releases the pod's reservation and, while the gang's minimum set
// is incomplete, rejects every other waiting pod of the gang so the whole
// gang releases its resources and backs off together.
func (m *Manager) Unreserve(pod *v1.Pod, reason string) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	spec := m.spec(key)
	m.mu.Lock()
	st := m.stateLocked(key)
	delete(st.reserved, pod.Name)
	wasWaiting := st.waiting
	met := spec != nil && minSetMet(spec, counts(spec, st))
	if !met {
		st.waiting = false
		st.activated = false
		st.misfit = true
		m.updateWaitingGaugeLocked()
	}
	m.mu.Unlock()
	if met {
		return
	}
	if spec != nil {
		m.releaseExtras(key, spec.family)
	}
	m.rejectWaiting(key, reason)
	if wasWaiting {
		m.endAttempt(key, metrics.ResultTimeout, "")
	}
}

// rejectWaiting rejects every pod of the gang waiting at Permit.
func (m *Manager) rejectWaiting(key, reason string) {
	m.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
		if k, ok := GangKey(wp.GetPod()); ok && k == key {
			wp.Reject(PluginName, reason)
		}
	})
}

// PluginName is the name the plugin registers under; waiting pods are allowed
// and rejected in its name.
const PluginName = "GroveGang"

// Permit lets a pod through once every group of its gang has minReplicas pods
// reserved or bound, releasing the gang's waiting pods at the same moment.
func (m *Manager) Permit(pod *v1.Pod) (PermitResult, time.Duration) {
	key, ok := GangKey(pod)
	if !ok {
		return NotInGang, 0
	}
	spec := m.spec(key)
	if spec == nil {
		return Wait, m.permitTimeout
	}
	m.mu.Lock()
	st := m.stateLocked(key)
	if minSetMet(spec, counts(spec, st)) {
		wasWaiting := st.waiting
		st.waiting = false
		st.activated = false
		st.lastFailure = ""
		st.misfit = false
		m.updateWaitingGaugeLocked()
		m.mu.Unlock()
		if wasWaiting {
			m.handle.IterateOverWaitingPods(func(wp framework.WaitingPod) {
				if k, ok := GangKey(wp.GetPod()); ok && k == key {
					wp.Allow(PluginName)
				}
			})
		}
		m.endAttempt(key, metrics.ResultScheduled, "")
		// Best-effort extras were held back in PreFilter; now they may go, and so
		// may the extras of sibling gangs that yielded to this minimum set.
		m.activateUnplaced(spec)
		m.releaseExtras(key, spec.family)
		return Allow, 0
	}
	first := !st.waiting
	st.waiting = true
	activate := !st.activated
	st.activated = true
	m.updateWaitingGaugeLocked()
	m.mu.Unlock()
	if first {
		m.status.EventOnGang(key, v1.EventTypeNormal, "WaitingForMinimumSet", "pods hold their nodes at Permit until every pod group has its minReplicas")
		m.status.Enqueue(key)
	}
	if activate {
		m.activateUnplaced(spec)
	}
	return Wait, m.permitTimeout
}

// activateUnplaced moves the gang's unplaced pods to the active queue so the
// whole gang is tried together instead of waiting out individual backoffs.
func (m *Manager) activateUnplaced(spec *gangSpec) {
	pods := map[string]*v1.Pod{}
	for _, ref := range spec.refs() {
		p, err := m.pods.Pods(spec.namespace).Get(ref)
		if err != nil || p.Spec.NodeName != "" {
			continue
		}
		pods[p.Namespace+"/"+p.Name] = p
	}
	if len(pods) > 0 {
		m.handle.Activate(m.log, pods)
	}
}

func (s *gangSpec) refs() []string {
	out := make([]string, 0, len(s.refIndex))
	for _, g := range s.groups {
		out = append(out, g.refs...)
	}
	return out
}

// endAttempt closes the gang's current attempt in the metrics.
func (m *Manager) endAttempt(key, result, _ string) {
	m.mu.Lock()
	st := m.stateLocked(key)
	start := st.attemptStart
	st.attemptStart = time.Time{}
	m.mu.Unlock()
	if start.IsZero() {
		return
	}
	metrics.RecordAttempt(result, time.Since(start))
}

// RejectGang ends a failed attempt from PostFilter: the gang's waiting pods
// are rejected so all of its pods back off together. searchPassed says the
// placement search had found room for the minimum set, so the failure came
// from something the search does not model and the gang is a misfit.
func (m *Manager) RejectGang(pod *v1.Pod, reason string, searchPassed bool) {
	key, ok := GangKey(pod)
	if !ok {
		return
	}
	m.mu.Lock()
	st := m.stateLocked(key)
	st.waiting = false
	st.activated = false
	if searchPassed {
		st.misfit = true
	}
	m.updateWaitingGaugeLocked()
	m.mu.Unlock()
	if spec := m.spec(key); spec != nil {
		m.releaseExtras(key, spec.family)
	}
	m.rejectWaiting(key, reason)
	m.endAttempt(key, metrics.ResultUnschedulable, reason)
}

// gangPods lists the existing pods a PodGang references (O(references)).
func (m *Manager) gangPods(spec *gangSpec) []*v1.Pod {
	var out []*v1.Pod
	for _, ref := range spec.refs() {
		if p, err := m.pods.Pods(spec.namespace).Get(ref); err == nil {
			out = append(out, p)
		} else if !apierrors.IsNotFound(err) {
			m.log.Error(err, "Reading pod of gang", "podGang", spec.key, "pod", ref)
		}
	}
	return out
}

// nodeLabels returns a node's labels from the informer cache (nil when unknown).
func (m *Manager) nodeLabels(name string) map[string]string {
	n, err := m.nodes.Get(name)
	if err != nil {
		return nil
	}
	return n.Labels
}
