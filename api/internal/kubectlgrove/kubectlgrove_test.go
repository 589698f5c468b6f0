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

package kubectlgrove

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	grovefake "github.com/grove-project/grove/api/client/clientset/versioned/fake"
	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

var now = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)

func labelsOf(extra map[string]string) map[string]string {
	l := apicommon.DefaultLabels("demo")
	l[apicommon.LabelPodCliqueSetReplicaIndex] = "0"
	for k, v := range extra {
		l[k] = v
	}
	return l
}

func clique(name, gang string, replicas, ready int32, extra map[string]string) *grovecorev1alpha1.PodClique {
	return &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labelsOf(merge(extra, map[string]string{apicommon.LabelPodGang: gang}))},
		Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: replicas},
		Status:     grovecorev1alpha1.PodCliqueStatus{ReadyReplicas: ready},
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func pcsgMember(g, replica string) map[string]string {
	return map[string]string{apicommon.LabelPodCliqueScalingGroup: g, apicommon.LabelPodCliqueScalingGroupReplicaIndex: replica}
}

func pod(name, pclq, gang string, index string, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labelsOf(map[string]string{
			apicommon.LabelPodClique: pclq, apicommon.LabelPodGang: gang, apicommon.LabelPodCliquePodIndex: index,
		})},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func unscheduled(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "the gang does not fit"}}}
}

const noFit = "group demo-0-sg-1-worker needs 2 pods with 4 nvidia.com/gpu, 0 fit: 0/40 nodes are available: 40 Insufficient nvidia.com/gpu"

