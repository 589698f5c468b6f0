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
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/test/cluster"
)

// adminConfig is the local cluster's admin REST config.
func adminConfig() *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(localDir, "kubeconfig"))
	Expect(err).NotTo(HaveOccurred())
	return cfg
}

var (
	scraperOnce sync.Once
	scraper     *cluster.MetricsScraper
)

// metricsScraper scrapes grove-operator's and grove-scheduler's
// authenticated /metrics as a ServiceAccount bound to grove-metrics-reader.
func metricsScraper() *cluster.MetricsScraper {
	scraperOnce.Do(func() {
		var err error
		scraper, err = cluster.NewMetricsScraper(ctx, adminConfig())
		Expect(err).NotTo(HaveOccurred())
	})
	Expect(scraper).NotTo(BeNil(), "an earlier spec failed to set up the metrics scraper")
	return scraper
}

// httpStatusOf is the HTTP status of a refused scrape.
func httpStatusOf(err error) int {
	var se *cluster.HTTPStatusError
	if errors.As(err, &se) {
		return se.StatusCode
	}
	return 0
}

var _ = Describe("Metrics endpoints", func() {
	It("refuse a scrape without a token or with one lacking grove-metrics-reader, and serve one with it", func() {
		env := localClusterEnv()
		endpoints := map[string]struct{ url, metric string }{
			"grove-operator":  {"https://127.0.0.1:" + env["OP_METRICS_PORT"] + "/metrics", "grove_operator_api_requests_total"},
			"grove-scheduler": {"https://127.0.0.1:" + env["SCHED_PORT"] + "/metrics", "grove_gangs_waiting_at_permit"},
		}
		hc := cluster.InsecureHTTPSClient()
		ns := newNamespace("metrics")
		cs, err := kubernetes.NewForConfig(adminConfig())
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "no-metrics"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		otherToken, err := cluster.ServiceAccountToken(ctx, cs, ns, "no-metrics")
		Expect(err).NotTo(HaveOccurred())
		reader := metricsScraper()

		for name, ep := range endpoints {
			By(name + ": no token")
			_, err := cluster.GetWithToken(hc, ep.url, "")
			// controller-runtime's filter refuses what it cannot authenticate;
			// kube-scheduler authenticates it as system:anonymous and then
			// finds it may not get /metrics.
			want := map[string]int{"grove-operator": http.StatusUnauthorized, "grove-scheduler": http.StatusForbidden}[name]
			Expect(httpStatusOf(err)).To(Equal(want), "%s without a token: %v", name, err)

			By(name + ": a ServiceAccount token without grove-metrics-reader")
			_, err = cluster.GetWithToken(hc, ep.url, otherToken)
			Expect(httpStatusOf(err)).To(Equal(http.StatusForbidden), "%s with another ServiceAccount's token: %v", name, err)

			By(name + ": the grove-metrics-reader token")
			body, err := reader.Get(ep.url)
			Expect(err).NotTo(HaveOccurred())
			b, err := io.ReadAll(body)
			_ = body.Close()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(ContainSubstring("\n"+ep.metric), "%s serves its grove_ metrics", name)
		}

		By("grove-operator: no plain HTTP on the metrics port")
		resp, err := http.Get("http://127.0.0.1:" + env["OP_METRICS_PORT"] + "/metrics")
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "Go's TLS server answers plain HTTP with 400")
		By("grove-scheduler: no plain-HTTP endpoint at all")
		_, err = http.Get("http://127.0.0.1:" + env["SCHED_METRICS_PORT"] + "/metrics")
		Expect(err).To(MatchError(ContainSubstring("connection refused")))
	})
})

// editor is the user the authorizer spec impersonates: edit rights in its
// namespace plus every verb on Grove's kinds there.
const editor = "jane"

// grantEditor gives editor the rights of a namespace editor over Grove's kinds.
func grantEditor(ns string) {
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "grove-editor"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{grovecorev1alpha1.GroupName}, Resources: []string{"podcliquesets", "podcliquesets/scale", "podcliques", "podcliques/scale", "podcliquescalinggroups", "podcliquescalinggroups/scale"}, Verbs: []string{"*"}},
			{APIGroups: []string{groveschedulerv1alpha1.GroupName}, Resources: []string{"podgangs"}, Verbs: []string{"*"}},
		},
	}
	Expect(k8s.Create(ctx, role)).To(Succeed())
	for _, ref := range []rbacv1.RoleRef{
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
	} {
		Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: editor + "-" + strings.ToLower(ref.Kind)},
			RoleRef:    ref,
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: editor}},
		})).To(Succeed())
	}
}

// kubectlAs runs the local cluster's kubectl as user (impersonated by the
// admin) and returns its output and error.
func kubectlAs(user string, args ...string) (string, error) {
	bins, err := filepath.Glob(filepath.Join(repoRoot, "bin", "k8s-*", "kubectl"))
	Expect(err).NotTo(HaveOccurred())
	Expect(bins).NotTo(BeEmpty())
	cmd := exec.Command(bins[0], append([]string{"--kubeconfig", filepath.Join(localDir, "kubeconfig"), "--as", user}, args...)...)
	out, err := cmd.CombinedOutput()
	GinkgoWriter.Printf("$ kubectl --as %s %s\n%s", user, strings.Join(args, " "), out)
	return string(out), err
}

