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

package cluster

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	apicommon "github.com/grove-project/grove/api/common"
)

// podLife is what a PodWatch knows of one pod: which index of which
// PodClique it held, from when, and since when it is being deleted.
type podLife struct {
	name, clique string
	index        int
	created      time.Time
	// deleteRequested is when its deletion was requested (deletionTimestamp
	// minus the grace period); zero while unknown.
	deleteRequested time.Time
}

// PodWatch follows the pods of a namespace from an informer. It tells how
// far the pods are at any moment without a request to the API server (which
// may be the component just killed), and it records every pod seen, so that
// a pod index handed out twice is found even when one of the two pods is
// deleted again before the cluster is quiet. For that it compares the API
// server's own timestamps (creation and deletion request, whole seconds),
// never the moment an event arrived, so a watch that reconnects and relists
// cannot make a replacement look like an overlap.
type PodWatch struct {
	mu     sync.Mutex
	pods   map[types.UID]*podLife
	store  cache.Store
	synced cache.InformerSynced
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchPods starts watching the pods of namespace ns. Stop it with Stop.
func WatchPods(cfg *rest.Config, ns string) (*PodWatch, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the clientset: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &PodWatch{pods: map[types.UID]*podLife{}, cancel: cancel, done: make(chan struct{})}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	w.store, w.synced = inf.GetStore(), inf.HasSynced
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observe,
		UpdateFunc: func(_, obj any) { w.observe(obj) },
		DeleteFunc: w.observe,
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("adding the pod event handler: %w", err)
	}
	go func() {
		defer close(w.done)
		inf.Run(ctx.Done())
	}()
	return w, nil
}

// Synced waits until the watch has listed the namespace's pods once.
func (w *PodWatch) Synced(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), w.synced)
}

// PodCounts counts pods: live ones (not being deleted), of those bound and
// Running, and those being deleted.
type PodCounts struct {
	Live, Bound, Running, Terminating int
}

func (c PodCounts) String() string {
	return fmt.Sprintf("%d pods (%d bound, %d Running), %d terminating", c.Live, c.Bound, c.Running, c.Terminating)
}

// Counts counts the pods as the watch sees them now.
func (w *PodWatch) Counts() PodCounts {
	return w.CountsWithImage("")
}

// CountsWithImage counts the pods whose first container runs image (all
// pods when image is empty).
func (w *PodWatch) CountsWithImage(image string) PodCounts {
	var c PodCounts
	for _, obj := range w.store.List() {
		p, ok := obj.(*corev1.Pod)
		if !ok || image != "" && (len(p.Spec.Containers) == 0 || p.Spec.Containers[0].Image != image) {
			continue
		}
		if p.DeletionTimestamp != nil {
			c.Terminating++
			continue
		}
		c.Live++
		if p.Spec.NodeName != "" {
			c.Bound++
		}
		if p.Status.Phase == corev1.PodRunning {
			c.Running++
		}
	}
	return c
}

// StuckAtKubelet returns the pods that wait on the node's kubelet (here kwok)
// longer than patience: bound but still Pending, Running but not Ready, or
// past their deletion deadline but not gone. kwok replays a pod's stage only when it sees an
// event for the pod, and it does not retry a status write the API server
// failed with an internal error (as it does during an etcd outage), so such
// a pod waits forever, where a kubelet would resync. Grove has no part in
// either step.
func (w *PodWatch) StuckAtKubelet(now time.Time, patience time.Duration) []*corev1.Pod {
	var out []*corev1.Pod
	for _, obj := range w.store.List() {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			continue
		}
		switch {
		case p.DeletionTimestamp != nil:
			if now.Sub(p.DeletionTimestamp.Time) > patience {
				out = append(out, p)
			}
		case p.Spec.NodeName != "" && p.Status.Phase == corev1.PodPending:
			if c := podCondition(p, corev1.PodScheduled); c != nil && now.Sub(c.LastTransitionTime.Time) > patience {
				out = append(out, p)
			}
		case p.Status.Phase == corev1.PodRunning:
			if c := podCondition(p, corev1.PodReady); c != nil && c.Status != corev1.ConditionTrue && now.Sub(c.LastTransitionTime.Time) > patience {
				out = append(out, p)
			}
		}
	}
	return out
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// Stop stops the watch.
func (w *PodWatch) Stop() {
	w.cancel()
	<-w.done
}

func (w *PodWatch) observe(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.record(p)
}

