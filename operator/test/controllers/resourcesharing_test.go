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
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// rsTestFixtures is upstream's resource-sharing scenario, shared with the e2e spec.
const rsTestFixtures = "../../../test/testdata/e2e"

// The claims of upstream's rs-test scenario with one PodCliqueSet replica,
// worker-a at 2 pods and sga at 2 replicas (grove-reference §3.17a).
var rsTestClaims = []string{
	"rs-test-0-ext-tpl", "rs-test-0-int-tpl",
	"rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-0-worker-b-all-int-tpl6",
	"rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-1-worker-b-all-int-tpl6",
	"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-all-int-tpl8",
	"rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-1-int-tpl4",
	"rs-test-0-worker-a-all-ext-ns-tpl",
	"rs-test-all-int-tpl5", "rs-test-all-int-tpl7",
}

var _ = Describe("Resource sharing (DRA ResourceClaims)", func() {
	var ns, sharedNS string

	claims := func() []string {
		list := &resourcev1.ResourceClaimList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		var names []string
		for i := range list.Items {
			if list.Items[i].DeletionTimestamp == nil {
				names = append(names, list.Items[i].Name)
			}
		}
		sort.Strings(names)
		return names
	}
	claim := func(name string) *resourcev1.ResourceClaim {
		GinkgoHelper()
		rc := &resourcev1.ResourceClaim{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rc)).To(Succeed())
		return rc
	}
	controllerOf := func(obj metav1.Object) string {
		ref := metav1.GetControllerOf(obj)
		if ref == nil {
			return ""
		}
		return ref.Kind + "/" + ref.Name
	}
	// podClaims maps each pod (by PodClique and pod index) to the claims
	// of its spec.resourceClaims, checking that each references the claim
	// of its own name and that every container and init container uses them.
	podClaims := func() map[string][]string {
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "rs-test"})).To(Succeed())
		out := map[string][]string{}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.DeletionTimestamp != nil {
				continue
			}
			var names []string
			for _, c := range p.Spec.ResourceClaims {
				Expect(c.ResourceClaimName).To(HaveValue(Equal(c.Name)), "pod %s claim %s", p.Name, c.Name)
				names = append(names, c.Name)
			}
			for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
				if c.Name == "grove-initc" {
					continue
				}
				var used []string
				for _, rc := range c.Resources.Claims {
					used = append(used, rc.Name)
				}
				Expect(used).To(Equal(names), "pod %s container %s", p.Name, c.Name)
			}
			out[p.Labels[apicommon.LabelPodClique]+"/"+p.Labels[apicommon.LabelPodCliquePodIndex]] = names
		}
		return out
	}
	createTemplates := func() {
		raw, err := os.ReadFile(filepath.Join(rsTestFixtures, "resource-sharing-templates.yaml"))
		Expect(err).NotTo(HaveOccurred())
		for _, doc := range strings.Split(string(raw), "\n---\n") {
			rct := &resourcev1.ResourceClaimTemplate{}
			Expect(sigsyaml.UnmarshalStrict([]byte(doc), rct)).To(Succeed())
			if rct.Namespace == "" {
				rct.Namespace = ns
			} else {
				rct.Namespace = sharedNS
			}
			Expect(k8sClient.Create(ctx, rct)).To(Succeed())
		}
	}
	rsTest := func() *grovecorev1alpha1.PodCliqueSet {
		raw, err := os.ReadFile(filepath.Join(rsTestFixtures, "resource-sharing.yaml"))
		Expect(err).NotTo(HaveOccurred())
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		Expect(sigsyaml.UnmarshalStrict(raw, pcs)).To(Succeed())
		pcs.Namespace = ns
		for i := range pcs.Spec.Template.Cliques {
			for j := range pcs.Spec.Template.Cliques[i].ResourceSharing {
				if e := &pcs.Spec.Template.Cliques[i].ResourceSharing[j]; e.Namespace != "" {
					e.Namespace = sharedNS
				}
			}
		}
		return pcs
	}

	BeforeEach(func() {
		ns, sharedNS = newNamespace(), newNamespace()
		createTemplates()
	})

	It("creates upstream's rs-test claims under the reference's names and owners, and adds them to exactly the pods they reach", func() {
		Expect(k8sClient.Create(ctx, rsTest())).To(Succeed())
		Eventually(claims).Should(Equal(rsTestClaims))

		By("owners: PodCliqueSet-, scaling-group- and PodClique-level claims are controlled by their owner")
		for name, owner := range map[string]string{
			"rs-test-all-int-tpl5":                  "PodCliqueSet/rs-test",
			"rs-test-0-ext-tpl":                     "PodCliqueSet/rs-test",
			"rs-test-0-sga-all-int-tpl2":            "PodCliqueScalingGroup/rs-test-0-sga",
			"rs-test-0-sga-1-int-tpl3":              "PodCliqueScalingGroup/rs-test-0-sga",
			"rs-test-0-worker-a-1-int-tpl4":         "PodClique/rs-test-0-worker-a",
			"rs-test-0-worker-a-all-ext-ns-tpl":     "PodClique/rs-test-0-worker-a",
			"rs-test-0-sga-1-worker-b-all-int-tpl6": "PodClique/rs-test-0-sga-1-worker-b",
		} {
			Expect(controllerOf(claim(name))).To(Equal(owner), "claim %s", name)
		}

		By("writers: each claim is created by its owner's controller and never written again")
		for name, writer := range map[string]string{
			"rs-test-all-int-tpl5":                  childsync.PodCliqueSetFieldManager,
			"rs-test-0-sga-1-int-tpl3":              childsync.PodCliqueScalingGroupFieldManager,
			"rs-test-0-sga-1-worker-b-all-int-tpl6": childsync.PodCliqueFieldManager,
		} {
			Expect(writers(claim(name))).To(ConsistOf(writer+"/Update"), "claim %s", name)
		}

		By("templates: an external template's labels and a cross-namespace template's spec are copied")
		ext := claim("rs-test-0-ext-tpl")
		Expect(ext.Labels).To(HaveKeyWithValue("example.com/from", "ext-tpl"))
		Expect(ext.Labels).To(HaveKeyWithValue(apicommon.LabelComponentKey, apicommon.LabelComponentResourceClaim))
		Expect(ext.Labels).To(HaveKeyWithValue(apicommon.LabelPodCliqueSetReplicaIndex, "0"))
		Expect(claim("rs-test-0-worker-a-all-ext-ns-tpl").Spec.Devices.Requests).To(HaveLen(1))
		Expect(claim("rs-test-0-worker-a-all-ext-ns-tpl").Spec.Devices.Requests[0].Exactly.DeviceClassName).To(Equal("gpu.example.com"))

		By("pods: every claim that reaches a pod, in PodCliqueSet, scaling-group, clique order")
		Eventually(podClaims).Should(Equal(map[string][]string{
			"rs-test-0-worker-a/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"},
			"rs-test-0-worker-a/1": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-1-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"},
			"rs-test-0-sga-0-worker-b/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7",
				"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-0-worker-b-all-int-tpl6"},
			"rs-test-0-sga-1-worker-b/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7",
				"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-1-worker-b-all-int-tpl6"},
			"rs-test-0-sga-0-worker-c/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3"},
			"rs-test-0-sga-1-worker-c/0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3"},
		}))
	})

	It("deletes the PerReplica claims of removed replicas on scale-in at every level and makes them again on scale-out", func() {
		Expect(k8sClient.Create(ctx, rsTest())).To(Succeed())
		Eventually(claims).Should(Equal(rsTestClaims))

		scaleScalingGroup(ns, "rs-test-0-sga", 1)
		scalePodClique(ns, "rs-test-0-worker-a", 1)
		Eventually(claims).Should(Equal(without(rsTestClaims, "rs-test-0-sga-1-int-tpl3", "rs-test-0-worker-a-1-int-tpl4")),
			"the claims of removed indices are deleted; the others stay")
		// The claim of the removed PodClique rs-test-0-sga-1-worker-b goes
		// with it through the garbage collector, which envtest does not run.
		Expect(controllerOf(claim("rs-test-0-sga-1-worker-b-all-int-tpl6"))).To(Equal("PodClique/rs-test-0-sga-1-worker-b"))
		Eventually(podCliques(ns, "rs-test")).ShouldNot(ContainElement("rs-test-0-sga-1-worker-b"))

		scalePodCliqueSet(ns, "rs-test", 2)
		Eventually(claims).Should(ContainElements("rs-test-1-ext-tpl", "rs-test-1-int-tpl", "rs-test-1-sga-all-int-tpl2",
			"rs-test-1-sga-0-int-tpl3", "rs-test-1-worker-a-0-int-tpl4", "rs-test-1-worker-a-all-ext-ns-tpl"))
		Expect(claims()).To(ContainElement("rs-test-all-int-tpl5"), "one AllReplicas claim for every PodCliqueSet replica")
		Expect(claims()).NotTo(ContainElement("rs-test-1-all-int-tpl5"))

		scalePodCliqueSet(ns, "rs-test", 1)
		Eventually(claims).ShouldNot(ContainElements("rs-test-1-ext-tpl", "rs-test-1-int-tpl"))
		Expect(claims()).To(ContainElements("rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-all-int-tpl5"))
	})

	It("keeps a pod index's claim when its pod is replaced", func() {
		Expect(k8sClient.Create(ctx, rsTest())).To(Succeed())
		Eventually(claims).Should(Equal(rsTestClaims))
		before := claim("rs-test-0-worker-a-0-int-tpl4").UID
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodClique: "rs-test-0-worker-a", apicommon.LabelPodCliquePodIndex: "0"})).To(Succeed())
		Expect(pods.Items).To(HaveLen(1))
		old := pods.Items[0].UID
		Expect(k8sClient.Delete(ctx, &pods.Items[0], client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func() []string {
			var refs []string
			Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodClique: "rs-test-0-worker-a", apicommon.LabelPodCliquePodIndex: "0"})).To(Succeed())
			for _, p := range pods.Items {
				if p.UID != old && p.DeletionTimestamp == nil {
					for _, c := range p.Spec.ResourceClaims {
						refs = append(refs, c.Name)
					}
				}
			}
			return refs
		}).Should(ContainElement("rs-test-0-worker-a-0-int-tpl4"), "the replacement pod takes index 0 and its claim")
		Expect(claim("rs-test-0-worker-a-0-int-tpl4").UID).To(Equal(before), "the claim is the same object")
	})

	It("never takes over a claim of a wanted name that it did not make, and reports it", func() {
		mine := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "rs-test-all-int-tpl5", Namespace: ns}}
		mine.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "nic", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "nic.example.com"}}}
		Expect(k8sClient.Create(ctx, mine)).To(Succeed())
		Expect(k8sClient.Create(ctx, rsTest())).To(Succeed())
		Eventually(func() []string {
			list := &corev1.EventList{}
			Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range list.Items {
				if e.InvolvedObject.Name == "rs-test" {
					notes = append(notes, e.Message)
				}
			}
			return notes
		}).Should(ContainElement("Not controlled by this owner, left untouched: ResourceClaim rs-test-all-int-tpl5 (no controller)"))
		got := claim("rs-test-all-int-tpl5")
		Expect(got.OwnerReferences).To(BeEmpty())
		Expect(got.Spec.Devices.Requests[0].Exactly.DeviceClassName).To(Equal("nic.example.com"))
	})

	It("reports a missing external template on the owner and makes the claim once the template exists", func() {
		pcs := rsTest()
		pcs.Name = "rs-missing"
		pcs.Spec.Template.ResourceSharing = append(pcs.Spec.Template.ResourceSharing, grovecorev1alpha1.PCSResourceSharingSpec{Name: "late-tpl", Scope: grovecorev1alpha1.ResourceSharingScopeAllReplicas})
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(func() []string {
			list := &corev1.EventList{}
			Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range list.Items {
				if e.InvolvedObject.Name == "rs-missing" {
					notes = append(notes, e.Message)
				}
			}
			return notes
		}).Should(ContainElement(ContainSubstring(`resourceSharing names "late-tpl": no resourceClaimTemplates entry and no ResourceClaimTemplate ` + ns + `/late-tpl`)))
		late := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "late-tpl", Namespace: ns}}
		late.Spec.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "nic", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "nic.example.com"}}}
		Expect(k8sClient.Create(ctx, late)).To(Succeed())
		Eventually(claims, "60s").Should(ContainElement("rs-missing-all-late-tpl"))
	})
})

func without(names []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
}
