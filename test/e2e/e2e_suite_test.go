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
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

var (
	ctx = context.Background()
	// k8s talks to the local cluster's kube-apiserver as cluster admin.
	k8s client.Client
	// repoRoot is the repository checkout the suite runs from.
	repoRoot string
	// localDir is the local cluster's state directory (GROVE_LOCAL_DIR).
	localDir string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	SetDefaultConsistentlyDuration(4 * time.Second)
	SetDefaultConsistentlyPollingInterval(200 * time.Millisecond)
	RunSpecs(t, "Grove end-to-end suite")
}

var _ = BeforeSuite(func() {
	// The suite's clients log through Ginkgo, shown only for a failing spec.
	logf.SetLogger(GinkgoLogr)
	_, thisFile, _, _ := runtime.Caller(0)
	repoRoot = filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	localDir = os.Getenv("GROVE_LOCAL_DIR")
	if localDir == "" {
		localDir = filepath.Join(repoRoot, ".local-cluster")
	}

	status := exec.Command(filepath.Join(repoRoot, "hack", "local-cluster"), "status")
	status.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+localDir)
	out, err := status.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "the local cluster is not healthy (start it with `hack/local-cluster up` or `make e2e`):\n%s", out)

	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(localDir, "kubeconfig"))
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 200, 400
	scheme := clientgoscheme.Scheme
	Expect(grovecorev1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(groveschedulerv1alpha1.AddToScheme(scheme)).To(Succeed())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	for _, gvk := range []schema.GroupVersionKind{
		grovecorev1alpha1.SchemeGroupVersion.WithKind("PodCliqueSet"),
		groveschedulerv1alpha1.SchemeGroupVersion.WithKind("PodGang"),
	} {
		_, err := k8s.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		Expect(err).NotTo(HaveOccurred(), "CRD for %s is not installed", gvk)
	}
})

// A failed spec dumps what diagnosis needs (the Grove objects, pods and events
// of its namespaces, nodes, component logs) before its cleanup deletes them.
var _ = JustAfterEach(func() {
	if report := CurrentSpecReport(); report.Failed() {
		dumpDiagnostics(report)
	}
})
