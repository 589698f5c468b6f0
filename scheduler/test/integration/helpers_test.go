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

package integration

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/metrics/legacyregistry"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/pkg/gang/core"
	"github.com/grove-project/grove/scheduler/test/harness"
)

const schedulerName = "grove-scheduler"

var nsCounter atomic.Int32

// newNamespace creates a fresh namespace; its name doubles as the node label
// value that confines the spec's pods to the spec's own nodes.
func newNamespace(prefix string) string {
	name := fmt.Sprintf("%s-%d", prefix, nsCounter.Add(1))
	_, err := kube.CoreV1().Namespaces().Create(suiteCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return name
}

const poolLabel = "test.grove.io/pool"

// createNodes creates count nodes in the pool with the given capacity.
func createNodes(pool string, count int, capacity corev1.ResourceList, labels func(int) map[string]string) []string {
	names, err := harness.CreateNodes(suiteCtx, kube, harness.NodeSpec{
		Prefix: pool, Count: count, Capacity: capacity,
		Labels: func(i int) map[string]string {
			out := map[string]string{poolLabel: pool}
			if labels != nil {
				for k, v := range labels(i) {
					out[k] = v
				}
			}
			return out
		},
	})
	Expect(err).NotTo(HaveOccurred())
	return names
}

// group describes one pod group of a test gang.
type group struct {
	name     string
	pods     int
	min      int32
	requests corev1.ResourceList
	required string
}

// gangPodNames lists the pod names of a group.
func gangPodNames(gang string, g group) []string {
	out := make([]string, 0, g.pods)
	for i := 0; i < g.pods; i++ {
		out = append(out, fmt.Sprintf("%s-%s-%d", gang, g.name, i))
	}
	return out
}

// gangPods builds (not creates) the pods of a gang.
func gangPods(ns, pool, gang, priorityClass string, groups ...group) []*corev1.Pod {
	var pods []*corev1.Pod
	for _, g := range groups {
		for _, name := range gangPodNames(gang, g) {
			pods = append(pods, harness.NewPod(harness.PodSpec{
				Namespace: ns, Name: name, SchedulerName: schedulerName,
				PodGang: gang, PodClique: gang + "-" + g.name,
				Requests: g.requests, PriorityClassName: priorityClass,
				NodeSelector: map[string]string{poolLabel: pool},
			}))
		}
	}
	return pods
}

func createPods(pods []*corev1.Pod) {
	for _, p := range pods {
		_, err := kube.CoreV1().Pods(p.Namespace).Create(suiteCtx, p, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

// newPodGang builds the PodGang referencing every pod of every group.
func newPodGang(ns, name, priorityClass, required string, groups ...group) *groveschedulerv1alpha1.PodGang {
	pg := &groveschedulerv1alpha1.PodGang{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       groveschedulerv1alpha1.PodGangSpec{PriorityClassName: priorityClass},
	}
	if required != "" {
		key := required
		pg.Spec.TopologyConstraint = &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: &key}}
	}
	for _, g := range groups {
		pgGroup := groveschedulerv1alpha1.PodGroup{Name: g.name, MinReplicas: g.min}
		for _, pod := range gangPodNames(name, g) {
			pgGroup.PodReferences = append(pgGroup.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: ns, Name: pod})
		}
		if g.required != "" {
			key := g.required
			pgGroup.TopologyConstraint = &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{Required: &key}}
		}
		pg.Spec.PodGroups = append(pg.Spec.PodGroups, pgGroup)
	}
	return pg
}

// createGang creates the pods of a gang confined to the namespace's pool,
// then its PodGang, and returns the pods.
func createGang(ns, name, priorityClass, required string, groups ...group) []*corev1.Pod {
	pods := gangPods(ns, ns, name, priorityClass, groups...)
	createPods(pods)
	createPodGang(newPodGang(ns, name, priorityClass, required, groups...))
	return pods
}

