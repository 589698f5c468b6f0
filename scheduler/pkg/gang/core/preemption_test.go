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
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// unitNames names victim units: the gang key, or "pod <name>" for an ordinary pod.
func unitNames(units []*victimUnit) []string {
	var out []string
	for _, u := range units {
		if u.gangKey != "" {
			out = append(out, u.gangKey)
		} else {
			out = append(out, "pod "+u.pods[0].Name)
		}
	}
	return out
}

func withPriority(p *corev1.Pod, priority int32) *corev1.Pod {
	p.Spec.Priority = &priority
	return p
}

func classed(pg *groveschedulerv1alpha1.PodGang, class string, created time.Time) *groveschedulerv1alpha1.PodGang {
	pg.Spec.PriorityClassName = class
	pg.CreationTimestamp = metav1.NewTime(created)
	return pg
}

func TestVictimUnitsAreWholeLowerPriorityUnitsCheapestFirst(t *testing.T) {
	e := newTestEnv(t)
	e.addPriorityClass("low", 100)
	e.addPriorityClass("high", 1000)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	one := testGroup{name: "w", pods: 1, min: 1, gpus: 1}
	two := testGroup{name: "w", pods: 2, min: 2, gpus: 1}
	e.addPodGang(classed(newTestPodGang("ns", "old-low", two), "low", t0))
	e.addPodGang(classed(newTestPodGang("ns", "new-low", one), "low", t0.Add(time.Minute)))
	e.addPodGang(classed(newTestPodGang("ns", "peer", one), "high", t0))
	e.addPodGang(classed(newTestPodGang("ns", "self", one), "high", t0))
	terminating := withPriority(bound(newTestPod("ns", "leaving", "", 1), "n0"), 0)
	terminating.DeletionTimestamp = &metav1.Time{Time: t0}
	pods := []*corev1.Pod{
		bound(newTestPod("ns", "old-low-w-0", "old-low", 1), "n0"),
		bound(newTestPod("ns", "old-low-w-1", "old-low", 1), "n1"),
		bound(newTestPod("ns", "new-low-w-0", "new-low", 1), "n1"),
		bound(newTestPod("ns", "peer-w-0", "peer", 1), "n0"),
		bound(newTestPod("ns", "self-w-0", "self", 1), "n0"),
		withPriority(bound(newTestPod("ns", "web", "", 1), "n0"), 50),
		withPriority(bound(newTestPod("ns", "admin", "", 1), "n1"), 1000),
		terminating,
	}
	nodes := []*corev1.Node{newTestNode("n0", 8, nil), newTestNode("n1", 8, nil)}

	units := e.m.victimUnits(nodeInfos(nodes, pods...), 1000, "ns/self")
	want := []string{"pod web", "ns/new-low", "ns/old-low"}
	if got := unitNames(units); !reflect.DeepEqual(got, want) {
		t.Fatalf("victim units %v, want %v (lowest priority, then newest, first; equal priority, own gang and terminating pods never)", got, want)
	}
	oldLow := units[2]
	if len(oldLow.pods) != 2 || oldLow.freed["n0"].Scalar[gpu] != 1 || oldLow.freed["n1"].Scalar[gpu] != 1 {
		t.Errorf("gang ns/old-low frees %v with %d pods, want 1 GPU on each of n0 and n1 with 2 pods", oldLow.freed, len(oldLow.pods))
	}
}

