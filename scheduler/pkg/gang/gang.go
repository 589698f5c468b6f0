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

// Package gang is the GroveGang scheduler plugin: all-or-nothing placement of
// Grove PodGangs (hierarchical gangs of pod groups with minReplicas each),
// topology packing, gang priority ordering and whole-gang preemption. The
// bookkeeping lives in package core; this file maps framework extension points
// onto it, in the layout of scheduler-plugins' coscheduling plugin.
package gang

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	groveinformers "github.com/grove-project/grove/api/client/informers/externalversions"
	"github.com/grove-project/grove/scheduler/pkg/gang/binder"
	"github.com/grove-project/grove/scheduler/pkg/gang/core"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// Name is the plugin name used in KubeSchedulerConfiguration.
const Name = core.PluginName

// Args configures the plugin (pluginConfig args of GroveGang).
type Args struct {
	// PermitWaitingTimeSeconds bounds how long reserved pods of an incomplete
	// gang hold their nodes before the whole waiting set is released. Default 60.
	PermitWaitingTimeSeconds float64 `json:"permitWaitingTimeSeconds,omitempty"`
	// StatusWorkers is the number of PodGang status writers. Default 4.
	StatusWorkers int `json:"statusWorkers,omitempty"`
	// MaxInFlightBinds bounds the gang pod binds sent and not yet answered
	// (package binder). Default 64.
	MaxInFlightBinds int `json:"maxInFlightBinds,omitempty"`
}

const (
	defaultPermitWaitingTime = 60 * time.Second
	defaultStatusWorkers     = 4
	stateKey                 = fwk.StateKey(Name)
)

// gangCore is the gang bookkeeping the plugin delegates to: *core.Manager,
// or a fake in the facade's tests.
type gangCore interface {
	EventsToRegister() []fwk.ClusterEventWithHint
	PreEnqueue(pod *corev1.Pod) *fwk.Status
	SortKey(pod *corev1.Pod) (priority int32, created time.Time, group string, ok bool)
	PreFilter(pod *corev1.Pod, nodes []fwk.NodeInfo) (*core.Decision, *fwk.Status)
	Preempt(ctx context.Context, pod *corev1.Pod) (core.PreemptionResult, error)
	RejectGang(pod *corev1.Pod, reason string, searchPassed bool)
	Reserve(pod *corev1.Pod, nodeName string)
	Unreserve(pod *corev1.Pod, reason string)
	Permit(pod *corev1.Pod) (core.PermitResult, time.Duration)
}

// podBinder binds a pod to a node: *binder.Binder, or a fake in the facade's tests.
type podBinder interface {
	Bind(ctx context.Context, pod *corev1.Pod, node string) error
}

// Plugin is the GroveGang plugin.
type Plugin struct {
	core   gangCore
	binder podBinder
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.QueueSortPlugin   = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.ScorePlugin       = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PermitPlugin      = &Plugin{}
	_ fwk.BindPlugin        = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
	_ gangCore              = &core.Manager{}
)

// New builds the plugin: it decodes Args, starts a PodGang informer on the
// scheduler's kubeconfig and the PodGang status writer, and registers the grove_ metrics.
func New(ctx context.Context, obj runtime.Object, handle fwk.Handle) (fwk.Plugin, error) {
	log := klog.FromContext(ctx).WithValues("plugin", Name)
	args := Args{}
	if obj != nil {
		if err := frameworkruntime.DecodeInto(obj, &args); err != nil {
			return nil, fmt.Errorf("decoding %s args: %w", Name, err)
		}
	}
	permitTimeout := defaultPermitWaitingTime
	if args.PermitWaitingTimeSeconds > 0 {
		permitTimeout = time.Duration(args.PermitWaitingTimeSeconds * float64(time.Second))
	}
	workers := args.StatusWorkers
	if workers <= 0 {
		workers = defaultStatusWorkers
	}
	metrics.Register()

	// PodGangs are custom resources, which the API server serves and accepts
	// only as JSON; kube-scheduler's own client defaults to protobuf, which would
	// make every PodGang status write fail.
	kubeConfig := rest.CopyConfig(handle.KubeConfig())
	kubeConfig.ContentType = runtime.ContentTypeJSON
	kubeConfig.AcceptContentTypes = runtime.ContentTypeJSON
	client, err := groveclient.NewForConfig(kubeConfig)
	if err != nil {
		return nil, fmt.Errorf("building PodGang client: %w", err)
	}
	factory := groveinformers.NewSharedInformerFactory(client, 0)
	pgInformer := factory.Scheduler().V1alpha1().PodGangs()
	manager, err := core.NewManager(log, handle, client, pgInformer.Informer(), pgInformer.Lister(), permitTimeout)
	if err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("syncing informer for %v", typ)
		}
	}
	manager.StatusWriter().Run(ctx, workers)
	return &Plugin{core: manager, binder: binder.New(handle.ClientSet(), binder.Options{MaxInFlight: args.MaxInFlightBinds})}, nil
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

