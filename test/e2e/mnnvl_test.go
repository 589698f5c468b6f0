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
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// MNNVL on the local cluster (docs/devices.md): the ComputeDomain CRD comes
// from the fixture of its published schema the operator's envtests use, and
// network.autoMNNVLEnabled is turned on the way an installation does it
// (helm upgrade of the release, which also grants the ComputeDomain RBAC,
// then the operator restarted on the ConfigMap the chart rendered) and off
// again when the spec that needs it ends.
//
// The fake nodes run no containers and no NVIDIA driver creates the
// ResourceClaimTemplate a ComputeDomain's channel names, so the GPU pods
// never run: the specs assert the ComputeDomains and the pod specs Grove
// writes, not that the pods start.

const (
	computeDomainCRD   = "computedomains.resource.nvidia.com"
	computeDomainFile  = "operator/test/mnnvlcrds/resource.nvidia.com_computedomains.yaml"
	mnnvlEnabledValue  = "operator.config.network.autoMNNVLEnabled"
	operatorRole       = "grove:system:grove-operator"
	mnnvlPreflightExit = 7
)

var computeDomainGVK = schema.GroupVersionKind{Group: "resource.nvidia.com", Version: "v1beta1", Kind: "ComputeDomain"}

// mnnvlSet has a GPU clique "gpu", a clique without GPUs "cpu", a GPU clique
// "optout" that opts out with "none", and a scaling group "model" of a GPU
// clique "leader" naming no group of its own; group is the set's
// grove.io/mnnvl-group ("" for none).
func mnnvlSet(ns, name, group string) *grovecorev1alpha1.PodCliqueSet {
	clique := func(cname string, gpus int64, annotations map[string]string) grovecorev1alpha1.PodCliqueTemplateSpec {
		main := corev1.Container{Name: "main", Image: "registry.example/engine:1"}
		if gpus > 0 {
			q := *resource.NewQuantity(gpus, resource.DecimalSI)
			main.Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{gpuResource: q, corev1.ResourceCPU: resource.MustParse("100m")},
				Limits:   corev1.ResourceList{gpuResource: q},
			}
		}
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: cname, Annotations: annotations,
			Spec: grovecorev1alpha1.PodCliqueSpec{RoleName: cname, Replicas: 1, PodSpec: corev1.PodSpec{
				Containers: []corev1.Container{main, {Name: "proxy", Image: "registry.example/proxy:1"}}}}}
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 2, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
				clique("gpu", 1, nil),
				clique("cpu", 0, nil),
				clique("optout", 1, map[string]string{apicommon.AnnotationMNNVLGroup: apicommon.MNNVLGroupNone}),
				clique("leader", 1, nil),
			},
			PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "model", CliqueNames: []string{"leader"}}},
		}},
	}
	if group != "" {
		pcs.Annotations = map[string]string{apicommon.AnnotationMNNVLGroup: group}
	}
	return pcs
}

// listComputeDomains returns the ComputeDomains of namespace ns by name.
func listComputeDomains(g Gomega, ns string) []unstructured.Unstructured {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(computeDomainGVK.GroupVersion().WithKind("ComputeDomainList"))
	g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].GetName() < list.Items[j].GetName() })
	return list.Items
}

func computeDomainNames(g Gomega, ns string) []string {
	names := []string{}
	for _, cd := range listComputeDomains(g, ns) {
		names = append(names, cd.GetName())
	}
	return names
}

// mnnvlClaims maps each pod of a set, by its PodClique, to
// "<pod claim>-><template>,…|<container>=<claims>;…".
func mnnvlClaims(g Gomega, ns, pcsName string) map[string]string {
	out := map[string]string{}
	for _, p := range listPods(g, ns, pcsName) {
		var s strings.Builder
		for _, rc := range p.Spec.ResourceClaims {
			tmpl := ""
			if rc.ResourceClaimTemplateName != nil {
				tmpl = *rc.ResourceClaimTemplateName
			}
			s.WriteString(rc.Name + "->" + tmpl + ",")
		}
		s.WriteString("|")
		for _, c := range p.Spec.Containers {
			s.WriteString(c.Name + "=")
			for _, cl := range c.Resources.Claims {
				s.WriteString(cl.Name)
			}
			s.WriteString(";")
		}
		out[p.Labels[apicommon.LabelPodClique]] = s.String()
	}
	return out
}

