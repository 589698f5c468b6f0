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

// Package manager builds grove-operator's controller-runtime manager from
// the operator configuration and registers the controllers on it.
package manager

// Leader election takes a Lease in the operator's namespace (namespace below
// is a placeholder the chart replaces with the release namespace).
//
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=grove-system,resources=leases,verbs=get;create;update
//
// Leader election records its LeaderElection Events on that Lease through the
// core/v1 Events API (the controllers write events.k8s.io/v1 Events).
//
// +kubebuilder:rbac:groups="",namespace=grove-system,resources=events,verbs=create;patch
//
// The secure metrics endpoint (server.metrics.secureServing) asks the API
// server who a scraper's bearer token belongs to and whether that user may
// get /metrics.
//
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	volcanov1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/controller/clustertopologybinding"
	"github.com/grove-project/grove/operator/internal/controller/podclique"
	"github.com/grove-project/grove/operator/internal/controller/podcliquescalinggroup"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset"
	"github.com/grove-project/grove/operator/internal/controller/podgang"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/metrics"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// GracefulShutdownTimeout is how long running reconciles get to finish on shutdown.
const GracefulShutdownTimeout = 5 * time.Second

// Scheme returns the scheme of everything grove-operator reads and writes:
// the client-go types, grove.io and scheduler.grove.io.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(grovecorev1alpha1.AddToScheme(s))
	utilruntime.Must(groveschedulerv1alpha1.AddToScheme(s))
	utilruntime.Must(volcanov1beta1.AddToScheme(s))
	return s
}

// Logger returns the operator's logger: JSON or text, at the configured level.
func Logger(cfg *config.OperatorConfiguration) logr.Logger {
	opts := []zap.Opts{zap.UseDevMode(false)}
	switch cfg.LogFormat {
	case config.LogFormatText:
		opts = append(opts, zap.ConsoleEncoder())
	default:
		opts = append(opts, zap.JSONEncoder())
	}
	switch cfg.LogLevel {
	case config.LogLevelDebug:
		opts = append(opts, zap.Level(zapcore.DebugLevel))
	case config.LogLevelError:
		opts = append(opts, zap.Level(zapcore.ErrorLevel))
	default:
		opts = append(opts, zap.Level(zapcore.InfoLevel))
	}
	return zap.New(opts...)
}

// New builds the manager: scheme, client rate limits, leader election,
// health, metrics and (when enabled) pprof servers, the webhook server
// settings and the cache filter. It registers no controllers (see RegisterControllers).
// Options may adjust the controller-runtime options last, e.g. for tests.
func New(cfg *config.OperatorConfiguration, restConfig *rest.Config, options ...func(*ctrl.Options)) (ctrl.Manager, error) {
	restConfig = rest.CopyConfig(restConfig)
	restConfig.Wrap(metrics.CountRequests)
	restConfig.QPS = cfg.RuntimeClientConnection.QPS
	restConfig.Burst = cfg.RuntimeClientConnection.Burst
	if ct := cfg.RuntimeClientConnection.ContentType; ct != "" {
		restConfig.ContentType = ct
	}
	if act := cfg.RuntimeClientConnection.AcceptContentTypes; act != "" {
		restConfig.AcceptContentTypes = act
	}
	le := cfg.LeaderElection
	opts := ctrl.Options{
		Scheme:                        Scheme(),
		LeaderElection:                le.Enabled,
		LeaderElectionID:              le.ResourceName,
		LeaderElectionNamespace:       le.ResourceNamespace,
		LeaderElectionResourceLock:    le.ResourceLock,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &le.LeaseDuration.Duration,
		RenewDeadline:                 &le.RenewDeadline.Duration,
		RetryPeriod:                   &le.RetryPeriod.Duration,
		HealthProbeBindAddress:        address(cfg.Server.HealthProbes),
		Metrics:                       metricsOptions(cfg.Server.Metrics),
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host: cfg.Server.Webhooks.BindAddress, Port: cfg.Server.Webhooks.Port, CertDir: cfg.Server.Webhooks.ServerCertDir,
		}),
		GracefulShutdownTimeout: ptrTo(GracefulShutdownTimeout),
		PprofBindAddress:        pprofAddress(cfg.Debugging),
		Cache:                   cacheOptions(),
		Client:                  clientOptions(),
		NewClient:               newClient,
	}
	for _, o := range options {
		o(&opts)
	}
	mgr, err := ctrl.NewManager(restConfig, opts)
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding readiness check: %w", err)
	}
	return mgr, nil
}

