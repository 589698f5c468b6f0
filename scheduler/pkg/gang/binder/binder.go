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

// Package binder binds gang pods to their nodes with backpressure. The group
// cycle releases a gang's whole minimum set at Permit at once, so a burst of
// gangs becomes a burst of concurrent binds; kube-scheduler's DefaultBinder
// sends each at once and gives up on its first error. On an overloaded API
// server that turned into a storm: binds timed out (the server's own request
// timeout), each failure sent its pod and so its gang back to the queue to be
// searched and reserved again, and the retries added load, so one benchmark
// run stalled at 1134 of 5000 pods bound. The Binder instead
//
//   - bounds the binds in flight, halving the bound on a failure that passes
//     and growing it back one bind at a time (the rest wait their turn);
//   - retries a bind that failed for a reason that passes (server timeout,
//     429 Too Many Requests, 5xx, a broken connection), after a backoff that
//     every bind shares, so an overloaded server sees fewer requests, not more,
//     and honours the server's Retry-After;
//   - treats "already assigned to this node" as success: a timed-out bind
//     may have been applied.
//
// A bind that fails for any other reason (the pod is gone or bound elsewhere),
// or that has not succeeded within the retry budget, returns its error, and
// kube-scheduler unreserves the pod as before.
package binder

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"golang.org/x/net/http2"

	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

// Options tunes a Binder; zero values take the defaults.
type Options struct {
	// MaxInFlight bounds the binds sent and not yet answered. Default 256:
	// a bound on a healthy server far above what the client QPS (500) keeps
	// in flight. The bound in force halves (down to minInFlight) on every
	// failure that passes and grows back by one per bind that succeeds, so
	// an overloaded server sees fewer binds at once.
	MaxInFlight int
	// InitialBackoff and MaxBackoff bound the shared wait after a retriable
	// failure; it doubles per consecutive failure and resets on a success.
	// Defaults 100 ms and 5 s.
	InitialBackoff, MaxBackoff time.Duration
	// Budget is how long one bind keeps retrying before it returns its last
	// error. Default 2 minutes.
	Budget time.Duration
}

const (
	defaultMaxInFlight    = 256
	minInFlight           = 4
	defaultInitialBackoff = 100 * time.Millisecond
	defaultMaxBackoff     = 5 * time.Second
	defaultBudget         = 2 * time.Minute
)

// Binder binds pods through one client with bounded concurrency and a shared
// backoff. Safe for concurrent use.
type Binder struct {
	client kubernetes.Interface
	opts   Options

	mu sync.Mutex
	// freed is signalled when a bind leaves the flight or the bound grows.
	freed *sync.Cond
	// inFlight counts binds sent and not answered; limit is the bound in
	// force, between minInFlight and opts.MaxInFlight.
	inFlight, limit int
	// failures counts consecutive retriable failures across all binds; the
	// shared backoff grows with it.
	failures int
	// pauseUntil is when binds may be sent again after a retriable failure.
	pauseUntil time.Time
}

// New returns a Binder on client.
func New(client kubernetes.Interface, opts Options) *Binder {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = defaultMaxInFlight
	}
	if opts.InitialBackoff <= 0 {
		opts.InitialBackoff = defaultInitialBackoff
	}
	if opts.MaxBackoff < opts.InitialBackoff {
		opts.MaxBackoff = max(defaultMaxBackoff, opts.InitialBackoff)
	}
	if opts.Budget <= 0 {
		opts.Budget = defaultBudget
	}
	b := &Binder{client: client, opts: opts, limit: opts.MaxInFlight}
	b.freed = sync.NewCond(&b.mu)
	return b
}

