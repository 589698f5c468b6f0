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

package pod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// leaderWorkers is PodCliqueSet "lws" with a standalone frontend and a
// scaling group mn = [leader(1), worker(3)], workers starting after the leader.
func leaderWorkers() *grovecorev1alpha1.PodCliqueSet {
	spec := func(replicas int32, env ...corev1.EnvVar) grovecorev1alpha1.PodCliqueSpec {
		return grovecorev1alpha1.PodCliqueSpec{Replicas: replicas, PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "img", Env: env}}}}
	}
	worker := spec(3, corev1.EnvVar{Name: "GROVE_PCS_NAME", Value: "user-value"}, corev1.EnvVar{Name: "RANK", Value: "$(GROVE_PCSG_POD_INDEX)"})
	worker.StartsAfter = []string{"leader"}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "lws", Namespace: "ml"},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			StartupType: ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit),
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
				{Name: "frontend", Spec: spec(2)},
				{Name: "leader", Spec: spec(1)},
				{Name: "worker", Spec: worker},
			},
			PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{
				{Name: "mn", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1)},
			},
		}},
	}
}

func memberPodClique(pcs *grovecorev1alpha1.PodCliqueSet, clique string, pcsgReplica int32) *grovecorev1alpha1.PodClique {
	pcsg := apicommon.PodCliqueScalingGroupName(pcs.Name, 0, "mn")
	var tmpl grovecorev1alpha1.PodCliqueTemplateSpec
	for _, c := range pcs.Spec.Template.Cliques {
		if c.Name == clique {
			tmpl = c
		}
	}
	tmpl.Spec.PodSpec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	tmpl.Spec.PodSpec.RestartPolicy = corev1.RestartPolicyOnFailure
	labels := map[string]string{
		apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: pcs.Name,
		apicommon.LabelAppNameKey: apicommon.ScalingGroupPodCliqueName(pcsg, pcsgReplica, clique), apicommon.LabelComponentKey: apicommon.LabelComponentPCSGPodClique,
		apicommon.LabelPodCliqueSetReplicaIndex: "0", apicommon.LabelPodCliqueScalingGroup: pcsg,
		apicommon.LabelPodCliqueScalingGroupReplicaIndex: fmt.Sprint(pcsgReplica), apicommon.LabelPodCliqueTemplateName: clique,
		apicommon.LabelPodGang:         apicommon.PodGangNameForScalingGroupReplica(pcs.Name, 0, pcsg, pcsgReplica, 1),
		apicommon.LabelPodTemplateHash: "h1", "team": "llm",
	}
	if pcsgReplica >= 1 {
		labels[apicommon.LabelBasePodGang] = apicommon.BasePodGangName(pcs.Name, 0)
	}
	return &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: apicommon.ScalingGroupPodCliqueName(pcsg, pcsgReplica, clique), Namespace: pcs.Namespace, UID: "pclq-uid", Labels: labels,
			Annotations: map[string]string{"note": "x", apicommon.AnnotationTemplateReplicas: "3"}},
		Spec: tmpl.Spec,
	}
}

