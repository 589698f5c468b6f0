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
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	schedlisters "github.com/grove-project/grove/api/client/listers/scheduler/v1alpha1"
	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// PluginName is the name the plugin registers under; waiting pods are allowed
// and rejected in its name.
const PluginName = "GroveGang"

// schedulerHandle is the part of fwk.Handle the Manager drives: the
// pods waiting at Permit, the scheduling queue and the cycle's snapshot.
type schedulerHandle interface {
	IterateOverWaitingPods(callback func(fwk.WaitingPod))
	Activate(logger klog.Logger, pods map[string]*corev1.Pod)
	SnapshotSharedLister() fwk.SharedLister
}

// Manager is the gang bookkeeping shared by all extension points of the plugin.
type Manager struct {
	log logr.Logger
	// schedulerName is the profile this plugin serves; PodGangs whose
	// grove.io/scheduler-name names another backend are not this scheduler's.
	schedulerName string
	handle        schedulerHandle
	kube          kubernetes.Interface
	podGangs      schedlisters.PodGangLister
	pods          corelisters.PodLister
	// podsByGang is the pod informer's indexer, with gangIndex.
	podsByGang cache.Indexer
	nodes      corelisters.NodeLister
	namespaces corelisters.NamespaceLister
	pvcs       corelisters.PersistentVolumeClaimLister
	pvs        corelisters.PersistentVolumeLister
	classes    storagelisters.StorageClassLister
	priorities schedulinglisters.PriorityClassLister
	pdbs       policylisters.PodDisruptionBudgetLister
	// dra is the scheduler's view of ResourceClaims, ResourceSlices and
	// DeviceClasses, the one its DynamicResources plugin uses; nil without DRA.
	dra           fwk.SharedDRAManager
	permitTimeout time.Duration
	status        *StatusWriter

	// queueReady turns true once the scheduling queue calls in; before that the
	// framework has no pod activator and Activate must not be called.
	queueReady atomic.Bool
	// lastNodeChange is when capacity last may have appeared (UnixNano).
	lastNodeChange atomic.Int64

	// mu guards the maps below. It is never held while calling into the
	// scheduling queue (Activate, waiting pods): the queue calls the queueing
	// hints, which take mu, while holding its own lock.
	mu     sync.RWMutex
	specs  map[string]*gangSpec
	states map[string]*gangState
	// waitingGangs counts the gangs whose phase waits at Permit.
	waitingGangs int
	// families indexes gang keys by PodCliqueSet ("namespace/part-of").
	families map[string]map[string]struct{}
	// wakeups are the best-effort pods' pending wake-ups (siblings.go).
	wakeups familyWakeups
}