func TestChooseVictims(t *testing.T) {
	unit := func(name string, gpus int64) *victimUnit {
		return &victimUnit{gangKey: name, freed: map[string]Resources{"n0": {Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: gpus}}}}
	}
	tests := []struct {
		name  string
		units []*victimUnit
		gpus  int64
		want  []string
	}{
		{
			name:  "the first units that make room are taken, and earlier ones the last made unnecessary are spared",
			units: []*victimUnit{unit("a-1gpu", 1), unit("b-2gpu", 2)},
			gpus:  2,
			want:  []string{"b-2gpu"},
		},
		{
			name:  "earlier units stay victims when the last one alone does not make room",
			units: []*victimUnit{unit("a-1gpu", 1), unit("b-1gpu", 1), unit("c-2gpu", 2)},
			gpus:  2,
			want:  []string{"b-1gpu", "a-1gpu"},
		},
		{
			name:  "nothing is chosen when even all units do not make room",
			units: []*victimUnit{unit("a-1gpu", 1), unit("b-2gpu", 2)},
			gpus:  4,
		},
		{
			name: "no units, no victims",
			gpus: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// n0 is full: every GPU is held by the units.
			nodes := []*SimNode{gpuNode("n0", 0, nil)}
			byName := map[string]*SimNode{"n0": nodes[0]}
			demands := []GroupDemand{gpuDemand("engine", 1, tt.gpus)}
			got := chooseVictims(nodes, byName, demands, &Scope{Name: "podgang high", Groups: []int{0}}, tt.units)
			if names := unitNames(got); !reflect.DeepEqual(names, tt.want) {
				t.Fatalf("victims %v, want %v", names, tt.want)
			}
		})
	}
}

// deletedPods lists the pods deleted through the client, sorted.
func deletedPods(e *testEnv) []string {
	var out []string
	for _, a := range e.kube.Actions() {
		if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
			out = append(out, d.GetName())
		}
	}
	sort.Strings(out)
	return out
}

// evictions lists the client's pod writes in order: "mark <pod>" for a status
// patch that sets the DisruptionTarget condition, "delete <pod>" for a deletion.
func evictions(e *testEnv) []string {
	var out []string
	for _, a := range e.kube.Actions() {
		if a.GetResource().Resource != "pods" {
			continue
		}
		switch act := a.(type) {
		case k8stesting.PatchAction:
			if act.GetSubresource() == "status" && strings.Contains(string(act.GetPatch()), string(corev1.DisruptionTarget)) {
				out = append(out, "mark "+act.GetName())
			}
		case k8stesting.DeleteAction:
			out = append(out, "delete "+act.GetName())
		}
	}
	return out
}

func neverPreempting(p *corev1.Pod) *corev1.Pod {
	never := corev1.PreemptNever
	p.Spec.PreemptionPolicy = &never
	return p
}

func TestMarkDisruptionTarget(t *testing.T) {
	e := newTestEnv(t)
	victim := bound(newTestPod("ns", "low-w-0", "low", 1), "n0")
	e.addPods(victim)
	if err := e.m.markDisruptionTarget(context.Background(), victim, "grove-scheduler", "PodGang ns/high"); err != nil {
		t.Fatal(err)
	}
	got, err := e.kube.CoreV1().Pods("ns").Get(context.Background(), "low-w-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cond *corev1.PodCondition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &got.Status.Conditions[i]
		}
	}
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "PreemptionByScheduler" ||
		cond.Message != "grove-scheduler: preempting to accommodate higher-priority PodGang ns/high" || cond.LastTransitionTime.IsZero() {
		t.Fatalf("DisruptionTarget condition %+v, want True PreemptionByScheduler %q with a transition time", cond,
			"grove-scheduler: preempting to accommodate higher-priority PodGang ns/high")
	}
}

