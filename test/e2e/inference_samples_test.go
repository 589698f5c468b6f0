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
	"fmt"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	inferenceSamples = "samples/inference/"
	// gpuResource is the extended resource the samples request.
	gpuResource corev1.ResourceName = "nvidia.com/gpu"
	// gpuNodes, gpuPerNode and gpuNodesPerRack shape the GPU pool: two racks
	// of four 8-GPU nodes, exactly what vllm-multinode's two 4-node instances
	// need, one rack each.
	gpuNodes        = 8
	gpuPerNode      = 8
	gpuNodesPerRack = 4
)

// gpuNodeName matches the GPU pool's kwok nodes.
var gpuNodeName = regexp.MustCompile(`^e2e-gpu-node-\d{2}$`)

// createGPUPool creates kwok nodes that advertise nvidia.com/gpu, tainted
// nvidia.com/gpu=present:NoSchedule as GPU node pools commonly are (the
// samples tolerate it, nothing else does), labelled with the local cluster's
// topology levels, and deletes them when the container ends.
func createGPUPool() {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("128"),
		corev1.ResourceMemory: resource.MustParse("2Ti"),
		corev1.ResourcePods:   resource.MustParse("110"),
		gpuResource:           *resource.NewQuantity(gpuPerNode, resource.DecimalSI),
	}
	for i := 1; i <= gpuNodes; i++ {
		name := fmt.Sprintf("e2e-gpu-node-%02d", i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
				Labels: map[string]string{
					"kubernetes.io/hostname": name, "type": "kwok", "e2e.grove.io/pool": "gpu",
					"topology.kubernetes.io/zone": "zone-gpu", "example.com/block": "block-gpu",
					rackKey: fmt.Sprintf("rack-gpu-%d", (i-1)/gpuNodesPerRack),
				},
			},
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: string(gpuResource), Value: "present", Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, node))).To(Succeed())
	}
	DeferCleanup(func() {
		for i := 1; i <= gpuNodes; i++ {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e2e-gpu-node-%02d", i)}}
			Expect(client.IgnoreNotFound(k8s.Delete(ctx, node))).To(Succeed())
		}
	})
	Eventually(func(g Gomega) {
		nodes := &corev1.NodeList{}
		g.Expect(k8s.List(ctx, nodes, client.MatchingLabels{"e2e.grove.io/pool": "gpu"})).To(Succeed())
		g.Expect(nodes.Items).To(HaveLen(gpuNodes))
		for _, node := range nodes.Items {
			g.Expect(nodeReady(node)).To(BeTrue(), "node %s Ready", node.Name)
			gpus := node.Status.Allocatable[gpuResource]
			g.Expect(gpus.Value()).To(BeEquivalentTo(gpuPerNode), "node %s allocatable %s", node.Name, gpuResource)
		}
	}).Should(Succeed())
}

// podsOf returns the pods of one PodClique.
func podsOf(pods []corev1.Pod, podClique string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Labels[apicommon.LabelPodClique] == podClique {
			out = append(out, p)
		}
	}
	return out
}

// env returns the value of a variable in a pod's first container as written
// in the pod spec.
func env(p corev1.Pod, name string) string {
	for _, e := range p.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	return "<unset>"
}

// gpuRequest returns the nvidia.com/gpu request of a pod's first container.
func gpuRequest(p corev1.Pod) int64 {
	q := p.Spec.Containers[0].Resources.Requests[gpuResource]
	return q.Value()
}

// expectInstance checks replica j of scaling group pcsg, one leaderClique pod
// and workers workerClique pods that start after it: all in one rack, the
// leader's hostname (the address its workers are given), rank 0 for the
// leader and 1…workers for the workers, and the group's env. It returns the
// rack.
func expectInstance(pods []corev1.Pod, pcsg string, j int, leaderClique, workerClique string, workers int) string {
	GinkgoHelper()
	prefix := fmt.Sprintf("%s-%d-", pcsg, j)
	leaders, members := podsOf(pods, prefix+leaderClique), podsOf(pods, prefix+workerClique)
	Expect(leaders).To(HaveLen(1))
	racks := racksOf(append(members, leaders...))
	Expect(racks).To(HaveLen(1), "%s replica %d in one rack", pcsg, j)
	Expect(leaders[0].Spec.Hostname).To(Equal(prefix + leaderClique + "-0"))
	Expect(env(leaders[0], apicommon.EnvPCSGPodIndex)).To(Equal("0"), "leader's rank")
	var ranks, want []string
	for i, w := range members {
		Expect(env(w, apicommon.EnvPCSGName)).To(Equal(pcsg))
		Expect(env(w, apicommon.EnvPCSGIndex)).To(Equal(fmt.Sprint(j)))
		Expect(env(w, apicommon.EnvPCSGTemplateNumPods)).To(Equal(fmt.Sprint(workers + 1)))
		Expect(w.Annotations).To(HaveKeyWithValue(apicommon.AnnotationStartsAfter, prefix+leaderClique), "starts after its leader")
		ranks, want = append(ranks, env(w, apicommon.EnvPCSGPodIndex)), append(want, fmt.Sprint(i+1))
	}
	Expect(ranks).To(ConsistOf(want), "%s replica %d worker ranks", pcsg, j)
	for r := range racks {
		return r
	}
	return ""
}

