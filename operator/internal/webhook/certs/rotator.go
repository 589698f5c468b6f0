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

// Package certs provides the webhook server's TLS certificates. In auto mode
// the operator is its own certificate authority: it keeps a CA and a serving
// certificate in a Secret, renews them before they expire, writes the serving
// pair into the webhook server's certificate directory (the server reloads
// changed files by itself) and injects the CA bundle into Grove's webhook
// configurations. In manual mode the files come from elsewhere (for example a
// cert-manager Secret mounted into the directory) and nothing is managed.
//
// Why not github.com/open-policy-agent/cert-controller: its release for our
// Kubernetes libraries (v0.15.0: k8s.io v0.34, controller-runtime v0.22)
// builds with them and adds little, but it does not do four things auto mode
// relies on. It issues DNS names only, while the local cluster's operator is
// called at 127.0.0.1 and needs an IP address in the certificate
// (webhooks.extraSANs). It does not write the serving pair: it waits for the
// kubelet to mount the Secret into the certificate directory and stops the
// manager when the files do not appear, so an operator that runs outside a
// pod (the local cluster, envtest) never gets certificates, and one inside a
// pod serves a renewed certificate only after the kubelet's volume sync. It
// expects the Secret to exist already. And it replaces CA and serving
// certificate together and injects only the new CA, so until every replica
// serves the new certificate the API server's calls fail TLS verification
// (its answer is to exit the process on every renewal); here the previous CA
// stays in the bundle until it expires. Owning the bundle alongside it would
// mean two writers fighting over caBundle, so this package keeps all of it.
package certs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/operator/internal/webhook/configuration"
)

// Secret data keys. ca.crt is a bundle: the current CA first, then a
// previous CA that still signs certificates in use during a CA rotation.
const (
	SecretKeyCACert  = "ca.crt"
	SecretKeyCAKey   = "ca.key"
	SecretKeyTLSCert = corev1.TLSCertKey
	SecretKeyTLSKey  = corev1.TLSPrivateKeyKey
)

// Defaults of Options.
const (
	DefaultCheckInterval       = 30 * time.Second
	DefaultCAValidity          = 10 * 365 * 24 * time.Hour
	DefaultServingCertValidity = 365 * 24 * time.Hour
)

// retryInterval is how soon a failed check is retried.
const retryInterval = time.Second

