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

// Package controllers runs grove-operator's controllers (PodCliqueSet,
// PodCliqueScalingGroup, PodClique) in a real manager against envtest's
// kube-apiserver and checks the objects they create: exact names, labels,
// owners, PodGang groups, scaling at three levels and status.
package controllers

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/manager"
)

var (
	testEnv   *envtest.Environment
	restCfg   *rest.Config
	k8sClient client.Client
	clientset *groveclient.Clientset
	stopMgr   context.CancelFunc
	// cachedClient reads through the running manager's cache.
	cachedClient client.Client
	mgrDone      chan struct{}
	ctx          = context.Background()
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "grove-operator controllers suite")
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	_, thisFile, _, _ := runtime.Caller(0)
	apiDir := filepath.Join(filepath.Dir(thisFile), "..", "..", "..", "api")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths: []string{
			filepath.Join(apiDir, "core", "v1alpha1", "crds"),
			filepath.Join(apiDir, "scheduler", "v1alpha1", "crds"),
			// The other gang schedulers' CRDs (make generate takes them from
			// their published modules), for the scheduler backends.
			filepath.Join(filepath.Dir(thisFile), "..", "backendcrds"),
		},
		ErrorIfCRDPathMissing: true,
	}
	// The Kubernetes Workload API (scheduling.k8s.io/v1beta1) is off by
	// default in 1.37; the default-scheduler backend writes it.
	testEnv.ControlPlane.GetAPIServer().Configure().
		Append("feature-gates", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true").
		Append("runtime-config", "scheduling.k8s.io/v1beta1=true")
	var err error
	restCfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest: is KUBEBUILDER_ASSETS set (make control-plane)?")
	restCfg.QPS, restCfg.Burst = 500, 1000
	k8sClient, err = client.New(restCfg, client.Options{Scheme: manager.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = groveclient.NewForConfig(restCfg)
	Expect(err).NotTo(HaveOccurred())
	stopMgr, mgrDone = startManager(restCfg)
})

var _ = AfterSuite(func() {
	if stopMgr != nil {
		stopMgr()
		<-mgrDone
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// testConfig is the default configuration with every server disabled, so
// parallel suites never compete for ports, and every scheduler backend
// enabled (grove-scheduler stays the default; default-scheduler translates
// gangs into the Workload API).
func testConfig() *config.OperatorConfiguration {
	cfg := config.Default()
	cfg.Scheduler.Profiles = []config.SchedulerProfile{
		{Name: config.SchedulerBackendGrove},
		{Name: config.SchedulerBackendDefault, Config: &k8sruntime.RawExtension{Raw: []byte(`{"gangScheduling":true,"topologyAwareScheduling":true}`)}},
		{Name: config.SchedulerBackendSchedulerPlugins, Config: &k8sruntime.RawExtension{Raw: []byte(`{"scheduleTimeoutSeconds":60}`)}},
		{Name: config.SchedulerBackendVolcano, Config: &k8sruntime.RawExtension{Raw: []byte(`{"defaultQueue":"inference"}`)}},
		{Name: config.SchedulerBackendKAI, Config: &k8sruntime.RawExtension{Raw: []byte(`{"defaultQueue":"inference"}`)}},
	}
	cfg.Server.HealthProbes.Port = -1
	cfg.Server.Metrics.Port = -1
	cfg.LogFormat = config.LogFormatText
	return cfg
}

// startManager runs grove-operator's manager with every controller, as
// cmd/grove-operator wires it, on the test configuration changed by mods.
// Controller names are registered once per process, so a restarted manager
// skips that check.
func startManager(cfg *rest.Config, mods ...func(*config.OperatorConfiguration)) (context.CancelFunc, chan struct{}) {
	return startManagerWith(cfg, nil, mods...)
}

// startManagerWith is startManager with the controller-runtime options
// changed by opts last (e.g. a client that injects failures).
func startManagerWith(cfg *rest.Config, opts func(*ctrl.Options), mods ...func(*config.OperatorConfiguration)) (context.CancelFunc, chan struct{}) {
	opCfg := testConfig()
	for _, m := range mods {
		m(opCfg)
	}
	mgr, err := manager.New(opCfg, cfg, func(o *ctrl.Options) {
		o.Controller = ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}
		guard.install(o)
		if opts != nil {
			opts(o)
		}
	})
	Expect(err).NotTo(HaveOccurred())
	backends, err := backend.NewRegistry(opCfg)
	Expect(err).NotTo(HaveOccurred())
	Expect(manager.RegisterControllers(mgr, opCfg, backends)).To(Succeed())
	cachedClient = mgr.GetClient()
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(mctx)).To(Succeed())
	}()
	return cancel, done
}
