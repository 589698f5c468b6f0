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
)

// TestGangLifecycle drives a gang through the extension points as the
// framework would and checks its phase, what happened to its waiting pods, the
// activations and the Events.
func TestGangLifecycle(t *testing.T) {
	// Gang ns/g: group w of three pods, two of them the minimum set.
	group := testGroup{name: "w", pods: 3, min: 2, gpus: 1}
	all := []string{"g-w-0", "g-w-1", "g-w-2"}
	type step func(e *testEnv)
	reserve := func(name string) step {
		return func(e *testEnv) { e.m.Reserve(e.pod("ns", name), "n0") }
	}
	permit := func(name string, want PermitResult) step {
		return func(e *testEnv) {
			p := e.pod("ns", name)
			got, timeout := e.m.Permit(p)
			if got != want {
				e.t.Fatalf("Permit(%s) = %v, want %v", name, got, want)
			}
			if got == Wait {
				if timeout != testPermitTimeout {
					e.t.Fatalf("Permit(%s) timeout = %v, want %v", name, timeout, testPermitTimeout)
				}
				e.handle.wait(p)
			}
		}
	}
	unreserve := func(name string) step {
		return func(e *testEnv) { e.m.Unreserve(e.pod("ns", name), "gang member "+name+" was unreserved") }
	}
	reject := func(name string, searchPassed bool) step {
		return func(e *testEnv) {
			e.m.RejectGang(e.pod("ns", name), "gang rejected: pod "+name+" cannot be placed", searchPassed)
		}
	}
	preFilterOnFullNode := func(name string) step {
		return func(e *testEnv) {
			if _, status := e.m.PreFilter(e.pod("ns", name), nodeInfos([]*corev1.Node{newTestNode("n0", 0, nil)})); status.IsSuccess() {
				e.t.Fatalf("PreFilter(%s) on a node without GPUs succeeded", name)
			}
		}
	}
	deletePodGang := func(e *testEnv) {
		pg, _ := e.m.podGangs.PodGangs("ns").Get("g")
		e.m.onPodGangDelete(pg)
	}

	tests := []struct {
		name      string
		steps     []step
		phase     Phase
		reason    string
		waiting   int
		verdicts  []string
		activated [][]string
		events    []string
	}{
		{
			name:      "the first pod of an incomplete gang waits at Permit and brings the gang forward; no Event is recorded",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait)},
			phase:     PhaseReserving,
			waiting:   1,
			verdicts:  []string{"g-w-0: waiting"},
			activated: [][]string{all},
		},
		{
			name:      "the pod that completes the minimum set allows every waiting pod and wakes the best-effort pods",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), reserve("g-w-1"), permit("g-w-1", Allow)},
			phase:     PhasePlaced,
			verdicts:  []string{"g-w-0: allowed by GroveGang"},
			activated: [][]string{all, all},
		},
		{
			name:      "a best-effort pod reserved after the minimum set passes Permit at once",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), reserve("g-w-1"), permit("g-w-1", Allow), reserve("g-w-2"), permit("g-w-2", Allow)},
			phase:     PhasePlaced,
			verdicts:  []string{"g-w-0: allowed by GroveGang"},
			activated: [][]string{all, all, all},
		},
		{
			name:      "Unreserve of an incomplete gang rejects its waiting pods and marks it a misfit",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), reserve("g-w-1"), unreserve("g-w-1")},
			phase:     PhaseMisfit,
			verdicts:  []string{"g-w-0: rejected by GroveGang: gang member g-w-1 was unreserved"},
			activated: [][]string{all},
		},
		{
			name:      "Unreserve of a best-effort pod leaves a placed gang placed",
			steps:     []step{reserve("g-w-0"), reserve("g-w-1"), permit("g-w-1", Allow), reserve("g-w-2"), unreserve("g-w-2")},
			phase:     PhasePlaced,
			activated: [][]string{all},
		},
		{
			name:      "PostFilter's rejection after the search failed returns a reserving gang to Pending",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), reject("g-w-1", false)},
			phase:     PhasePending,
			verdicts:  []string{"g-w-0: rejected by GroveGang: gang rejected: pod g-w-1 cannot be placed"},
			activated: [][]string{all},
		},
		{
			name:      "PostFilter's rejection after the search passed makes the gang a misfit",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), reject("g-w-1", true)},
			phase:     PhaseMisfit,
			verdicts:  []string{"g-w-0: rejected by GroveGang: gang rejected: pod g-w-1 cannot be placed"},
			activated: [][]string{all},
		},
		{
			name: "a misfit gang's retry waits as MisfitReserving and is trusted again once the search rejects it",
			steps: []step{reserve("g-w-0"), permit("g-w-0", Wait), unreserve("g-w-0"),
				reserve("g-w-0"), permit("g-w-0", Wait), preFilterOnFullNode("g-w-1")},
			phase:     PhaseReserving,
			reason:    "group w needs 1 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu",
			waiting:   1,
			verdicts:  []string{"g-w-0: rejected by GroveGang: gang member g-w-0 was unreserved", "g-w-0: waiting"},
			activated: [][]string{all, all},
			events:    []string{"Warning Unschedulable group w needs 1 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu"},
		},
		{
			name:   "a search rejection is recorded once, however often it repeats",
			steps:  []step{preFilterOnFullNode("g-w-0"), preFilterOnFullNode("g-w-1")},
			phase:  PhasePending,
			reason: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu",
			events: []string{"Warning Unschedulable group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu"},
		},
		{
			name:   "placing the minimum set clears the reason of an earlier rejection",
			steps:  []step{preFilterOnFullNode("g-w-0"), reserve("g-w-0"), reserve("g-w-1"), permit("g-w-1", Allow)},
			phase:  PhasePlaced,
			events: []string{"Warning Unschedulable group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu"},
			// Permit activates the unplaced pods once the minimum set passes.
			activated: [][]string{all},
		},
		{
			name:      "deleting the PodGang of a reserving gang forgets it and its wait",
			steps:     []step{reserve("g-w-0"), permit("g-w-0", Wait), deletePodGang},
			phase:     PhasePending,
			verdicts:  []string{"g-w-0: waiting"},
			activated: [][]string{all},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.addPodGang(newTestPodGang("ns", "g", group))
			e.addPods(newTestGangPods("ns", "g", group)...)
			for _, s := range tt.steps {
				s(e)
			}
			phase, reason := e.phase("ns/g")
			if phase != tt.phase || reason != tt.reason {
				t.Errorf("phase %s (reason %q), want %s (reason %q)", phase, reason, tt.phase, tt.reason)
			}
			if e.m.waitingGangs != tt.waiting {
				t.Errorf("%d gangs waiting at Permit, want %d", e.m.waitingGangs, tt.waiting)
			}
			if verdicts := e.handle.verdicts(); !reflect.DeepEqual(verdicts, tt.verdicts) {
				t.Errorf("waiting pods' verdicts %v, want %v", verdicts, tt.verdicts)
			}
			if !reflect.DeepEqual(e.handle.activated, tt.activated) {
				t.Errorf("activations %v, want %v", e.handle.activated, tt.activated)
			}
			if got := e.events(); !reflect.DeepEqual(got, tt.events) {
				t.Errorf("Events %q, want %q", got, tt.events)
			}
		})
	}
}
