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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/hash"
)

// rolloutPCS is the update specs' PodCliqueSet: standalone cliques fe (3
// pods) and be (2 pods), and scaling group sg of leader (1) + worker (2)
// with 2 replicas. Every clique tolerates one unready pod (minAvailable 1,
// worker 2).
func rolloutPCS(ns, name string, replicas int32) *grovecorev1alpha1.PodCliqueSet {
	clique := func(n string, replicas, minAvailable int32) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: n, Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName: n, Replicas: replicas, MinAvailable: ptr.To(minAvailable),
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: n, Image: "registry.example/" + n + ":1"}}},
		}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: replicas,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{clique("fe", 3, 1), clique("be", 2, 1), clique("leader", 1, 1), clique("worker", 2, 2)},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "sg", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1),
				}},
			},
		},
	}
}

// cliqueOf returns a clique template of a PodCliqueSet.
func cliqueOf(pcs *grovecorev1alpha1.PodCliqueSet, name string) *grovecorev1alpha1.PodCliqueTemplateSpec {
	for i := range pcs.Spec.Template.Cliques {
		if pcs.Spec.Template.Cliques[i].Name == name {
			return &pcs.Spec.Template.Cliques[i]
		}
	}
	Fail("no clique " + name)
	return nil
}

// setImage changes the image of a clique, which changes its pod template.
func setImage(ns, pcs, clique, image string) {
	updatePCS(ns, pcs, func(p *grovecorev1alpha1.PodCliqueSet) { cliqueOf(p, clique).Spec.PodSpec.Containers[0].Image = image })
}

// hashes returns the live PodCliqueSet's pod-template hash of a clique and its generation hash.
func hashes(ns, pcs, clique string) (templateHash, genHash string) {
	p := getPCS(ns, pcs)()
	templateHash, err := hash.PodTemplateHash(cliqueOf(p, clique), p.Spec.Template.PriorityClassName)
	Expect(err).NotTo(HaveOccurred())
	genHash, err = hash.GenerationHash(p)
	Expect(err).NotTo(HaveOccurred())
	return templateHash, genHash
}

// livePodCliques returns a PodCliqueSet's PodCliques that are not being deleted, by name.
func livePodCliques(g Gomega, ns, pcs string) map[string]*grovecorev1alpha1.PodClique {
	list := &grovecorev1alpha1.PodCliqueList{}
	g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	out := map[string]*grovecorev1alpha1.PodClique{}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp == nil {
			out[list.Items[i].Name] = &list.Items[i]
		}
	}
	return out
}

// livePods returns the pods of a PodCliqueSet by PodClique, sorted by name:
// those controlled by a live PodClique and not terminating. envtest runs no
// garbage collector, so pods of a deleted PodClique linger and are left out.
func livePods(g Gomega, ns, pcs string) map[string][]corev1.Pod {
	pclqs := livePodCliques(g, ns, pcs)
	list := &corev1.PodList{}
	g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
	out := map[string][]corev1.Pod{}
	for _, p := range list.Items {
		owner := metav1.GetControllerOf(&p)
		pclq, ok := pclqs[p.Labels[apicommon.LabelPodClique]]
		if p.DeletionTimestamp != nil || owner == nil || !ok || owner.UID != pclq.UID {
			continue
		}
		out[pclq.Name] = append(out[pclq.Name], p)
	}
	for _, pods := range out {
		sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	}
	return out
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func gated(p *corev1.Pod) bool {
	for _, sg := range p.Spec.SchedulingGates {
		if sg.Name == apicommon.PodGangSchedulingGate {
			return true
		}
	}
	return false
}

// setPodReady marks one pod scheduled and ready (or scheduled and not
// ready) through the status subresource, as the scheduler and kubelet would.
func setPodReady(p *corev1.Pod, ready bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &corev1.Pod{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(p), cur); err != nil {
			return err
		}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		now := metav1.Now()
		cur.Status.Phase = corev1.PodRunning
		cur.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: status, LastTransitionTime: now},
		}
		return k8sClient.Status().Update(ctx, cur)
	})
}

// readyNewPods marks every live pod of the PodClique pclq (all PodCliques
// when empty) that lost its scheduling gate and is not ready yet scheduled
// and ready. It returns how many it marked.
func readyNewPods(g Gomega, ns, pcs, pclq string) int {
	n := 0
	for name, pods := range livePods(g, ns, pcs) {
		if pclq != "" && name != pclq {
			continue
		}
		for i := range pods {
			if !gated(&pods[i]) && !podReady(&pods[i]) {
				// A pod the operator just deleted is no error: the next poll sees its replacement.
				g.Expect(client.IgnoreNotFound(setPodReady(&pods[i], true))).To(Succeed())
				n++
			}
		}
	}
	return n
}

