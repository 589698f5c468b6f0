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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	statusReady = "test/testdata/e2e/status-ready.yaml"
	statusNoFit = "test/testdata/e2e/status-nofit.yaml"
	// goldenDir holds what `kubectl grove` prints, normalized (normalize);
	// GROVE_UPDATE_GOLDEN=1 rewrites the files from the cluster.
	goldenDir = "test/e2e/testdata/kubectl-grove"
)

// pluginDir is where the spec container built kubectl-grove; kubectl finds
// it on the PATH.
var pluginDir string

// userKubectl runs the local cluster's kubectl as a user would, with
// KUBECONFIG set and kubectl-grove on the PATH, and returns its combined
// output and error.
func userKubectl(args ...string) (string, error) {
	GinkgoHelper()
	bins, err := filepath.Glob(filepath.Join(repoRoot, "bin", "k8s-*", "kubectl"))
	Expect(err).NotTo(HaveOccurred())
	Expect(bins).NotTo(BeEmpty(), "no kubectl under bin/ (make control-plane)")
	cmd := exec.Command(bins[0], args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(localDir, "kubeconfig"), "PATH="+pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	GinkgoWriter.Printf("$ kubectl %s\n%s", strings.Join(args, " "), out)
	return string(out), err
}

var (
	podSuffix = regexp.MustCompile(`((?:pod |Pod \S+/)\S+)-[a-z0-9]{5}\b`)
	when      = regexp.MustCompile(`\((?:x\d+, last )?[0-9smhd]+ ago\)`)
	ageColumn = regexp.MustCompile(`\s+\d+[smhd][0-9smhd]*\n`)
)

// normalize makes kubectl output comparable across runs: the spec's
// namespace, the random suffixes of pod names, event ages and counts, the
// AGE column and the number of nodes in the cluster.
func normalize(out, ns string, nodes int) string {
	out = strings.ReplaceAll(out, ns, "NAMESPACE")
	out = podSuffix.ReplaceAllString(out, "$1-xxxxx")
	out = when.ReplaceAllString(out, "(WHEN)")
	out = ageColumn.ReplaceAllString(out, " AGE\n")
	return strings.ReplaceAll(out, strconv.Itoa(nodes)+" ", "NODES ")
}

// expectGolden compares kubectl's normalized output with a golden file, or
// rewrites the file when GROVE_UPDATE_GOLDEN=1.
func expectGolden(g Gomega, name, out string) {
	path := filepath.Join(repoRoot, goldenDir, name+".golden")
	if os.Getenv("GROVE_UPDATE_GOLDEN") == "1" {
		g.Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
		g.Expect(os.WriteFile(path, []byte(out), 0o644)).To(Succeed())
		return
	}
	want, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(string(want)), "kubectl output differs from %s", path)
}

func nodeCount() int {
	nodes := &corev1.NodeList{}
	Expect(k8s.List(ctx, nodes)).To(Succeed())
	return len(nodes.Items)
}

// updateEventCount counts an event on a PodCliqueSet, repetitions the
// recorder folded into one series included.
func updateEventCount(g Gomega, ns, pcsName, reason string) int {
	list := &corev1.EventList{}
	g.Expect(k8s.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == "PodCliqueSet" && e.InvolvedObject.Name == pcsName && e.Reason == reason {
			switch {
			case e.Series != nil && e.Series.Count > 0:
				n += int(e.Series.Count)
			default:
				n += max(1, int(e.Count))
			}
		}
	}
	return n
}