// EventsToRegister lists the events that can make a rejected gang pod
// schedulable, each with the core's queueing hint.
func (p *Plugin) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return p.core.EventsToRegister(), nil
}

// PreEnqueue holds gang pods until their PodGang references them.
func (p *Plugin) PreEnqueue(_ context.Context, pod *corev1.Pod) *fwk.Status {
	return p.core.PreEnqueue(pod)
}

// queuedPod is the view of a queued entity that holds a single pod. The
// scheduling queue also holds Kubernetes-native pod groups (QueuedPodGroupInfo),
// which carry no single pod; Grove gangs never queue as those.
type queuedPod interface {
	GetPodInfo() fwk.PodInfo
}

// Less orders by priority (the gang's for gang pods), then by age (the
// PodGang's for gang pods), then by gang so a gang's pods stay adjacent.
// Entities that are not single pods order by their own priority and age.
func (p *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, ta, ga, podA := p.sortKey(a)
	pb, tb, gb, podB := p.sortKey(b)
	if pa != pb {
		return pa > pb
	}
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if ga != gb {
		return ga < gb
	}
	if podA == nil || podB == nil {
		return podA != nil
	}
	if podA.Namespace != podB.Namespace {
		return podA.Namespace < podB.Namespace
	}
	return podA.Name < podB.Name
}

// sortKey is an entity's priority, age, gang and pod for Less. A pod of a
// known PodGang takes the gang's priority and creation time; any other pod
// its queue time; an entity that is not a single pod its own priority and
// queue time, and no pod.
func (p *Plugin) sortKey(e fwk.QueuedEntityInfo) (int32, time.Time, string, *corev1.Pod) {
	q, isPod := e.(queuedPod)
	if !isPod {
		return e.GetPriority(), e.GetTimestamp(), "", nil
	}
	pod := q.GetPodInfo().GetPod()
	priority, created, group, known := p.core.SortKey(pod)
	if !known {
		created = e.GetTimestamp()
	}
	return priority, created, group, pod
}

// cycleDecision carries PreFilter's decision to Filter-time consumers.
type cycleDecision struct {
	decision *core.Decision
}

// Clone returns the decision itself; it is immutable once written.
func (d *cycleDecision) Clone() fwk.StateData { return d }

// PreFilter checks that the gang's whole minimum set fits before any of its
// pods takes a node, and narrows the pod to the topology domain chosen for it.
func (p *Plugin) PreFilter(_ context.Context, state fwk.CycleState, pod *corev1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	decision, status := p.core.PreFilter(pod, nodes)
	state.Write(stateKey, &cycleDecision{decision: decision})
	if !status.IsSuccess() {
		return nil, status
	}
	if decision == nil {
		return nil, nil
	}
	if decision.Node != "" {
		// The gang's plan (the group-level cycle): filter that node only.
		return &fwk.PreFilterResult{NodeNames: sets.New(decision.Node)}, nil
	}
	if len(decision.Required) == 0 {
		return nil, nil
	}
	allowed := sets.New[string]()
	for _, ni := range nodes {
		if n := ni.Node(); n != nil && matches(n.Labels, decision.Required) {
			allowed.Insert(n.Name)
		}
	}
	return &fwk.PreFilterResult{NodeNames: allowed}, nil
}

