//go:build e2e

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

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/test/cluster"
)

// specNamespaces are the namespaces the running spec created; diagnostics dump them.
var specNamespaces []string

// fakeNodeName matches the local cluster's general-purpose kwok nodes.
var fakeNodeName = regexp.MustCompile(`^fake-node-\d{3}$`)

// newNamespace creates a namespace for one spec and deletes it, waiting until
// its pods are gone, when the spec ends.
func newNamespace(prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e2e-%s-%s", prefix, rand.String(5))}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	specNamespaces = append(specNamespaces, ns.Name)
	DeferCleanup(func() {
		specNamespaces = nil
		Expect(client.IgnoreNotFound(k8s.Delete(ctx, ns))).To(Succeed())
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns.Name))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).WithTimeout(90 * time.Second).Should(Succeed())
	})
	return ns.Name
}

// loadPCS reads a PodCliqueSet manifest from the repository.
func loadPCS(relPath string) *grovecorev1alpha1.PodCliqueSet {
	data, err := os.ReadFile(filepath.Join(repoRoot, relPath))
	Expect(err).NotTo(HaveOccurred())
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Expect(yaml.UnmarshalStrict(data, pcs)).To(Succeed(), "parsing %s", relPath)
	return pcs
}

// createPCS creates the PodCliqueSet of a manifest in namespace ns.
func createPCS(relPath, ns string) *grovecorev1alpha1.PodCliqueSet {
	pcs := loadPCS(relPath)
	pcs.Namespace = ns
	Expect(k8s.Create(ctx, pcs)).To(Succeed(), "creating PodCliqueSet %s from %s", pcs.Name, relPath)
	return pcs
}

// partOf selects the objects of one PodCliqueSet.
func partOf(ns, pcsName string) []client.ListOption {
	return []client.ListOption{client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcsName}}
}

// listPods returns the pods of a PodCliqueSet sorted by name.
func listPods(g Gomega, ns, pcsName string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(ctx, pods, partOf(ns, pcsName)...)).To(Succeed())
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	return pods.Items
}

// podCliqueNames returns the names of a PodCliqueSet's PodCliques, sorted.
func podCliqueNames(g Gomega, ns, pcsName string) []string {
	list := &grovecorev1alpha1.PodCliqueList{}
	g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// scalingGroupNames returns the names of a PodCliqueSet's PodCliqueScalingGroups, sorted.
func scalingGroupNames(g Gomega, ns, pcsName string) []string {
	list := &grovecorev1alpha1.PodCliqueScalingGroupList{}
	g.Expect(k8s.List(ctx, list, partOf(ns, pcsName)...)).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// podsPerClique counts the pods of each PodClique (by the grove.io/podclique label).
func podsPerClique(pods []corev1.Pod) map[string]int {
	counts := map[string]int{}
	for _, p := range pods {
		counts[p.Labels[apicommon.LabelPodClique]]++
	}
	return counts
}

// bound returns the pods that have a node.
func bound(pods []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			out = append(out, p)
		}
	}
	return out
}

// expectRunningLayout waits until the PodCliqueSet has exactly the given
// pods per PodClique, every one Running on a node whose name matches
// nodeName, each pod named <podclique>-<5 random characters>.
func expectRunningLayout(ns, pcsName string, perClique map[string]int, nodeName *regexp.Regexp) []corev1.Pod {
	var pods []corev1.Pod
	Eventually(func(g Gomega) {
		pods = listPods(g, ns, pcsName)
		g.Expect(podsPerClique(pods)).To(Equal(perClique))
		for _, p := range pods {
			clique := p.Labels[apicommon.LabelPodClique]
			g.Expect(p.Name).To(MatchRegexp(`^%s-[a-z0-9]{5}$`, regexp.QuoteMeta(clique)), "pod name")
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s phase", p.Name)
			g.Expect(p.Spec.NodeName).To(MatchRegexp(nodeName.String()), "pod %s node", p.Name)
		}
	}).Should(Succeed())
	return pods
}

