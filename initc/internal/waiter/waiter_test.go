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
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/grove-project/grove/initc/internal/parents"
)

// syncBuffer is a log sink safe for the informer's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitAsync(ctx context.Context, cfg Config) <-chan error {
	result := make(chan error, 1)
	go func() { result <- Wait(ctx, cfg) }()
	return result
}

func TestWaitReturnsWhenParentsAreReady(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := fake.NewClientset(testPod("w1", "w-0-worker", ready))
	logs := &syncBuffer{}
	result := waitAsync(ctx, Config{
		Client: client, Namespace: "ns", PodGang: "pg-0",
		Parents: []parents.Parent{{PodClique: "w-0-worker", MinAvailable: 2}},
		Log:     logr.FromSlogHandler(slog.NewJSONHandler(logs, nil)),
	})

	waitForLog(t, logs, `"msg":"Waiting for parent PodClique","podclique":"w-0-worker","ready":1,"required":2,"waitingFor":1`)
	if _, err := client.CoreV1().Pods("ns").Create(ctx, testPod("wb1", "w-0-worker-b", ready), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		t.Fatalf("Wait returned %v while only one worker pod is Ready", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := client.CoreV1().Pods("ns").Create(ctx, testPod("w2", "w-0-worker", ready), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Wait returned %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the second worker pod turned Ready")
	}
	if !strings.Contains(logs.String(), `"msg":"Parent PodClique has enough Ready pods","podclique":"w-0-worker","ready":2,"required":2`) {
		t.Errorf("no log line for the satisfied parent; logs:\n%s", logs)
	}
}

func TestWaitSurvivesWatchRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := fake.NewClientset()
	firstWatch := watch.NewRaceFreeFake()
	var watches atomic.Int32
	// The first watch is one the test controls and ends, as an API server
	// does when a watch times out or the connection drops; later watches go
	// to the fake's object tracker.
	client.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		if watches.Add(1) == 1 {
			return true, firstWatch, nil
		}
		return false, nil, nil
	})
	result := waitAsync(ctx, Config{
		Client: client, Namespace: "ns", PodGang: "pg-0",
		Parents: []parents.Parent{{PodClique: "w-0-leader", MinAvailable: 1}},
		Log:     logr.Discard(),
	})

	eventually(t, func() bool { return watches.Load() == 1 }, "the informer never started its first watch")
	firstWatch.Stop()
	eventually(t, func() bool { return watches.Load() >= 2 }, "the informer did not watch again after the watch ended")
	if _, err := client.CoreV1().Pods("ns").Create(ctx, testPod("l1", "w-0-leader", ready), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Wait returned %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not see the Ready pod created after the watch restarted")
	}
}

func TestWaitStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	client := fake.NewClientset()
	result := waitAsync(ctx, Config{
		Client: client, Namespace: "ns", PodGang: "pg-0",
		Parents: []parents.Parent{{PodClique: "w-0-leader", MinAvailable: 1}},
		Log:     logr.Discard(),
	})
	cancel()
	select {
	case err := <-result:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after its context was cancelled")
	}
}

func TestWaitListsOnlyItsPodGang(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := fake.NewClientset()
	selectors := make(chan string, 10)
	client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		selectors <- a.(k8stesting.ListAction).GetListRestrictions().Labels.String()
		return false, nil, nil
	})
	result := waitAsync(ctx, Config{
		Client: client, Namespace: "ns", PodGang: "pg-0",
		Parents: []parents.Parent{{PodClique: "w-0-leader", MinAvailable: 1}},
		Log:     logr.Discard(),
	})
	select {
	case got := <-selectors:
		if got != "grove.io/podgang=pg-0" {
			t.Errorf("list label selector = %q, want grove.io/podgang=pg-0", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no pod list observed")
	}
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait returned %v after cancel, want context.Canceled", err)
	}
}

func TestWaitRejectsPodGangThatIsNoLabelValue(t *testing.T) {
	err := Wait(context.Background(), Config{
		Client: fake.NewClientset(), Namespace: "ns", PodGang: "not a label value",
		Parents: []parents.Parent{{PodClique: "a", MinAvailable: 1}},
		Log:     logr.Discard(),
	})
	if err == nil || !strings.Contains(err.Error(), `PodGang "not a label value" cannot be used in a label selector`) {
		t.Fatalf("Wait error = %v", err)
	}
}

func waitForLog(t *testing.T, logs *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log line %s not found in:\n%s", want, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