// deniedMessage is the authorizer's answer for one object of PodCliqueSet pcs.
func deniedMessage(what, ns, pcs string) string {
	return fmt.Sprintf(`admission webhook "authorizer.webhooks.grove.io" denied the request: %s is managed by grove-operator for PodCliqueSet %q and only the operator may change it: `+
		`change the PodCliqueSet instead (kubectl edit podcliqueset %s -n %s), or, to change its children directly, annotate it first (kubectl annotate podcliqueset %s -n %s %s=true)`,
		what, pcs, pcs, ns, pcs, ns, apicommon.AnnotationDisableManagedResourceProtection)
}

var _ = Describe("Authorizer webhook", func() {
	It("denies a user's delete of a PodGang and edit of a PodClique with how to do it; the operator, the garbage collector and the bypass annotation still work", func() {
		ns := newNamespace("authz")
		grantEditor(ns)
		pcs := createPCS("samples/user-guide/01_core-concepts/single-node-aggregated.yaml", ns)
		name := pcs.Name
		pgName, pclqName := apicommon.BasePodGangName(name, 0), apicommon.PodCliqueName(name, 0, "model-worker")
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pgName}, &groveschedulerv1alpha1.PodGang{})).To(Succeed())
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pclqName}, &grovecorev1alpha1.PodClique{})).To(Succeed())
		}).Should(Succeed(), "the operator creates the children through the authorizer")

		By("kubectl delete podgang as " + editor)
		out, err := kubectlAs(editor, "delete", "podgang", pgName, "-n", ns, "--wait=false")
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(deniedMessage(`podgangs "`+pgName+`"`, ns, name)))
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pgName}, &groveschedulerv1alpha1.PodGang{})).To(Succeed(), "the PodGang is still there")

		By("editing the PodClique as " + editor)
		out, err = kubectlAs(editor, "patch", "podclique", pclqName, "-n", ns, "--type=merge", "-p", `{"metadata":{"labels":{"edited":"by-hand"}}}`)
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(deniedMessage(`podcliques "`+pclqName+`"`, ns, name)))
		out, err = kubectlAs(editor, "delete", "podclique", pclqName, "-n", ns, "--wait=false")
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(deniedMessage(`podcliques "`+pclqName+`"`, ns, name)))

		By("the operator's own writes: kubectl scale pcs " + name + " --replicas=2 (as " + editor + ")")
		_, err = kubectlAs(editor, "scale", "podcliqueset", name, "-n", ns, "--replicas=2")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.BasePodGangName(name, 1)}, &groveschedulerv1alpha1.PodGang{})).To(Succeed())
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.PodCliqueName(name, 1, "model-worker")}, &grovecorev1alpha1.PodClique{})).To(Succeed())
			pods := listPods(g, ns, name)
			g.Expect(pods).To(HaveLen(4))
			for _, p := range pods {
				g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s", p.Name)
			}
		}).Should(Succeed(), "replica 1's PodClique, PodGang and pods are created and run")

		By("the bypass: kubectl annotate pcs " + name + " " + apicommon.AnnotationDisableManagedResourceProtection + "=true")
		_, err = kubectlAs(editor, "annotate", "podcliqueset", name, "-n", ns, apicommon.AnnotationDisableManagedResourceProtection+"=true")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error {
			_, err := kubectlAs(editor, "label", "podclique", pclqName, "-n", ns, "edited=by-hand", "--overwrite")
			return err
		}).Should(Succeed(), "the webhook sees the annotation once the operator's cache has it")
		pclq := &grovecorev1alpha1.PodClique{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: pclqName}, pclq)).To(Succeed())
		Expect(pclq.Labels).To(HaveKeyWithValue("edited", "by-hand"))

		By("protection again once the annotation is gone")
		_, err = kubectlAs(editor, "annotate", "podcliqueset", name, "-n", ns, apicommon.AnnotationDisableManagedResourceProtection+"-")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string {
			out, _ := kubectlAs(editor, "delete", "podgang", pgName, "-n", ns, "--wait=false", "--dry-run=server")
			return out
		}).Should(ContainSubstring(deniedMessage(`podgangs "`+pgName+`"`, ns, name)))

		By("the garbage collector: kubectl delete pcs " + name + " takes every child with it")
		_, err = kubectlAs(editor, "delete", "podcliqueset", name, "-n", ns, "--wait=false")
		Expect(err).NotTo(HaveOccurred())
		Eventually(childCounts(ns, name)).WithTimeout(120 * time.Second).Should(Equal(map[string]int{
			"PodCliqueScalingGroup": 0, "PodClique": 0, "PodGang": 0, "Pod": 0, "Service": 0, "HorizontalPodAutoscaler": 0,
		}))
	})
})
