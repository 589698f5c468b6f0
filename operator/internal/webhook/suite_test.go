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

package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/webhook"
	"github.com/grove-project/grove/operator/internal/webhook/certs"
	"github.com/grove-project/grove/operator/internal/webhook/configuration"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

const operatorNamespace = "grove-system"

var (
	testEnv    *envtest.Environment
	k8sClient  client.Client
	warnings   = &warningCollector{}
	cancel     context.CancelFunc
	operator   *config.OperatorConfiguration
	readyCheck func() error
	// restConfig and testScheme build clients that impersonate other users.
	restConfig *rest.Config
	testScheme *runtime.Scheme
)

func TestWebhooks(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Webhook suite")
}

// warningCollector records the admission warnings the API server relays.
type warningCollector struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningCollector) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warningCollector) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = nil
}

func (w *warningCollector) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// envtestClientConfig lets envtest point the configurations at the local
// webhook server: it turns a service path into https://<host>:<port>/<path>,
// adding the slash itself, so the path is given without its leading one.
func envtestClientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{
		Service: &admissionregistrationv1.ServiceReference{Path: ptr.To(strings.TrimPrefix(path, "/"))},
	}
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	_, thisFile, _, _ := goruntime.Caller(0)
	apiDir := filepath.Join(filepath.Dir(thisFile), "..", "..", "..", "api")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(apiDir, "core", "v1alpha1", "crds")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			MutatingWebhooks:   configuration.MutatingConfigurations(envtestClientConfig),
			ValidatingWebhooks: append(configuration.ValidatingConfigurations(envtestClientConfig), configuration.AuthorizerConfiguration(envtestClientConfig)),
		},
	}
	restCfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest: is KUBEBUILDER_ASSETS set?")

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(grovecorev1alpha1.AddToScheme(scheme)).To(Succeed())
	restConfig, testScheme = restCfg, scheme
	clientCfg := rest.CopyConfig(restCfg)
	clientCfg.WarningHandler = warnings
	k8sClient, err = client.New(clientCfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	ctx := context.Background()
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})).To(Succeed())

	// The operator takes over the serving directory envtest prepared: its
	// own CA replaces envtest's in the files and in the configurations, so
	// every call below goes through certificates the operator made.
	wio := &testEnv.WebhookInstallOptions
	operator = &config.OperatorConfiguration{}
	// default-scheduler translates gangs into the Workload API, so its
	// limits are checked at admission.
	operator.Scheduler.Profiles = []config.SchedulerProfile{{Name: config.SchedulerBackendGrove},
		{Name: config.SchedulerBackendDefault, Config: &runtime.RawExtension{Raw: []byte(`{"gangScheduling":true}`)}}}
	// The authorizer protects managed children from everyone but this
	// suite's own (admin) user, which the operator runs as here.
	operator.Authorizer.Enabled = true
	operator.Authorizer.ExemptServiceAccountUserNames = []string{exemptUser}
	config.SetDefaults(operator)
	operator.Server.Webhooks.ServerCertDir = wio.LocalServingCertDir
	operator.Server.Webhooks.ExtraSANs = []string{wio.LocalServingHost}
	mgr, err := manager.New(restCfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
		}),
	})
	Expect(err).NotTo(HaveOccurred())
	ready, err := certs.SetupWithOptions(mgr, operator, operatorNamespace, certs.Options{CheckInterval: 200 * time.Millisecond})
	Expect(err).NotTo(HaveOccurred())
	// The files are in place before the manager (and its webhook server) starts.
	secret := &corev1.Secret{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operator.Server.Webhooks.SecretName}, secret)).To(Succeed())
	served, err := os.ReadFile(filepath.Join(wio.LocalServingCertDir, certs.SecretKeyTLSCert))
	Expect(err).NotTo(HaveOccurred())
	Expect(served).To(Equal(secret.Data[certs.SecretKeyTLSCert]))
	checker := certs.ReadyChecker(ready, mgr.GetWebhookServer())
	readyCheck = func() error { return checker(nil) }
	Expect(readyCheck()).To(MatchError(ContainSubstring("not ready")), "ready before the manager started")

	backends, err := backend.NewRegistry(operator)
	Expect(err).NotTo(HaveOccurred())
	Expect(webhook.Setup(mgr, operator, backends)).To(Succeed())

	var mgrCtx context.Context
	mgrCtx, cancel = context.WithCancel(context.Background())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(mgrCtx)).To(Succeed())
	}()
	Eventually(ready, 30*time.Second).Should(BeClosed())
	Eventually(readyCheck, 30*time.Second).Should(Succeed())
	Expect(k8sClient.Create(ctx, rulecases.Topology())).To(Succeed())
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