func createPodGang(pg *groveschedulerv1alpha1.PodGang) {
	_, err := grove.SchedulerV1alpha1().PodGangs(pg.Namespace).Create(suiteCtx, pg, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// boundPods returns pod name → node for the pods of the namespace whose names are listed.
func boundPods(ns string, names []string) map[string]string {
	out := map[string]string{}
	for _, name := range names {
		p, err := kube.CoreV1().Pods(ns).Get(suiteCtx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		Expect(err).NotTo(HaveOccurred())
		if p.Spec.NodeName != "" {
			out[name] = p.Spec.NodeName
		}
	}
	return out
}

func allNames(pods []*corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func podGang(ns, name string) *groveschedulerv1alpha1.PodGang {
	pg, err := grove.SchedulerV1alpha1().PodGangs(ns).Get(suiteCtx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return pg
}

// expectCondition checks that the PodGang has a condition of the type with
// the status and reason, and returns it.
func expectCondition(g Gomega, pg *groveschedulerv1alpha1.PodGang, condType string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	c := meta.FindStatusCondition(pg.Status.Conditions, condType)
	g.Expect(c).NotTo(BeNil(), "PodGang %s has no %s condition", pg.Name, condType)
	g.Expect(c.Status).To(Equal(status), "status of %s", condType)
	g.Expect(c.Reason).To(Equal(reason), "reason of %s", condType)
	return c
}

func createPriorityClass(name string, value int32) {
	createPriorityClassWithPolicy(name, value, corev1.PreemptLowerPriority)
}

// createPriorityClassWithPolicy creates the class with the preemptionPolicy
// the Priority admission plugin copies into the pods that name it.
func createPriorityClassWithPolicy(name string, value int32, policy corev1.PreemptionPolicy) {
	_, err := kube.SchedulingV1().PriorityClasses().Create(suiteCtx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, PreemptionPolicy: &policy,
	}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
}

// eventReasons lists the reasons of events.k8s.io Events regarding the PodGang.
func eventReasons(ns, name string) []string {
	list, err := kube.EventsV1().Events(ns).List(suiteCtx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "PodGang" && e.Regarding.Name == name {
			out = append(out, e.Reason)
		}
	}
	return out
}

// hintRuns counts how often GroveGang's queueing hint for the event (a
// kube-scheduler event label such as "NodeAdd") returned hint ("Queue",
// "QueueSkip"), from kube-scheduler's own metric.
func hintRuns(event, hint string) uint64 {
	families, err := legacyregistry.DefaultGatherer.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != "scheduler_queueing_hint_execution_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["plugin"] == core.PluginName && labels["event"] == event && labels["hint"] == hint {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

// podWatch records, from a watch on a namespace's pods, what specs check
// after the fact: the pods may be gone by then.
type podWatch struct {
	mu sync.Mutex
	// nominated is pod → the last non-empty status.nominatedNodeName seen.
	nominated map[string]string
	// disruption is pod → the DisruptionTarget condition seen.
	disruption map[string]corev1.PodCondition
}

// watchPods starts recording the pods of ns until the spec ends.
func watchPods(ns string) *podWatch {
	w, err := kube.CoreV1().Pods(ns).Watch(suiteCtx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	ginkgo.DeferCleanup(w.Stop)
	pw := &podWatch{nominated: map[string]string{}, disruption: map[string]corev1.PodCondition{}}
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pw.mu.Lock()
			if p.Status.NominatedNodeName != "" {
				pw.nominated[p.Name] = p.Status.NominatedNodeName
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.DisruptionTarget {
					pw.disruption[p.Name] = c
				}
			}
			pw.mu.Unlock()
		}
	}()
	return pw
}

// nominatedPods lists every pod seen with status.nominatedNodeName set so far.
func (w *podWatch) nominatedPods() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return sets.List(sets.KeySet(w.nominated))
}

// nominatedNode is the last node seen nominated for the pod ("" for none).
func (w *podWatch) nominatedNode(pod string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nominated[pod]
}

// disruptionTargets is pod → "status reason: message" of every DisruptionTarget condition seen.
func (w *podWatch) disruptionTargets() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for pod, c := range w.disruption {
		out[pod] = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	}
	return out
}
