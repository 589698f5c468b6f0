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
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/expect"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// concurrencyProbe holds each call until want calls are in flight at once
// (or a deadline passes) and records the most it saw in flight.
type concurrencyProbe struct {
	want           int32
	inFlight, most atomic.Int32
	all            chan struct{}
}

func newConcurrencyProbe(want int32) *concurrencyProbe {
	return &concurrencyProbe{want: want, all: make(chan struct{})}
}

func (p *concurrencyProbe) enter() {
	n := p.inFlight.Add(1)
	for m := p.most.Load(); n > m; m = p.most.Load() {
		if p.most.CompareAndSwap(m, n) {
			break
		}
	}
	if n == p.want {
		close(p.all)
	}
	select {
	case <-p.all:
	case <-time.After(time.Second):
	}
	p.inFlight.Add(-1)
}

// podsOf returns a scheme, PodClique pclq and n pods it controls, named
// <pclq>-<i>; gated pods carry Grove's scheduling gate.
func podsOf(t *testing.T, pclq *grovecorev1alpha1.PodClique, n int, gated bool) (*runtime.Scheme, []*corev1.Pod) {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, grovecorev1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	var pods []*corev1.Pod
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d", pclq.Name, i), Namespace: pclq.Namespace, UID: types.UID(fmt.Sprintf("pod-%d", i)),
			Labels: map[string]string{apicommon.LabelPodClique: pclq.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: "PodClique",
				Name: pclq.Name, UID: pclq.UID, Controller: ptr.To(true)}},
		}}
		if gated {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}
		}
		pods = append(pods, p)
	}
	return scheme, pods
}

// probedClient is a fake client holding objs whose deletes and patches go
// through probe.
func probedClient(scheme *runtime.Scheme, probe *concurrencyProbe, objs ...client.Object) client.WithWatch {
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithIndex(&corev1.Pod{}, index.PodClique, func(o client.Object) []string { return []string{o.GetLabels()[apicommon.LabelPodClique]} }).
		WithInterceptorFuncs(interceptor.Funcs{
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				probe.enter()
				return c.Delete(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				probe.enter()
				return c.Patch(ctx, obj, patch, opts...)
			},
		}).Build()
}

// A PodClique being deleted sends the deletes of all its pods at once: its
// pods are what a user deleting a set waits for, and each round trip in turn
// would add to the wait.
func TestDrainDeletesAllPodsAtOnce(t *testing.T) {
	const n = 3
	now := metav1.Now()
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{
		Name: "inference-0-worker", Namespace: "default", UID: "pclq-uid",
		DeletionTimestamp: &now, Finalizers: []string{apicommon.FinalizerPodClique},
	}}
	scheme, pods := podsOf(t, pclq, n, false)
	objs := []client.Object{pclq}
	for _, p := range pods {
		objs = append(objs, p)
	}
	probe := newConcurrencyProbe(n)
	c := probedClient(scheme, probe, objs...)
	comp := New(c, c, events.NewFakeRecorder(10), nil, expect.NewStore(time.Minute), ownwrites.New(), startuporder.Image{}, false)

	left, _, err := comp.Drain(context.Background(), logr.Discard(), pclq)
	if err != nil {
		t.Fatal(err)
	}
	if got := probe.most.Load(); got != n {
		t.Errorf("at most %d pod deletes in flight at once, want all %d", got, n)
	}
	list := &corev1.PodList{}
	if err := c.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 || left != n {
		t.Errorf("pods left in the API: %d, Drain says %d left; want 0 and %d (the cache has not shown the deletes)", len(list.Items), left, n)
	}
}

// The gates of all the pods a PodGang references are lifted at once: the gang
// is placed only when all of them are ungated.
func TestLiftGatesLiftsAllAtOnce(t *testing.T) {
	const n = 3
	pclq := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "inference-0-worker", Namespace: "default", UID: "pclq-uid"}}
	scheme, pods := podsOf(t, pclq, n, true)
	var objs []client.Object
	referenced := map[string]bool{}
	for _, p := range pods {
		objs = append(objs, p)
		referenced[p.Name] = true
	}
	probe := newConcurrencyProbe(n)
	c := probedClient(scheme, probe, objs...)
	comp := New(c, c, events.NewFakeRecorder(10), nil, expect.NewStore(time.Minute), ownwrites.New(), startuporder.Image{}, false)

	lifted, err := comp.liftGates(context.Background(), logr.Discard(), pclq, Identity{PodGangName: "inference-0"}, pods, referenced)
	if err != nil {
		t.Fatal(err)
	}
	if got := probe.most.Load(); got != n {
		t.Errorf("at most %d gate removals in flight at once, want all %d", got, n)
	}
	if len(lifted) != n {
		t.Errorf("lifted %d pods, want %d", len(lifted), n)
	}
	for _, p := range pods {
		got := &corev1.Pod{}
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		if HasGroveGate(got) {
			t.Errorf("pod %s still carries Grove's scheduling gate", p.Name)
		}
	}
}