// scaleTo sets spec.replicas of a PodCliqueSet, PodClique or
// PodCliqueScalingGroup through its /scale subresource with a merge patch,
// as kubectl scale does (no resourceVersion, so status writes never conflict).
func scaleTo(obj client.Object, replicas int32) {
	GinkgoHelper()
	patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)))
	scale := &autoscalingv1.Scale{}
	Expect(k8s.SubResource("scale").Patch(ctx, obj, patch, &client.SubResourcePatchOptions{SubResourceBody: scale})).To(Succeed())
	Expect(scale.Spec.Replicas).To(Equal(replicas))
}

// currentScale reads spec.replicas through the /scale subresource.
func currentScale(g Gomega, obj client.Object) int32 {
	scale := &autoscalingv1.Scale{}
	g.Expect(k8s.SubResource("scale").Get(ctx, obj, scale)).To(Succeed())
	return scale.Spec.Replicas
}

func pcsRef(ns, name string) *grovecorev1alpha1.PodCliqueSet {
	return &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func pclqRef(ns, name string) *grovecorev1alpha1.PodClique {
	return &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func pcsgRef(ns, name string) *grovecorev1alpha1.PodCliqueScalingGroup {
	return &grovecorev1alpha1.PodCliqueScalingGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// ---- the gang node pool ------------------------------------------------------

const (
	// gangPoolLabel marks (and, as a taint, reserves) the fake nodes the gang
	// specs create. Only pods of test/testdata/e2e/gang-*.yaml tolerate it.
	gangPoolLabel = "e2e.grove.io/pool"
	gangPoolValue = "gang"
)

// gangNodeName is the name of gang pool node i (1-based).
func gangNodeName(i int) string { return fmt.Sprintf("e2e-gang-node-%02d", i) }

// createGangPool creates n cordoned kwok nodes sized so that exactly one gang
// test pod (600m CPU) fits on each, and deletes them when the container ends.
func createGangPool(n int) {
	GinkgoHelper()
	// One create at a time costs seconds for a large pool on a busy machine.
	var wg sync.WaitGroup
	errs := make([]error, n+1)
	for i := 1; i <= n; i++ {
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("1"),
			corev1.ResourceMemory: resource.MustParse("1Gi"),
			corev1.ResourcePods:   resource.MustParse("10"),
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        gangNodeName(i),
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
				Labels:      map[string]string{gangPoolLabel: gangPoolValue, "kubernetes.io/hostname": gangNodeName(i), "type": "kwok"},
			},
			Spec: corev1.NodeSpec{
				Unschedulable: true,
				Taints:        []corev1.Taint{{Key: gangPoolLabel, Value: gangPoolValue, Effect: corev1.TaintEffectNoSchedule}},
			},
			// The capacity is part of the created object: kwok keeps what a node
			// reports when it initializes it, and would race a later status patch.
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		wg.Go(func() { errs[i] = client.IgnoreAlreadyExists(k8s.Create(ctx, node)) })
	}
	wg.Wait()
	Expect(errors.Join(errs...)).To(Succeed())
	DeferCleanup(func() {
		var wg sync.WaitGroup
		errs := make([]error, n+1)
		for i := 1; i <= n; i++ {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: gangNodeName(i)}}
			wg.Go(func() { errs[i] = client.IgnoreNotFound(k8s.Delete(ctx, node)) })
		}
		wg.Wait()
		Expect(errors.Join(errs...)).To(Succeed())
	})
	Eventually(func(g Gomega) {
		nodes := &corev1.NodeList{}
		g.Expect(k8s.List(ctx, nodes, client.MatchingLabels{gangPoolLabel: gangPoolValue})).To(Succeed())
		g.Expect(nodes.Items).To(HaveLen(n))
		for _, node := range nodes.Items {
			g.Expect(nodeReady(node)).To(BeTrue(), "node %s Ready", node.Name)
			g.Expect(node.Status.Allocatable.Cpu().String()).To(Equal("1"), "node %s allocatable cpu", node.Name)
		}
	}).Should(Succeed())
}