// expectRunning waits until the PodCliqueSet has exactly the given number of
// live pods per PodClique, all ready (readying them as they lose their gates).
func expectRunning(ns, pcs string, want map[string]int) map[string][]corev1.Pod {
	var pods map[string][]corev1.Pod
	Eventually(func(g Gomega) {
		readyNewPods(g, ns, pcs, "")
		pods = livePods(g, ns, pcs)
		got := map[string]int{}
		for name, ps := range pods {
			for i := range ps {
				g.Expect(podReady(&ps[i])).To(BeTrue(), "pod %s ready", ps[i].Name)
			}
			got[name] = len(ps)
		}
		g.Expect(got).To(Equal(want))
		// Ready pods are not enough: the rolling step reads availability from
		// the controllers' status, and a replica still reported unavailable
		// (under Coherent: with a PodClique not reporting every pod ready)
		// would rightly be replaced first, out of the order a spec expects.
		cliques := &grovecorev1alpha1.PodCliqueList{}
		g.Expect(k8sClient.List(ctx, cliques, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		for _, c := range cliques.Items {
			g.Expect(c.Status.ReadyReplicas).To(Equal(c.Spec.Replicas), "%s reports every pod ready", c.Name)
		}
		groups := &grovecorev1alpha1.PodCliqueScalingGroupList{}
		g.Expect(k8sClient.List(ctx, groups, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		for _, sg := range groups.Items {
			g.Expect(sg.Status.AvailableReplicas).To(Equal(sg.Spec.Replicas), "%s reports every replica available", sg.Name)
		}
		set := getPCS(ns, pcs)()
		g.Expect(set.Status.AvailableReplicas).To(Equal(set.Spec.Replicas), "%s reports every replica available", pcs)
	}).Should(Succeed())
	return pods
}

// byIndex returns the pods sorted by their pod index in the PodClique.
func byIndex(pods []corev1.Pod) []corev1.Pod {
	out := append([]corev1.Pod(nil), pods...)
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i].Labels[apicommon.LabelPodCliquePodIndex])
		b, _ := strconv.Atoi(out[j].Labels[apicommon.LabelPodCliquePodIndex])
		return a < b
	})
	return out
}

// uids lists pod UIDs.
func uids(pods []corev1.Pod) []types.UID {
	out := make([]types.UID, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.UID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// withHash returns the pods carrying the given pod-template hash.
func withHash(pods []corev1.Pod, h string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Labels[apicommon.LabelPodTemplateHash] == h {
			out = append(out, p)
		}
	}
	return out
}

// notReady counts pods that are not ready.
func notReady(pods []corev1.Pod) int {
	n := 0
	for i := range pods {
		if !podReady(&pods[i]) {
			n++
		}
	}
	return n
}

func getPCLQ(ns, name string) func() *grovecorev1alpha1.PodClique {
	return func() *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
		return p
	}
}

// condition renders a condition as "Status/Reason", or "" when absent.
func condition(conds []metav1.Condition, t string) string {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// conditionMessage returns a condition's message.
func conditionMessage(conds []metav1.Condition, t string) string {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return c.Message
	}
	return ""
}

// currentlyUpdating lists the replicas in a PodCliqueSet's update record.
func currentlyUpdating(p *grovecorev1alpha1.PodCliqueSet) []int32 {
	out := []int32{}
	if p.Status.UpdateProgress != nil {
		for _, r := range p.Status.UpdateProgress.CurrentlyUpdating {
			out = append(out, r.ReplicaIndex)
		}
	}
	return out
}

// eventReasons returns "Type/Reason: message" of the events on one object.
func eventReasons(ns, object string) func() []string {
	return func() []string {
		list := &corev1.EventList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		var out []string
		for _, e := range list.Items {
			if e.InvolvedObject.Name == object {
				out = append(out, fmt.Sprintf("%s/%s: %s", e.Type, e.Reason, e.Message))
			}
		}
		return out
	}
}

// eventCount counts how often an event with reason was posted on object,
// repetitions the recorder folded into one series included.
func eventCount(ns, object, reason string) int {
	list := &corev1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.InvolvedObject.Name == object && e.Reason == reason {
			n += max(1, int(e.Count))
		}
	}
	return n
}

// tableRow reads an object as the API server prints it for kubectl get (its
// CRD's printer columns) and returns its cells by column name.
func tableRow(resource, ns, name string) map[string]string {
	httpClient, err := rest.HTTPClientFor(restCfg)
	Expect(err).NotTo(HaveOccurred())
	host := strings.TrimSuffix(restCfg.Host, "/")
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	url := fmt.Sprintf("%s/apis/grove.io/v1alpha1/namespaces/%s/%s/%s", host, ns, resource, name)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	table := &metav1.Table{}
	Expect(json.Unmarshal(body, table)).To(Succeed())
	Expect(table.Rows).To(HaveLen(1))
	out := map[string]string{}
	for i, col := range table.ColumnDefinitions {
		out[col.Name] = fmt.Sprint(table.Rows[0].Cells[i])
	}
	return out
}
