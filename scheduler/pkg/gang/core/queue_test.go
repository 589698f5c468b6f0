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
	"testing"

	corev1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	apicommon "github.com/grove-project/grove/api/common"
)

// TestPreEnqueue: a gang pod waits until its PodGang references it, but a pod
// that still has a scheduling gate is left to the SchedulingGates plugin.
func TestPreEnqueue(t *testing.T) {
	gated := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}
		return p
	}
	tests := []struct {
		name     string
		podGang  bool // the PodGang g exists and references g-w-0 and g-w-1
		pod      *corev1.Pod
		wantCode fwk.Code
		wantMsg  string
	}{
		{name: "ordinary pod", pod: newTestPod("ns", "plain", "", 0), wantCode: fwk.Success},
		{name: "no PodGang yet", pod: newTestPod("ns", "g-w-0", "g", 0),
			wantCode: fwk.UnschedulableAndUnresolvable, wantMsg: "PodGang ns/g does not exist yet"},
		{name: "no PodGang yet, gated", pod: gated(newTestPod("ns", "g-w-0", "g", 0)), wantCode: fwk.Success},
		{name: "not referenced", podGang: true, pod: newTestPod("ns", "g-w-9", "g", 0),
			wantCode: fwk.UnschedulableAndUnresolvable, wantMsg: "pod is not yet referenced by PodGang ns/g"},
		{name: "not referenced, gated", podGang: true, pod: gated(newTestPod("ns", "g-w-9", "g", 0)), wantCode: fwk.Success},
		{name: "referenced", podGang: true, pod: newTestPod("ns", "g-w-1", "g", 0), wantCode: fwk.Success},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tt.podGang {
				e.addPodGang(newTestPodGang("ns", "g", testGroup{name: "w", pods: 2, min: 2}))
			}
			st := e.m.PreEnqueue(tt.pod)
			if st.Code() != tt.wantCode || st.Message() != tt.wantMsg {
				t.Errorf("PreEnqueue = %v %q, want %v %q", st.Code(), st.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}
