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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Clients are the API clients the commands read with.
type Clients struct {
	Kube  kubernetes.Interface
	Grove groveclient.Interface
}

// snapshot is what the commands read of one PodCliqueSet: the set, its
// PodCliques, scaling groups, PodGangs and pods, and the Warning events of
// its namespace.
type snapshot struct {
	pcs   *grovecorev1alpha1.PodCliqueSet
	pclqs map[string]*grovecorev1alpha1.PodClique
	pcsgs map[string]*grovecorev1alpha1.PodCliqueScalingGroup
	gangs map[string]*groveschedulerv1alpha1.PodGang
	// podsOf lists each PodClique's pods by pod index.
	podsOf map[string][]*corev1.Pod
	// warnings maps "Kind/name" to its Warning events, the latest first.
	warnings map[string][]corev1.Event
	now      time.Time
}

// read takes a snapshot of the PodCliqueSet name in namespace ns.
func read(ctx context.Context, c Clients, ns, name string, now time.Time) (*snapshot, error) {
	pcs, err := c.Grove.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading PodCliqueSet %s/%s: %w", ns, name, err)
	}
	sel := metav1.ListOptions{LabelSelector: labels.Set{apicommon.LabelPartOfKey: name}.String()}
	s := &snapshot{
		pcs: pcs, now: now,
		pclqs: map[string]*grovecorev1alpha1.PodClique{}, pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{},
		gangs: map[string]*groveschedulerv1alpha1.PodGang{}, podsOf: map[string][]*corev1.Pod{}, warnings: map[string][]corev1.Event{},
	}
	pclqs, err := c.Grove.GroveV1alpha1().PodCliques(ns).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing the PodCliques of %s: %w", name, err)
	}
	for i := range pclqs.Items {
		s.pclqs[pclqs.Items[i].Name] = &pclqs.Items[i]
	}
	pcsgs, err := c.Grove.GroveV1alpha1().PodCliqueScalingGroups(ns).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing the PodCliqueScalingGroups of %s: %w", name, err)
	}
	for i := range pcsgs.Items {
		s.pcsgs[pcsgs.Items[i].Name] = &pcsgs.Items[i]
	}
	gangs, err := c.Grove.SchedulerV1alpha1().PodGangs(ns).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing the PodGangs of %s: %w", name, err)
	}
	for i := range gangs.Items {
		s.gangs[gangs.Items[i].Name] = &gangs.Items[i]
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s: %w", name, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		clique := p.Labels[apicommon.LabelPodClique]
		s.podsOf[clique] = append(s.podsOf[clique], p)
	}
	for _, list := range s.podsOf {
		slices.SortFunc(list, func(a, b *corev1.Pod) int {
			return cmp.Or(cmp.Compare(labelInt(a, apicommon.LabelPodCliquePodIndex), labelInt(b, apicommon.LabelPodCliquePodIndex)), cmp.Compare(a.Name, b.Name))
		})
	}
	events, err := c.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "type=" + corev1.EventTypeWarning})
	if err != nil {
		return nil, fmt.Errorf("listing the Warning events of namespace %s: %w", ns, err)
	}
	for _, e := range events.Items {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		key := e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name
		s.warnings[key] = append(s.warnings[key], e)
	}
	for _, list := range s.warnings {
		slices.SortFunc(list, func(a, b corev1.Event) int {
			return cmp.Or(lastSeen(b).Compare(lastSeen(a)), cmp.Compare(a.Reason, b.Reason))
		})
	}
	return s, nil
}

// labelInt is an integer label's value, -1 when absent or not a number.
func labelInt(obj metav1.Object, key string) int {
	v, err := strconv.Atoi(obj.GetLabels()[key])
	if err != nil {
		return -1
	}
	return v
}

// lastSeen is when an event last occurred, whichever API wrote it.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// eventCount is how often an event occurred, whichever API wrote it.
func eventCount(e corev1.Event) int32 {
	if e.Series != nil && e.Series.Count > 0 {
		return e.Series.Count
	}
	return max(e.Count, 1)
}

// cliquesOf lists the PodCliques whose labels match, by name.
func (s *snapshot) cliquesOf(match func(*grovecorev1alpha1.PodClique) bool) []*grovecorev1alpha1.PodClique {
	var out []*grovecorev1alpha1.PodClique
	for _, p := range s.pclqs {
		if match(p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *grovecorev1alpha1.PodClique) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