func envMap(env []corev1.EnvVar) map[string]string {
	m := map[string]string{}
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

func TestBuildScalingGroupMemberPod(t *testing.T) {
	pcs := leaderWorkers()
	pclq := memberPodClique(pcs, "worker", 1)
	id, err := IdentityOf(pclq)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := backend.NewRegistry(config.Default())
	b, err := NewBuilder(pclq, pcs, id, reg.Default(), startuporder.Image{Ref: "registry.example/grove-initc@sha256:0123", PullPolicy: corev1.PullNever})
	if err != nil {
		t.Fatal(err)
	}
	pod := b.Build(2)

	if pod.GenerateName != "lws-0-mn-1-worker-" || pod.Namespace != "ml" {
		t.Errorf("generateName %q namespace %q", pod.GenerateName, pod.Namespace)
	}
	if pod.Spec.Hostname != "lws-0-mn-1-worker-2" || pod.Spec.Subdomain != "lws-0" {
		t.Errorf("hostname %q subdomain %q", pod.Spec.Hostname, pod.Spec.Subdomain)
	}
	if pod.Spec.SchedulerName != "grove-scheduler" {
		t.Errorf("schedulerName %q", pod.Spec.SchedulerName)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("restartPolicy %q, want Always whatever the template says", pod.Spec.RestartPolicy)
	}
	wantLabels := map[string]string{
		apicommon.LabelManagedByKey: "grove-operator", apicommon.LabelPartOfKey: "lws", apicommon.LabelPodClique: "lws-0-mn-1-worker",
		apicommon.LabelPodCliquePodIndex: "2", apicommon.LabelPodGang: "lws-0-mn-0", apicommon.LabelBasePodGang: "lws-0",
		apicommon.LabelPodCliqueSetReplicaIndex: "0", apicommon.LabelPodCliqueScalingGroup: "lws-0-mn",
		apicommon.LabelPodCliqueScalingGroupReplicaIndex: "1", apicommon.LabelPodCliqueTemplateName: "worker",
		apicommon.LabelPodTemplateHash: "h1", apicommon.LabelComponentKey: apicommon.LabelComponentPCSGPodClique, "team": "llm",
	}
	for k, v := range wantLabels {
		if pod.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, pod.Labels[k], v)
		}
	}
	if _, ok := pod.Labels[apicommon.LabelAppNameKey]; ok {
		t.Errorf("pod carries the PodClique's name label")
	}
	if pod.Annotations["note"] != "x" || pod.Annotations[apicommon.AnnotationTemplateReplicas] != "" {
		t.Errorf("annotations %v", pod.Annotations)
	}
	if ref := pod.OwnerReferences; len(ref) != 1 || ref[0].Kind != "PodClique" || ref[0].Name != pclq.Name || !*ref[0].Controller {
		t.Errorf("owner references %+v", ref)
	}
	gates := []string{}
	for _, g := range pod.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	if !slices.Equal(gates, []string{"example.com/quota", apicommon.PodGangSchedulingGate}) {
		t.Errorf("gates %v: other gates must be kept and Grove's added", gates)
	}

	env := pod.Spec.Containers[0].Env
	wantOrder := []string{"GROVE_PCS_NAME", "GROVE_PCS_INDEX", "GROVE_PCLQ_NAME", "GROVE_HEADLESS_SERVICE", "GROVE_PCLQ_POD_INDEX",
		"GROVE_PCSG_NAME", "GROVE_PCSG_TEMPLATE_NUM_PODS", "GROVE_PCSG_INDEX", "GROVE_PCSG_POD_INDEX", "RANK"}
	var order []string
	for _, e := range env {
		order = append(order, e.Name)
	}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("env order %v, want %v (Grove first, reserved user names dropped)", order, wantOrder)
	}
	got := envMap(env)
	want := map[string]string{
		"GROVE_PCS_NAME": "lws", "GROVE_PCS_INDEX": "0", "GROVE_PCLQ_NAME": "lws-0-mn-1-worker",
		"GROVE_HEADLESS_SERVICE": "lws-0.ml.svc.cluster.local", "GROVE_PCLQ_POD_INDEX": "2",
		"GROVE_PCSG_NAME": "lws-0-mn", "GROVE_PCSG_TEMPLATE_NUM_PODS": "4", "GROVE_PCSG_INDEX": "1",
		// leader (1 pod) comes before worker in cliqueNames: rank = 1 + pod index 2.
		"GROVE_PCSG_POD_INDEX": "3",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("env %s = %q, want %q", k, got[k], v)
		}
	}

	// Workers start after the leader of their own scaling-group replica.
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Name != apicommon.InitContainerName {
		t.Fatalf("init containers %+v", pod.Spec.InitContainers)
	}
	if args := pod.Spec.InitContainers[0].Args; !slices.Equal(args, []string{"--podcliques=lws-0-mn-1-leader:1"}) {
		t.Errorf("grove-initc args %v", args)
	}
	if c := pod.Spec.InitContainers[0]; c.Image != "registry.example/grove-initc@sha256:0123" || c.ImagePullPolicy != corev1.PullNever {
		t.Errorf("grove-initc image %q, pull policy %q: want the configured image and policy", c.Image, c.ImagePullPolicy)
	}
	if envMap(pod.Spec.InitContainers[0].Env)["GROVE_PCLQ_NAME"] != "" {
		t.Errorf("grove-initc is Grove's own container and must not get the user's env")
	}
}