// noMNNVLClaims is what mnnvlClaims shows for a pod without MNNVL claims.
const noMNNVLClaims = "|main=;proxy=;"

// expectNoMNNVL waits for the set's 8 pods and checks that none has a claim.
func expectNoMNNVL(ns, pcsName string) {
	GinkgoHelper()
	Eventually(func(g Gomega) map[string]string { return mnnvlClaims(g, ns, pcsName) }).Should(HaveLen(8))
	for pclq, claims := range mnnvlClaims(Default, ns, pcsName) {
		Expect(claims).To(Equal(noMNNVLClaims), pclq)
	}
}

// computeDomainCRDServed reports whether the ComputeDomain CRD exists.
func computeDomainCRDServed() bool {
	GinkgoHelper()
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	err := k8s.Get(ctx, client.ObjectKey{Name: computeDomainCRD}, crd)
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return true
}

// installComputeDomainCRD creates the CRD from the fixture and waits until
// the API server serves ComputeDomains.
func installComputeDomainCRD() {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(repoRoot, computeDomainFile))
	Expect(err).NotTo(HaveOccurred())
	crd := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal(b, &crd.Object)).To(Succeed())
	Expect(k8s.Create(ctx, crd)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8s.RESTMapper().RESTMapping(computeDomainGVK.GroupKind(), computeDomainGVK.Version)).NotTo(BeNil())
		listComputeDomains(g, "default")
	}).Should(Succeed())
}

// removeComputeDomainCRD deletes the CRD and waits until it is gone.
func removeComputeDomainCRD() {
	GinkgoHelper()
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	crd.SetName(computeDomainCRD)
	Expect(client.IgnoreNotFound(k8s.Delete(ctx, crd))).To(Succeed())
	Eventually(computeDomainCRDServed).Should(BeFalse())
}

// helmSetMNNVL upgrades the release with network.autoMNNVLEnabled set to on,
// keeping the cluster's other values, and restarts grove-operator so it reads
// the configuration the chart rendered.
func helmSetMNNVL(on bool) {
	GinkgoHelper()
	helmPath, err := exec.Command(filepath.Join(repoRoot, "hack", "helm.sh")).Output()
	Expect(err).NotTo(HaveOccurred())
	value := "false"
	if on {
		value = "true"
	}
	out, err := exec.Command(strings.TrimSpace(string(helmPath)), "upgrade", "grove", filepath.Join(repoRoot, "charts", "grove"),
		"--kubeconfig", filepath.Join(localDir, "kubeconfig"), "--namespace", releaseNamespace,
		"--skip-crds", "--reuse-values", "--set", mnnvlEnabledValue+"="+value).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "helm upgrade --set %s=%s:\n%s", mnnvlEnabledValue, value, out)
	localCluster("kill", "grove-operator")
	localCluster("start", "grove-operator")
}

// operatorMayTouchComputeDomains reports whether grove-operator's ClusterRole
// has a rule for ComputeDomains.
func operatorMayTouchComputeDomains() bool {
	GinkgoHelper()
	role := &rbacv1.ClusterRole{}
	Expect(k8s.Get(ctx, client.ObjectKey{Name: operatorRole}, role)).To(Succeed())
	return slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, computeDomainGVK.Group) && slices.Contains(r.Resources, "computedomains")
	})
}