// Options tune certificate management; zero values take the defaults.
type Options struct {
	// CheckInterval is how often the Secret, the files and the injected CA
	// bundles are checked. It also bounds how long a CA bundle wiped by
	// someone else (for example a chart upgrade) stays missing.
	CheckInterval time.Duration
	// CAValidity is the lifetime of a new CA.
	CAValidity time.Duration
	// ServingCertValidity is the lifetime of a new serving certificate.
	ServingCertValidity time.Duration
	// Now returns the current time; tests move it.
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.CheckInterval == 0 {
		o.CheckInterval = DefaultCheckInterval
	}
	if o.CAValidity == 0 {
		o.CAValidity = DefaultCAValidity
	}
	if o.ServingCertValidity == 0 {
		o.ServingCertValidity = DefaultServingCertValidity
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Rotator keeps the webhook certificates of auto mode valid. Every operator
// replica runs one (it is not leader-elected): each must serve from its own
// files, concurrent renewals are settled by the Secret's resourceVersion, and
// no replica injects a CA bundle the Secret no longer holds (injectCABundle).
type Rotator struct {
	client    client.Client
	secret    types.NamespacedName
	dnsNames  []string
	ips       []net.IP
	certDir   string
	opts      Options
	ready     chan struct{}
	readyOnce sync.Once
	log       logr.Logger
}

// NewRotator returns a Rotator keeping certificates for dnsNames and ips in
// the Secret secret and the directory certDir. c should read from the API
// server directly: the Rotator runs before the manager's cache.
func NewRotator(c client.Client, secret types.NamespacedName, dnsNames []string, ips []net.IP, certDir string, opts Options, log logr.Logger) *Rotator {
	opts.setDefaults()
	return &Rotator{client: c, secret: secret, dnsNames: dnsNames, ips: ips, certDir: certDir, opts: opts, ready: make(chan struct{}), log: log}
}

// Ready is closed once certificates are in place and the CA bundle injected.
func (r *Rotator) Ready() <-chan struct{} { return r.ready }

// NeedLeaderElection is false: every replica needs its own certificate files.
func (r *Rotator) NeedLeaderElection() bool { return false }

// Start checks the certificates until ctx ends: at once, then every
// CheckInterval, and after a failure again within retryInterval.
func (r *Rotator) Start(ctx context.Context) error {
	for {
		wait := r.opts.CheckInterval
		if err := r.Reconcile(ctx); err != nil {
			r.log.Error(err, "Webhook certificate check failed; retrying")
			wait = min(wait, retryInterval)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// Reconcile brings the Secret, the injected CA bundles and the files in line,
// in the order that keeps the webhooks answering during a CA rotation: the
// API server trusts the new CA before the server presents a certificate it signed.
func (r *Rotator) Reconcile(ctx context.Context) error {
	data, err := r.ensureSecret(ctx)
	if err != nil {
		return err
	}
	if err := r.injectCABundle(ctx, data[SecretKeyCACert]); err != nil {
		return err
	}
	if err := r.writeFiles(data); err != nil {
		return err
	}
	r.readyOnce.Do(func() {
		r.log.Info("Webhook certificates are in place", "secret", r.secret, "certDir", r.certDir)
		close(r.ready)
	})
	return nil
}

// ensureFiles creates or renews the Secret and writes the serving pair, without
// touching webhook configurations: the webhook server needs the files before it
// starts, which is before any manager runnable.
func (r *Rotator) ensureFiles(ctx context.Context) error {
	data, err := r.ensureSecret(ctx)
	if err != nil {
		return err
	}
	return r.writeFiles(data)
}

// ensureSecret returns valid certificate data, creating or renewing the Secret
// when needed. Losing a race with another replica (AlreadyExists, Conflict)
// means re-reading what that replica stored.
func (r *Rotator) ensureSecret(ctx context.Context) (map[string][]byte, error) {
	var data map[string][]byte
	lostRace := func(err error) bool { return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) }
	err := retry.OnError(retry.DefaultBackoff, lostRace, func() error {
		var err error
		data, err = r.ensureSecretOnce(ctx)
		return err
	})
	return data, err
}

func (r *Rotator) ensureSecretOnce(ctx context.Context) (map[string][]byte, error) {
	secret := &corev1.Secret{}
	err := r.client.Get(ctx, r.secret, secret)
	switch {
	case apierrors.IsNotFound(err):
		data, _, err := r.plan(nil)
		if err != nil {
			return nil, err
		}
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: r.secret.Name, Namespace: r.secret.Namespace, Labels: secretLabels()},
			Type:       corev1.SecretTypeTLS,
			Data:       data,
		}
		if err := r.client.Create(ctx, secret); err != nil {
			return nil, fmt.Errorf("creating webhook certificate Secret %s: %w", r.secret, err)
		}
		r.log.Info("Created webhook certificate Secret", "secret", r.secret)
		return data, nil
	case err != nil:
		return nil, fmt.Errorf("reading webhook certificate Secret %s: %w", r.secret, err)
	}
	if secret.Type != corev1.SecretTypeTLS {
		return nil, fmt.Errorf("webhook certificate Secret %s has type %q, want %q", r.secret, secret.Type, corev1.SecretTypeTLS)
	}
	data, reason, err := r.plan(secret.Data)
	if err != nil {
		return nil, err
	}
	labelled := secret.Labels[apicommon.LabelManagedByKey] == apicommon.LabelManagedByValue
	if reason == "" && labelled {
		return data, nil
	}
	if secret.Labels == nil {
		secret.Labels = map[string]string{}
	}
	secret.Labels[apicommon.LabelManagedByKey] = apicommon.LabelManagedByValue
	secret.Data = data
	if err := r.client.Update(ctx, secret); err != nil {
		return nil, fmt.Errorf("updating webhook certificate Secret %s: %w", r.secret, err)
	}
	if reason != "" {
		r.log.Info("Renewed webhook certificates", "secret", r.secret, "reason", reason)
	}
	return data, nil
}

func secretLabels() map[string]string {
	return map[string]string{apicommon.LabelManagedByKey: apicommon.LabelManagedByValue}
}

// plan returns the Secret data to store and why it differs from data ("" when
// data is kept). The CA is replaced when it is unusable or less than a third of
// its lifetime remains; the serving certificate likewise, and also when it was
// not signed by the current CA or its names differ from the wanted ones.
func (r *Rotator) plan(data map[string][]byte) (map[string][]byte, string, error) {
	now := r.opts.Now()
	bundle, _ := ParseCertificates(data[SecretKeyCACert])
	caCert, _, caErr := KeyPair{CertPEM: data[SecretKeyCACert], KeyPEM: data[SecretKeyCAKey]}.Parse()
	caReason := ""
	switch {
	case caErr != nil:
		caReason = "no usable CA: " + caErr.Error()
	case needsRenewal(caCert, now):
		caReason = fmt.Sprintf("CA expires at %s", caCert.NotAfter.UTC().Format(time.RFC3339))
	}
	if caReason != "" {
		ca, err := NewCA(now, r.opts.CAValidity)
		if err != nil {
			return nil, "", err
		}
		newCA, _ := ParseCertificates(ca.CertPEM)
		// The old CA stays trusted until it expires, in case the server still
		// presents a certificate it signed when the API server calls next.
		if caErr == nil && now.Before(caCert.NotAfter) {
			newCA = append(newCA, caCert)
		}
		serving, err := NewServingCert(ca, r.dnsNames, r.ips, now, r.opts.ServingCertValidity)
		if err != nil {
			return nil, "", err
		}
		return map[string][]byte{
			SecretKeyCACert: encodeCertificates(newCA), SecretKeyCAKey: ca.KeyPEM,
			SecretKeyTLSCert: serving.CertPEM, SecretKeyTLSKey: serving.KeyPEM,
		}, caReason, nil
	}

	kept := bundle[:1]
	for _, c := range bundle[1:] {
		if now.Before(c.NotAfter) {
			kept = append(kept, c)
		}
	}
	reason := ""
	servingCert, _, err := KeyPair{CertPEM: data[SecretKeyTLSCert], KeyPEM: data[SecretKeyTLSKey]}.Parse()
	switch {
	case err != nil:
		reason = "no usable serving certificate: " + err.Error()
	case servingCert.CheckSignatureFrom(caCert) != nil:
		reason = "serving certificate is not signed by the current CA"
	case !coversSANs(servingCert, r.dnsNames, r.ips):
		reason = fmt.Sprintf("serving certificate names %v %v differ from %v %v", servingCert.DNSNames, servingCert.IPAddresses, r.dnsNames, r.ips)
	case needsRenewal(servingCert, now):
		reason = fmt.Sprintf("serving certificate expires at %s", servingCert.NotAfter.UTC().Format(time.RFC3339))
	}
	if reason == "" && len(kept) == len(bundle) {
		return data, "", nil
	}
	out := map[string][]byte{
		SecretKeyCACert: encodeCertificates(kept), SecretKeyCAKey: data[SecretKeyCAKey],
		SecretKeyTLSCert: data[SecretKeyTLSCert], SecretKeyTLSKey: data[SecretKeyTLSKey],
	}
	if reason == "" {
		return out, "dropped expired CA certificates from the bundle", nil
	}
	serving, err := NewServingCert(KeyPair{CertPEM: data[SecretKeyCACert], KeyPEM: data[SecretKeyCAKey]}, r.dnsNames, r.ips, now, r.opts.ServingCertValidity)
	if err != nil {
		return nil, "", err
	}
	out[SecretKeyTLSCert], out[SecretKeyTLSKey] = serving.CertPEM, serving.KeyPEM
	return out, reason, nil
}

// errStaleBundle: the Secret's CA bundle changed after this replica read it.
var errStaleBundle = errors.New("the webhook certificate Secret's CA bundle changed since it was read; injecting on the next check")

// injectCABundle sets bundle on every webhook of Grove's webhook
// configurations. A configuration that does not exist is skipped (it is
// injected on a later check once it is created).
//
// Every replica injects, so two replicas must never undo each other: before
// each write the Secret is read again, and a bundle it no longer holds is not
// written. Another replica that renewed the Secret after that read injects
// after its own Secret write, so either its configuration update comes later
// or it conflicts on the resourceVersion this write changed and retries: the
// newest bundle is the one that stays.
func (r *Rotator) injectCABundle(ctx context.Context, bundle []byte) error {
	var errs []error
	for _, name := range configuration.MutatingConfigurationNames {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		errs = append(errs, r.injectInto(ctx, name, cfg, bundle, func() (changed bool) {
			for i := range cfg.Webhooks {
				changed = setBundle(&cfg.Webhooks[i].ClientConfig, bundle) || changed
			}
			return changed
		}))
	}
	for _, name := range configuration.ValidatingConfigurationNames {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		errs = append(errs, r.injectInto(ctx, name, cfg, bundle, func() (changed bool) {
			for i := range cfg.Webhooks {
				changed = setBundle(&cfg.Webhooks[i].ClientConfig, bundle) || changed
			}
			return changed
		}))
	}
	return errors.Join(errs...)
}

func (r *Rotator) injectInto(ctx context.Context, name string, obj client.Object, bundle []byte, set func() bool) error {
	if err := r.client.Get(ctx, client.ObjectKey{Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.log.V(1).Info("Webhook configuration not found; CA bundle not injected", "name", name)
			return nil
		}
		return fmt.Errorf("reading webhook configuration %s: %w", name, err)
	}
	if !set() {
		return nil
	}
	if err := r.bundleStillCurrent(ctx, bundle); err != nil {
		return err
	}
	if err := r.client.Update(ctx, obj); err != nil {
		return fmt.Errorf("injecting CA bundle into webhook configuration %s: %w", name, err)
	}
	r.log.Info("Injected CA bundle", "webhookConfiguration", name)
	return nil
}

// bundleStillCurrent fails with errStaleBundle when the Secret no longer holds bundle.
func (r *Rotator) bundleStillCurrent(ctx context.Context, bundle []byte) error {
	secret := &corev1.Secret{}
	if err := r.client.Get(ctx, r.secret, secret); err != nil {
		return fmt.Errorf("re-reading webhook certificate Secret %s before injecting its CA bundle: %w", r.secret, err)
	}
	if !bytes.Equal(secret.Data[SecretKeyCACert], bundle) {
		return errStaleBundle
	}
	return nil
}

func setBundle(cc *admissionregistrationv1.WebhookClientConfig, bundle []byte) bool {
	if bytes.Equal(cc.CABundle, bundle) {
		return false
	}
	cc.CABundle = bytes.Clone(bundle)
	return true
}

// writeFiles writes the serving pair where the webhook server reads it.
// Each file is replaced by a rename so the server never reads half a file.
func (r *Rotator) writeFiles(data map[string][]byte) error {
	if err := os.MkdirAll(r.certDir, 0o700); err != nil {
		return fmt.Errorf("creating certificate directory: %w", err)
	}
	for _, name := range []string{SecretKeyTLSKey, SecretKeyTLSCert} {
		if err := writeFileAtomic(r.certDir, name, data[name]); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(dir, name string, content []byte) error {
	path := filepath.Join(dir, name)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		return nil
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(content); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
