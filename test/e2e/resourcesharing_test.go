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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
)

const (
	rsTestManifest   = "test/testdata/e2e/resource-sharing.yaml"
	rsTestTemplates  = "test/testdata/e2e/resource-sharing-templates.yaml"
	rsPerPodManifest = "test/testdata/e2e/resource-sharing-per-pod.yaml"
)

// Upstream's resource-sharing scenario (grove-reference §3.17a): claims at
// PodCliqueSet, scaling-group and clique level, from internal and external
// templates (one in another namespace), both scopes, with filters; every pod
// references exactly the claims that reach it, and a scale-in deletes the
// claims of the removed replicas. Its pods share claims within one gang:
// stock kube-scheduler (the Workload API backend) and grove-scheduler
// (test/e2e/gangdevices_test.go) each allocate every shared claim once for
// all of them.
var _ = Describe("Resource sharing (DRA)", Label("dra"), func() {
	It("creates upstream's rs-test claims, references them from exactly the pods they reach, and cleans up on scale-in", func() {
		ns := createRSTest("")
		By("the claims, by the reference's names")
		want := rsTestClaims
		Eventually(func(g Gomega) []string { return claimNames(g, ns) }).Should(Equal(want))

		By("each pod references exactly the claims that reach it, from every container")
		Eventually(func(g Gomega) map[string][]string { return podClaimRefs(g, ns) }).Should(Equal(map[string][]string{
			"rs-test-0-worker-a/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"},
			"rs-test-0-worker-a/1": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-1-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"},
			"rs-test-0-sga-0-worker-b/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7",
				"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-0-worker-b-all-int-tpl6"},
			"rs-test-0-sga-1-worker-b/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7",
				"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-1-worker-b-all-int-tpl6"},
			"rs-test-0-sga-0-worker-c/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3"},
			"rs-test-0-sga-1-worker-c/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3"},
		}))

		By("scale-in deletes the claims of the removed scaling-group replica and pod index")
		scaleTo(pcsgRef(ns, "rs-test-0-sga"), 1)
		scaleTo(pclqRef(ns, "rs-test-0-worker-a"), 1)
		Eventually(func(g Gomega) []string { return claimNames(g, ns) }).Should(Equal(slices.DeleteFunc(slices.Clone(want), func(n string) bool {
			return slices.Contains([]string{"rs-test-0-sga-1-int-tpl3", "rs-test-0-worker-a-1-int-tpl4", "rs-test-0-sga-1-worker-b-all-int-tpl6"}, n)
		})))
	})

	It("runs rs-test's gang through the Workload API backend with every shared claim allocated once, on the node of all its pods", func() {
		expectClaimsAllocatedOnce(createRSTest("default-scheduler"), "rs-test", 6, rsTestClaims, reportDeviceReuse)
	})

	It("runs a gang whose pods each claim a GPU: every claim allocated a device of its pod's node, one GPU per node spreading the pods", func() {
		ns := newNamespace("rs-pods")
		nodes := fakeNodes()
		publishFakeGPUs(nodes, 1)
		createPCS(rsPerPodManifest, ns)
		want := []string{"rs-pods-0-engine-0-gpu", "rs-pods-0-engine-1-gpu", "rs-pods-0-engine-2-gpu"}
		Eventually(func(g Gomega) []string { return claimNames(g, ns) }).Should(Equal(want))
		pods := runningPods(ns, "rs-pods", 3)
		used := map[string]bool{}
		for _, p := range pods {
			Expect(p.Spec.ResourceClaims).To(HaveLen(1), "pod %s", p.Name)
			name := p.Spec.ResourceClaims[0].Name
			Expect(name).To(Equal("rs-pods-0-engine-" + p.Labels[apicommon.LabelPodCliquePodIndex] + "-gpu"))
			rc := &resourcev1.ResourceClaim{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rc)).To(Succeed())
			Expect(rc.Status.Allocation).NotTo(BeNil(), "claim %s allocated", name)
			Expect(rc.Status.Allocation.Devices.Results).To(HaveLen(1))
			r := rc.Status.Allocation.Devices.Results[0]
			Expect(r.Driver).To(Equal(fakeGPUDriver))
			Expect(r.Pool).To(Equal(p.Spec.NodeName), "claim %s's device is on its pod's node", name)
			Expect(used).NotTo(HaveKey(p.Spec.NodeName), "one GPU per node: two pods on %s", p.Spec.NodeName)
			used[p.Spec.NodeName] = true
			Expect(rc.Status.ReservedFor).To(ConsistOf(HaveField("UID", p.UID)), "claim %s reserved for its pod", name)
		}
	})
})

