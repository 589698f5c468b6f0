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

package gang

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/scheduler/pkg/gang/core"
)

// fakeCore answers with canned values and records the calls the facade makes.
type fakeCore struct {
	events    []fwk.ClusterEventWithHint
	sortKeys  map[string]sortKey
	decision  *core.Decision
	status    *fwk.Status
	preempt   core.PreemptionResult
	preemptEr error
	permit    core.PermitResult
	timeout   time.Duration
	calls     []string
}

type sortKey struct {
	priority int32
	created  time.Time
	group    string
	ok       bool
}

func (f *fakeCore) EventsToRegister() []fwk.ClusterEventWithHint { return f.events }
func (f *fakeCore) PreEnqueue(pod *corev1.Pod) *fwk.Status {
	f.calls = append(f.calls, "PreEnqueue "+pod.Name)
	return f.status
}
func (f *fakeCore) SortKey(pod *corev1.Pod) (int32, time.Time, string, bool) {
	k := f.sortKeys[pod.Name]
	return k.priority, k.created, k.group, k.ok
}
func (f *fakeCore) PreFilter(pod *corev1.Pod, _ []fwk.NodeInfo) (*core.Decision, *fwk.Status) {
	f.calls = append(f.calls, "PreFilter "+pod.Name)
	return f.decision, f.status
}
func (f *fakeCore) Preempt(_ context.Context, pod *corev1.Pod) (core.PreemptionResult, error) {
	f.calls = append(f.calls, "Preempt "+pod.Name)
	return f.preempt, f.preemptEr
}
func (f *fakeCore) RejectGang(pod *corev1.Pod, reason string, searchPassed bool) {
	passed := "search failed"
	if searchPassed {
		passed = "search passed"
	}
	f.calls = append(f.calls, "RejectGang "+pod.Name+" ("+passed+"): "+reason)
}
func (f *fakeCore) Reserve(pod *corev1.Pod, nodeName string) {
	f.calls = append(f.calls, "Reserve "+pod.Name+" on "+nodeName)
}
func (f *fakeCore) Unreserve(pod *corev1.Pod, reason string) {
	f.calls = append(f.calls, "Unreserve "+pod.Name+": "+reason)
}
func (f *fakeCore) Permit(pod *corev1.Pod) (core.PermitResult, time.Duration) {
	f.calls = append(f.calls, "Permit "+pod.Name)
	return f.permit, f.timeout
}

func gangPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{apicommon.LabelPodGang: "g"}}}
}

func plainPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func nodeInfo(name string, labels map[string]string) fwk.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	return ni
}

func TestPreFilterPinsThePodToItsDomainAndRemembersTheDecision(t *testing.T) {
	nodes := []fwk.NodeInfo{
		nodeInfo("a0", map[string]string{"rack": "a", "zone": "z1"}),
		nodeInfo("a1", map[string]string{"rack": "a", "zone": "z2"}),
		nodeInfo("b0", map[string]string{"rack": "b", "zone": "z1"}),
	}
	tests := []struct {
		name      string
		decision  *core.Decision
		status    *fwk.Status
		wantNodes sets.Set[string]
		wantCode  fwk.Code
		// preScore is PreScore's verdict for the pod; scores are Score's per node.
		preScore fwk.Code
		scores   map[string]int64
	}{
		{
			name:     "an ordinary pod is not narrowed and not scored",
			preScore: fwk.Skip,
		},
		{
			name:      "required labels narrow the pod to the nodes of its domain",
			decision:  &core.Decision{Required: map[string]string{"rack": "a"}},
			wantNodes: sets.New("a0", "a1"),
			preScore:  fwk.Skip,
		},
		{
			name:     "preferred labels score nodes by the share of labels they match",
			decision: &core.Decision{Preferred: map[string]string{"rack": "a", "zone": "z1"}},
			preScore: fwk.Success,
			scores:   map[string]int64{"a0": fwk.MaxScore, "a1": fwk.MaxScore / 2, "b0": fwk.MaxScore / 2},
		},
		{
			name:     "a rejection is passed on",
			status:   fwk.NewStatus(fwk.Unschedulable, "group w needs 2 pods with 1 nvidia.com/gpu, 1 fit"),
			wantCode: fwk.Unschedulable,
			preScore: fwk.Skip,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCore{decision: tt.decision, status: tt.status}
			p := &Plugin{core: f}
			state := framework.NewCycleState()
			pod := gangPod("g-w-0")
			res, status := p.PreFilter(context.Background(), state, pod, nodes)
			if status.Code() != tt.wantCode {
				t.Fatalf("PreFilter status %v, want %v", status, tt.wantCode)
			}
			var got sets.Set[string]
			if res != nil {
				got = res.NodeNames
			}
			if !reflect.DeepEqual(got, tt.wantNodes) {
				t.Fatalf("PreFilter narrowed to %v, want %v", sets.List(got), sets.List(tt.wantNodes))
			}
			if readDecision(state) != tt.decision {
				t.Fatalf("CycleState holds %+v, want the core's decision %+v", readDecision(state), tt.decision)
			}
			if code := p.PreScore(context.Background(), state, pod, nodes).Code(); code != tt.preScore {
				t.Fatalf("PreScore %v, want %v", code, tt.preScore)
			}
			for _, ni := range nodes {
				score, status := p.Score(context.Background(), state, pod, ni)
				if !status.IsSuccess() || score != tt.scores[ni.Node().Name] {
					t.Errorf("Score(%s) = %d %v, want %d", ni.Node().Name, score, status, tt.scores[ni.Node().Name])
				}
			}
		})
	}
}

func TestPostFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *corev1.Pod
		decision *core.Decision
		preempt  core.PreemptionResult
		err      error
		wantCode fwk.Code
		wantMsg  string
		// wantNominated is the node the result nominates; empty means no result.
		wantNominated string
		wantCalls     []string
	}{
		{
			name:     "a best-effort pod neither preempts nor rejects its gang",
			pod:      gangPod("g-w-3"),
			decision: &core.Decision{BestEffort: true},
			wantCode: fwk.Unschedulable,
			wantMsg:  "best-effort pod of a gang does not preempt or reject its gang",
		},
		{
			name: "a gang that preempts keeps its waiting pods and nominates the node chosen for the pod",
			pod:  gangPod("g-w-0"),
			preempt: core.PreemptionResult{Outcome: core.Preempting, NominatedNode: "n1",
				Message: "preempting 3 pods (1 gangs, 0 ordinary pods) of lower priority"},
			wantCode:      fwk.Unschedulable,
			wantMsg:       "preempting 3 pods (1 gangs, 0 ordinary pods) of lower priority",
			wantNominated: "n1",
			wantCalls:     []string{"Preempt g-w-0"},
		},
		{
			name:      "a gang still waiting for earlier victims nominates nothing new",
			pod:       gangPod("g-w-0"),
			preempt:   core.PreemptionResult{Outcome: core.Preempting, Message: "waiting for 3 preempted pods to terminate"},
			wantCode:  fwk.Unschedulable,
			wantMsg:   "waiting for 3 preempted pods to terminate",
			wantCalls: []string{"Preempt g-w-0"},
		},
		{
			name:      "an ordinary pod whose preemptionPolicy is Never says so",
			pod:       plainPod("web"),
			preempt:   core.PreemptionResult{Message: "pod web has preemptionPolicy Never: lower-priority pods are not preempted"},
			wantCode:  fwk.Unschedulable,
			wantMsg:   "pod web has preemptionPolicy Never: lower-priority pods are not preempted",
			wantCalls: []string{"Preempt web"},
		},
		{
			name:      "a gang pod whose preemptionPolicy is Never releases its gang and says why it did not preempt",
			pod:       gangPod("g-w-0"),
			preempt:   core.PreemptionResult{Message: "pod g-w-0 has preemptionPolicy Never: lower-priority pods are not preempted"},
			wantCode:  fwk.Unschedulable,
			wantMsg:   "gang does not fit; its waiting pods were released; pod g-w-0 has preemptionPolicy Never: lower-priority pods are not preempted",
			wantCalls: []string{"Preempt g-w-0", "RejectGang g-w-0 (search failed): gang rejected: pod g-w-0 cannot be placed"},
		},
		{
			name:      "an ordinary pod with nothing to preempt stays unschedulable",
			pod:       plainPod("web"),
			wantCode:  fwk.Unschedulable,
			wantMsg:   "no lower-priority pods or gangs to preempt",
			wantCalls: []string{"Preempt web"},
		},
		{
			name:      "a gang pod the search placed but a filter rejected releases its gang as a misfit",
			pod:       gangPod("g-w-0"),
			decision:  &core.Decision{},
			wantCode:  fwk.Unschedulable,
			wantMsg:   "gang does not fit; its waiting pods were released",
			wantCalls: []string{"Preempt g-w-0", "RejectGang g-w-0 (search passed): gang rejected: pod g-w-0 cannot be placed"},
		},
		{
			name:      "a gang pod the search rejected releases its gang",
			pod:       gangPod("g-w-0"),
			wantCode:  fwk.Unschedulable,
			wantMsg:   "gang does not fit; its waiting pods were released",
			wantCalls: []string{"Preempt g-w-0", "RejectGang g-w-0 (search failed): gang rejected: pod g-w-0 cannot be placed"},
		},
		{
			name:      "a failure to read the snapshot is an error",
			pod:       gangPod("g-w-0"),
			err:       errors.New("snapshot unavailable"),
			wantCode:  fwk.Error,
			wantMsg:   "snapshot unavailable",
			wantCalls: []string{"Preempt g-w-0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCore{preempt: tt.preempt, preemptEr: tt.err}
			p := &Plugin{core: f}
			state := framework.NewCycleState()
			if tt.decision != nil {
				state.Write(stateKey, &cycleDecision{decision: tt.decision})
			}
			res, status := p.PostFilter(context.Background(), state, tt.pod, nil)
			var nominated string
			if res != nil {
				if res.Mode() != fwk.ModeOverride || res.NominatedNodeName == "" {
					t.Errorf("PostFilter result %+v, want a ModeOverride nomination or none", res.NominatingInfo)
				}
				nominated = res.NominatedNodeName
			}
			if nominated != tt.wantNominated || status.Code() != tt.wantCode || status.Message() != tt.wantMsg {
				t.Errorf("PostFilter nominates %q, %v %q; want %q, %v %q", nominated, status.Code(), status.Message(), tt.wantNominated, tt.wantCode, tt.wantMsg)
			}
			if !reflect.DeepEqual(f.calls, tt.wantCalls) {
				t.Errorf("calls %q, want %q", f.calls, tt.wantCalls)
			}
		})
	}
}

