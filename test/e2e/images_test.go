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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// startupOrderPCS has a worker clique that starts after its leader: the
// operator injects grove-initc into the worker's pods.
const startupOrderPCS = `
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {name: ordered}
spec:
  replicas: 1
  template:
    cliqueStartupType: CliqueStartupTypeExplicit
    cliques:
    - name: leader
      spec:
        replicas: 2
        podSpec: &pod
          tolerations: [{key: fake-node, operator: Equal, value: "true", effect: NoSchedule}]
          containers: [{name: engine, image: registry.example/engine:1, resources: {requests: {cpu: 100m}}}]
    - name: worker
      spec:
        replicas: 1
        startsAfter: [leader]
        podSpec: *pod
`

// createStartupOrderPCS creates startupOrderPCS in ns, waits until its three
// pods run and returns the worker's pod.
func createStartupOrderPCS(ns string) corev1.Pod {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	Expect(yaml.UnmarshalStrict([]byte(startupOrderPCS), pcs)).To(Succeed())
	pcs.Namespace = ns
	Expect(k8s.Create(ctx, pcs)).To(Succeed())
	expectRunningLayout(ns, "ordered", map[string]int{"ordered-0-leader": 2, "ordered-0-worker": 1}, fakeNodeName)
	pods := &corev1.PodList{}
	Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPodClique: "ordered-0-worker"})).To(Succeed())
	Expect(pods.Items).To(HaveLen(1))
	return pods.Items[0]
}

// runInitc runs pod's grove-initc init container from its image as a kubelet
// would (hack/local-cluster initc) and returns its exit code and output.
func runInitc(ctx context.Context, ns, pod string, extraArgs ...string) (int, string) {
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, "hack", "local-cluster"), append([]string{"initc", ns, pod}, extraArgs...)...)
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+localDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	Fail("running hack/local-cluster initc: " + err.Error() + "\n" + out.String())
	return -1, ""
}

// Runs only on a cluster brought up with --from-images (make e2e-images):
// elsewhere no grove-initc image is loaded.
var _ = Describe("grove-initc image", Label("images"), func() {
	BeforeEach(func() {
		if _, err := os.Stat(filepath.Join(localDir, "from-images")); err != nil {
			Skip("the local cluster does not run from images (make e2e-images)")
		}
	})

	It("IMG1: the grove-initc image, run with the arguments the operator injects, exits 0 once the parent clique is Ready", func() {
		ns := newNamespace("initc-image")
		worker := createStartupOrderPCS(ns)
		Expect(worker.Spec.InitContainers).To(HaveLen(1))
		initc := worker.Spec.InitContainers[0]
		Expect(initc.Name).To(Equal(apicommon.InitContainerName))
		Expect(initc.Args).To(Equal([]string{"--podcliques=ordered-0-leader:2"}))
		Expect(initc.Image).To(ContainSubstring("grove-initc:"))

		code, out := runInitc(ctx, ns, worker.Name)
		Expect(code).To(Equal(0), "grove-initc exited %d:\n%s", code, out)
		Expect(out).To(ContainSubstring(`"msg":"Waiting for parent PodCliques","namespace":"` + ns + `"`))
		Expect(out).To(ContainSubstring(`"parents":["ordered-0-leader:2"]`))
		Expect(out).To(ContainSubstring("Successfully waited for all parent PodCliques to start up"))
	})

	It("IMG2: the grove-initc image keeps waiting while the parent clique has fewer Ready pods than it asks for", func() {
		ns := newNamespace("initc-wait")
		worker := createStartupOrderPCS(ns)

		// Asking for 3 Ready leader pods where 2 exist: grove-initc must still
		// be waiting when it is stopped after 15 s.
		code, out := runInitc(ctx, ns, worker.Name, "--timeout", "15", "--podcliques=ordered-0-leader:3")
		Expect(out).To(ContainSubstring(`"parents":["ordered-0-leader:3"]`))
		Expect(out).NotTo(ContainSubstring("Successfully waited"))
		Expect(code).NotTo(Equal(0), "grove-initc exited 0 without 3 Ready leader pods:\n%s", out)
	})
})