var _ = Describe("Status a user can act on", Ordered, ContinueOnFailure, func() {
	BeforeAll(func() {
		pluginDir = GinkgoT().TempDir()
		build := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "kubectl-grove"), "./api/cmd/kubectl-grove")
		build.Dir = repoRoot
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "building kubectl-grove:\n%s", out)
		out, err = exec.Command(filepath.Join(pluginDir, "kubectl-grove"), "--help").CombinedOutput()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(HavePrefix("kubectl grove explains Grove's PodCliqueSets."))
	})

	It("ST1: kubectl wait --for=condition=Ready returns once every replica is available; kubectl get and kubectl grove show it", func() {
		ns := newNamespace("st-ready")
		createPCS(statusReady, ns)

		out, err := userKubectl("wait", "--for=condition=Ready", "pcs/ready", "-n", ns, "--timeout=120s")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(Equal("podcliqueset.grove.io/ready condition met\n"))
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ready"}, pcs)).To(Succeed())
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeReady)
		Expect(c).NotTo(BeNil())
		Expect(c.Reason + ": " + c.Message).To(Equal("AllReplicasAvailable: 1 of 1 replicas available"))

		nodes := nodeCount()
		for _, cmd := range []struct {
			golden string
			args   []string
		}{
			{golden: "get-pcs-ready", args: []string{"get", "pcs", "-n", ns}},
			{golden: "get-pcs-ready-wide", args: []string{"get", "pcs", "-n", ns, "-o", "wide"}},
			{golden: "get-grove-ready", args: []string{"get", "grove", "-n", ns, "-l", apicommon.LabelPartOfKey + "=ready"}},
		} {
			Eventually(func(g Gomega) {
				out, err := userKubectl(cmd.args...)
				g.Expect(err).NotTo(HaveOccurred())
				expectGolden(g, cmd.golden, normalize(out, ns, nodes))
			}).Should(Succeed())
		}
		Eventually(func(g Gomega) {
			out, err := userKubectl("grove", "status", "ready", "-n", ns)
			g.Expect(err).NotTo(HaveOccurred())
			expectGolden(g, "status-ready", normalize(out, ns, nodes))
		}).Should(Succeed())
	})

	It("ST2: kubectl wait times out on a gang that cannot fit, and kubectl grove status and why say which constraint excluded the nodes", func() {
		ns := newNamespace("st-nofit")
		createPCS(statusNoFit, ns)
		Eventually(func(g Gomega) {
			pg := &groveschedulerv1alpha1.PodGang{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nofit-0"}, pg)).To(Succeed())
			c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeScheduled)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(groveschedulerv1alpha1.PodGangReasonUnschedulable))
		}).Should(Succeed())

		out, err := userKubectl("wait", "--for=condition=Ready", "pcs/nofit", "-n", ns, "--timeout=10s")
		Expect(err).To(HaveOccurred(), "kubectl wait returned on a set that cannot be scheduled:\n%s", out)
		Expect(out).To(ContainSubstring("timed out waiting for the condition on podcliquesets/nofit"))

		nodes := nodeCount()
		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodCliquePodIndex: "0"})).To(Succeed())
		Expect(pods.Items).To(HaveLen(1))
		for _, cmd := range []struct {
			golden string
			args   []string
		}{
			{golden: "status-nofit", args: []string{"grove", "status", "nofit", "-n", ns}},
			{golden: "why-pg-nofit", args: []string{"grove", "why", "pg", "nofit-0", "-n", ns}},
			{golden: "why-pclq-nofit", args: []string{"grove", "why", "podclique/nofit-0-big", "-n", ns}},
			{golden: "why-pod-nofit", args: []string{"grove", "why", "pod", pods.Items[0].Name, "-n", ns}},
			{golden: "get-pg-nofit", args: []string{"get", "podgangs.scheduler.grove.io", "-n", ns}},
		} {
			Eventually(func(g Gomega) {
				out, err := userKubectl(cmd.args...)
				g.Expect(err).NotTo(HaveOccurred())
				expectGolden(g, cmd.golden, normalize(out, ns, nodes))
			}).Should(Succeed())
		}
	})

	It("ST3: an image update posts UpdateStarted, ReplicaUpdateStarted and UpdateCompleted exactly once each", func() {
		ns := newNamespace("st-update")
		pcs := createPCS(statusReady, ns)
		out, err := userKubectl("wait", "--for=condition=Ready", "pcs/ready", "-n", ns, "--timeout=120s")
		Expect(err).NotTo(HaveOccurred(), out)

		By("changing the frontend's image")
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcs), pcs)).To(Succeed())
		patch := client.MergeFrom(pcs.DeepCopy())
		pcs.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "registry.example/frontend:2"
		Expect(k8s.Patch(ctx, pcs, patch)).To(Succeed())

		By("waiting for the update to complete and the set to be Ready again")
		Eventually(func(g Gomega) {
			got := &grovecorev1alpha1.PodCliqueSet{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pcs), got)).To(Succeed())
			g.Expect(got.Status.UpdateProgress).NotTo(BeNil())
			g.Expect(got.Status.UpdateProgress.UpdateEndedAt).NotTo(BeNil())
			for t, want := range map[string]string{
				grovecorev1alpha1.ConditionTypeUpdateInProgress: "False/" + grovecorev1alpha1.ConditionReasonUpdateCompleted,
				grovecorev1alpha1.ConditionTypeReady:            "True/" + grovecorev1alpha1.ConditionReasonAllReplicasAvailable,
			} {
				c := meta.FindStatusCondition(got.Status.Conditions, t)
				g.Expect(c).NotTo(BeNil())
				g.Expect(fmt.Sprintf("%s/%s", c.Status, c.Reason)).To(Equal(want), t)
			}
		}).Should(Succeed())

		By("each update event exists once, and stays once")
		reasons := []string{"UpdateStarted", "ReplicaUpdateStarted", "UpdateCompleted"}
		counts := func(g Gomega) []int {
			var out []int
			for _, r := range reasons {
				out = append(out, updateEventCount(g, ns, "ready", r))
			}
			return out
		}
		Eventually(counts).Should(Equal([]int{1, 1, 1}), "events %v", reasons)
		Consistently(counts).WithTimeout(10*time.Second).Should(Equal([]int{1, 1, 1}), "events %v", reasons)
	})
})