// podGroupEntity stands for a queued Kubernetes-native pod group: an entity
// with a priority and a queue time but no single pod.
type podGroupEntity struct {
	fwk.QueuedEntityInfo
	priority int32
	queuedAt time.Time
}

func (e podGroupEntity) GetPriority() int32      { return e.priority }
func (e podGroupEntity) GetTimestamp() time.Time { return e.queuedAt }

func TestLessOrdersByGangPriorityThenAgeThenGang(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeCore{sortKeys: map[string]sortKey{
		"high-0":   {priority: 1000, created: t0.Add(time.Hour), group: "ns/high", ok: true},
		"old-0":    {priority: 100, created: t0, group: "ns/old", ok: true},
		"old-1":    {priority: 100, created: t0, group: "ns/old", ok: true},
		"new-0":    {priority: 100, created: t0.Add(time.Minute), group: "ns/new", ok: true},
		"twin-0":   {priority: 100, created: t0, group: "ns/twin", ok: true},
		"plain":    {priority: 100},
		"no-gang":  {priority: 100, group: "ns/missing"},
		"plain-hi": {priority: 5000},
	}}
	p := &Plugin{core: f}
	queued := func(name string, queuedAt time.Time) *framework.QueuedPodInfo {
		pi, err := framework.NewPodInfo(plainPod(name))
		if err != nil {
			t.Fatal(err)
		}
		return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: queuedAt}}
	}
	tests := []struct {
		name string
		a, b fwk.QueuedEntityInfo
		want bool
	}{
		{"higher priority first, even if its gang is younger", queued("high-0", t0), queued("old-0", t0), true},
		{"an ordinary pod of higher priority before a gang", queued("plain-hi", t0.Add(time.Hour)), queued("high-0", t0), true},
		{"the older gang first at equal priority", queued("old-0", t0.Add(time.Hour)), queued("new-0", t0), true},
		{"the younger gang after", queued("new-0", t0), queued("old-0", t0.Add(time.Hour)), false},
		{"gangs created at the same time are ordered by gang name", queued("old-1", t0), queued("twin-0", t0), true},
		{"pods of one gang by name", queued("old-0", t0), queued("old-1", t0), true},
		{"an ordinary pod queued before a gang was created sorts first", queued("plain", t0.Add(-time.Minute)), queued("old-0", t0), true},
		{"a pod whose PodGang is unknown sorts by its queue time", queued("no-gang", t0.Add(30*time.Second)), queued("new-0", t0), true},
		{"a native pod group of higher priority before a gang pod", podGroupEntity{priority: 2000, queuedAt: t0.Add(time.Hour)}, queued("high-0", t0), true},
		{"a gang pod before a native pod group of lower priority queued later", queued("old-0", t0), podGroupEntity{priority: 50, queuedAt: t0}, true},
		{"native pod groups of equal priority by queue time", podGroupEntity{priority: 10, queuedAt: t0}, podGroupEntity{priority: 10, queuedAt: t0.Add(time.Second)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Less(tt.a, tt.b); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReservePermitAndUnreserveDelegate(t *testing.T) {
	tests := []struct {
		name        string
		permit      core.PermitResult
		timeout     time.Duration
		wantCode    fwk.Code
		wantTimeout time.Duration
	}{
		{name: "an incomplete gang's pod waits for the Permit timeout", permit: core.Wait, timeout: time.Minute, wantCode: fwk.Wait, wantTimeout: time.Minute},
		{name: "a complete gang's pod goes on", permit: core.Allow},
		{name: "an ordinary pod goes on", permit: core.NotInGang},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCore{permit: tt.permit, timeout: tt.timeout}
			p := &Plugin{core: f}
			pod := gangPod("g-w-0")
			state := framework.NewCycleState()
			if status := p.Reserve(context.Background(), state, pod, "n0"); !status.IsSuccess() {
				t.Fatalf("Reserve = %v", status)
			}
			status, timeout := p.Permit(context.Background(), state, pod, "n0")
			if status.Code() != tt.wantCode || timeout != tt.wantTimeout {
				t.Errorf("Permit = %v %v, want %v %v", status.Code(), timeout, tt.wantCode, tt.wantTimeout)
			}
			p.Unreserve(context.Background(), state, pod, "n0")
			want := []string{"Reserve g-w-0 on n0", "Permit g-w-0", "Unreserve g-w-0: gang member g-w-0 was unreserved"}
			if !reflect.DeepEqual(f.calls, want) {
				t.Errorf("calls %q, want %q", f.calls, want)
			}
		})
	}
}

func TestEventsAndPreEnqueueComeFromTheCore(t *testing.T) {
	events := []fwk.ClusterEventWithHint{{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}}}
	f := &fakeCore{events: events, status: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "PodGang ns/g does not exist yet")}
	p := &Plugin{core: f}
	got, err := p.EventsToRegister(context.Background())
	if err != nil || !reflect.DeepEqual(got, events) {
		t.Errorf("EventsToRegister = %v, %v; want the core's %v", got, err, events)
	}
	if status := p.PreEnqueue(context.Background(), gangPod("g-w-0")); status.Message() != "PodGang ns/g does not exist yet" {
		t.Errorf("PreEnqueue = %v, want the core's status", status)
	}
}