// NewManager wires the Manager to the scheduler's pod, node, PriorityClass and
// PodDisruptionBudget informers and to a PodGang informer it owns; informers must be started by the caller.
func NewManager(log logr.Logger, handle fwk.Handle, client groveclient.Interface, podGangInformer cache.SharedIndexInformer, podGangs schedlisters.PodGangLister, permitTimeout time.Duration) (*Manager, error) {
	factory := handle.SharedInformerFactory()
	m := newManager(log, handle, handle.ClientSet(), podGangs,
		factory.Core().V1().Pods().Lister(), factory.Core().V1().Nodes().Lister(),
		factory.Scheduling().V1().PriorityClasses().Lister(), factory.Policy().V1().PodDisruptionBudgets().Lister(), permitTimeout)
	if p, ok := handle.(interface{ ProfileName() string }); ok && p.ProfileName() != "" {
		m.schedulerName = p.ProfileName()
	}
	m.dra = handle.SharedDRAManager()
	m.namespaces = factory.Core().V1().Namespaces().Lister()
	m.pvcs = factory.Core().V1().PersistentVolumeClaims().Lister()
	m.pvs = factory.Core().V1().PersistentVolumes().Lister()
	m.classes = factory.Storage().V1().StorageClasses().Lister()
	m.status = newStatusWriter(log.WithName("status"), client, m, handle.EventRecorder())
	podInformer := factory.Core().V1().Pods().Informer()
	if err := podInformer.AddIndexers(cache.Indexers{gangIndex: gangIndexFunc}); err != nil {
		return nil, fmt.Errorf("indexing pods by PodGang: %w", err)
	}
	m.podsByGang = podInformer.GetIndexer()
	if _, err := podGangInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.onPodGang(nil, obj) },
		UpdateFunc: m.onPodGang,
		DeleteFunc: m.onPodGangDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching PodGangs: %w", err)
	}
	if _, err := factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.onNodeChange(nil, obj) },
		UpdateFunc: m.onNodeChange,
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	// Registering the informers the Manager reads here makes the factory start them.
	factory.Scheduling().V1().PriorityClasses().Informer()
	factory.Policy().V1().PodDisruptionBudgets().Informer()
	factory.Core().V1().Namespaces().Informer()
	factory.Core().V1().PersistentVolumeClaims().Informer()
	factory.Core().V1().PersistentVolumes().Informer()
	factory.Storage().V1().StorageClasses().Informer()
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.onPod(obj) },
		UpdateFunc: func(_, obj any) { m.onPod(obj) },
		DeleteFunc: m.onPodDelete,
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return m, nil
}

// newManager builds a Manager without a status writer or informer handlers.
func newManager(log logr.Logger, handle schedulerHandle, kube kubernetes.Interface, podGangs schedlisters.PodGangLister,
	pods corelisters.PodLister, nodes corelisters.NodeLister, priorities schedulinglisters.PriorityClassLister,
	pdbs policylisters.PodDisruptionBudgetLister, permitTimeout time.Duration) *Manager {
	return &Manager{
		log:           log,
		schedulerName: defaultSchedulerName,
		handle:        handle,
		kube:          kube,
		podGangs:      podGangs,
		pods:          pods,
		nodes:         nodes,
		priorities:    priorities,
		pdbs:          pdbs,
		permitTimeout: permitTimeout,
		specs:         map[string]*gangSpec{},
		states:        map[string]*gangState{},
		families:      map[string]map[string]struct{}{},
		wakeups:       newFamilyWakeups(),
	}
}

// StatusWriter returns the writer of PodGang status; the caller runs it.
func (m *Manager) StatusWriter() *StatusWriter { return m.status }

// onPodGang digests an added (old nil) or updated PodGang. When the change can
// let pods of the gang through (see podGangChangeHelps), the gang's waiting
// pods are activated: kube-scheduler is not told about PodGangs itself (see
// EventsToRegister), so this informer is the only one whose view PreEnqueue
// and the hints read.
func (m *Manager) onPodGang(oldObj, obj any) {
	pg, ok := obj.(*groveschedulerv1alpha1.PodGang)
	if !ok {
		return
	}
	if !m.handles(pg) {
		// A gang of another backend (or one relabelled away from this
		// scheduler): its status is the operator's backend controller's to
		// write, and two writers would overwrite each other's condition.
		m.onPodGangDelete(pg)
		return
	}
	old, _ := oldObj.(*groveschedulerv1alpha1.PodGang)
	spec := newGangSpec(pg)
	m.mu.Lock()
	m.removeFromFamilyLocked(m.specs[spec.key])
	m.specs[spec.key] = spec
	m.addToFamilyLocked(spec)
	m.mu.Unlock()
	m.status.Enqueue(spec.key)
	if m.queueReady.Load() && podGangChangeHelps(old, pg) {
		m.activateWaiting(spec.key)
	}
}

// defaultSchedulerName is grove-scheduler's profile name when the framework
// handle does not say (the chart and scheduler/config name it so).
const defaultSchedulerName = "grove-scheduler"