// RegisterControllers registers the PodCliqueSet, PodCliqueScalingGroup,
// PodClique and ClusterTopologyBinding controllers. (Webhooks are registered next to it by the caller.)
// The controllers share one record of the operator's own writes the cache
// has not shown yet (ownwrites).
func RegisterControllers(mgr ctrl.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry) error {
	if err := index.Register(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	writes, err := trackOwnWrites(mgr)
	if err != nil {
		return err
	}
	if err := podcliqueset.Setup(mgr, cfg, backends, writes); err != nil {
		return fmt.Errorf("setting up %s: %w", podcliqueset.ControllerName, err)
	}
	if err := podcliquescalinggroup.Setup(mgr, cfg, writes); err != nil {
		return fmt.Errorf("setting up %s: %w", podcliquescalinggroup.ControllerName, err)
	}
	if err := podclique.Setup(mgr, cfg, backends, writes); err != nil {
		return fmt.Errorf("setting up %s: %w", podclique.ControllerName, err)
	}
	if err := clustertopologybinding.Setup(mgr); err != nil {
		return fmt.Errorf("setting up %s: %w", clustertopologybinding.ControllerName, err)
	}
	if err := podgang.Setup(mgr, backends); err != nil {
		return fmt.Errorf("setting up %s: %w", podgang.ControllerName, err)
	}
	return nil
}

// trackOwnWrites returns a record of the operator's own writes for every kind
// it writes and later reads from its cache: the children it creates, the
// PodCliques whose status it writes, and the pods whose gate it lifts.
func trackOwnWrites(mgr ctrl.Manager) (*ownwrites.Tracker, error) {
	writes := ownwrites.New()
	err := writes.Track(context.Background(), mgr.GetCache(),
		&grovecorev1alpha1.PodClique{}, &grovecorev1alpha1.PodCliqueScalingGroup{}, &groveschedulerv1alpha1.PodGang{},
		&corev1.Service{}, &autoscalingv2.HorizontalPodAutoscaler{}, &corev1.Pod{},
		&corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{})
	return writes, err
}

// metricsOptions serves /metrics over HTTPS behind the API server's
// authentication and authorization (TokenReview, then a SubjectAccessReview
// of get on /metrics) unless secureServing is off. The certificate is a
// self-signed one controller-runtime makes at start: scrapers authenticate
// the operator by reaching it through its Service, not by its certificate.
func metricsOptions(m config.MetricsServer) metricsserver.Options {
	opts := metricsserver.Options{BindAddress: address(m.BindServer)}
	if m.SecureServing == nil || *m.SecureServing {
		opts.SecureServing = true
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return opts
}

// pprofAddress is where Go's pprof handlers are served: nowhere ("") unless
// profiling is enabled.
func pprofAddress(d config.Debugging) string {
	if d.EnableProfiling == nil || !*d.EnableProfiling {
		return ""
	}
	return net.JoinHostPort(d.PprofBindHost, strconv.Itoa(d.PprofBindPort))
}

// clientOptions makes the manager's client read Secrets straight from the API
// server by name: a Secret informer would need list and watch of Secrets in
// every namespace, which would let the operator read every Secret of the
// cluster (a label selector does not narrow what RBAC grants).
func clientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}}
}

// address renders a bind server; port 0 picks a free port and a negative
// port disables the server.
func address(s config.BindServer) string {
	if s.Port < 0 {
		return "0"
	}
	return net.JoinHostPort(s.BindAddress, strconv.Itoa(s.Port))
}

func ptrTo[T any](v T) *T { return &v }