// fixture: replica 0 of demo has a ready frontend, scaling-group replica 0
// ready but one worker still waiting in grove-initc for its leader, and
// scaling-group replica 1 in a scaled PodGang that does not fit.
func fixture() Clients {
	one := int32(1)
	gang := func(name string, phase groveschedulerv1alpha1.PodGangPhase, bound int32, groups map[string]int32, conds ...metav1.Condition) *groveschedulerv1alpha1.PodGang {
		pg := &groveschedulerv1alpha1.PodGang{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: apicommon.DefaultLabels("demo")},
			Status:     groveschedulerv1alpha1.PodGangStatus{Phase: phase, BoundPods: bound, Conditions: conds},
		}
		for _, g := range []string{"demo-0-fe", "demo-0-sg-0-leader", "demo-0-sg-0-worker", "demo-0-sg-1-leader", "demo-0-sg-1-worker"} {
			if m, ok := groups[g]; ok {
				pg.Spec.PodGroups = append(pg.Spec.PodGroups, groveschedulerv1alpha1.PodGroup{Name: g, MinReplicas: m})
			}
		}
		return pg
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns"},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "sg", CliqueNames: []string{"leader", "worker"}}},
		}},
		Status: grovecorev1alpha1.PodCliqueSetStatus{AvailableReplicas: 1, Conditions: []metav1.Condition{
			{Type: grovecorev1alpha1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonAllReplicasAvailable, Message: "1 of 1 replicas available"},
			{Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionFalse, Reason: grovecorev1alpha1.ConditionReasonUpdateCompleted},
		}},
	}
	leaderPending := clique("demo-0-sg-0-leader", "demo-0", 1, 0, pcsgMember("demo-0-sg", "0"))
	grove := grovefake.NewClientset(pcs,
		clique("demo-0-fe", "demo-0", 2, 2, nil),
		leaderPending,
		clique("demo-0-sg-0-worker", "demo-0", 2, 1, pcsgMember("demo-0-sg", "0")),
		clique("demo-0-sg-1-leader", "demo-0-sg-1", 1, 0, pcsgMember("demo-0-sg", "1")),
		clique("demo-0-sg-1-worker", "demo-0-sg-1", 2, 0, pcsgMember("demo-0-sg", "1")),
		&grovecorev1alpha1.PodCliqueScalingGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "demo-0-sg", Namespace: "ns", Labels: labelsOf(nil)},
			Spec:       grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2, MinAvailable: &one},
			Status:     grovecorev1alpha1.PodCliqueScalingGroupStatus{AvailableReplicas: 1},
		},
		gang("demo-0", groveschedulerv1alpha1.PodGangPhaseRunning, 5, map[string]int32{"demo-0-fe": 2, "demo-0-sg-0-leader": 1, "demo-0-sg-0-worker": 2},
			metav1.Condition{Type: "Scheduled", Status: metav1.ConditionTrue, Reason: groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled}),
		gang("demo-0-sg-1", groveschedulerv1alpha1.PodGangPhasePending, 0, map[string]int32{"demo-0-sg-1-leader": 1, "demo-0-sg-1-worker": 2},
			metav1.Condition{Type: "Initialized", Status: metav1.ConditionTrue, Reason: groveschedulerv1alpha1.PodGangReasonPodsCreated},
			metav1.Condition{Type: "Scheduled", Status: metav1.ConditionFalse, Reason: groveschedulerv1alpha1.PodGangReasonUnschedulable, Message: noFit}),
	)
	initcWaiting := func(p *corev1.Pod) {
		p.Annotations = map[string]string{apicommon.AnnotationStartsAfter: "demo-0-sg-0-leader"}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{
			Name: apicommon.InitContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		}}}
	}
	kube := kubefake.NewClientset([]runtime.Object{
		pod("demo-0-fe-aaaaa", "demo-0-fe", "demo-0", "0", nil),
		pod("demo-0-fe-bbbbb", "demo-0-fe", "demo-0", "1", nil),
		pod("demo-0-sg-0-leader-ccccc", "demo-0-sg-0-leader", "demo-0", "0", func(p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
				Name: "main", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "model:2"`}},
			}}}
		}),
		pod("demo-0-sg-0-worker-ddddd", "demo-0-sg-0-worker", "demo-0", "0", nil),
		pod("demo-0-sg-0-worker-eeeee", "demo-0-sg-0-worker", "demo-0", "1", initcWaiting),
		pod("demo-0-sg-1-leader-fffff", "demo-0-sg-1-leader", "demo-0-sg-1", "0", unscheduled),
		pod("demo-0-sg-1-worker-ggggg", "demo-0-sg-1-worker", "demo-0-sg-1", "0", unscheduled),
		pod("demo-0-sg-1-worker-hhhhh", "demo-0-sg-1-worker", "demo-0-sg-1", "1", func(p *corev1.Pod) {
			unscheduled(p)
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}
		}),
		&corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "ns"}, Type: corev1.EventTypeWarning, Reason: "Unschedulable", Message: noFit, Count: 3,
			InvolvedObject: corev1.ObjectReference{Kind: "PodGang", Name: "demo-0-sg-1"}, LastTimestamp: metav1.NewTime(now.Add(-90 * time.Second)),
		},
		&corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Name: "e2", Namespace: "ns"}, Type: corev1.EventTypeNormal, Reason: "Scheduled", Message: "fine",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "demo-0-fe-aaaaa"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute)),
		},
	}...)
	return Clients{Kube: kube, Grove: grove}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "status prints the tree and why whatever is not running waits",
			args: []string{"status", "demo"},
			want: `PodCliqueSet ns/demo: 1 of 1 replicas available
│  Ready=True AllReplicasAvailable: 1 of 1 replicas available
└─ replica 0: available
   ├─ PodGang demo-0: Running, 5 bound, 5 needed together
   ├─ PodClique demo-0-fe: 2 of 2 pods ready (minAvailable 2)
   │  ├─ pod demo-0-fe-aaaaa: Running
   │  └─ pod demo-0-fe-bbbbb: Running
   └─ PodCliqueScalingGroup demo-0-sg: 1 of 2 replicas available (minAvailable 1)
      ├─ replica 0
      │  ├─ PodClique demo-0-sg-0-leader: 0 of 1 pods ready (minAvailable 1)
      │  │  └─ pod demo-0-sg-0-leader-ccccc: Pending
      │  │        container main waiting: ImagePullBackOff: Back-off pulling image "model:2"
      │  └─ PodClique demo-0-sg-0-worker: 1 of 2 pods ready (minAvailable 2)
      │     ├─ pod demo-0-sg-0-worker-ddddd: Running
      │     └─ pod demo-0-sg-0-worker-eeeee: Pending
      │           grove-initc waits for PodClique demo-0-sg-0-leader (0 of 1 pods ready, needs 1)
      └─ replica 1
         ├─ PodGang demo-0-sg-1: Pending, 0 bound, 3 needed together
         │     Scheduled=False Unschedulable: ` + noFit + `
         │     Warning Unschedulable (x3, last 90s ago): ` + noFit + `
         ├─ PodClique demo-0-sg-1-leader: 0 of 1 pods ready (minAvailable 1)
         │  └─ pod demo-0-sg-1-leader-fffff: Pending, not scheduled
         │        not scheduled: its PodGang demo-0-sg-1 is not placed
         └─ PodClique demo-0-sg-1-worker: 0 of 2 pods ready (minAvailable 2)
            ├─ pod demo-0-sg-1-worker-ggggg: Pending, not scheduled
            │     not scheduled: its PodGang demo-0-sg-1 is not placed
            └─ pod demo-0-sg-1-worker-hhhhh: Pending, not scheduled
                  held by scheduling gate grove.io/podgang-pending-creation: its PodGang demo-0-sg-1 does not reference it yet
`,
		},
		{
			name: "why pod names its PodGang's reason",
			args: []string{"why", "pod", "demo-0-sg-1-worker-ggggg"},
			want: `Pod ns/demo-0-sg-1-worker-ggggg: Pending, not scheduled
   not scheduled: PodGang demo-0-sg-1: Pending, 0 bound, 3 needed together
     Scheduled=False Unschedulable: ` + noFit + `
     Warning Unschedulable (x3, last 90s ago): ` + noFit + `
`,
		},
		{
			name: "why of a running pod says so",
			args: []string{"why", "po/demo-0-fe-aaaaa"},
			want: `Pod ns/demo-0-fe-aaaaa: Running
   running and ready: nothing to explain
`,
		},
		{
			name: "why podclique lists its PodGang and the pods that wait",
			args: []string{"why", "pclq", "demo-0-sg-0-worker"},
			want: `PodClique demo-0-sg-0-worker: 1 of 2 pods ready (minAvailable 2)
├─ PodGang demo-0: Running, 5 bound, 5 needed together
└─ pod demo-0-sg-0-worker-eeeee: Pending
      grove-initc waits for PodClique demo-0-sg-0-leader (0 of 1 pods ready, needs 1)
`,
		},
		{
			name: "why podgang lists its PodCliques' waiting pods",
			args: []string{"why", "podgangs.scheduler.grove.io/demo-0-sg-1"},
			want: `PodGang demo-0-sg-1: Pending, 0 bound, 3 needed together
│  Scheduled=False Unschedulable: ` + noFit + `
│  Warning Unschedulable (x3, last 90s ago): ` + noFit + `
├─ PodClique demo-0-sg-1-leader: 0 of 1 pods ready (minAvailable 1)
│  └─ pod demo-0-sg-1-leader-fffff: Pending, not scheduled
│        not scheduled: its PodGang demo-0-sg-1 is not placed
└─ PodClique demo-0-sg-1-worker: 0 of 2 pods ready (minAvailable 2)
   ├─ pod demo-0-sg-1-worker-ggggg: Pending, not scheduled
   │     not scheduled: its PodGang demo-0-sg-1 is not placed
   └─ pod demo-0-sg-1-worker-hhhhh: Pending, not scheduled
         held by scheduling gate grove.io/podgang-pending-creation: its PodGang demo-0-sg-1 does not reference it yet
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Run(context.Background(), fixture(), "ns", tt.args, now, &out); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("kubectl grove %s printed\n%s\nwant\n%s", strings.Join(tt.args, " "), got, tt.want)
			}
		})
	}
}

func TestBadCommandLines(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{args: nil, code: 2, want: "error: usage: no command"},
		{args: []string{"status"}, code: 2, want: "error: usage: wrong number of arguments to status"},
		{args: []string{"why", "deployment", "x"}, code: 1, want: `error: kubectl grove why explains a pod, podclique (pclq) or podgang (pg), not "deployment"`},
		{args: []string{"status", "x", "-n"}, code: 2, want: "error: usage: flag -n needs a value"},
		{args: []string{"frobnicate"}, code: 2, want: `error: usage: unknown command "frobnicate"`},
		{args: []string{"-h"}, code: 0},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		// An empty kubeconfig path list: nothing reaches a cluster.
		t.Setenv("KUBECONFIG", t.TempDir()+"/none")
		code := Main(context.Background(), tt.args, &out, &errOut)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errOut.String())
		}
		if tt.want != "" && !strings.HasPrefix(errOut.String(), tt.want) {
			t.Errorf("%v: stderr %q, want it to start with %q", tt.args, errOut.String(), tt.want)
		}
	}
}