func TestPreempt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The low gang holds the node's 4 GPUs with two pods; its third pod is unplaced.
	low := testGroup{name: "w", pods: 3, min: 2, gpus: 2}
	lowPods := func() []*corev1.Pod {
		pods := newTestGangPods("ns", "low", low)
		return []*corev1.Pod{bound(pods[0], "n0"), bound(pods[1], "n0"), pods[2]}
	}
	engine := &testGroup{name: "e", pods: 1, min: 1, gpus: 4}
	tests := []struct {
		name string
		// high is the preemptor's gang "high" of class highClass; the
		// preemptor is its pod named preemptor, or ordinary when high is nil.
		high        *testGroup
		highClass   string
		preemptor   string
		ordinary    *corev1.Pod
		extraPods   []*corev1.Pod
		reserved    []string
		want        PreemptionOutcome
		message     string
		nominated   string
		deleted     []string
		events      []string
		thenMessage string
	}{
		{
			name:      "a higher-priority gang evicts every pod of a lower-priority gang, placed or not",
			high:      engine,
			highClass: "high",
			preemptor: "high-e-0",
			want:      Preempting,
			message:   "preempting 3 pods (1 gangs, 0 ordinary pods) of lower priority",
			nominated: "n0",
			deleted:   []string{"low-w-0", "low-w-1", "low-w-2"},
			events: []string{
				"Warning Preempted all pods of the gang are preempted by higher-priority PodGang ns/high",
				"Normal Preempting preempting 3 pods (1 gangs, 0 ordinary pods) of lower priority",
			},
			thenMessage: "waiting for 3 preempted pods to terminate",
		},
		{
			name:      "a gang of equal priority is never preempted",
			high:      engine,
			highClass: "low",
			preemptor: "high-e-0",
			want:      NoPreemption,
		},
		{
			name:      "an ordinary pod of higher priority evicts the whole lower-priority gang",
			ordinary:  withPriority(newTestPod("ns", "urgent", "", 2), 1000),
			want:      Preempting,
			message:   "preempting 3 pods (1 gangs, 0 ordinary pods) of lower priority",
			nominated: "n0",
			deleted:   []string{"low-w-0", "low-w-1", "low-w-2"},
			events:    []string{"Warning Preempted all pods of the gang are preempted by higher-priority pod ns/urgent"},
		},
		{
			name:      "an ordinary pod of lower priority is the cheaper victim",
			high:      &testGroup{name: "e", pods: 1, min: 1, gpus: 1},
			highClass: "high",
			preemptor: "high-e-0",
			extraPods: []*corev1.Pod{withPriority(bound(newTestPod("ns", "batch", "", 2), "n1"), 10)},
			want:      Preempting,
			message:   "preempting 1 pods (0 gangs, 1 ordinary pods) of lower priority",
			nominated: "n1",
			deleted:   []string{"batch"},
			events:    []string{"Normal Preempting preempting 1 pods (0 gangs, 1 ordinary pods) of lower priority"},
		},
		{
			name:      "a gang whose minimum set is placed does not preempt for its best-effort pods",
			high:      &testGroup{name: "e", pods: 2, min: 1, gpus: 4},
			highClass: "high",
			preemptor: "high-e-1",
			reserved:  []string{"high-e-0"},
			want:      NoPreemption,
		},
		{
			name:     "an ordinary pod whose preemptionPolicy is Never preempts nothing and says so",
			ordinary: neverPreempting(withPriority(newTestPod("ns", "polite", "", 2), 1000)),
			want:     NoPreemption,
			message:  "pod polite has preemptionPolicy Never: lower-priority pods are not preempted",
		},
		{
			name:      "a gang whose PriorityClass has preemptionPolicy Never preempts nothing and says so",
			high:      engine,
			highClass: "high-never",
			preemptor: "high-e-0",
			want:      NoPreemption,
			message:   "PriorityClass high-never of PodGang ns/high has preemptionPolicy Never: lower-priority pods are not preempted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.addPriorityClass("low", 100)
			e.addPriorityClass("high", 1000)
			never := corev1.PreemptNever
			if err := e.classes.Add(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high-never"}, Value: 1000, PreemptionPolicy: &never}); err != nil {
				t.Fatal(err)
			}
			e.addPodGang(classed(newTestPodGang("ns", "low", low), "low", t0))
			e.addPods(lowPods()...)
			e.addPods(tt.extraPods...)
			preemptor := tt.ordinary
			if tt.high != nil {
				e.addPodGang(classed(newTestPodGang("ns", "high", *tt.high), tt.highClass, t0))
				e.addPods(newTestGangPods("ns", "high", *tt.high)...)
				preemptor = e.pod("ns", tt.preemptor)
			}
			for _, r := range tt.reserved {
				e.m.Reserve(e.pod("ns", r), "n1")
			}
			nodes := []*corev1.Node{newTestNode("n0", 4, nil), newTestNode("n1", 2, nil)}
			placed := append(lowPods(), tt.extraPods...)

			got := e.m.preempt(context.Background(), preemptor, nodeInfos(nodes, placed...))
			if want := (PreemptionResult{Outcome: tt.want, Message: tt.message, NominatedNode: tt.nominated}); got != want {
				t.Fatalf("preempt = %+v, want %+v", got, want)
			}
			if d := deletedPods(e); !reflect.DeepEqual(d, tt.deleted) {
				t.Errorf("deleted pods %v, want %v", d, tt.deleted)
			}
			var wantEvictions []string
			for _, name := range tt.deleted {
				wantEvictions = append(wantEvictions, "mark "+name, "delete "+name)
			}
			if ev := evictions(e); !reflect.DeepEqual(ev, wantEvictions) {
				t.Errorf("eviction steps %v, want %v (each victim marked DisruptionTarget, then deleted)", ev, wantEvictions)
			}
			if ev := e.events(); !reflect.DeepEqual(ev, tt.events) {
				t.Errorf("Events %q, want %q", ev, tt.events)
			}
			if tt.thenMessage == "" {
				return
			}
			// The victims are still in the informer cache: the gang waits for them instead of preempting again.
			again := e.m.preempt(context.Background(), preemptor, nodeInfos(nodes, placed...))
			if want := (PreemptionResult{Outcome: Preempting, Message: tt.thenMessage}); again != want {
				t.Errorf("second preempt = %+v, want %+v (no new nomination)", again, want)
			}
			if d := deletedPods(e); !reflect.DeepEqual(d, tt.deleted) {
				t.Errorf("second preempt deleted %v in all, want only the first round's %v", d, tt.deleted)
			}
		})
	}
}

