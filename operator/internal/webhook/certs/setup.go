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

package certs

// In auto mode the certificate Secret is read, created and updated in the
// operator's namespace only (namespace below is a placeholder the chart
// replaces with the release namespace), and the CA bundle is injected into
// Grove's webhook configurations, by name.
//
// +kubebuilder:rbac:groups="",namespace=grove-system,resources=secrets,verbs=get;create;update
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,resourceNames=podcliqueset-defaulting-webhook,verbs=get;update
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,resourceNames=podcliqueset-validating-webhook;clustertopology-validating-webhook;authorizer-webhook,verbs=get;update

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/grove-project/grove/operator/internal/config"
)

// initialTimeout bounds the first certificate provisioning in Setup.
const initialTimeout = 30 * time.Second

// Setup provides the webhook server's certificates as configured in
// cfg.Server.Webhooks, for an operator running in namespace. The returned
// channel is closed when the certificates are served-ready: at once in manual
// mode; in auto mode once the Secret exists, the serving pair is in
// ServerCertDir and the CA bundle is injected. In auto mode Setup writes the
// files before it returns (the webhook server reads them when the manager
// starts it) and adds a Rotator to mgr that keeps them valid.
func Setup(mgr manager.Manager, cfg *config.OperatorConfiguration, namespace string) (<-chan struct{}, error) {
	return SetupWithOptions(mgr, cfg, namespace, Options{})
}

// SetupWithOptions is Setup with tuned intervals and lifetimes.
func SetupWithOptions(mgr manager.Manager, cfg *config.OperatorConfiguration, namespace string, opts Options) (<-chan struct{}, error) {
	wh := cfg.Server.Webhooks
	log := mgr.GetLogger().WithName("webhook-certs")
	switch wh.CertProvisionMode {
	case config.CertProvisionModeManual:
		log.Info("Using webhook certificates provided in the certificate directory", "certDir", wh.ServerCertDir)
		ready := make(chan struct{})
		close(ready)
		return ready, nil
	case config.CertProvisionModeAuto:
	default:
		return nil, fmt.Errorf("unknown webhook certProvisionMode %q", wh.CertProvisionMode)
	}
	if namespace == "" {
		return nil, errors.New("webhook certificates: the operator namespace is empty")
	}
	secretNamespace := wh.SecretNamespace
	if secretNamespace == "" {
		secretNamespace = namespace
	}
	dnsNames, ips := SubjectAltNames(wh.ServiceName, namespace, wh.ExtraSANs)
	c, err := directClient(mgr)
	if err != nil {
		return nil, err
	}
	r := NewRotator(c, types.NamespacedName{Namespace: secretNamespace, Name: wh.SecretName}, dnsNames, ips, wh.ServerCertDir, opts, log)
	ctx, cancel := context.WithTimeout(context.Background(), initialTimeout)
	defer cancel()
	if err := r.ensureFiles(ctx); err != nil {
		return nil, fmt.Errorf("provisioning webhook certificates: %w", err)
	}
	if err := mgr.Add(r); err != nil {
		return nil, fmt.Errorf("adding webhook certificate rotator: %w", err)
	}
	return r.Ready(), nil
}

// SubjectAltNames returns the names the serving certificate is issued for:
// the Service's in-cluster DNS names and extraSANs, each either an IP address
// or a DNS name.
func SubjectAltNames(serviceName, namespace string, extraSANs []string) ([]string, []net.IP) {
	dnsNames := []string{
		serviceName,
		serviceName + "." + namespace,
		serviceName + "." + namespace + ".svc",
		serviceName + "." + namespace + ".svc.cluster.local",
	}
	var ips []net.IP
	for _, san := range extraSANs {
		if ip := net.ParseIP(san); ip != nil {
			ips = append(ips, ip)
		} else {
			dnsNames = append(dnsNames, san)
		}
	}
	return dnsNames, ips
}

// directClient reads from the API server without the manager's cache, which
// is not running yet when Setup provisions the first certificates.
func directClient(mgr manager.Manager) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("creating client for webhook certificates: %w", err)
	}
	return c, nil
}

// ReadyChecker is a readyz check that fails until ready is closed and the
// webhook server answers TLS handshakes, so no traffic is routed to a replica
// whose webhooks cannot be called yet.
func ReadyChecker(ready <-chan struct{}, server ctrlwebhook.Server) healthz.Checker {
	started := server.StartedChecker()
	return func(req *http.Request) error {
		select {
		case <-ready:
		default:
			return errors.New("webhook certificates are not ready")
		}
		return started(req)
	}
}
