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
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/mnnvl"
)

// mnnvlPCS has, per replica, a GPU clique in the set's group, a clique
// without GPUs and a GPU clique that opts out with "none".
func mnnvlPCS(ns, name string) *grovecorev1alpha1.PodCliqueSet {
	clique := func(cname string, gpus int64, annotations map[string]string) grovecorev1alpha1.PodCliqueTemplateSpec {
		ctr := corev1.Container{Name: "main", Image: "engine"}
		if gpus > 0 {
			ctr.Resources.Limits = corev1.ResourceList{mnnvl.GPUResource: *resource.NewQuantity(gpus, resource.DecimalSI)}
		}
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: cname, Annotations: annotations,
			Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: cname, Replicas: 1, PodSpec: corev1.PodSpec{
				Containers: []corev1.Container{ctr, {Name: "sidecar", Image: "proxy"}}}}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{apicommon.AnnotationMNNVLGroup: "nvl"}},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 2, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
			clique("gpu", 4, nil),
			clique("cpu", 0, nil),
			clique("optout", 2, map[string]string{apicommon.AnnotationMNNVLGroup: apicommon.MNNVLGroupNone}),
		}}},
	}
}

// computeDomains returns the ComputeDomains in ns, read from the API server.
func computeDomains(ns string) func() []unstructured.Unstructured {
	return func() []unstructured.Unstructured {
		list := mnnvl.NewList()
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].GetName() < list.Items[j].GetName() })
		return list.Items
	}
}

func names(objs []unstructured.Unstructured) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

// podClaims maps each pod of the set to "<pod claims>|<container>=<claims>;...".
func podClaims(ns, pcs string) func() map[string]string {
	return func() map[string]string {
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: pcs})).To(Succeed())
		out := map[string]string{}
		for _, p := range pods.Items {
			s := ""
			for _, rc := range p.Spec.ResourceClaims {
				tmpl := ""
				if rc.ResourceClaimTemplateName != nil {
					tmpl = *rc.ResourceClaimTemplateName
				}
				s += rc.Name + "->" + tmpl + ","
			}
			s += "|"
			for _, c := range p.Spec.Containers {
				s += c.Name + "="
				for _, cl := range c.Resources.Claims {
					s += cl.Name
				}
				s += ";"
			}
			out[p.Name] = s
		}
		return out
	}
}