// budget builds a PodDisruptionBudget in ns over the pods of the gang.
func budget(ns, name, gang string, allowed int32, disrupted ...string) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{apicommon.LabelPodGang: gang}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, DisruptedPods: map[string]metav1.Time{}},
	}
	for _, p := range disrupted {
		pdb.Status.DisruptedPods[p] = metav1.Now()
	}
	return pdb
}

func TestDisruptionBudgetSpend(t *testing.T) {
	gangUnit := func(gang string, pods int) *victimUnit {
		u := &victimUnit{gangKey: "ns/" + gang}
		for i := 0; i < pods; i++ {
			u.pods = append(u.pods, newTestPod("ns", fmt.Sprintf("%s-w-%d", gang, i), gang, 1))
		}
		return u
	}
	tests := []struct {
		name    string
		pdbs    []*policyv1.PodDisruptionBudget
		units   []*victimUnit
		perUnit []int
	}{
		{
			name:    "no budget, no violation",
			units:   []*victimUnit{gangUnit("a", 2)},
			perUnit: []int{0},
		},
		{
			name:    "every pod beyond the allowed disruptions is a violation",
			pdbs:    []*policyv1.PodDisruptionBudget{budget("ns", "a", "a", 1)},
			units:   []*victimUnit{gangUnit("a", 3), gangUnit("b", 2)},
			perUnit: []int{2, 0},
		},
		{
			name:    "a budget is spent across units in order: the later unit violates",
			pdbs:    []*policyv1.PodDisruptionBudget{budget("ns", "ab", "a", 1), budget("ns", "b", "b", 0)},
			units:   []*victimUnit{gangUnit("b", 1), gangUnit("a", 1)},
			perUnit: []int{1, 0},
		},
		{
			name:    "pods already counted as disrupted cost nothing",
			pdbs:    []*policyv1.PodDisruptionBudget{budget("ns", "a", "a", 0, "a-w-0")},
			units:   []*victimUnit{gangUnit("a", 2)},
			perUnit: []int{1},
		},
		{
			name:    "a budget of another namespace covers nothing",
			pdbs:    []*policyv1.PodDisruptionBudget{budget("other", "a", "a", 0)},
			units:   []*victimUnit{gangUnit("a", 2)},
			perUnit: []int{0},
		},
		{
			name: "a budget with an empty selector covers nothing",
			pdbs: []*policyv1.PodDisruptionBudget{func() *policyv1.PodDisruptionBudget {
				b := budget("ns", "all", "a", 0)
				b.Spec.Selector = &metav1.LabelSelector{}
				return b
			}()},
			units:   []*victimUnit{gangUnit("a", 2)},
			perUnit: []int{0},
		},
		{
			name:    "a pod two exhausted budgets cover is one violation",
			pdbs:    []*policyv1.PodDisruptionBudget{budget("ns", "a1", "a", 0), budget("ns", "a2", "a", 0)},
			units:   []*victimUnit{gangUnit("a", 1)},
			perUnit: []int{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			for _, pdb := range tt.pdbs {
				if err := e.pdbs.Add(pdb); err != nil {
					t.Fatal(err)
				}
			}
			if got := e.m.disruptionBudgets(tt.units).spend(tt.units); !reflect.DeepEqual(got, tt.perUnit) {
				t.Fatalf("violations per unit %v, want %v", got, tt.perUnit)
			}
		})
	}
}