// runOperatorWithMNNVL runs bin/grove-operator on the cluster's configuration
// with network.autoMNNVLEnabled on, beside the cluster's own operator (the
// preflight comes before it binds any port), and returns its exit code and
// output once it exits.
func runOperatorWithMNNVL() (int, string) {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(localDir, "config", "operator.yaml"))
	Expect(err).NotTo(HaveOccurred())
	cfg := map[string]any{}
	Expect(yaml.Unmarshal(b, &cfg)).To(Succeed())
	cfg["network"] = map[string]any{"autoMNNVLEnabled": true}
	out, err := yaml.Marshal(cfg)
	Expect(err).NotTo(HaveOccurred())
	cfgPath := filepath.Join(GinkgoT().TempDir(), "operator.yaml")
	Expect(os.WriteFile(cfgPath, out, 0o600)).To(Succeed())

	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(runCtx, filepath.Join(repoRoot, "bin", "grove-operator"), "--config="+cfgPath)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(localDir, "kubeconfig-grove-operator"), "POD_NAMESPACE="+releaseNamespace)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err = cmd.Run()
	var exit *exec.ExitError
	Expect(errors.As(err, &exit)).To(BeTrue(), "grove-operator with MNNVL and no ComputeDomain CRD did not fail: %v\n%s", err, output.String())
	return exit.ExitCode(), output.String()
}