// handles says whether pg is this scheduler's: its grove.io/scheduler-name
// names this profile, or it names none (a PodGang made by hand).
func (m *Manager) handles(pg *groveschedulerv1alpha1.PodGang) bool {
	name := pg.Labels[apicommon.LabelSchedulerName]
	return name == "" || name == m.schedulerName
}

func (m *Manager) onPodGangDelete(obj any) {
	pg, ok := lastState(obj).(*groveschedulerv1alpha1.PodGang)
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
	if st := m.states[key]; st != nil && st.phase.waitingAtPermit() {
		m.waitingGangs--
		metrics.GangsWaitingAtPermit.Set(float64(m.waitingGangs))
	}
	delete(m.states, key)
	m.wakeups.forget(key)
	m.mu.Unlock()
}

func (m *Manager) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
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

func (m *Manager) onPodDelete(obj any) {
	pod, ok := lastState(obj).(*corev1.Pod)
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

// lastState returns a deleted object's last known state, unwrapping the
// tombstone an informer hands over when it missed the deletion.
func lastState(obj any) any {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tomb.Obj
	}
	return obj
}

// stateLocked returns the gang's state, creating it; m.mu must be held for writing.
func (m *Manager) stateLocked(key string) *gangState {
	st := m.states[key]
	if st == nil {
		st = newGangState()
		m.states[key] = st
	}
	return st
}

// transitionLocked moves a gang to the phase the event leads to (Phase.next)
// and keeps the waiting-at-Permit gauge in step; m.mu must be held for writing.
func (m *Manager) transitionLocked(key string, st *gangState, ev gangEvent) {
	if ev != evAttemptStarted && ev != evPermitWaiting {
		// The attempt ended (or the search ran again): its plan is spent.
		st.plan = nil
	}
	from := st.phase
	st.phase = from.next(ev)
	if st.phase == from {
		return
	}
	m.log.V(5).Info("Gang phase changed", "podGang", key, "event", ev, "from", from, "to", st.phase)
	switch {
	case !from.waitingAtPermit() && st.phase.waitingAtPermit():
		m.waitingGangs++
	case from.waitingAtPermit() && !st.phase.waitingAtPermit():
		m.waitingGangs--
	default:
		return
	}
	metrics.GangsWaitingAtPermit.Set(float64(m.waitingGangs))
}

// view returns a consistent copy of a gang's bookkeeping.
func (m *Manager) view(spec *gangSpec) gangView {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.viewOfLocked(spec, m.states[spec.key])
}

// viewOfLocked is viewOf plus, for a scaled gang packed with its base gang,
// the nodes the base gang's pods hold; m.mu must be held.
func (m *Manager) viewOfLocked(spec *gangSpec, st *gangState) gangView {
	v := viewOf(spec, st)
	if spec.root.replica {
		if bst := m.states[spec.base]; bst != nil {
			v.baseAssigned = bst.assigned()
		}
	}
	return v
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

// gangPods lists the existing pods a PodGang references (O(references)).
func (m *Manager) gangPods(spec *gangSpec) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ref := range spec.refs() {
		if p, err := m.pods.Pods(spec.namespace).Get(ref); err == nil {
			out = append(out, p)
		} else if !apierrors.IsNotFound(err) {
			m.log.Error(err, "Reading pod of gang", "podGang", spec.key, "pod", ref)
		}
	}
	return out
}

// namespaceLabels returns a namespace's labels from the informer cache (nil
// when unknown), for pod affinity terms with a namespaceSelector.
func (m *Manager) namespaceLabels(name string) labels.Set {
	if m.namespaces == nil {
		return nil
	}
	ns, err := m.namespaces.Get(name)
	if err != nil {
		return nil
	}
	return ns.Labels
}

// nodeLabels returns a node's labels from the informer cache (nil when unknown).
func (m *Manager) nodeLabels(name string) map[string]string {
	n, err := m.nodes.Get(name)
	if err != nil {
		return nil
	}
	return n.Labels
}
