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

package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Gang builds a PodGang of one group, <name>-worker, whose size pods
// <name>-worker-<i> all belong to its minimum, and those pods.
func Gang(ns, name, schedulerName string, size int, requests corev1.ResourceList) (*groveschedulerv1alpha1.PodGang, []*corev1.Pod) {
	pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	group := groveschedulerv1alpha1.PodGroup{Name: name + "-worker", MinReplicas: int32(size)}
	pods := make([]*corev1.Pod, 0, size)
	for i := 0; i < size; i++ {
		pod := fmt.Sprintf("%s-worker-%d", name, i)
		pods = append(pods, NewPod(PodSpec{Namespace: ns, Name: pod, SchedulerName: schedulerName,
			PodGang: name, PodClique: group.Name, Requests: requests}))
		group.PodReferences = append(group.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: pod})
	}
	pg.Spec.PodGroups = []groveschedulerv1alpha1.PodGroup{group}
	return pg, pods
}

// JoinPodGroups joins each pod to the Workload API PodGroup named like its
// PodClique and hands it to stock kube-scheduler, as the operator's
// default-scheduler backend prepares pods (PreparePod).
func JoinPodGroups(pods []*corev1.Pod) {
	for _, p := range pods {
		p.Spec.SchedulerName = "default-scheduler"
		p.Spec.SchedulingGroup = schedulingGroup(p.Labels["grove.io/podclique"])
	}
}

// CreateAll creates the PodGangs, then the pods, 32 at a time.
func CreateAll(ctx context.Context, kube kubernetes.Interface, grove groveclient.Interface, gangs []*groveschedulerv1alpha1.PodGang, pods []*corev1.Pod) error {
	if err := Parallel(len(gangs), func(i int) error {
		_, err := grove.SchedulerV1alpha1().PodGangs(gangs[i].Namespace).Create(ctx, gangs[i], metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	return Parallel(len(pods), func(i int) error {
		_, err := kube.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		return err
	})
}

// Bindings records the node of every bound pod of a namespace from a watch,
// so that waiting for the scheduler never loads the API server with polls.
type Bindings struct {
	mu     sync.Mutex
	nodeOf map[string]string
	want   int
	done   chan struct{}
	once   sync.Once
}

// WatchBindings starts recording the bindings of namespace ns until ctx
// ends; Done closes once want pods are bound.
func WatchBindings(ctx context.Context, kube kubernetes.Interface, ns string, want int) (*Bindings, error) {
	b := &Bindings{nodeOf: map[string]string{}, want: want, done: make(chan struct{})}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(ns))
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: b.observe, UpdateFunc: func(_, obj any) { b.observe(obj) },
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return b, nil
}

func (b *Bindings) observe(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Spec.NodeName == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nodeOf[p.Name] = p.Spec.NodeName
	if len(b.nodeOf) >= b.want {
		b.once.Do(func() { close(b.done) })
	}
}

// Done closes when the wanted number of pods is bound.
func (b *Bindings) Done() <-chan struct{} { return b.done }

// Count is the number of pods bound so far.
func (b *Bindings) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.nodeOf)
}

// NodeOf returns the node a pod is bound to ("" while unbound).
func (b *Bindings) NodeOf(pod string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nodeOf[pod]
}

// DeletePods deletes every pod of namespace ns and waits until they are
// gone. Deleting thousands of pods may outlast the request timeout on a
// loaded machine; the deletion goes on, and the wait sees it through.
func DeletePods(ctx context.Context, kube kubernetes.Interface, ns string) error {
	// An overloaded API server may also reset the stream of a long
	// DeleteCollection; the request is repeated until the pods are gone.
	deleteAll := func() { _ = kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}) }
	deleteAll()
	if err := WaitFor(ctx, time.Second, 5*time.Minute, func() (bool, error) {
		list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return false, nil
		}
		if len(list.Items) > 0 && list.Items[0].DeletionTimestamp == nil {
			deleteAll()
		}
		return len(list.Items) == 0, nil
	}); err != nil {
		return fmt.Errorf("waiting for the pods of %s to go: %w", ns, err)
	}
	return nil
}