var _ = Describe("MNNVL ComputeDomains on the local cluster", Ordered, Serial, func() {
	BeforeAll(func() {
		// An interrupted run may have left MNNVL on or the CRD installed:
		// the operator goes back to the cluster's setting first, so no
		// ComputeDomain watch outlives the CRD.
		if operatorMayTouchComputeDomains() {
			By("turning off the network.autoMNNVLEnabled an interrupted run left on")
			helmSetMNNVL(false)
		}
		if computeDomainCRDServed() {
			By("removing the ComputeDomain CRD an interrupted run left behind")
			removeComputeDomainCRD()
		}
	})
	AfterAll(func() {
		removeComputeDomainCRD()
	})

	It("disabled, CRD absent: a set naming a group is refused, GPU pods get no claim, and an operator started with MNNVL exits 7 naming the CRD", func() {
		ns := newNamespace("mnnvl-off")
		err := k8s.Create(ctx, mnnvlSet(ns, "named", "nvl"))
		Expect(err).To(MatchError(ContainSubstring(`metadata.annotations[grove.io/mnnvl-group]: Forbidden: an MNNVL group other than "none" requires network.autoMNNVLEnabled in the operator configuration`)))

		Expect(k8s.Create(ctx, mnnvlSet(ns, "plain", ""))).To(Succeed())
		expectNoMNNVL(ns, "plain")

		By("grove-operator with network.autoMNNVLEnabled and no ComputeDomain CRD")
		code, out := runOperatorWithMNNVL()
		Expect(code).To(Equal(mnnvlPreflightExit), out)
		Expect(out).To(ContainSubstring("MNNVL preflight"))
		Expect(out).To(ContainSubstring("network.autoMNNVLEnabled is true but the API server does not serve computedomains in resource.nvidia.com/v1beta1: " +
			"install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD) or set network.autoMNNVLEnabled to false"))
	})

	It("disabled, CRD present: no ComputeDomain is made and GPU pods get no claim", func() {
		installComputeDomainCRD()
		ns := newNamespace("mnnvl-crd")
		Expect(k8s.Create(ctx, mnnvlSet(ns, "plain", apicommon.MNNVLGroupNone))).To(Succeed())
		expectNoMNNVL(ns, "plain")
		Consistently(func(g Gomega) []string { return computeDomainNames(g, ns) }).Should(BeEmpty())
	})

	It("enabled, CRD present: a ComputeDomain <pcs>-<i>-<group> per replica, the claim on GPU containers of enrolled cliques only, none with the opt-out, removed with the set", func() {
		By("helm upgrade with network.autoMNNVLEnabled=true and a restart of grove-operator; both undone when the spec ends")
		DeferCleanup(func() {
			helmSetMNNVL(false)
			Expect(operatorMayTouchComputeDomains()).To(BeFalse())
		})
		helmSetMNNVL(true)
		Expect(operatorMayTouchComputeDomains()).To(BeTrue())

		ns := newNamespace("mnnvl-on")
		pcs := mnnvlSet(ns, "inf", "nvl")
		Expect(k8s.Create(ctx, pcs)).To(Succeed())

		By("one ComputeDomain per replica for the group nvl, controlled by the set, with Grove's finalizer")
		Eventually(func(g Gomega) []string { return computeDomainNames(g, ns) }).Should(Equal([]string{"inf-0-nvl", "inf-1-nvl"}))
		for i, cd := range listComputeDomains(Default, ns) {
			Expect(cd.Object["spec"]).To(Equal(map[string]any{
				"numNodes": int64(0),
				"channel":  map[string]any{"resourceClaimTemplate": map[string]any{"name": cd.GetName()}, "allocationMode": "Single"},
			}), cd.GetName())
			Expect(cd.GetFinalizers()).To(Equal([]string{apicommon.FinalizerComputeDomain}), cd.GetName())
			Expect(cd.GetLabels()).To(Equal(map[string]string{
				apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: "inf",
				apicommon.LabelAppNameKey: cd.GetName(), apicommon.LabelComponentKey: apicommon.LabelComponentComputeDomain,
				apicommon.LabelPodCliqueSetReplicaIndex: []string{"0", "1"}[i], apicommon.AnnotationMNNVLGroup: "nvl",
			}), cd.GetName())
			ref := metav1.GetControllerOf(&cd)
			Expect(ref).NotTo(BeNil(), cd.GetName())
			Expect([]string{ref.Kind, ref.Name, string(ref.UID)}).To(Equal([]string{"PodCliqueSet", "inf", string(pcs.UID)}), cd.GetName())
		}

		By("the scaling groups carry the set's group")
		for _, name := range []string{"inf-0-model", "inf-1-model"} {
			pcsg := pcsgRef(ns, name)
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcsg), pcsg)).To(Succeed())
			Expect(pcsg.Annotations).To(HaveKeyWithValue(apicommon.AnnotationMNNVLGroup, "nvl"), name)
		}

		By("GPU containers of enrolled cliques claim their replica's channel; the cpu clique and the opted-out one are untouched")
		Eventually(func(g Gomega) map[string]string { return mnnvlClaims(g, ns, "inf") }).Should(Equal(map[string]string{
			"inf-0-gpu":            "mnnvl-claim->inf-0-nvl,|main=mnnvl-claim;proxy=;",
			"inf-1-gpu":            "mnnvl-claim->inf-1-nvl,|main=mnnvl-claim;proxy=;",
			"inf-0-model-0-leader": "mnnvl-claim->inf-0-nvl,|main=mnnvl-claim;proxy=;",
			"inf-1-model-0-leader": "mnnvl-claim->inf-1-nvl,|main=mnnvl-claim;proxy=;",
			"inf-0-cpu":            noMNNVLClaims, "inf-1-cpu": noMNNVLClaims,
			"inf-0-optout": noMNNVLClaims, "inf-1-optout": noMNNVLClaims,
		}))

		By("a set that opts out with none gets no ComputeDomain and no claim")
		optNS := newNamespace("mnnvl-optout")
		Expect(k8s.Create(ctx, mnnvlSet(optNS, "opted", apicommon.MNNVLGroupNone))).To(Succeed())
		expectNoMNNVL(optNS, "opted")
		Consistently(func(g Gomega) []string { return computeDomainNames(g, optNS) }).Should(BeEmpty())

		By("deleting the set: the operator lifts its finalizer and the ComputeDomains go")
		Expect(k8s.Delete(ctx, pcs)).To(Succeed())
		Eventually(func(g Gomega) []string { return computeDomainNames(g, ns) }).WithTimeout(2 * time.Minute).Should(BeEmpty())
		Eventually(func(g Gomega) bool { return isGone(g, pcsRef(ns, "inf")) }).Should(BeTrue())
	})
})
