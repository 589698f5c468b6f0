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

package binder

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

var podsResource = schema.GroupResource{Resource: "pods"}

// server is a fake API server's bind endpoint: answer decides each bind's
// fate given how many binds it has seen; applied binds set the pod's node.
type server struct {
	mu       sync.Mutex
	binds    int
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	nodes    map[string]string
	// answer returns the error to give bind number n (0-based) and whether
	// the bind was applied anyway (a timeout after the write).
	answer func(n int) (error, bool)
	// hold is how long each bind takes.
	hold time.Duration
}

func newClient(t *testing.T, s *server, pods ...*corev1.Pod) *fake.Clientset {
	t.Helper()
	objs := make([]runtime.Object, len(pods))
	for i, p := range pods {
		objs[i] = p
	}
	c := fake.NewClientset(objs...)
	s.nodes = map[string]string{}
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := a.(k8stesting.CreateAction).GetObject().(*corev1.Binding)
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxSeen.Load()
			if n <= m || s.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(s.hold)
		s.mu.Lock()
		defer s.mu.Unlock()
		i := s.binds
		s.binds++
		if node, bound := s.nodes[b.Name]; bound {
			return true, nil, apierrors.NewConflict(podsResource, b.Name, fmt.Errorf("pod %s is already assigned to node %q", b.Name, node))
		}
		err, applied := s.answer(i)
		if err == nil || applied {
			s.nodes[b.Name] = b.Target.Name
		}
		return true, nil, err
	})
	c.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		name := a.(k8stesting.GetAction).GetName()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, p := range pods {
			if p.Name == name {
				out := p.DeepCopy()
				out.Spec.NodeName = s.nodes[name]
				return true, out, nil
			}
		}
		return true, nil, apierrors.NewNotFound(podsResource, name)
	})
	return c
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

var fast = Options{InitialBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, Budget: 2 * time.Second}

func TestBind(t *testing.T) {
	throttled := apierrors.NewTooManyRequests("slow down", 0)
	timeout := apierrors.NewServerTimeout(podsResource, "create", 0)
	tests := []struct {
		name string
		// answer as in server; node is where the pod is bound before the bind.
		answer    func(n int) (error, bool)
		boundTo   string
		wantErr   string
		wantBinds int
		wantNode  string
	}{
		{name: "a bind the server accepts is sent once", answer: func(int) (error, bool) { return nil, false }, wantBinds: 1, wantNode: "n1"},
		{
			name:      "a throttled bind is retried until the server accepts it",
			answer:    func(n int) (error, bool) { return map[bool]error{true: throttled}[n < 3], false },
			wantBinds: 4, wantNode: "n1",
		},
		{
			name:      "a bind applied although the server answered with a timeout counts as bound when the retry finds the pod on its node",
			answer:    func(n int) (error, bool) { return map[bool]error{true: timeout}[n == 0], true },
			wantBinds: 2, wantNode: "n1",
		},
		{
			name:      "a pod bound to another node is an error, not retried",
			answer:    func(int) (error, bool) { return nil, false },
			boundTo:   "n2",
			wantErr:   `binding pod ns/p to node n1: Operation cannot be fulfilled on pods "p": pod p is already assigned to node "n2"`,
			wantBinds: 1, wantNode: "n2",
		},
		{
			name:      "a bind of a deleted pod is an error, not retried",
			answer:    func(int) (error, bool) { return apierrors.NewNotFound(podsResource, "p"), false },
			wantErr:   `binding pod ns/p to node n1: pods "p" not found`,
			wantBinds: 1,
		},
		{
			name:    "a bind still throttled when its budget is spent returns the last error",
			answer:  func(int) (error, bool) { return throttled, false },
			wantErr: "binding pod ns/p to node n1: still failing after 2s: slow down",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{answer: tt.answer}
			pod := testPod("p")
			c := newClient(t, s, pod)
			if tt.boundTo != "" {
				s.nodes["p"] = tt.boundTo
			}
			err := New(c, fast).Bind(context.Background(), pod, "n1")
			if got := fmt.Sprint(err); (tt.wantErr == "" && err != nil) || (tt.wantErr != "" && got != tt.wantErr) {
				t.Fatalf("Bind error %q, want %q", got, tt.wantErr)
			}
			if tt.wantBinds > 0 && s.binds != tt.wantBinds {
				t.Errorf("binds sent %d, want %d", s.binds, tt.wantBinds)
			}
			if s.nodes["p"] != tt.wantNode {
				t.Errorf("pod bound to %q, want %q", s.nodes["p"], tt.wantNode)
			}
		})
	}
}

// TestBindKeepsProgressUnderOverload is a burst of 500 binds against a
// server that throttles whenever more than 20 are in flight and times out one
// bind in ten after applying it: every pod ends bound, the binds in flight
// never exceed the limit, and the burst finishes in a bounded time. A binder
// that sends every bind at once and gives up on the first error (as
// kube-scheduler's DefaultBinder does) leaves most pods unbound.
func TestBindKeepsProgressUnderOverload(t *testing.T) {
	const pods, limit, serverCapacity = 500, 16, 20
	s := &server{hold: time.Millisecond}
	var list []*corev1.Pod
	for i := range pods {
		list = append(list, testPod(fmt.Sprintf("p%d", i)))
	}
	c := newClient(t, s, list...)
	s.answer = func(n int) (error, bool) {
		switch {
		case s.inFlight.Load() > serverCapacity:
			return apierrors.NewTooManyRequests("overloaded", 0), false
		case n%10 == 9:
			return apierrors.NewServerTimeout(podsResource, "create", 0), true
		}
		return nil, false
	}
	b := New(c, Options{MaxInFlight: limit, InitialBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, Budget: 20 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, pods)
	for _, p := range list {
		wg.Go(func() {
			if err := b.Bind(ctx, p, "n1"); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("bind failed: %v", err)
	}
	if len(s.nodes) != pods {
		t.Errorf("%d of %d pods bound", len(s.nodes), pods)
	}
	if m := s.maxSeen.Load(); m > limit {
		t.Errorf("%d binds in flight at once, limit %d", m, limit)
	}
}
