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

package waiter

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/grove-project/grove/initc/internal/parents"
)

type podState int

const (
	notReady podState = iota
	ready
	readyTerminating
)

func testPod(name, clique string, state podState) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name:      name,
		Namespace: "ns",
		Labels:    map[string]string{"grove.io/podclique": clique, "grove.io/podgang": "pg-0"},
	}}
	status := corev1.ConditionFalse
	if state != notReady {
		status = corev1.ConditionTrue
	}
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: status},
	}
	if state == readyTerminating {
		now := metav1.Now()
		pod.DeletionTimestamp = &now
	}
	return pod
}

func TestTracker(t *testing.T) {
	ps := []parents.Parent{{PodClique: "w-0-worker", MinAvailable: 2}, {PodClique: "w-0-router", MinAvailable: 1}}
	type event struct {
		pod    *corev1.Pod // the pod's new state, for an add or update
		key    string
		delete bool // the pod under key was deleted
	}
	upsert := func(p *corev1.Pod) event { return event{pod: p, key: "ns/" + p.Name} }
	del := func(name string) event { return event{key: "ns/" + name, delete: true} }

	tests := []struct {
		name          string
		events        []event
		wantReady     []int
		wantSatisfied bool
	}{
		{
			name:      "nothing seen",
			wantReady: []int{0, 0},
		},
		{
			name: "ready pods of both parents satisfy",
			events: []event{
				upsert(testPod("w1", "w-0-worker", ready)),
				upsert(testPod("w2", "w-0-worker", ready)),
				upsert(testPod("r1", "w-0-router", ready)),
			},
			wantReady:     []int{2, 1},
			wantSatisfied: true,
		},
		{
			name: "a similarly named clique is not counted for the parent",
			events: []event{
				upsert(testPod("w1", "w-0-worker", ready)),
				upsert(testPod("wb1", "w-0-worker-b", ready)),
				upsert(testPod("wb2", "w-0-worker-b", ready)),
				upsert(testPod("r1", "w-0-router", ready)),
			},
			wantReady: []int{1, 1},
		},
		{
			name: "not ready and terminating pods do not count",
			events: []event{
				upsert(testPod("w1", "w-0-worker", notReady)),
				upsert(testPod("w2", "w-0-worker", readyTerminating)),
				upsert(testPod("r1", "w-0-router", ready)),
			},
			wantReady: []int{0, 1},
		},
		{
			name: "a pod turning unready is removed",
			events: []event{
				upsert(testPod("w1", "w-0-worker", ready)),
				upsert(testPod("w1", "w-0-worker", notReady)),
			},
			wantReady: []int{0, 0},
		},
		{
			name: "the same pod updated twice counts once",
			events: []event{
				upsert(testPod("w1", "w-0-worker", ready)),
				upsert(testPod("w1", "w-0-worker", ready)),
			},
			wantReady: []int{1, 0},
		},
		{
			name: "a deleted pod is removed",
			events: []event{
				upsert(testPod("w1", "w-0-worker", ready)),
				upsert(testPod("w2", "w-0-worker", ready)),
				upsert(testPod("r1", "w-0-router", ready)),
				del("w2"),
			},
			wantReady: []int{1, 1},
		},
		{
			name: "pods without the clique label are ignored",
			events: []event{
				upsert(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w-0-worker-abcde", Namespace: "ns"},
					Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}),
			},
			wantReady: []int{0, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTracker(ps)
			for _, e := range tc.events {
				if e.delete {
					tr.forget(e.key)
				} else {
					tr.observe(e.key, e.pod)
				}
			}
			var got []int
			for _, s := range tr.statuses() {
				got = append(got, s.Ready)
			}
			if !reflect.DeepEqual(got, tc.wantReady) {
				t.Errorf("ready counts = %v, want %v", got, tc.wantReady)
			}
			if tr.satisfied() != tc.wantSatisfied {
				t.Errorf("satisfied = %v, want %v", tr.satisfied(), tc.wantSatisfied)
			}
		})
	}
}