func TestPreemptMinimisesDisruptionBudgetViolations(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	two := testGroup{name: "w", pods: 2, min: 2, gpus: 2}
	tests := []struct {
		name      string
		pdbs      []*policyv1.PodDisruptionBudget
		nominated string
		deleted   []string
	}{
		{
			name:      "without budgets the newer gang goes first",
			nominated: "n1",
			deleted:   []string{"newer-w-0", "newer-w-1"},
		},
		{
			name:      "a budget that allows the disruption changes nothing",
			pdbs:      []*policyv1.PodDisruptionBudget{budget("ns", "newer", "newer", 2)},
			nominated: "n1",
			deleted:   []string{"newer-w-0", "newer-w-1"},
		},
		{
			name:      "the gang a budget protects is spared when another one makes room",
			pdbs:      []*policyv1.PodDisruptionBudget{budget("ns", "newer", "newer", 0)},
			nominated: "n0",
			deleted:   []string{"older-w-0", "older-w-1"},
		},
		{
			name:      "the gang whose eviction violates its budget less goes when both are protected",
			pdbs:      []*policyv1.PodDisruptionBudget{budget("ns", "newer", "newer", 0), budget("ns", "older", "older", 1)},
			nominated: "n0",
			deleted:   []string{"older-w-0", "older-w-1"},
		},
		{
			name:      "the cost order decides between equal violations",
			pdbs:      []*policyv1.PodDisruptionBudget{budget("ns", "newer", "newer", 0), budget("ns", "older", "older", 0)},
			nominated: "n1",
			deleted:   []string{"newer-w-0", "newer-w-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.addPriorityClass("low", 100)
			e.addPriorityClass("high", 1000)
			for _, pdb := range tt.pdbs {
				if err := e.pdbs.Add(pdb); err != nil {
					t.Fatal(err)
				}
			}
			// Each low gang fills one 4-GPU node; the high gang needs one whole node.
			e.addPodGang(classed(newTestPodGang("ns", "older", two), "low", t0))
			e.addPodGang(classed(newTestPodGang("ns", "newer", two), "low", t0.Add(time.Minute)))
			older, newer := newTestGangPods("ns", "older", two), newTestGangPods("ns", "newer", two)
			placed := []*corev1.Pod{bound(older[0], "n0"), bound(older[1], "n0"), bound(newer[0], "n1"), bound(newer[1], "n1")}
			e.addPods(placed...)
			high := testGroup{name: "e", pods: 1, min: 1, gpus: 4}
			e.addPodGang(classed(newTestPodGang("ns", "high", high), "high", t0))
			e.addPods(newTestGangPods("ns", "high", high)...)
			nodes := []*corev1.Node{newTestNode("n0", 4, nil), newTestNode("n1", 4, nil)}

			got := e.m.preempt(context.Background(), e.pod("ns", "high-e-0"), nodeInfos(nodes, placed...))
			want := PreemptionResult{Outcome: Preempting, Message: "preempting 2 pods (1 gangs, 0 ordinary pods) of lower priority", NominatedNode: tt.nominated}
			if got != want {
				t.Fatalf("preempt = %+v, want %+v", got, want)
			}
			if d := deletedPods(e); !reflect.DeepEqual(d, tt.deleted) {
				t.Errorf("deleted pods %v, want %v", d, tt.deleted)
			}
		})
	}
}