// record notes what pod p says about its life. A pod deleted while unbound
// goes at once, without a deletionTimestamp: its end stays unknown.
func (w *PodWatch) record(p *corev1.Pod) {
	clique := p.Labels[apicommon.LabelPodClique]
	idx, ok := podIndex(p)
	if clique == "" || !ok {
		return
	}
	l := w.pods[p.UID]
	if l == nil {
		l = &podLife{name: p.Name, clique: clique, index: idx, created: p.CreationTimestamp.Time}
		w.pods[p.UID] = l
	}
	// The earliest bound seen counts: a later version of the pod, after
	// the kubelet's (or kwok's) final delete with grace 0, has a later
	// deletionTimestamp than the request that started the termination.
	if t := deleteRequestTime(p); !t.IsZero() && (l.deleteRequested.IsZero() || t.Before(l.deleteRequested)) {
		l.deleteRequested = t
	}
}

// deleteRequestTime is the earliest moment p's deletion may have been
// requested. The API server sets deletionTimestamp to the request time plus
// the grace period; a second delete with a shorter grace (the node agent's
// final one, grace 0) moves it to that later request and records the shorter
// grace. A version seen only after that final delete therefore tells the
// request time only within the pod's full grace period, and the full period
// is subtracted: a hold may be counted as ending up to that much too early,
// never too late, so an overlap found is never an artefact.
func deleteRequestTime(p *corev1.Pod) time.Time {
	if p.DeletionTimestamp == nil {
		return time.Time{}
	}
	grace := int64(0)
	if p.DeletionGracePeriodSeconds != nil {
		grace = *p.DeletionGracePeriodSeconds
	}
	if s := p.Spec.TerminationGracePeriodSeconds; s != nil && *s > grace {
		grace = *s
	}
	return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
}

// Overlaps returns a violation for every two pods of one PodClique that
// held the same index at the same time. final is a snapshot taken after the
// cluster went quiet: a pod live in it was never deleted. A pod's life runs
// from its creation to the request to delete it; two lives overlap for sure
// when each began in an earlier whole second than the other ended (the API
// server's timestamps have whole seconds). Pods that vanished without their
// deletion time being seen, and pairs the seconds cannot order, are skipped,
// so a violation is never a guess.
func (w *PodWatch) Overlaps(final *Snapshot) Violations {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := map[types.UID]bool{}
	for _, p := range final.LivePods() {
		w.record(p)
		live[p.UID] = true
	}
	return overlaps(w.pods, live)
}

// end is when a pod's life ended: forever when it is live at the end, unknown
// (ok false) when it is gone and its deletion time was never seen.
func (l *podLife) end(liveAtEnd bool) (t time.Time, forever, ok bool) {
	switch {
	case !l.deleteRequested.IsZero():
		return l.deleteRequested, false, true
	case liveAtEnd:
		return time.Time{}, true, true
	default:
		return time.Time{}, false, false
	}
}

// beganBefore reports whether a life that began at start surely began before
// one that ended at end (or never ended).
func beganBefore(start, end time.Time, forever bool) bool {
	return forever || start.Truncate(time.Second).Before(end.Truncate(time.Second))
}

func overlaps(pods map[types.UID]*podLife, liveAtEnd map[types.UID]bool) Violations {
	type key struct {
		clique string
		index  int
	}
	type entry struct {
		uid types.UID
		*podLife
	}
	byIndex := map[key][]entry{}
	for uid, l := range pods {
		k := key{l.clique, l.index}
		byIndex[k] = append(byIndex[k], entry{uid, l})
	}
	keys := make([]key, 0, len(byIndex))
	for k := range byIndex {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].clique != keys[b].clique {
			return keys[a].clique < keys[b].clique
		}
		return keys[a].index < keys[b].index
	})
	var vs Violations
	for _, k := range keys {
		lives := byIndex[k]
		sort.Slice(lives, func(a, b int) bool { return lives[a].name < lives[b].name })
		for i, a := range lives {
			endA, foreverA, okA := a.end(liveAtEnd[a.uid])
			if !okA {
				continue
			}
			for _, b := range lives[i+1:] {
				endB, foreverB, okB := b.end(liveAtEnd[b.uid])
				if !okB || !beganBefore(a.created, endB, foreverB) || !beganBefore(b.created, endA, foreverA) {
					continue
				}
				vs.add(IndexHandedOutOnce, "PodClique/"+k.clique, "pod index %d held at the same time by %s (%s) and %s (%s)",
					k.index, a.name, a.lifeText(foreverA), b.name, b.lifeText(foreverB))
			}
		}
	}
	return vs
}

func (l *podLife) lifeText(forever bool) string {
	if forever {
		return "created " + stamp(l.created) + ", still live"
	}
	return "created " + stamp(l.created) + ", deleted " + stamp(l.deleteRequested)
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05") }