func TestBuildStandalonePodHasNoScalingGroupEnvOrInitContainer(t *testing.T) {
	pcs := leaderWorkers()
	pcs.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeAnyOrder)
	pclq := &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: "lws-0-frontend", Namespace: "ml", Labels: map[string]string{
			apicommon.LabelPartOfKey: "lws", apicommon.LabelPodCliqueSetReplicaIndex: "0", apicommon.LabelPodCliqueTemplateName: "frontend", apicommon.LabelPodGang: "lws-0"}},
		Spec: pcs.Spec.Template.Cliques[0].Spec,
	}
	id, err := IdentityOf(pclq)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := backend.NewRegistry(config.Default())
	be, _ := reg.ForSchedulerName("default-scheduler")
	b, err := NewBuilder(pclq, pcs, id, be, startuporder.Image{Ref: "grove-initc:v1"})
	if err != nil {
		t.Fatal(err)
	}
	pod := b.Build(0)
	got := envMap(pod.Spec.Containers[0].Env)
	if len(got) != 5 || got["GROVE_PCLQ_POD_INDEX"] != "0" || got["GROVE_PCSG_NAME"] != "" {
		t.Errorf("standalone env %v", got)
	}
	if len(pod.Spec.InitContainers) != 0 || pod.Annotations[apicommon.AnnotationStartsAfter] != "" {
		t.Errorf("AnyOrder pod got init containers %v", pod.Spec.InitContainers)
	}
	if pod.Spec.SchedulerName != "default-scheduler" {
		t.Errorf("schedulerName %q", pod.Spec.SchedulerName)
	}
}

func TestIdentityOfRejectsMissingLabels(t *testing.T) {
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns", Labels: map[string]string{
		apicommon.LabelPartOfKey: "p", apicommon.LabelPodCliqueTemplateName: "c", apicommon.LabelPodGang: "p-0", apicommon.LabelPodCliqueSetReplicaIndex: "zero"}}}
	if _, err := IdentityOf(pclq); err == nil || err.Error() != `PodClique ns/x: label grove.io/podcliqueset-replica-index="zero" is not a replica index` {
		t.Errorf("error %v", err)
	}
}

func podWith(name string, index int, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{apicommon.LabelPodTemplateHash: "new"}},
		Spec:   corev1.PodSpec{Hostname: fmt.Sprintf("pc-%d", index), NodeName: "node"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func TestFreeIndices(t *testing.T) {
	active := []*corev1.Pod{podWith("a", 0, nil), podWith("b", 2, nil), podWith("c", 5, nil)}
	tests := []struct {
		pending []int
		n       int
		want    []int
	}{
		{nil, 3, []int{1, 3, 4}},
		{[]int{1}, 2, []int{3, 4}},
		{[]int{1, 3, 4}, 2, []int{6, 7}},
		{nil, 0, []int{}},
	}
	for _, tc := range tests {
		if got := FreeIndices("pc", active, tc.pending, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("pending %v n %d: got %v, want %v", tc.pending, tc.n, got, tc.want)
		}
	}
}

func TestSortForDeletion(t *testing.T) {
	now := time.Now()
	pods := []*corev1.Pod{
		podWith("ready-old-index1", 1, func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour)) }),
		podWith("ready-index4", 4, nil),
		podWith("outdated", 2, func(p *corev1.Pod) { p.Labels[apicommon.LabelPodTemplateHash] = "old" }),
		podWith("not-ready", 0, func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }),
		podWith("pending", 3, func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }),
		podWith("unscheduled", 6, func(p *corev1.Pod) { p.Spec.NodeName = ""; p.Status.Phase = corev1.PodPending }),
	}
	SortForDeletion(pods, "pc", "new")
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	want := []string{"unscheduled", "pending", "not-ready", "outdated", "ready-index4", "ready-old-index1"}
	if !slices.Equal(got, want) {
		t.Errorf("deletion order %v, want %v", got, want)
	}
}

