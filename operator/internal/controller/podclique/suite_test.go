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

package podclique

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	operatorconfig "github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/expect"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

var (
	testEnv   *envtest.Environment
	restCfg   *rest.Config
	k8sClient client.Client
	scheme    = k8sruntime.NewScheme()
	stopMgr   context.CancelFunc
)

func TestPodCliqueController(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "PodClique controller suite")
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	_, thisFile, _, _ := runtime.Caller(0)
	apiDir := filepath.Join(filepath.Dir(thisFile), "..", "..", "..", "..", "api")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths: []string{
			filepath.Join(apiDir, "core", "v1alpha1", "crds"),
			filepath.Join(apiDir, "scheduler", "v1alpha1", "crds"),
		},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	restCfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest: is KUBEBUILDER_ASSETS set (make control-plane)?")
	restCfg.QPS, restCfg.Burst = 500, 1000
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(grovecorev1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(groveschedulerv1alpha1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(restCfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	stopMgr = startManager()
})

var _ = AfterSuite(func() {
	if stopMgr != nil {
		stopMgr()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// startManager runs a manager with only the PodClique controller and returns
// a function that stops it and waits until it has stopped.
func startManager() context.CancelFunc {
	GinkgoHelper()
	return startManagerWith(nil, expect.DefaultTimeout)
}

// startManagerWith is startManager with the manager's client wrapped by
// wrap (nil: unwrapped) and the expectations' deadline set.
func startManagerWith(wrap func(client.WithWatch) client.WithWatch, expectationTimeout time.Duration) context.CancelFunc {
	GinkgoHelper()
	opts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The restart spec runs a second controller with the same name.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if wrap != nil {
		opts.NewClient = func(cfg *rest.Config, o client.Options) (client.Client, error) {
			c, err := client.NewWithWatch(cfg, o)
			if err != nil {
				return nil, err
			}
			return wrap(c), nil
		}
	}
	mgr, err := ctrl.NewManager(restCfg, opts)
	Expect(err).NotTo(HaveOccurred())
	cfg := operatorconfig.Default()
	backends, err := backend.NewRegistry(cfg)
	Expect(err).NotTo(HaveOccurred())
	Expect(index.Register(context.Background(), mgr.GetFieldIndexer())).To(Succeed())
	writes := ownwrites.New()
	Expect(writes.Track(context.Background(), mgr.GetCache(), &grovecorev1alpha1.PodClique{}, &corev1.Pod{})).To(Succeed())
	Expect(setup(mgr, cfg, backends, writes, expectationTimeout)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	return func() {
		cancel()
		<-done
	}
}

// newNamespace creates a namespace (with its default ServiceAccount, which pod
// admission needs) and returns its name.
func newNamespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pclq-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	Expect(k8sClient.Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}})).To(Succeed())
	return ns.Name
}