// deviceReuse is what expectClaimsAllocatedOnce makes of one device
// allocated to two claims.
type deviceReuse int

const (
	// failDeviceReuse fails the spec: grove-scheduler allocates all of a
	// gang's claims in one search, so a reused device is its own bug.
	failDeviceReuse deviceReuse = iota
	// reportDeviceReuse records it in the report and goes on: kube-scheduler
	// 1.37 runs a PodGroup's PreBinds in parallel, and when two pods of the
	// group write the allocation of a claim they share, the second fails
	// ("got allocated elsewhere in the meantime"); its retry can hand a
	// device already allocated to another claim (docs/devices.md, known
	// limit). That race is kube-scheduler's; the Workload API spec checks
	// everything Grove writes and the scheduler's placement, and says when
	// the race happened.
	reportDeviceReuse
)

// expectClaimsAllocatedOnce waits for the PodCliqueSet's n pods to run and
// checks that they use exactly the named claims, each allocated one device
// of its own (a reused one failing or reported, as reuse says), on the node
// of every pod that uses it,
// reserved for exactly those pods and protected by the delete-protection
// finalizer. It returns each claim's pods.
func expectClaimsAllocatedOnce(ns, pcsName string, n int, claims []string, reuse deviceReuse) map[string][]corev1.Pod {
	GinkgoHelper()
	pods := runningPods(ns, pcsName, n)
	consumers := map[string][]corev1.Pod{}
	for _, p := range pods {
		for _, c := range p.Spec.ResourceClaims {
			consumers[c.Name] = append(consumers[c.Name], p)
		}
	}
	Expect(slices.Sorted(maps.Keys(consumers))).To(Equal(slices.Sorted(slices.Values(claims))))
	devices := map[string]string{}
	for _, name := range claims {
		rc := &resourcev1.ResourceClaim{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rc)).To(Succeed())
		Expect(rc.Status.Allocation).NotTo(BeNil(), "claim %s allocated", name)
		Expect(rc.Status.Allocation.Devices.Results).To(HaveLen(1), "claim %s", name)
		r := rc.Status.Allocation.Devices.Results[0]
		Expect(r.Driver).To(Equal(fakeGPUDriver))
		dev := r.Pool + "/" + r.Device
		if other, reused := devices[dev]; reused && reuse == reportDeviceReuse {
			AddReportEntry("kube-scheduler allocated one device to two claims", fmt.Sprintf("device %s allocated to %s and %s", dev, other, name))
		} else {
			Expect(devices).NotTo(HaveKey(dev), "device %s allocated to %s and %s", dev, other, name)
		}
		devices[dev] = name
		var want []any
		for _, p := range consumers[name] {
			want = append(want, And(HaveField("Name", p.Name), HaveField("UID", p.UID)))
			Expect(p.Spec.NodeName).To(Equal(r.Pool), "pod %s runs on the node of claim %s's device", p.Name, name)
		}
		Expect(rc.Status.ReservedFor).To(ConsistOf(want...), "claim %s reserved for each of its %d pods", name, len(want))
		Expect(rc.Finalizers).To(ContainElement(resourcev1.Finalizer), "claim %s protected while allocated", name)
	}
	return consumers
}