func TestSlowStart(t *testing.T) {
	var calls atomic.Int32
	n, err := slowStart(10, func(int) error { calls.Add(1); return nil })
	if n != 10 || err != nil || calls.Load() != 10 {
		t.Fatalf("all succeed: n=%d err=%v calls=%d", n, err, calls.Load())
	}
	calls.Store(0)
	n, err = slowStart(10, func(i int) error {
		calls.Add(1)
		if i == 1 {
			return errors.New("quota exceeded")
		}
		return nil
	})
	// Batches 1 and 2 run (indices 0, 1, 2); the failure stops further batches.
	if n != 2 || err == nil || calls.Load() != 3 {
		t.Fatalf("failure in second batch: n=%d err=%v calls=%d, want 2 succeeded after 3 calls", n, err, calls.Load())
	}
}

func TestDuplicateIndexExtras(t *testing.T) {
	now := time.Now()
	older := func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour)) }
	newer := func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now) }
	for _, tc := range []struct {
		name   string
		active []*corev1.Pod
		want   []string
	}{
		{
			name:   "unique indices leave nothing to repair",
			active: []*corev1.Pod{podWith("a", 0, nil), podWith("b", 1, nil)},
		},
		{
			name:   "of two ready pods with one index the older stays",
			active: []*corev1.Pod{podWith("new", 0, newer), podWith("old", 0, older), podWith("b", 1, nil)},
			want:   []string{"new"},
		},
		{
			name: "a pod on a node stays over an unscheduled one, however old",
			active: []*corev1.Pod{
				podWith("unscheduled", 1, func(p *corev1.Pod) { older(p); p.Spec.NodeName = ""; p.Status.Phase = corev1.PodPending }),
				podWith("running", 1, newer),
			},
			want: []string{"unscheduled"},
		},
		{
			name: "three pods with one index give up two; pods without an index go too",
			active: []*corev1.Pod{
				podWith("x", 2, newer), podWith("y", 2, older), podWith("z", 2, newer),
				podWith("noindex", 0, func(p *corev1.Pod) { p.Spec.Hostname = ""; delete(p.Labels, apicommon.LabelPodCliquePodIndex) }),
			},
			want: []string{"noindex", "x", "z"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range DuplicateIndexExtras("pc", tc.active, "new") {
				got = append(got, p.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("extras %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCreateMayHaveSucceeded(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the API server rejected the pod", apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "p", nil), false},
		{"admission forbade it", apierrors.NewForbidden(gr, "p", errors.New("quota")), false},
		{"a generated name collided", apierrors.NewAlreadyExists(gr, "p"), false},
		{"the server throttled the request", apierrors.NewTooManyRequests("slow down", 1), false},
		{"the connection was refused before sending", &url.Error{Op: "Post", URL: "https://127.0.0.1", Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, false},
		{"the server timed out and may still be processing", apierrors.NewTimeoutError("took too long", 1), true},
		{"the server failed internally", apierrors.NewInternalError(errors.New("etcd")), true},
		{"the connection was cut mid-request", &url.Error{Op: "Post", URL: "https://127.0.0.1", Err: io.ErrUnexpectedEOF}, true},
		{"the client gave up waiting", context.DeadlineExceeded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := createMayHaveSucceeded(tc.err); got != tc.want {
				t.Fatalf("createMayHaveSucceeded(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