var _ = Describe("MNNVL ComputeDomains", Ordered, func() {
	_, thisFile, _, _ := runtime.Caller(0)
	crdOptions := envtest.CRDInstallOptions{Paths: []string{filepath.Join(filepath.Dir(thisFile), "..", "mnnvlcrds")}, ErrorIfPathMissing: true}
	var crds []*apiextensionsv1.CustomResourceDefinition

	It("with MNNVL disabled and no ComputeDomain CRD: the preflight fails naming the CRD, and pods get no MNNVL claim", func() {
		Expect(mnnvl.Preflight(restCfg)).To(MatchError("network.autoMNNVLEnabled is true but the API server does not serve computedomains in resource.nvidia.com/v1beta1: " +
			"install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD) or set network.autoMNNVLEnabled to false"))
		ns := newNamespace()
		off := mnnvlPCS(ns, "off")
		Expect(k8sClient.Create(ctx, off)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, off)).To(Succeed()) })
		Eventually(func() int { return len(podClaims(ns, "off")()) }).Should(Equal(6))
		for pod, claims := range podClaims(ns, "off")() {
			Expect(claims).To(Equal("|main=;sidecar=;"), pod)
		}
	})

	It("with the CRD installed the preflight passes; with MNNVL disabled no ComputeDomain is made", func() {
		var err error
		crds, err = envtest.InstallCRDs(restCfg, crdOptions)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error { return mnnvl.Preflight(restCfg) }).Should(Succeed())
		ns := newNamespace()
		off := mnnvlPCS(ns, "off")
		Expect(k8sClient.Create(ctx, off)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, off)).To(Succeed()) })
		Eventually(func() int { return len(podClaims(ns, "off")()) }).Should(Equal(6))
		Consistently(computeDomains(ns), "2s").Should(BeEmpty())
	})

	AfterAll(func() {
		if crds != nil {
			Expect(envtest.UninstallCRDs(restCfg, envtest.CRDInstallOptions{CRDs: crds})).To(Succeed())
		}
	})

	// enableMNNVL restarts the manager with network.autoMNNVLEnabled for the
	// rest of the spec, and with the suite's configuration after it.
	enableMNNVL := func() {
		By("restarting the manager with network.autoMNNVLEnabled")
		stopMgr()
		<-mgrDone
		stopMgr, mgrDone = startManager(restCfg, func(c *config.OperatorConfiguration) { c.Network.AutoMNNVLEnabled = true })
		DeferCleanup(func() {
			stopMgr()
			<-mgrDone
			stopMgr, mgrDone = startManager(restCfg)
		})
	}

	It("with MNNVL enabled: one ComputeDomain per replica and group, claims only on the GPU containers of enrolled cliques, released on deletion", func() {
		enableMNNVL()
		ns := newNamespace()
		pcs := mnnvlPCS(ns, "inf")
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		live := getPCS(ns, "inf")()

		Eventually(func() []string { return names(computeDomains(ns)()) }).Should(Equal([]string{"inf-0-nvl", "inf-1-nvl"}))
		for i, cd := range computeDomains(ns)() {
			Expect(cd.Object["spec"]).To(Equal(map[string]any{
				"numNodes": int64(0),
				"channel":  map[string]any{"resourceClaimTemplate": map[string]any{"name": cd.GetName()}, "allocationMode": "Single"},
			}))
			Expect(cd.GetFinalizers()).To(Equal([]string{apicommon.FinalizerComputeDomain}))
			Expect(cd.GetLabels()).To(Equal(map[string]string{
				apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: "inf",
				apicommon.LabelAppNameKey: cd.GetName(), apicommon.LabelComponentKey: "pcs-computedomain",
				apicommon.LabelPodCliqueSetReplicaIndex: []string{"0", "1"}[i], apicommon.AnnotationMNNVLGroup: "nvl",
			}))
			ref := metav1.GetControllerOf(&cd)
			Expect(ref).NotTo(BeNil())
			Expect([]string{ref.Kind, ref.Name, string(ref.UID)}).To(Equal([]string{"PodCliqueSet", "inf", string(live.UID)}))
		}

		Eventually(podClaims(ns, "inf")).Should(HaveLen(6))
		claims := podClaims(ns, "inf")()
		for pod, c := range claims {
			want := "|main=;sidecar=;" // cpu (no GPU) and optout ("none")
			switch {
			case strings.HasPrefix(pod, "inf-0-gpu-"):
				want = "mnnvl-claim->inf-0-nvl,|main=mnnvl-claim;sidecar=;"
			case strings.HasPrefix(pod, "inf-1-gpu-"):
				want = "mnnvl-claim->inf-1-nvl,|main=mnnvl-claim;sidecar=;"
			}
			Expect(c).To(Equal(want), pod)
		}

		By("a ComputeDomain deleted by someone else is made again")
		first := computeDomains(ns)()[0]
		Expect(mnnvl.Release(ctx, k8sClient, &first)).To(Succeed())
		Eventually(func() []string {
			var uids []string
			for _, cd := range computeDomains(ns)() {
				if cd.GetName() == "inf-0-nvl" && cd.GetUID() != first.GetUID() {
					uids = append(uids, string(cd.GetUID()))
				}
			}
			return uids
		}).Should(HaveLen(1))

		By("scaling in to one replica: the second replica's ComputeDomain is released")
		scalePodCliqueSet(ns, "inf", 1)
		Eventually(func() []string { return names(computeDomains(ns)()) }).Should(Equal([]string{"inf-0-nvl"}))

		By("deleting the PodCliqueSet: Grove's finalizer is removed and the ComputeDomains deleted")
		Expect(k8sClient.Delete(ctx, live)).To(Succeed())
		Eventually(computeDomains(ns)).Should(BeEmpty())

		By("a ComputeDomain of a wanted name that the set does not control is never taken over")
		ns = newNamespace()
		foreign := mnnvl.New()
		foreign.SetNamespace(ns)
		foreign.SetName("inf-0-nvl")
		foreign.Object["spec"] = map[string]any{"numNodes": int64(2), "channel": map[string]any{"resourceClaimTemplate": map[string]any{"name": "theirs"}}}
		Eventually(func() error { return k8sClient.Create(ctx, foreign) }).Should(Succeed())
		Expect(k8sClient.Create(ctx, mnnvlPCS(ns, "inf"))).To(Succeed())
		Eventually(func() []string { return names(computeDomains(ns)()) }).Should(Equal([]string{"inf-0-nvl", "inf-1-nvl"}))
		got := computeDomains(ns)()[0]
		Expect(got.Object["spec"]).To(HaveKeyWithValue("numNodes", int64(2)))
		Expect(got.GetOwnerReferences()).To(BeEmpty())
		Expect(got.GetFinalizers()).To(BeEmpty())
		Eventually(func() []string { return eventMessages(eventsWithReason(ns, "ChildNameTaken")) }).Should(ContainElement(
			HaveSuffix("Not controlled by this owner, left untouched: ComputeDomain inf-0-nvl (no controller)")))
		Expect(k8sClient.Delete(ctx, getPCS(ns, "inf")())).To(Succeed())
		Eventually(func() []string { return names(computeDomains(ns)()) }).Should(Equal([]string{"inf-0-nvl"}))
		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		Eventually(computeDomains(ns)).Should(BeEmpty())
	})

	It("with MNNVL enabled: grove.io/mnnvl-group is on the children the reference names, and scaling-group cliques get the claim of the group they resolve to", func() {
		enableMNNVL()
		ns := newNamespace()
		pcs := mnnvlPCS(ns, "sg")
		pcs.Spec.Replicas = 1
		gpuClique := pcs.Spec.Template.Cliques[0]
		member := func(name string, annotations map[string]string) grovecorev1alpha1.PodCliqueTemplateSpec {
			c := *gpuClique.DeepCopy()
			c.Name, c.Spec.RoleName, c.Annotations = name, name, annotations
			return c
		}
		pcs.Spec.Template.Cliques = append(pcs.Spec.Template.Cliques,
			member("leader", nil), // in "model", which names no group: the set's
			member("worker", map[string]string{apicommon.AnnotationMNNVLGroup: apicommon.MNNVLGroupNone}),
			member("expert", nil), // in "moe", which names its own group
		)
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{
			{Name: "model", CliqueNames: []string{"leader", "worker"}},
			{Name: "moe", CliqueNames: []string{"expert"}, Annotations: map[string]string{apicommon.AnnotationMNNVLGroup: "moe"}},
		}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())

		group := func(obj client.Object) string {
			g, ok := obj.GetAnnotations()[apicommon.AnnotationMNNVLGroup]
			if !ok {
				return "<unset>"
			}
			return g
		}
		By("each PodCliqueScalingGroup: its config's group, else the set's")
		Eventually(func(g Gomega) map[string]string {
			out := map[string]string{}
			for _, name := range []string{"sg-0-model", "sg-0-moe"} {
				pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{}
				g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pcsg)).To(Succeed())
				out[name] = group(pcsg)
			}
			return out
		}).Should(Equal(map[string]string{"sg-0-model": "nvl", "sg-0-moe": "moe"}))

		By("each PodClique: its clique template's annotation only; its pods: a copy of the PodClique's")
		wantPCLQ := map[string]string{
			"sg-0-gpu": "<unset>", "sg-0-cpu": "<unset>", "sg-0-optout": "none",
			"sg-0-model-0-leader": "<unset>", "sg-0-model-0-worker": "none", "sg-0-moe-0-expert": "<unset>",
		}
		Eventually(func(g Gomega) map[string]string {
			list := &grovecorev1alpha1.PodCliqueList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			out := map[string]string{}
			for i := range list.Items {
				out[list.Items[i].Name] = group(&list.Items[i])
			}
			return out
		}).Should(Equal(wantPCLQ))
		Eventually(func(g Gomega) map[string]string {
			pods := &corev1.PodList{}
			g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
			out := map[string]string{}
			for i := range pods.Items {
				out[pods.Items[i].Labels[apicommon.LabelPodClique]] = group(&pods.Items[i])
			}
			return out
		}).Should(Equal(wantPCLQ))

		By("ComputeDomains of the groups GPU cliques resolve to, and the claim on their pods")
		Eventually(func() []string { return names(computeDomains(ns)()) }).Should(Equal([]string{"sg-0-moe", "sg-0-nvl"}))
		Expect(computeDomains(ns)()[0].GetLabels()).To(HaveKeyWithValue(apicommon.AnnotationMNNVLGroup, "moe"))
		claims := podClaims(ns, "sg")()
		Expect(claims).To(HaveLen(6))
		for pod, c := range claims {
			want := "|main=;sidecar=;" // cpu, optout and worker ("none")
			switch {
			case strings.HasPrefix(pod, "sg-0-gpu-"), strings.HasPrefix(pod, "sg-0-model-0-leader-"):
				want = "mnnvl-claim->sg-0-nvl,|main=mnnvl-claim;sidecar=;"
			case strings.HasPrefix(pod, "sg-0-moe-0-expert-"):
				want = "mnnvl-claim->sg-0-moe,|main=mnnvl-claim;sidecar=;"
			}
			Expect(c).To(Equal(want), pod)
		}
		Expect(k8sClient.Delete(ctx, getPCS(ns, "sg")())).To(Succeed())
		Eventually(computeDomains(ns)).Should(BeEmpty())
	})
})