func TestChooseVictimsPDBAware(t *testing.T) {
	// n0's 4 GPUs are held by gang p (2 pods of 1 GPU) and ordinary pods a and b (1 GPU each), cheapest first in that order.
	pods := []*corev1.Pod{
		bound(newTestPod("ns", "p-w-0", "p", 1), "n0"), bound(newTestPod("ns", "p-w-1", "p", 1), "n0"),
		bound(newTestPod("ns", "a", "", 1), "n0"), bound(newTestPod("ns", "b", "", 1), "n0"),
	}
	unit := func(gang string, pods ...*corev1.Pod) *victimUnit {
		u := &victimUnit{gangKey: gang, pods: pods, freed: map[string]Resources{}}
		for _, p := range pods {
			r := u.freed["n0"]
			r.Add(requestOf(p))
			u.freed["n0"] = r
		}
		return u
	}
	tests := []struct {
		name string
		pdbs []*policyv1.PodDisruptionBudget
		gpus int64
		want []string
	}{
		{
			name: "without budgets the cheapest unit that makes room goes alone",
			gpus: 2,
			want: []string{"ns/p"},
		},
		{
			name: "two unprotected units go rather than one protected unit, though it is cheaper",
			pdbs: []*policyv1.PodDisruptionBudget{budget("ns", "p", "p", 0)},
			gpus: 2,
			want: []string{"pod b", "pod a"},
		},
		{
			name: "a budget that allows one disruption still protects a gang of two",
			pdbs: []*policyv1.PodDisruptionBudget{budget("ns", "p", "p", 1)},
			gpus: 2,
			want: []string{"pod b", "pod a"},
		},
		{
			name: "a protected unit still goes when every set that makes room violates its budget",
			pdbs: []*policyv1.PodDisruptionBudget{budget("ns", "p", "p", 0)},
			gpus: 3,
			want: []string{"pod a", "ns/p"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			for _, pdb := range tt.pdbs {
				if err := e.pdbs.Add(pdb); err != nil {
					t.Fatal(err)
				}
			}
			units := []*victimUnit{unit("ns/p", pods[0], pods[1]), unit("", pods[2]), unit("", pods[3])}
			demands := []GroupDemand{gpuDemand("engine", 1, tt.gpus)}
			scope := func(map[string]*SimNode) *Scope { return &Scope{Name: "podgang high", Groups: []int{0}} }
			victims, placement := chooseVictimsPDBAware(nodeInfos([]*corev1.Node{newTestNode("n0", 4, nil)}, pods...), demands, scope, units, e.m.disruptionBudgets(units))
			if names := unitNames(victims); !reflect.DeepEqual(names, tt.want) {
				t.Fatalf("victims %v, want %v", names, tt.want)
			}
			if placement == nil || !reflect.DeepEqual(placement.Nodes[0], []string{"n0"}) {
				t.Errorf("placement after the victims go %+v, want the engine on n0", placement)
			}
		})
	}
}
