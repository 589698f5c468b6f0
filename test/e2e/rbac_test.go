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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// releaseNamespace is where hack/local-cluster installs the chart.
const releaseNamespace = "grove-system"

// canICheck is one row of the checked-permission table in
// docs/installation.md: `kubectl auth can-i VERB RESOURCE [NAME]` as the
// ServiceAccount, in every namespace ("all") or one, with the answer.
// RESOURCE may end in /SUBRESOURCE.
type canICheck struct {
	serviceAccount, verb, resource, name, scope string
	allowed                                     bool
}

func (c canICheck) String() string {
	s := c.serviceAccount + ": " + c.verb + " " + c.resource
	if c.name != "" {
		s += " " + c.name
	}
	return s + " in " + c.scope
}

// documentedChecks reads the rows between the can-i-table markers of
// docs/installation.md: | ServiceAccount | verb | resource | name | scope | allowed |.
func documentedChecks() []canICheck {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "installation.md"))
	Expect(err).NotTo(HaveOccurred())
	var checks []canICheck
	in := false
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		switch line {
		case "<!-- can-i-table begin -->":
			in = true
			continue
		case "<!-- can-i-table end -->":
			in = false
			continue
		}
		if !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| ServiceAccount") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		Expect(cells).To(HaveLen(6), "malformed can-i row %q", line)
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		Expect(cells[5]).To(BeElementOf("yes", "no"), "row %q: allowed must be yes or no", line)
		name := cells[3]
		if name == "-" {
			name = ""
		}
		checks = append(checks, canICheck{
			serviceAccount: cells[0], verb: cells[1], resource: cells[2], name: name, scope: cells[4], allowed: cells[5] == "yes",
		})
	}
	Expect(checks).NotTo(BeEmpty(), "docs/installation.md has no can-i table")
	return checks
}

// localKubectl is the kubectl hack/local-cluster uses, from `hack/local-cluster env`.
func localKubectl() string {
	cmd := exec.Command(filepath.Join(repoRoot, "hack", "local-cluster"), "env")
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+localDir)
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred())
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "KUBECTL="); ok {
			return v
		}
	}
	Fail("hack/local-cluster env printed no KUBECTL")
	return ""
}

// canI asks `kubectl auth can-i VERB RESOURCE[/NAME] [--subresource SUB]`
// with the kubeconfig, as the user when as is set, in the namespace ("" for
// all namespaces), and returns the answer, "yes" or "no". Warnings (a
// resource the cluster does not serve) go to stderr and are not read.
func canI(kubectl, kubeconfig, as, verb, resource, name, namespace string) string {
	resource, subresource, _ := strings.Cut(resource, "/")
	if name != "" {
		resource += "/" + name // can-i takes a name as RESOURCE/NAME
	}
	args := []string{"--kubeconfig", kubeconfig, "auth", "can-i", verb, resource}
	if subresource != "" {
		args = append(args, "--subresource", subresource)
	}
	if namespace == "" {
		args = append(args, "--all-namespaces")
	} else {
		args = append(args, "--namespace", namespace)
	}
	if as != "" {
		args = append(args, "--as", as)
	}
	var stderr strings.Builder
	cmd := exec.Command(kubectl, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	answer := strings.TrimSpace(string(out))
	// can-i exits 1 with "no" when denied; any other failure is an error.
	if err != nil && answer != "no" {
		Fail(fmt.Sprintf("kubectl %s: %v: %s%s", strings.Join(args, " "), err, answer, stderr.String()))
	}
	return answer
}

// backendProbes names, per scheduler backend profile, the group and resource
// of the objects the backend translates PodGangs into: the operator may write
// and watch them only when the profile is enabled
// (charts/grove/files/backend-rbac).
var backendProbes = map[string]schema.GroupResource{
	"default-scheduler":           {Group: "scheduling.k8s.io", Resource: "workloads"},
	"scheduler-plugins-scheduler": {Group: "scheduling.x-k8s.io", Resource: "podgroups"},
	"volcano":                     {Group: "scheduling.volcano.sh", Resource: "podgroups"},
	"kai-scheduler":               {Group: "scheduling.run.ai", Resource: "podgroups"},
}

// allowedTo asks the API server's authorizer, through a SubjectAccessReview,
// whether the release's ServiceAccount may do verb on the group's resource in
// every namespace. Unlike kubectl auth can-i it needs no discovery, so it
// answers for kinds the cluster does not serve (kubectl then asks about a
// core resource of that dotted name, which is always no).
func allowedTo(serviceAccount, verb string, gr schema.GroupResource) bool {
	GinkgoHelper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + releaseNamespace + ":" + serviceAccount,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + releaseNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: gr.Group, Resource: gr.Resource},
	}}
	Expect(k8s.Create(ctx, review)).To(Succeed())
	return review.Status.Allowed
}

