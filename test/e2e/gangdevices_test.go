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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const gangDevicesManifest = "test/testdata/e2e/gang-devices.yaml"

// grove-scheduler places a gang whose pods share ResourceClaims: its
// placement search allocates every claim of the gang once, on a node where
// all of the claim's pods fit with their other claims, and writes the
// allocations before any pod reserves, so kube-scheduler's DynamicResources
// plugin finds them allocated and only reserves each pod (docs/devices.md).
var _ = Describe("Gang placement with DRA devices", Label("dra"), func() {
	It("binds a gang whose pods share PerReplica and AllReplicas claims, each claim allocated once and reserved for all its pods", func() {
		ns := newNamespace("gd")
		publishFakeGPUs(fakeNodes(), 4)
		createPCS(gangDevicesManifest, ns)
		consumers := expectClaimsAllocatedOnce(ns, "gd", 3, []string{"gd-0-shared", "gd-0-worker-0-gpu", "gd-0-worker-1-gpu", "gd-0-worker-all-link"}, failDeviceReuse)

		Expect(consumers["gd-0-shared"]).To(HaveLen(3), "the PerReplica claim is shared by the replica's 3 pods")
		Expect(consumers["gd-0-worker-all-link"]).To(HaveLen(2), "the AllReplicas claim is shared by the 2 worker pods")
		Expect(consumers["gd-0-worker-0-gpu"]).To(ConsistOf(HaveField("Labels", HaveKeyWithValue(apicommon.LabelPodCliquePodIndex, "0"))))
		Expect(consumers["gd-0-worker-1-gpu"]).To(ConsistOf(HaveField("Labels", HaveKeyWithValue(apicommon.LabelPodCliquePodIndex, "1"))))
		node := consumers["gd-0-shared"][0].Spec.NodeName
		for _, p := range consumers["gd-0-shared"] {
			Expect(p.Spec.NodeName).To(Equal(node), "the shared claim's node-local GPU puts pod %s with the others", p.Name)
		}
	})

	It("binds upstream's rs-test gang (6 pods, 13 claims shared at every level), each claim allocated once on the node of all its pods", func() {
		expectClaimsAllocatedOnce(createRSTest(""), "rs-test", 6, rsTestClaims, failDeviceReuse)
	})

	It("binds no pod of a gang that needs more devices than any node has, and its PodGang names the request that does not fit", func() {
		ns := newNamespace("gdx")
		nodes := fakeNodes()
		publishFakeGPUs(nodes, 4)
		pcs := loadPCS(gangDevicesManifest)
		pcs.Name, pcs.Namespace = "gdx", ns
		for i := range pcs.Spec.Template.ResourceClaimTemplates {
			if t := &pcs.Spec.Template.ResourceClaimTemplates[i]; t.Name == "gpu" {
				t.TemplateSpec.Spec.Devices.Requests[0].Exactly.Count = 2
			}
		}
		Expect(k8s.Create(ctx, pcs)).To(Succeed())

		// The shared claims pin the whole gang to one node: 1 + 2×2 + 1
		// devices where every node has 4. The search places the leader and
		// worker 0 and finds no node for worker 1's own claim.
		want := fmt.Sprintf("group gdx-0-worker needs 2 pods with 10m cpu, 16Mi memory, 1 fit: 0/%d nodes are available: %d cannot allocate all claims", nodeCount(), len(nodes))
		detail := "; claim gdx-0-worker-1-gpu request gpu needs 2 devices of class gpu.example.com on one node, at most 0 free on the nodes its allocated claims allow"
		Eventually(func(g Gomega) {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gdx-0"}, pg)).To(Succeed())
			c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(groveschedulerv1alpha1.PodGangReasonUnschedulable))
			g.Expect(c.Message).To(HavePrefix(want))
			g.Expect(c.Message).To(HaveSuffix(detail))
		}).WithTimeout(2 * time.Minute).Should(Succeed())

		By("no pod bound and no claim allocated, for as long as the gang is retried")
		Consistently(func(g Gomega) {
			pods := listPods(g, ns, "gdx")
			g.Expect(pods).To(HaveLen(3))
			for _, p := range pods {
				g.Expect(p.Spec.NodeName).To(BeEmpty(), "pod %s bound", p.Name)
			}
			list := &resourcev1.ResourceClaimList{}
			g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(list.Items).To(HaveLen(4))
			for _, rc := range list.Items {
				g.Expect(rc.Status.Allocation).To(BeNil(), "claim %s allocated", rc.Name)
			}
		}).WithTimeout(15 * time.Second).WithPolling(time.Second).Should(Succeed())
	})
})