// The claims of rs-test with one replica, worker-a at 2 pods and sga at 2
// replicas (grove-reference §3.17a).
var rsTestClaims = []string{
	"rs-test-0-ext-tpl", "rs-test-0-int-tpl",
	"rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-0-worker-b-all-int-tpl6",
	"rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-1-worker-b-all-int-tpl6",
	"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-all-int-tpl8",
	"rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-1-int-tpl4",
	"rs-test-0-worker-a-all-ext-ns-tpl",
	"rs-test-all-int-tpl5", "rs-test-all-int-tpl7",
}

// createRSTest publishes 16 fake GPUs on every fake node, creates rs-test's
// external templates (one in a second namespace) and rs-test itself, its
// cliques' pods named for schedulerName when set, and returns its namespace.
func createRSTest(schedulerName string) string {
	GinkgoHelper()
	ns, sharedNS := newNamespace("rs"), newNamespace("rs-shared")
	publishFakeGPUs(fakeNodes(), 16)

	raw, err := os.ReadFile(filepath.Join(repoRoot, rsTestTemplates))
	Expect(err).NotTo(HaveOccurred())
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		rct := &resourcev1.ResourceClaimTemplate{}
		Expect(yaml.UnmarshalStrict([]byte(doc), rct)).To(Succeed())
		rct.Namespace = map[bool]string{true: ns, false: sharedNS}[rct.Namespace == ""]
		Expect(k8s.Create(ctx, rct)).To(Succeed())
	}
	pcs := loadPCS(rsTestManifest)
	pcs.Namespace = ns
	for i := range pcs.Spec.Template.Cliques {
		for j := range pcs.Spec.Template.Cliques[i].ResourceSharing {
			if e := &pcs.Spec.Template.Cliques[i].ResourceSharing[j]; e.Namespace != "" {
				e.Namespace = sharedNS
			}
		}
	}
	for i := range pcs.Spec.Template.Cliques {
		pcs.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = schedulerName
	}
	Expect(k8s.Create(ctx, pcs)).To(Succeed())
	return ns
}

// runningPods waits until the PodCliqueSet has n pods, all Running, and returns them.
func runningPods(ns, pcsName string, n int) []corev1.Pod {
	GinkgoHelper()
	var pods []corev1.Pod
	Eventually(func(g Gomega) {
		pods = listPods(g, ns, pcsName)
		g.Expect(pods).To(HaveLen(n))
		for _, p := range pods {
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s", p.Name)
		}
	}).WithTimeout(3 * time.Minute).Should(Succeed())
	return pods
}

// claimNames lists the namespace's ResourceClaims that are not being deleted, sorted.
func claimNames(g Gomega, ns string) []string {
	list := &resourcev1.ResourceClaimList{}
	g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var names []string
	for _, rc := range list.Items {
		if rc.DeletionTimestamp == nil {
			names = append(names, rc.Name)
		}
	}
	sort.Strings(names)
	return names
}

// podClaimRefs maps each pod (<podclique>/<pod index>) to its
// spec.resourceClaims, checking that each names the claim of its own name and
// that every container but grove-initc uses them all.
func podClaimRefs(g Gomega, ns string) map[string][]string {
	out := map[string][]string{}
	for _, p := range listPods(g, ns, "rs-test") {
		if p.DeletionTimestamp != nil {
			continue
		}
		var names []string
		for _, c := range p.Spec.ResourceClaims {
			g.Expect(c.ResourceClaimName).To(HaveValue(Equal(c.Name)), "pod %s claim %s", p.Name, c.Name)
			names = append(names, c.Name)
		}
		for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
			if c.Name == "grove-initc" {
				continue
			}
			var used []string
			for _, rc := range c.Resources.Claims {
				used = append(used, rc.Name)
			}
			g.Expect(used).To(Equal(names), "pod %s container %s", p.Name, c.Name)
		}
		out[p.Labels[apicommon.LabelPodClique]+"/"+p.Labels[apicommon.LabelPodCliquePodIndex]] = names
	}
	return out
}