var _ = Describe("RBAC of the chart's ServiceAccounts", Label("rbac"), func() {
	It("answers kubectl auth can-i for grove-operator and grove-scheduler as docs/installation.md documents", func() {
		checks := documentedChecks()
		kubectl := localKubectl()
		denied := map[string]bool{}
		for _, c := range checks {
			scope := c.scope
			if scope == "all" {
				scope = ""
			}
			answer := canI(kubectl, filepath.Join(localDir, "kubeconfig"), "system:serviceaccount:"+releaseNamespace+":"+c.serviceAccount, c.verb, c.resource, c.name, scope)
			want := "no"
			if c.allowed {
				want = "yes"
			}
			Expect(answer).To(Equal(want), "%s: kubectl auth can-i answered %q", c, answer)
			if !c.allowed {
				denied[c.serviceAccount+" "+c.verb+" "+c.resource+" "+c.scope] = true
			}
		}
		By("the table denies both ServiceAccounts every Secret list, everything everywhere, and deleting nodes")
		for _, sa := range []string{"grove-operator", "grove-scheduler"} {
			for _, must := range []string{"list secrets all", "* * all", "delete nodes all"} {
				Expect(denied).To(HaveKey(sa+" "+must), "docs/installation.md has no denied row %q for %s", must, sa)
			}
		}
	})

	It("grants grove-operator the objects of exactly the scheduler backends its configuration enables", func() {
		var args []string
		for _, a := range processArgs("grove-operator") {
			if v, ok := strings.CutPrefix(a, "--config="); ok {
				args = append(args, v)
			}
		}
		Expect(args).To(HaveLen(1), "grove-operator runs without one --config")
		raw, err := os.ReadFile(args[0])
		Expect(err).NotTo(HaveOccurred())
		var config struct {
			Scheduler struct {
				Profiles []struct {
					Name   string         `json:"name"`
					Config map[string]any `json:"config"`
				} `json:"profiles"`
			} `json:"scheduler"`
		}
		Expect(yaml.Unmarshal(raw, &config)).To(Succeed())
		enabled := map[string]bool{}
		for _, p := range config.Scheduler.Profiles {
			// default-scheduler writes Workload API objects only with gangScheduling.
			enabled[p.Name] = p.Name != "default-scheduler" || p.Config["gangScheduling"] == true
		}
		// The local cluster enables some backends and leaves others out, so both answers are checked.
		Expect(enabled).To(HaveKeyWithValue("volcano", true))
		Expect(enabled).NotTo(HaveKey("kai-scheduler"))
		for profile, gr := range backendProbes {
			for _, verb := range []string{"create", "delete", "watch"} {
				Expect(allowedTo("grove-operator", verb, gr)).To(Equal(enabled[profile]), "profile %s (enabled: %v): %s %s", profile, enabled[profile], verb, gr)
			}
		}
		By("KAI Topologies are read only for an enabled kai-scheduler profile")
		Expect(allowedTo("grove-operator", "get", schema.GroupResource{Group: "kai.scheduler", Resource: "topologies"})).To(BeFalse())
		By("the review answers as kubectl auth can-i does for a served kind")
		Expect(allowedTo("grove-operator", "create", schema.GroupResource{Group: "scheduling.k8s.io", Resource: "workloads"})).To(BeTrue())
		Expect(canI(localKubectl(), filepath.Join(localDir, "kubeconfig"), "system:serviceaccount:"+releaseNamespace+":grove-operator", "create", "workloads.scheduling.k8s.io", "", "")).To(Equal("yes"))
		Expect(allowedTo("grove-operator", "delete", schema.GroupResource{Resource: "nodes"})).To(BeFalse())
	})

	It("runs grove-operator and grove-scheduler on ServiceAccount tokens, with no client certificate", func() {
		kubectl := localKubectl()
		for _, sa := range []string{"grove-operator", "grove-scheduler"} {
			kc := filepath.Join(localDir, "kubeconfig-"+sa)
			raw, err := os.ReadFile(kc)
			Expect(err).NotTo(HaveOccurred())
			var cfg struct {
				Users []struct {
					User map[string]any `json:"user"`
				} `json:"users"`
			}
			Expect(yaml.Unmarshal(raw, &cfg)).To(Succeed())
			Expect(cfg.Users).To(HaveLen(1))
			Expect(cfg.Users[0].User).To(HaveKey("token"))
			Expect(cfg.Users[0].User).NotTo(HaveKey("client-certificate-data"))
			Expect(cfg.Users[0].User).NotTo(HaveKey("client-certificate"))
			out, err := exec.Command(kubectl, "--kubeconfig", kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			Expect(string(out)).To(Equal("system:serviceaccount:" + releaseNamespace + ":" + sa))
		}
		By("the running processes use those kubeconfigs")
		Expect(processEnv("grove-operator")).To(ContainElement("KUBECONFIG=" + filepath.Join(localDir, "kubeconfig-grove-operator")))
		args := processArgs("grove-scheduler")
		Expect(args).To(ContainElement("--kubeconfig=" + filepath.Join(localDir, "kubeconfig-grove-scheduler")))
		var schedConfig string
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--config="); ok {
				schedConfig = v
			}
		}
		Expect(schedConfig).NotTo(BeEmpty(), "grove-scheduler runs without --config: %v", args)
		sched, err := os.ReadFile(schedConfig)
		Expect(err).NotTo(HaveOccurred())
		// With --config, kube-scheduler takes its kubeconfig from clientConnection.
		Expect(string(sched)).To(ContainSubstring("kubeconfig: " + filepath.Join(localDir, "kubeconfig-grove-scheduler")))
	})

	It("binds the grove-initc Role of a new PodCliqueSet on the first try, as grove-operator's ServiceAccount", func() {
		ns := newNamespace("rbac")
		// Only a set whose startup order needs grove-initc gets its Role.
		pcs := pairPCS(ns, "ordered", grovecorev1alpha1.CliqueStartupTypeInOrder)
		Expect(k8s.Create(ctx, pcs)).To(Succeed())
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.InitcRoleBindingName(pcs.Name)}, &rbacv1.RoleBinding{})
		}).Should(Succeed())
		// The API server refuses a binding whose Role it cannot resolve yet;
		// the operator applies the RoleBinding only after the Role.
		Consistently(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			for _, e := range events.Items {
				g.Expect(e.Reason).NotTo(Equal("RoleBindingCreateOrUpdateFailed"), "event %s: %s", e.Reason, e.Message)
			}
		}, "3s").Should(Succeed())
	})

	It("runs kwok as system:kwok, which may move pods and nodes along but not create, delete nodes or read Secrets", func() {
		kubectl := localKubectl()
		kc := filepath.Join(localDir, "kubeconfig-kwok")
		Expect(processArgs("kwok")).To(ContainElement("--kubeconfig=" + kc))
		out, err := exec.Command(kubectl, "--kubeconfig", kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(Equal("system:kwok"))
		for _, c := range []struct {
			verb, resource, subresource, namespace string
			allowed                                bool
		}{
			{"patch", "pods", "status", "default", true},
			{"delete", "pods", "", "default", true},
			{"patch", "nodes", "status", "", true},
			{"update", "leases.coordination.k8s.io", "", "kube-node-lease", true},
			{"create", "pods", "", "default", false},
			{"delete", "nodes", "", "", false},
			{"list", "secrets", "", "default", false},
			{"patch", "podcliques.grove.io", "", "default", false},
		} {
			resource := c.resource
			if c.subresource != "" {
				resource += "/" + c.subresource
			}
			answer := canI(kubectl, kc, "", c.verb, resource, "", c.namespace)
			want := map[bool]string{true: "yes", false: "no"}[c.allowed]
			Expect(answer).To(Equal(want), "kwok: kubectl auth can-i %s %s/%s in %q", c.verb, c.resource, c.subresource, c.namespace)
		}
	})
})

// processFile reads /proc/<pid>/<name> of a local-cluster component, whose
// PID hack/local-cluster records in pids/<component>.
func processFile(component, name string) []string {
	pidLine, err := os.ReadFile(filepath.Join(localDir, "pids", component))
	Expect(err).NotTo(HaveOccurred(), "%s is not running", component)
	fields := strings.Fields(string(pidLine))
	Expect(fields).NotTo(BeEmpty())
	raw, err := os.ReadFile(filepath.Join("/proc", fields[0], name))
	Expect(err).NotTo(HaveOccurred())
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}

func processEnv(component string) []string  { return processFile(component, "environ") }
func processArgs(component string) []string { return processFile(component, "cmdline") }
