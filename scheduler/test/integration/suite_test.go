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
	"context"
	"flag"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	"github.com/grove-project/grove/scheduler/test/harness"
)

var (
	testEnv   *envtest.Environment
	restCfg   *rest.Config
	kube      kubernetes.Interface
	grove     groveclient.Interface
	suiteCtx  context.Context
	suiteStop context.CancelFunc
)

// permitTimeoutSeconds is short so abandoned reservations clear within a spec.
const permitTimeoutSeconds = 3

func TestIntegration(t *testing.T) {
	// GROVE_TEST_KLOG_V raises the in-process scheduler's log verbosity when debugging.
	if v := os.Getenv("GROVE_TEST_KLOG_V"); v != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", v)
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "grove-scheduler integration suite")
}

var _ = BeforeSuite(func() {
	var err error
	testEnv, restCfg, err = harness.StartControlPlane()
	Expect(err).NotTo(HaveOccurred())
	kube = kubernetes.NewForConfigOrDie(restCfg)
	grove = groveclient.NewForConfigOrDie(restCfg)
	suiteCtx, suiteStop = context.WithCancel(context.Background())
	Expect(harness.RunScheduler(suiteCtx, restCfg, harness.Options{
		Grove:                    true,
		PermitWaitingTimeSeconds: permitTimeoutSeconds,
		InitialBackoffSeconds:    1,
		MaxBackoffSeconds:        2,
	})).To(Succeed())
})

var _ = AfterSuite(func() {
	if suiteStop != nil {
		suiteStop()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