// PreFilterExtensions is not needed: the search accounts for assumed pods itself.
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func readDecision(state fwk.CycleState) *core.Decision {
	data, err := state.Read(stateKey)
	if err != nil {
		return nil
	}
	if d, ok := data.(*cycleDecision); ok {
		return d.decision
	}
	return nil
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// PostFilter runs when the pod found no node: it preempts whole lower-priority
// gangs if that makes the gang fit and nominates the node the search chose for
// the pod, otherwise rejects the gang's waiting pods so the whole gang backs off together.
func (p *Plugin) PostFilter(ctx context.Context, state fwk.CycleState, pod *corev1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	if d := readDecision(state); d != nil && d.BestEffort {
		return nil, fwk.NewStatus(fwk.Unschedulable, "best-effort pod of a gang does not preempt or reject its gang")
	}
	if d := readDecision(state); d != nil && d.AwaitingClaims {
		return nil, fwk.NewStatus(fwk.Unschedulable, "pod of a gang waiting for its ResourceClaims' allocations does not preempt or reject its gang")
	}
	res, err := p.core.Preempt(ctx, pod)
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	if res.Outcome == core.Preempting {
		// The pod stays unschedulable until its victims are gone; the
		// nomination (kube-scheduler writes it to status.nominatedNodeName
		// whatever NominatedNodeNameForExpectation says) keeps the node's room
		// for it against lower-priority pods meanwhile.
		var result *fwk.PostFilterResult
		if res.NominatedNode != "" {
			result = &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: res.NominatedNode, NominatingMode: fwk.ModeOverride}}
		}
		return result, fwk.NewStatus(fwk.Unschedulable, res.Message)
	}
	if _, inGang := core.GangKey(pod); !inGang {
		if res.Message != "" {
			return nil, fwk.NewStatus(fwk.Unschedulable, res.Message)
		}
		return nil, fwk.NewStatus(fwk.Unschedulable, "no lower-priority pods or gangs to preempt")
	}
	d := readDecision(state)
	p.core.RejectGang(pod, fmt.Sprintf("gang rejected: pod %s cannot be placed", pod.Name), d != nil)
	msg := "gang does not fit; its waiting pods were released"
	if res.Message != "" {
		msg += "; " + res.Message
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, msg)
}

// PreScore skips scoring for pods without a preferred topology domain, so
// ordinary pods pay nothing for the plugin at Score.
func (p *Plugin) PreScore(_ context.Context, state fwk.CycleState, _ *corev1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	if d := readDecision(state); d == nil || len(d.Preferred) == 0 {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// Score prefers nodes in the preferred topology domains chosen for the pod's scopes.
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *corev1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	d := readDecision(state)
	if d == nil || len(d.Preferred) == 0 || nodeInfo.Node() == nil {
		return 0, nil
	}
	var hit int64
	for k, v := range d.Preferred {
		if nodeInfo.Node().Labels[k] == v {
			hit++
		}
	}
	return hit * fwk.MaxScore / int64(len(d.Preferred)), nil
}

// ScoreExtensions is not needed: scores are already in [0, MaxScore].
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }

// Reserve records the pod's node in its gang.
func (p *Plugin) Reserve(_ context.Context, _ fwk.CycleState, pod *corev1.Pod, nodeName string) *fwk.Status {
	p.core.Reserve(pod, nodeName)
	return nil
}

// Unreserve releases the pod and, for an incomplete gang, all of its waiting siblings.
func (p *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, pod *corev1.Pod, _ string) {
	p.core.Unreserve(pod, fmt.Sprintf("gang member %s was unreserved", pod.Name))
}

// Permit holds gang pods until the gang's minimum set is reserved.
func (p *Plugin) Permit(_ context.Context, _ fwk.CycleState, pod *corev1.Pod, _ string) (*fwk.Status, time.Duration) {
	switch res, timeout := p.core.Permit(pod); res {
	case core.Wait:
		return fwk.NewStatus(fwk.Wait, "waiting for the gang's minimum set"), timeout
	default:
		return nil, 0
	}
}

// Bind binds gang pods through the binder, which bounds the binds in flight
// and retries the ones an overloaded API server fails; other pods are left to
// DefaultBinder.
func (p *Plugin) Bind(ctx context.Context, _ fwk.CycleState, pod *corev1.Pod, nodeName string) *fwk.Status {
	if _, inGang := core.GangKey(pod); !inGang {
		return fwk.NewStatus(fwk.Skip)
	}
	if err := p.binder.Bind(ctx, pod, nodeName); err != nil {
		return fwk.AsStatus(err)
	}
	return nil
}