// expectHPAMetric checks the HPA Grove created for a target and the metric
// the sample scales on.
func expectHPAMetric(ns, name, kind string, minReplicas, maxReplicas int32, metric string) {
	GinkgoHelper()
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	Eventually(func() error { return k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, hpa) }).Should(Succeed())
	Expect(hpa.Spec.ScaleTargetRef.Kind).To(Equal(kind))
	Expect(hpa.Spec.ScaleTargetRef.Name).To(Equal(name))
	Expect(*hpa.Spec.MinReplicas).To(Equal(minReplicas))
	Expect(hpa.Spec.MaxReplicas).To(Equal(maxReplicas))
	Expect(hpa.Spec.Metrics).To(HaveLen(1))
	var got string
	switch m := hpa.Spec.Metrics[0]; m.Type {
	case autoscalingv2.PodsMetricSourceType:
		got = m.Pods.Metric.Name
	case autoscalingv2.ExternalMetricSourceType:
		got = m.External.Metric.Name
	}
	Expect(got).To(Equal(metric), "HPA %s metric", name)
}

// The inference samples of samples/inference and the LeaderWorkerSet migration
// sample, applied as a user would on nodes that advertise GPUs: exact names
// and pod counts, GPU requests, one rack per packed unit, Grove's env vars
// (from which the samples build their leader and engine addresses), the
// startup order and the HPA on a custom metric.
var _ = Describe("GPU samples", Ordered, func() {
	BeforeAll(createGPUPool)

	It("vLLM disaggregated: router, prefill and decode in one rack, the router after both engines, decode autoscaled", func() {
		ns := newNamespace("vllm-disagg")
		createPCS(inferenceSamples+"vllm-disaggregated.yaml", ns)
		pods := expectRunningLayout(ns, "vllm-disagg", map[string]int{
			"vllm-disagg-0-prefill": 2,
			"vllm-disagg-0-decode":  2,
			"vllm-disagg-0-router":  1,
		}, gpuNodeName)
		Expect(racksOf(pods)).To(HaveLen(1), "the template's required rack")
		for _, p := range podsOf(pods, "vllm-disagg-0-prefill") {
			Expect(gpuRequest(p)).To(BeEquivalentTo(1), "prefill pod %s", p.Name)
		}
		for _, p := range podsOf(pods, "vllm-disagg-0-decode") {
			Expect(gpuRequest(p)).To(BeEquivalentTo(2), "decode pod %s", p.Name)
		}

		router := podsOf(pods, "vllm-disagg-0-router")[0]
		Expect(env(router, apicommon.EnvPCSName)).To(Equal("vllm-disagg"))
		Expect(env(router, apicommon.EnvPCSIndex)).To(Equal("0"))
		Expect(env(router, apicommon.EnvHeadlessService)).To(Equal("vllm-disagg-0." + ns + ".svc.cluster.local"))
		Expect(router.Spec.Containers[0].Args).To(ContainElement("$(GROVE_PCS_NAME)-$(GROVE_PCS_INDEX)-decode-1.$(GROVE_HEADLESS_SERVICE)"))
		By("the engines the router addresses are the pods' hostnames under the headless Service")
		decodeHosts := []string{}
		for _, p := range podsOf(pods, "vllm-disagg-0-decode") {
			Expect(p.Spec.Subdomain).To(Equal("vllm-disagg-0"))
			decodeHosts = append(decodeHosts, p.Spec.Hostname)
		}
		Expect(decodeHosts).To(ConsistOf("vllm-disagg-0-decode-0", "vllm-disagg-0-decode-1"))
		Expect(k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: "vllm-disagg-0"}, &corev1.Service{})).To(Succeed())

		By("the router waits for one Ready pod of each engine clique (their minAvailable)")
		Expect(router.Spec.InitContainers).To(ContainElement(HaveField("Name", apicommon.InitContainerName)))
		Expect(router.Annotations).To(HaveKeyWithValue(apicommon.AnnotationStartsAfter, "vllm-disagg-0-prefill,vllm-disagg-0-decode"))

		expectHPAMetric(ns, "vllm-disagg-0-decode", "PodClique", 2, 4, "vllm_num_requests_waiting")
	})

	It("SGLang disaggregated: multi-node prefill and decode instances, node rank from GROVE_PCSG_POD_INDEX, each instance in one rack", func() {
		ns := newNamespace("sglang-disagg")
		createPCS(inferenceSamples+"sglang-disaggregated.yaml", ns)
		pods := expectRunningLayout(ns, "sglang-disagg", map[string]int{
			"sglang-disagg-0-router":                   1,
			"sglang-disagg-0-prefill-0-prefill-leader": 1,
			"sglang-disagg-0-prefill-0-prefill-worker": 1,
			"sglang-disagg-0-decode-0-decode-leader":   1,
			"sglang-disagg-0-decode-0-decode-worker":   1,
		}, gpuNodeName)
		Expect(scalingGroupNames(Default, ns, "sglang-disagg")).To(Equal([]string{"sglang-disagg-0-decode", "sglang-disagg-0-prefill"}))
		for _, engine := range []string{"prefill", "decode"} {
			expectInstance(pods, "sglang-disagg-0-"+engine, 0, engine+"-leader", engine+"-worker", 1)
			prefix := "sglang-disagg-0-" + engine + "-0-"
			leader, worker := podsOf(pods, prefix+engine+"-leader")[0], podsOf(pods, prefix+engine+"-worker")[0]
			Expect(gpuRequest(leader)).To(BeEquivalentTo(4))
			Expect(worker.Spec.Containers[0].Args).To(ContainElement(
				"--dist-init-addr=$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-"+engine+"-leader-0.$(GROVE_HEADLESS_SERVICE):5000"),
				"%s: the worker's --dist-init-addr is its leader's hostname", engine)
			Expect(leader.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueTemplateName, engine+"-leader"))
			Expect(leader.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueScalingGroupReplicaIndex, "0"))
		}
		router := podsOf(pods, "sglang-disagg-0-router")[0]
		Expect(router.Annotations).To(HaveKeyWithValue(apicommon.AnnotationStartsAfter,
			"sglang-disagg-0-prefill-0-prefill-leader,sglang-disagg-0-decode-0-decode-leader"))
		expectHPAMetric(ns, "sglang-disagg-0-decode", "PodCliqueScalingGroup", 1, 3, "sglang_num_queue_reqs")
	})

	It("multi-node leader/worker: two 4-node instances, one rack each, workers after their leader, ranks 0-3", func() {
		ns := newNamespace("vllm-multinode")
		createPCS(inferenceSamples+"multinode-leader-worker.yaml", ns)
		pods := expectRunningLayout(ns, "vllm-multinode", map[string]int{
			"vllm-multinode-0-instance-0-leader": 1,
			"vllm-multinode-0-instance-0-worker": 3,
			"vllm-multinode-0-instance-1-leader": 1,
			"vllm-multinode-0-instance-1-worker": 3,
		}, gpuNodeName)
		var racks []string
		for j := range 2 {
			racks = append(racks, expectInstance(pods, "vllm-multinode-0-instance", j, "leader", "worker", 3))
			for _, w := range podsOf(pods, fmt.Sprintf("vllm-multinode-0-instance-%d-worker", j)) {
				Expect(gpuRequest(w)).To(BeEquivalentTo(8))
			}
		}
		Expect(racks).To(ConsistOf("rack-gpu-0", "rack-gpu-1"), "8 nodes of 8 GPUs: the two instances fill both racks")

		By("instance 0 is in the base PodGang, instance 1 in its own scaled PodGang")
		for _, name := range []string{"vllm-multinode-0", "vllm-multinode-0-instance-0"} {
			Expect(k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &groveschedulerv1alpha1.PodGang{})).To(Succeed(), "PodGang %s", name)
		}
		expectHPAMetric(ns, "vllm-multinode-0-instance", "PodCliqueScalingGroup", 1, 4, "vllm_num_requests_waiting")
	})

	It("from LWS: the LeaderWorkerSet's groups as scaling-group replicas, one rack each and never sharing one", func() {
		ns := newNamespace("from-lws")
		createPCS("samples/migration/grove-vllm.yaml", ns)
		pods := expectRunningLayout(ns, "vllm", map[string]int{
			"vllm-0-group-0-leader": 1,
			"vllm-0-group-0-worker": 3,
			"vllm-0-group-1-leader": 1,
			"vllm-0-group-1-worker": 3,
		}, gpuNodeName)
		By("LWS_WORKER_INDEX, LWS_GROUP_SIZE and LWS_LEADER_ADDRESS have Grove equivalents; LeaderReady is startsAfter")
		var racks []string
		for j := range 2 {
			racks = append(racks, expectInstance(pods, "vllm-0-group", j, "leader", "worker", 3))
		}
		// Each rack has room for both groups (32 GPUs, a group needs 8): only the
		// anti-affinity keeps them apart, as LWS's exclusive-topology does.
		Expect(racks).To(ConsistOf("rack-gpu-0", "rack-gpu-1"), "exclusive topology: one group per rack")
	})
})