func nodeReady(node corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// schedulableGangNodes uncordons the first n gang pool nodes and cordons the rest.
func schedulableGangNodes(n, total int) {
	GinkgoHelper()
	var wg sync.WaitGroup
	errs := make([]error, total+1)
	for i := 1; i <= total; i++ {
		wg.Go(func() {
			node := &corev1.Node{}
			if errs[i] = k8s.Get(ctx, client.ObjectKey{Name: gangNodeName(i)}, node); errs[i] != nil {
				return
			}
			want := i > n
			if node.Spec.Unschedulable == want {
				return
			}
			patch := client.MergeFrom(node.DeepCopy())
			node.Spec.Unschedulable = want
			errs[i] = k8s.Patch(ctx, node, patch)
		})
	}
	wg.Wait()
	Expect(errors.Join(errs...)).To(Succeed())
}

// gangNode matches the gang pool's node names.
var gangNode = regexp.MustCompile(`^e2e-gang-node-\d{2,3}$`)

// ---- diagnostics -------------------------------------------------------------

// dumpDiagnostics writes the failed spec's objects, events, nodes and the
// component logs to $GROVE_LOCAL_DIR/e2e-diagnostics/<spec>/ and prints a
// summary (pods with their nodes and gates, events, log tails) to the report.
func dumpDiagnostics(report SpecReport) {
	dir := filepath.Join(localDir, "e2e-diagnostics", sanitize(report.FullText()))
	_ = os.MkdirAll(dir, 0o755)
	// The object summary also goes to digest.txt, which make e2e-ci prints
	// after a failed run: CI shows the end of its output, not the report.
	digest := &bytes.Buffer{}
	fmt.Fprintf(digest, "spec: %s\nfailure: %s\nat: %s\n", report.FullText(), report.Failure.Message, report.Failure.Location)
	w := io.MultiWriter(GinkgoWriter, digest)
	fmt.Fprintf(GinkgoWriter, "\n===== diagnostics for %q in %s\n", report.FullText(), dir)
	defer func() { _ = os.WriteFile(filepath.Join(dir, "digest.txt"), digest.Bytes(), 0o644) }()
	for _, ns := range specNamespaces {
		lists := map[string]client.ObjectList{
			"podcliquesets":            &grovecorev1alpha1.PodCliqueSetList{},
			"podcliquescalinggroups":   &grovecorev1alpha1.PodCliqueScalingGroupList{},
			"podcliques":               &grovecorev1alpha1.PodCliqueList{},
			"podgangs":                 &groveschedulerv1alpha1.PodGangList{},
			"pods":                     &corev1.PodList{},
			"services":                 &corev1.ServiceList{},
			"horizontalpodautoscalers": &autoscalingv2.HorizontalPodAutoscalerList{},
			"events":                   &corev1.EventList{},
		}
		for kind, list := range lists {
			if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
				fmt.Fprintf(w, "listing %s in %s: %v\n", kind, ns, err)
				continue
			}
			data, _ := yaml.Marshal(list)
			_ = os.WriteFile(filepath.Join(dir, ns+"-"+kind+".yaml"), data, 0o644)
		}
		fmt.Fprintf(w, "--- PodCliqueSets in %s (conditions, update progress)\n", ns)
		for _, pcs := range lists["podcliquesets"].(*grovecorev1alpha1.PodCliqueSetList).Items {
			fmt.Fprintf(w, "%s replicas=%d available=%d updated=%d\n", pcs.Name, pcs.Spec.Replicas, pcs.Status.AvailableReplicas, pcs.Status.UpdatedReplicas)
			for _, c := range pcs.Status.Conditions {
				fmt.Fprintf(w, "  %s=%s/%s since %s: %s\n", c.Type, c.Status, c.Reason, c.LastTransitionTime.UTC().Format(time.TimeOnly), c.Message)
			}
			if up := pcs.Status.UpdateProgress; up != nil {
				fmt.Fprintf(w, "  updateProgress: started %s ended %v currentlyUpdating %+v\n", up.UpdateStartedAt.UTC().Format(time.TimeOnly), up.UpdateEndedAt, up.CurrentlyUpdating)
			}
		}
		fmt.Fprintf(w, "--- PodCliques in %s (replicas ready/scheduled/gated, last errors)\n", ns)
		for _, q := range lists["podcliques"].(*grovecorev1alpha1.PodCliqueList).Items {
			fmt.Fprintf(w, "%-60s %d %d/%d/%d %v\n", q.Name, q.Spec.Replicas, q.Status.ReadyReplicas,
				q.Status.ScheduledReplicas, q.Status.ScheduleGatedReplicas, q.Status.LastErrors)
		}
		fmt.Fprintf(w, "--- PodGangs in %s (phase, conditions)\n", ns)
		for _, pg := range lists["podgangs"].(*groveschedulerv1alpha1.PodGangList).Items {
			var conds []string
			for _, c := range pg.Status.Conditions {
				conds = append(conds, fmt.Sprintf("%s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message))
			}
			fmt.Fprintf(w, "%-40s %-9s %v\n", pg.Name, pg.Status.Phase, conds)
		}
		pods := lists["pods"].(*corev1.PodList)
		fmt.Fprintf(w, "--- pods in %s\n", ns)
		for _, p := range pods.Items {
			var gates []string
			for _, sg := range p.Spec.SchedulingGates {
				gates = append(gates, sg.Name)
			}
			fmt.Fprintf(w, "%-60s %-10s node=%-18s gates=%v\n", p.Name, p.Status.Phase, p.Spec.NodeName, gates)
		}
		events := lists["events"].(*corev1.EventList)
		sort.Slice(events.Items, func(i, j int) bool {
			return cluster.EventLastSeen(events.Items[i]).Before(cluster.EventLastSeen(events.Items[j]))
		})
		// The report gets the last 40 events; the digest the last 10, cut short.
		fmt.Fprintf(w, "--- last events in %s\n", ns)
		from := max(0, len(events.Items)-40)
		for k, e := range events.Items[from:] {
			line := fmt.Sprintf("%s %s/%s %s: %s", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
			fmt.Fprintln(GinkgoWriter, line)
			if from+k >= len(events.Items)-10 {
				fmt.Fprintln(digest, shorten(line, 240))
			}
		}
	}
	nodes := &corev1.NodeList{}
	if err := k8s.List(ctx, nodes); err == nil {
		data, _ := yaml.Marshal(nodes)
		_ = os.WriteFile(filepath.Join(dir, "nodes.yaml"), data, 0o644)
	}
	// Every log is copied; the report shows the tails of Grove's own components.
	w = GinkgoWriter
	printed := map[string]int{"grove-operator": 100, "grove-scheduler": 100, "kube-controller-manager": 20}
	for _, c := range []string{"grove-operator", "grove-scheduler", "kube-controller-manager", "kube-apiserver", "kwok", "etcd"} {
		data, err := os.ReadFile(filepath.Join(localDir, "logs", c+".log"))
		if err != nil {
			continue
		}
		_ = os.WriteFile(filepath.Join(dir, c+".log"), data, 0o644)
		lines, ok := printed[c]
		if !ok {
			continue
		}
		all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		fmt.Fprintf(w, "--- last %d lines of %s.log\n%s\n", lines, c, strings.Join(all[max(0, len(all)-lines):], "\n"))
		var mine []string
		for _, l := range all {
			if slices.ContainsFunc(specNamespaces, func(ns string) bool { return strings.Contains(l, ns) }) {
				mine = append(mine, shorten(l, 400))
			}
		}
		fmt.Fprintf(digest, "--- last lines of %s.log naming the spec's namespaces\n%s\n", c, strings.Join(mine[max(0, len(mine)-15):], "\n"))
	}
}

// shorten cuts s to n bytes, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + " …"
}

func sanitize(s string) string {
	s = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(s, "_")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// isGone reports whether obj no longer exists.
func isGone(g Gomega, obj client.Object) bool {
	err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return true
	}
	g.Expect(err).NotTo(HaveOccurred())
	return false
}

// metaItems counts the items of a list.
func metaItems(list client.ObjectList) (int, error) {
	items, err := meta.ExtractList(list)
	return len(items), err
}
