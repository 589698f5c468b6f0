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

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

// writePodInfo writes the downward-API files the operator mounts into grove-initc.
func writePodInfo(namespace, podGang string) string {
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, apicommon.PodInfoNamespaceFile), []byte(namespace), 0o600)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, apicommon.PodInfoPodGangFile), []byte(podGang), 0o600)).To(Succeed())
	return dir
}

// startInitc runs grove-initc with args; stderr (its JSON log) is in session.Err.
func startInitc(args ...string) *gexec.Session {
	cmd := exec.Command(initcBinary, args...)
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Kill().Wait() })
	return session
}

// createPod creates a pod labelled as a Grove pod of clique pclq in podGang,
// Ready or not.
func createPod(namespace, name, podGang, pclq string, ready bool) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: namespace,
			Labels:    map[string]string{apicommon.LabelPodGang: podGang, apicommon.LabelPodClique: pclq},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}
	_, err := admin.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	setReady(namespace, name, ready)
}

// setReady writes the pod's Ready condition through the status subresource, as the kubelet would.
func setReady(namespace, name string, ready bool) {
	pod, err := admin.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()},
	}
	_, err = admin.CoreV1().Pods(namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// waitingLine matches grove-initc's progress log for one parent.
func waitingLine(pclq string, ready, required int) string {
	return fmt.Sprintf(`"msg":"Waiting for parent PodClique".*"podclique":"%s","ready":%d,"required":%d,"waitingFor":%d`,
		pclq, ready, required, required-ready)
}

var _ = Describe("grove-initc", func() {
	Describe("waiting for parent PodCliques", Ordered, func() {
		const (
			ns      = "ordering"
			otherNs = "ordering-other"
			podGang = "wl-0"
		)
		var session *gexec.Session

		BeforeAll(func() {
			createNamespace(ns)
			createNamespace(otherNs)
			session = startInitc(
				"--podcliques=wl-0-worker:2",
				"-p", "wl-0-router:1",
				"--pod-info-dir="+writePodInfo(ns, podGang),
				"--kubeconfig="+initcKubeconfig,
			)
		})

		It("reports every parent as waiting once it has listed the PodGang's pods", func() {
			Eventually(session.Err).Should(gbytes.Say(waitingLine("wl-0-worker", 0, 2)))
			Eventually(session.Err).Should(gbytes.Say(waitingLine("wl-0-router", 0, 1)))
		})

		It("ignores Ready pods of a similarly named clique, of other PodGangs and of other namespaces", func() {
			// "worker-b" starts with "worker": a name-prefix match would count these.
			createPod(ns, "wl-0-worker-b-aaaaa", podGang, "wl-0-worker-b", true)
			createPod(ns, "wl-0-worker-b-bbbbb", podGang, "wl-0-worker-b", true)
			// Same clique label, but a scaled PodGang: not in this pod's gang.
			createPod(ns, "wl-0-worker-scaled-1", "wl-0-sg-0", "wl-0-worker", true)
			createPod(ns, "wl-0-worker-scaled-2", "wl-0-sg-0", "wl-0-worker", true)
			// Same labels in another namespace.
			createPod(otherNs, "wl-0-worker-ccccc", podGang, "wl-0-worker", true)
			createPod(otherNs, "wl-0-worker-ddddd", podGang, "wl-0-worker", true)
			createPod(otherNs, "wl-0-router-eeeee", podGang, "wl-0-router", true)

			Consistently(session, 2*time.Second).ShouldNot(gexec.Exit())
			Expect(string(session.Err.Contents())).NotTo(ContainSubstring(`"podclique":"wl-0-worker","ready":1`))
			Expect(string(session.Err.Contents())).NotTo(ContainSubstring(`"podclique":"wl-0-router","ready":1`))
		})

		It("keeps waiting while a parent has fewer Ready pods than required", func() {
			createPod(ns, "wl-0-router-fffff", podGang, "wl-0-router", true)
			createPod(ns, "wl-0-worker-11111", podGang, "wl-0-worker", true)
			createPod(ns, "wl-0-worker-22222", podGang, "wl-0-worker", false)

			Eventually(session.Err).Should(gbytes.Say(`"msg":"Parent PodClique has enough Ready pods".*"podclique":"wl-0-router","ready":1,"required":1`))
			Eventually(session.Err).Should(gbytes.Say(waitingLine("wl-0-worker", 1, 2)))
			Consistently(session, 2*time.Second).ShouldNot(gexec.Exit())
		})

		It("counts a Ready pod that turns unready again as waiting", func() {
			setReady(ns, "wl-0-worker-11111", false)
			Eventually(session.Err).Should(gbytes.Say(waitingLine("wl-0-worker", 0, 2)))
			setReady(ns, "wl-0-worker-11111", true)
			Eventually(session.Err).Should(gbytes.Say(waitingLine("wl-0-worker", 1, 2)))
			Consistently(session, time.Second).ShouldNot(gexec.Exit())
		})

		It("exits 0 within a second of the last required pod turning Ready", func() {
			readyAt := time.Now()
			setReady(ns, "wl-0-worker-22222", true)
			Eventually(session).WithTimeout(time.Second).WithPolling(5 * time.Millisecond).Should(gexec.Exit(0))
			latency := time.Since(readyAt)
			AddReportEntry("grove-initc exit after last parent pod Ready", latency.String())
			GinkgoWriter.Printf("grove-initc exited %s after the last parent pod turned Ready\n", latency)
			Expect(latency).To(BeNumerically("<", time.Second))
			Expect(session.Err).To(gbytes.Say(`"msg":"Successfully waited for all parent PodCliques to start up"`))
		})
	})

	It("exits 0 at once when the parents are already Ready", func() {
		const ns = "already-ready"
		createNamespace(ns)
		createPod(ns, "pcs-0-mpi-0-worker-aaaaa", "pcs-0", "pcs-0-mpi-0-worker", true)
		started := time.Now()
		session := startInitc("-p", "pcs-0-mpi-0-worker:1", "--pod-info-dir="+writePodInfo(ns, "pcs-0"), "--kubeconfig="+initcKubeconfig)
		Eventually(session).WithTimeout(10 * time.Second).Should(gexec.Exit(0))
		GinkgoWriter.Printf("grove-initc with satisfied parents ran for %s\n", time.Since(started))
	})

	It("exits with 143 and says why on SIGTERM", func() {
		const ns = "terminated"
		createNamespace(ns)
		session := startInitc("-p", "pcs-0-leader:1", "--pod-info-dir="+writePodInfo(ns, "pcs-0"), "--kubeconfig="+initcKubeconfig)
		Eventually(session.Err).Should(gbytes.Say(waitingLine("pcs-0-leader", 0, 1)))
		session.Terminate()
		Eventually(session).WithTimeout(5 * time.Second).Should(gexec.Exit(143))
		Expect(session.Err).To(gbytes.Say(`"msg":"Stopped by signal before the parent PodCliques were ready".*"signal":"terminated"`))
	})

	DescribeTable("rejects bad input with exit code 1 and a message naming it",
		func(args []string, want string) {
			podInfo := writePodInfo("default", "pcs-0")
			args = append(args, "--kubeconfig="+initcKubeconfig)
			for i, a := range args {
				if a == "POD_INFO" {
					args[i] = "--pod-info-dir=" + podInfo
				}
			}
			session := startInitc(args...)
			Eventually(session).WithTimeout(5 * time.Second).Should(gexec.Exit(1))
			Expect(string(session.Err.Contents())).To(ContainSubstring(want))
			Expect(string(session.Err.Contents())).To(ContainSubstring(`"code":"ERR_INVALID_INPUT"`))
		},
		Entry("name without count", []string{"--podcliques=foo", "POD_INFO"}, "invalid --podcliques=foo:"),
		Entry("zero count", []string{"--podcliques=foo:0", "POD_INFO"}, "invalid --podcliques=foo:0: minAvailable must be greater than 0"),
		Entry("count not a number", []string{"--podcliques=foo:x", "POD_INFO"}, `invalid --podcliques=foo:x: minAvailable \"x\" is not a whole number`),
		Entry("empty name", []string{"-p", ":2", "POD_INFO"}, "invalid --podcliques=:2: PodClique name is empty"),
		Entry("no --podcliques at all", []string{"POD_INFO"}, "no parent PodClique given"),
		Entry("missing pod info files", []string{"-p", "foo:1", "--pod-info-dir=/nonexistent/pod-info"}, "reading pod info file /nonexistent/pod-info/namespace"),
	)
})
