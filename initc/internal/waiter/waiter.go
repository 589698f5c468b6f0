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

// Package waiter blocks until every parent PodClique of a pod has enough Ready
// pods. It watches only the pods of the waiting pod's own PodGang in its own
// namespace, through an informer, so lost or expired watches are re-established
// (re-listing when the resourceVersion is too old) without losing state.
package waiter

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/initc/internal/parents"
)

// Config is what Wait watches and waits for.
type Config struct {
	// Client reads pods; it needs list and watch on pods in Namespace.
	Client kubernetes.Interface
	// Namespace is the namespace of the waiting pod.
	Namespace string
	// PodGang is the waiting pod's PodGang; only its pods are watched.
	PodGang string
	// Parents are the PodCliques to wait for.
	Parents []parents.Parent
	// Log receives progress: the state of every parent once the initial list
	// is in, then each change of a parent's Ready count.
	Log logr.Logger
}

// Wait returns nil once every parent has at least its minAvailable Ready pods,
// or the context's error if ctx ends first.
func Wait(ctx context.Context, cfg Config) error {
	selector, err := labels.ValidatedSelectorFromSet(labels.Set{apicommon.LabelPodGang: cfg.PodGang})
	if err != nil {
		return fmt.Errorf("PodGang %q cannot be used in a label selector: %w", cfg.PodGang, err)
	}

	ctx, cancel := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(cfg.Client, 0,
		informers.WithNamespace(cfg.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector.String() }))
	defer func() {
		// Shutdown waits for the informer goroutines, which stop only once ctx is cancelled.
		cancel()
		factory.Shutdown()
	}()

	w := &waiter{tracker: newTracker(cfg.Parents), log: cfg.Log, done: make(chan struct{})}
	informer := factory.Core().V1().Pods().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.onUpsert,
		UpdateFunc: func(_, newObj any) { w.onUpsert(newObj) },
		DeleteFunc: w.onDelete,
	}); err != nil {
		return fmt.Errorf("registering pod event handler: %w", err)
	}
	factory.Start(ctx.Done())

	cfg.Log.Info("Watching pods of the PodGang", "namespace", cfg.Namespace, "podGang", cfg.PodGang, "parents", len(cfg.Parents))
	if cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		w.markSynced()
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waiter feeds informer events into the tracker and closes done once all
// parents are satisfied.
type waiter struct {
	mu      sync.Mutex
	tracker *tracker
	log     logr.Logger
	// synced is set once the initial list has been processed; before that,
	// per-pod changes are not logged, since they only replay existing state.
	synced   bool
	done     chan struct{}
	doneOnce sync.Once
}

func (w *waiter) onUpsert(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(pod)
	if err != nil {
		return
	}
	w.update(func(t *tracker) { t.observe(key, pod) })
}

func (w *waiter) onDelete(obj any) {
	// A missed delete arrives as DeletedFinalStateUnknown; the key still identifies the pod.
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	w.update(func(t *tracker) { t.forget(key) })
}

func (w *waiter) update(change func(*tracker)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := w.tracker.statuses()
	change(w.tracker)
	after := w.tracker.statuses()
	if w.synced {
		for i := range after {
			if after[i].Ready != before[i].Ready {
				w.logStatus(after[i])
			}
		}
	}
	w.checkDone()
}

func (w *waiter) markSynced() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.synced = true
	for _, s := range w.tracker.statuses() {
		w.logStatus(s)
	}
	w.checkDone()
}

func (w *waiter) logStatus(s ParentStatus) {
	if s.Satisfied() {
		w.log.Info("Parent PodClique has enough Ready pods", "podclique", s.PodClique, "ready", s.Ready, "required", s.Required)
		return
	}
	w.log.Info("Waiting for parent PodClique", "podclique", s.PodClique, "ready", s.Ready, "required", s.Required,
		"waitingFor", s.Required-s.Ready)
}

func (w *waiter) checkDone() {
	if w.tracker.satisfied() {
		w.doneOnce.Do(func() { close(w.done) })
	}
}