// fakeBinder records the binds it is given and fails with err.
type fakeBinder struct {
	binds []string
	err   error
}

func (f *fakeBinder) Bind(_ context.Context, pod *corev1.Pod, node string) error {
	f.binds = append(f.binds, pod.Name+" on "+node)
	return f.err
}

func TestBindBindsGangPodsAndLeavesOthersToDefaultBinder(t *testing.T) {
	tests := []struct {
		name      string
		pod       *corev1.Pod
		err       error
		wantCode  fwk.Code
		wantBinds []string
	}{
		{name: "a gang pod is bound by the binder", pod: gangPod("g-w-0"), wantCode: fwk.Success, wantBinds: []string{"g-w-0 on n0"}},
		{name: "a gang pod the binder could not bind fails its binding cycle", pod: gangPod("g-w-0"), err: errors.New("binding pod ns/g-w-0 to node n0: gone"),
			wantCode: fwk.Error, wantBinds: []string{"g-w-0 on n0"}},
		{name: "an ordinary pod is skipped for DefaultBinder", pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"}}, wantCode: fwk.Skip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBinder{err: tt.err}
			p := &Plugin{core: &fakeCore{}, binder: b}
			status := p.Bind(context.Background(), framework.NewCycleState(), tt.pod, "n0")
			if status.Code() != tt.wantCode {
				t.Errorf("Bind = %v, want %v", status, tt.wantCode)
			}
			if !reflect.DeepEqual(b.binds, tt.wantBinds) {
				t.Errorf("binds %q, want %q", b.binds, tt.wantBinds)
			}
		})
	}
}
