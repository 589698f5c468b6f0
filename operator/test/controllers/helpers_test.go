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

package controllers

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// loadFixture reads a PodCliqueSet from testdata and moves it to namespace ns.
func loadFixture(file, ns string) *grovecorev1alpha1.PodCliqueSet {
	data, err := os.ReadFile(filepath.Join("..", "testdata", file))
	Expect(err).NotTo(HaveOccurred())
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Expect(yaml.UnmarshalStrict(data, pcs)).To(Succeed())
	pcs.Namespace = ns
	return pcs
}

// orderedSimple1 is simple1 with its cliques started in order, so that the
// set needs grove-initc and gets its ServiceAccount, Role, RoleBinding and
// token Secret.
func orderedSimple1(ns string) *grovecorev1alpha1.PodCliqueSet {
	pcs := loadFixture("simple1.yaml", ns)
	pcs.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder)
	return pcs
}

// newNamespace creates a namespace for one spec.
func newNamespace() string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "grove-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// liveNames returns the sorted names of a PodCliqueSet's objects of one kind
// that are not being deleted. Deleted PodCliques may linger terminating
// until their finalizer is released; they no longer count.
func liveNames(list client.ObjectList, ns, pcs string) func() []string {
	return func() []string {
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		var names []string
		Expect(forEach(list, func(o client.Object) {
			if o.GetDeletionTimestamp() == nil {
				names = append(names, o.GetName())
			}
		})).To(Succeed())
		sort.Strings(names)
		return names
	}
}

func forEach(list client.ObjectList, fn func(client.Object)) error {
	switch l := list.(type) {
	case *grovecorev1alpha1.PodCliqueList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	case *grovecorev1alpha1.PodCliqueScalingGroupList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	case *groveschedulerv1alpha1.PodGangList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	case *corev1.ServiceList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	case *autoscalingv2.HorizontalPodAutoscalerList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	case *corev1.PodList:
		for i := range l.Items {
			fn(&l.Items[i])
		}
	default:
		return fmt.Errorf("unsupported list %T", list)
	}
	return nil
}

func podCliques(ns, pcs string) func() []string {
	return liveNames(&grovecorev1alpha1.PodCliqueList{}, ns, pcs)
}

func scalingGroups(ns, pcs string) func() []string {
	return liveNames(&grovecorev1alpha1.PodCliqueScalingGroupList{}, ns, pcs)
}

func podGangs(ns, pcs string) func() []string {
	return liveNames(&groveschedulerv1alpha1.PodGangList{}, ns, pcs)
}

func services(ns, pcs string) func() []string {
	return liveNames(&corev1.ServiceList{}, ns, pcs)
}

func hpas(ns, pcs string) func() []string {
	return liveNames(&autoscalingv2.HorizontalPodAutoscalerList{}, ns, pcs)
}

// podNamePattern is a pod name as kubectl shows it: <pclq>-<5 random characters>.
var podNamePattern = regexp.MustCompile(`^(.+)-[a-z0-9]{5}$`)

// podCounts counts a PodCliqueSet's live pods per PodClique, as read from
// the pod names: each name must be <pclq>-<5 characters> and agree with the
// pod's grove.io/podclique label.
func podCounts(ns, pcs string) func() map[string]int {
	return func() map[string]int {
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		counts := map[string]int{}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.DeletionTimestamp != nil {
				continue
			}
			m := podNamePattern.FindStringSubmatch(p.Name)
			Expect(m).NotTo(BeNil(), "pod name %q", p.Name)
			Expect(p.Labels[apicommon.LabelPodClique]).To(Equal(m[1]), "pod %s", p.Name)
			counts[m[1]]++
		}
		return counts
	}
}

func scalePodClique(ns, name string, replicas int32) {
	GinkgoHelper()
	// Like kubectl scale: retried when a status write raced the read.
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale, err := clientset.GroveV1alpha1().PodCliques(ns).GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		scale.Spec.Replicas = replicas
		_, err = clientset.GroveV1alpha1().PodCliques(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{})
		return err
	})).To(Succeed())
}

func scalePodCliqueSet(ns, name string, replicas int32) {
	GinkgoHelper()
	// Like kubectl scale: retried when a status write raced the read.
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale, err := clientset.GroveV1alpha1().PodCliqueSets(ns).GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		scale.Spec.Replicas = replicas
		_, err = clientset.GroveV1alpha1().PodCliqueSets(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{})
		return err
	})).To(Succeed())
}

func scaleScalingGroup(ns, name string, replicas int32) {
	GinkgoHelper()
	// Like kubectl scale: retried when a status write raced the read.
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale, err := clientset.GroveV1alpha1().PodCliqueScalingGroups(ns).GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		scale.Spec.Replicas = replicas
		_, err = clientset.GroveV1alpha1().PodCliqueScalingGroups(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{})
		return err
	})).To(Succeed())
}

// podGang reads a PodGang.
func podGang(ns, name string) *groveschedulerv1alpha1.PodGang {
	GinkgoHelper()
	pg := &groveschedulerv1alpha1.PodGang{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg)).To(Succeed())
	return pg
}

// groupSummary renders a PodGang's groups as "name/minReplicas/#refs".
func groupSummary(ns, name string) func() []string {
	return func() []string {
		pg := &groveschedulerv1alpha1.PodGang{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg); err != nil {
			return []string{err.Error()}
		}
		var out []string
		for _, g := range pg.Spec.PodGroups {
			out = append(out, fmt.Sprintf("%s/%d/%d", g.Name, g.MinReplicas, len(g.PodReferences)))
		}
		return out
	}
}

func getPCS(ns, name string) func() *grovecorev1alpha1.PodCliqueSet {
	return func() *grovecorev1alpha1.PodCliqueSet {
		p := &grovecorev1alpha1.PodCliqueSet{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
		return p
	}
}

func getPCSG(ns, name string) func() *grovecorev1alpha1.PodCliqueScalingGroup {
	return func() *grovecorev1alpha1.PodCliqueScalingGroup {
		g := &grovecorev1alpha1.PodCliqueScalingGroup{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, g)).To(Succeed())
		return g
	}
}

// updatePCS changes a PodCliqueSet's spec, retrying on conflicts.
func updatePCS(ns, name string, mutate func(*grovecorev1alpha1.PodCliqueSet)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p := getPCS(ns, name)()
		mutate(p)
		return k8sClient.Update(ctx, p)
	})).To(Succeed())
}

// setPodsStatus marks the live pods of a PodCliqueSet (or of one PodClique
// when pclq is set) scheduled and ready or not, through the status
// subresource, as the scheduler and kubelet would.
func setPodsStatus(ns, pcs, pclq string, scheduled, ready bool) {
	GinkgoHelper()
	sel := client.MatchingLabels{apicommon.LabelPartOfKey: pcs}
	if pclq != "" {
		sel[apicommon.LabelPodClique] = pclq
	}
	pods := &corev1.PodList{}
	Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), sel)).To(Succeed())
	Expect(pods.Items).NotTo(BeEmpty())
	status := func(b bool) corev1.ConditionStatus {
		if b {
			return corev1.ConditionTrue
		}
		return corev1.ConditionFalse
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
				return err
			}
			now := metav1.Now()
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: status(scheduled), LastTransitionTime: now},
				{Type: corev1.PodReady, Status: status(ready), LastTransitionTime: now},
			}
			return k8sClient.Status().Update(ctx, p)
		})).To(Succeed())
	}
}