// Bind binds the pod to the node, retrying failures that pass until it
// succeeds, ctx ends or the budget is spent.
func (b *Binder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	log := klog.FromContext(ctx)
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	deadline := time.Now().Add(b.opts.Budget)
	for {
		err := b.send(ctx, binding)
		if err == nil {
			b.succeeded()
			return nil
		}
		if apierrors.IsConflict(err) {
			// An earlier try, this bind's or an earlier binding cycle's, may
			// have been applied although its answer was lost or a timeout:
			// the pod is then bound where we asked.
			if bound, getErr := b.boundTo(ctx, pod); getErr == nil && bound == node {
				b.succeeded()
				return nil
			}
		}
		reason := retriable(err)
		if reason == "" || ctx.Err() != nil {
			return fmt.Errorf("binding pod %s/%s to node %s: %w", pod.Namespace, pod.Name, node, err)
		}
		wait := b.failed(err)
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("binding pod %s/%s to node %s: still failing after %s: %w", pod.Namespace, pod.Name, node, b.opts.Budget, err)
		}
		metrics.BindRetries.WithLabelValues(reason).Inc()
		log.V(2).Info("Retrying bind", "pod", klog.KObj(pod), "node", node, "reason", reason, "after", wait, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("binding pod %s/%s to node %s: %w", pod.Namespace, pod.Name, node, err)
		}
	}
}

// send waits for the shared backoff and a place in the flight, then sends
// one bind.
func (b *Binder) send(ctx context.Context, binding *corev1.Binding) error {
	b.mu.Lock()
	wait := time.Until(b.pauseUntil)
	b.mu.Unlock()
	if err := sleep(ctx, wait); err != nil {
		return err
	}
	if err := b.acquire(ctx); err != nil {
		return err
	}
	defer b.release()
	return b.client.CoreV1().Pods(binding.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
}

// acquire waits until fewer binds than the bound are in flight and takes a
// place, or returns ctx's error.
func (b *Binder) acquire(ctx context.Context) error {
	b.mu.Lock()
	if b.inFlight < b.limit {
		b.inFlight++
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	// Waiting: ctx's end must wake this waiter too.
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.freed.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.inFlight >= b.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.freed.Wait()
	}
	b.inFlight++
	return nil
}

// release gives a place in the flight back.
func (b *Binder) release() {
	b.mu.Lock()
	b.inFlight--
	b.mu.Unlock()
	b.freed.Signal()
}

// boundTo reads the pod's node from the API server (the informer may lag).
func (b *Binder) boundTo(ctx context.Context, pod *corev1.Pod) (string, error) {
	p, err := b.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if p.UID != pod.UID {
		return "", fmt.Errorf("pod %s/%s was replaced", pod.Namespace, pod.Name)
	}
	return p.Spec.NodeName, nil
}

// succeeded resets the shared backoff and grows the bound by one.
func (b *Binder) succeeded() {
	b.mu.Lock()
	b.failures = 0
	grew := b.limit < b.opts.MaxInFlight
	if grew {
		b.limit++
	}
	b.mu.Unlock()
	if grew {
		b.freed.Signal()
	}
}

// failed grows the shared backoff (with jitter, at least the server's
// Retry-After) and returns how long this bind waits before its retry.
func (b *Binder) failed(err error) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	b.limit = max(b.limit/2, min(minInFlight, b.opts.MaxInFlight))
	wait := b.opts.InitialBackoff << min(b.failures-1, 20)
	if wait > b.opts.MaxBackoff || wait <= 0 {
		wait = b.opts.MaxBackoff
	}
	// Jitter spreads the retries of binds that failed together.
	wait = wait/2 + rand.N(wait/2+1)
	if s, ok := apierrors.SuggestsClientDelay(err); ok {
		wait = max(wait, time.Duration(s)*time.Second)
	}
	if until := time.Now().Add(wait); until.After(b.pauseUntil) {
		b.pauseUntil = until
	}
	return wait
}

// retriable names why a failed bind may succeed when sent again ("" when it
// cannot): the server was too busy, timed out or broke the connection. A
// deadline error is the request's own (Bind checks the caller's context
// first).
func retriable(err error) string {
	switch {
	case apierrors.IsTooManyRequests(err):
		return "throttled"
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsUnexpectedServerError(err):
		return "server-error"
	case utilnet.IsConnectionReset(err), utilnet.IsConnectionRefused(err), utilnet.IsProbableEOF(err),
		utilnet.IsHTTP2ConnectionLost(err), errors.As(err, new(http2.StreamError)):
		// A stream reset is how an overloaded server's timeout handler
		// often ends a request it gave up on.
		return "connection"
	}
	return ""
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
