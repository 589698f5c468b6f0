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

import (
	"context"
	"crypto"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/operator/internal/webhook/configuration"
)

var (
	now      = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	year     = 365 * 24 * time.Hour
	testDNS  = []string{"grove-operator", "grove-operator.grove-system", "grove-operator.grove-system.svc", "grove-operator.grove-system.svc.cluster.local"}
	testIPs  = []net.IP{net.ParseIP("127.0.0.1")}
	testOpts = Options{CAValidity: 10 * year, ServingCertValidity: year, Now: func() time.Time { return now }}
)

// fatalIf returns helpers that unwrap (value, error) results or fail t.
func fatalIf(t *testing.T) (func(KeyPair, error) KeyPair, func([]*x509.Certificate, error) []*x509.Certificate) {
	kp := func(v KeyPair, err error) KeyPair {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	certs := func(v []*x509.Certificate, err error) []*x509.Certificate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return kp, certs
}

func secretData(ca, serving KeyPair, extraCA ...KeyPair) map[string][]byte {
	bundle := append([]byte{}, ca.CertPEM...)
	for _, e := range extraCA {
		bundle = append(bundle, e.CertPEM...)
	}
	return map[string][]byte{SecretKeyCACert: bundle, SecretKeyCAKey: ca.KeyPEM, SecretKeyTLSCert: serving.CertPEM, SecretKeyTLSKey: serving.KeyPEM}
}

func TestPlan(t *testing.T) {
	mk, pc := fatalIf(t)
	ca := mk(NewCA(now.Add(-24*time.Hour), 10*year))
	serving := mk(NewServingCert(ca, testDNS, testIPs, now.Add(-24*time.Hour), year))
	otherCA := mk(NewCA(now, 10*year))
	foreign := mk(NewServingCert(otherCA, testDNS, testIPs, now, year))
	nearExpiry := mk(NewServingCert(ca, testDNS, testIPs, now.Add(-300*24*time.Hour), year))
	wrongNames := mk(NewServingCert(ca, []string{"other"}, nil, now, year))
	oldCA := mk(NewCA(now.Add(-9*year), 10*year))
	oldServing := mk(NewServingCert(oldCA, testDNS, testIPs, now, year))
	expiredCA := mk(NewCA(now.Add(-2*year), year))
	expiredServing := mk(NewServingCert(expiredCA, testDNS, testIPs, now.Add(-2*year), year))
	retiredCA := mk(NewCA(now.Add(-3*year), 2*year))

	tests := []struct {
		name       string
		data       map[string][]byte
		reason     string
		keepCA     bool
		keepCert   bool
		bundleSize int
	}{
		{name: "empty Secret gets a new CA and certificate", data: nil, reason: "no usable CA", bundleSize: 1},
		{name: "valid certificates are kept", data: secretData(ca, serving), reason: "", keepCA: true, keepCert: true, bundleSize: 1},
		{name: "near-expiry serving certificate is renewed with the same CA", data: secretData(ca, nearExpiry), reason: "serving certificate expires at", keepCA: true, bundleSize: 1},
		{name: "certificate for other names is reissued", data: secretData(ca, wrongNames), reason: "differ from", keepCA: true, bundleSize: 1},
		{name: "certificate of another CA is reissued", data: secretData(ca, foreign), reason: "not signed by the current CA", keepCA: true, bundleSize: 1},
		{name: "mismatched key is reissued", data: func() map[string][]byte {
			d := secretData(ca, serving)
			d[SecretKeyTLSKey] = foreign.KeyPEM
			return d
		}(), reason: "does not match", keepCA: true, bundleSize: 1},
		{name: "near-expiry CA is rotated and stays trusted next to the new one", data: secretData(oldCA, oldServing), reason: "CA expires at", bundleSize: 2},
		{name: "expired CA is rotated and dropped", data: secretData(expiredCA, expiredServing), reason: "CA expires at", bundleSize: 1},
		{name: "expired previous CA is dropped from the bundle", data: secretData(ca, serving, retiredCA), reason: "dropped expired CA", keepCA: true, keepCert: true, bundleSize: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRotator(nil, types.NamespacedName{}, testDNS, testIPs, "", testOpts, logr.Discard())
			out, reason, err := r.plan(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if (tt.reason == "") != (reason == "") || !strings.Contains(reason, tt.reason) {
				t.Fatalf("reason %q, want %q", reason, tt.reason)
			}
			if got := string(out[SecretKeyCAKey]) == string(tt.data[SecretKeyCAKey]); got != tt.keepCA {
				t.Fatalf("CA kept = %v, want %v", got, tt.keepCA)
			}
			if got := string(out[SecretKeyTLSCert]) == string(tt.data[SecretKeyTLSCert]); got != tt.keepCert {
				t.Fatalf("serving certificate kept = %v, want %v", got, tt.keepCert)
			}
			bundle := pc(ParseCertificates(out[SecretKeyCACert]))
			if len(bundle) != tt.bundleSize {
				t.Fatalf("bundle has %d certificates, want %d", len(bundle), tt.bundleSize)
			}
			caCert, _ := must2[*x509.Certificate, crypto.Signer](t)(KeyPair{CertPEM: out[SecretKeyCACert], KeyPEM: out[SecretKeyCAKey]}.Parse())
			cert, _ := must2[*x509.Certificate, crypto.Signer](t)(KeyPair{CertPEM: out[SecretKeyTLSCert], KeyPEM: out[SecretKeyTLSKey]}.Parse())
			if err := cert.CheckSignatureFrom(caCert); err != nil {
				t.Fatalf("serving certificate not signed by the bundle's first CA: %v", err)
			}
			if !coversSANs(cert, testDNS, testIPs) || needsRenewal(cert, now) || needsRenewal(caCert, now) {
				t.Fatalf("result is not a valid, fresh certificate for the wanted names: %v %v until %s", cert.DNSNames, cert.IPAddresses, cert.NotAfter)
			}
			if tt.bundleSize == 2 && !bundle[1].Equal(pc(ParseCertificates(tt.data[SecretKeyCACert]))[0]) {
				t.Fatal("the previous CA is not second in the bundle")
			}
		})
	}
}

func must2[A, B any](t *testing.T) func(A, B, error) (A, B) {
	return func(a A, b B, err error) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

func TestReconcileCreatesSecretInjectsAndWritesFiles(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = admissionregistrationv1.AddToScheme(scheme)
	hooks := func(n int) []admissionregistrationv1.ValidatingWebhook {
		out := make([]admissionregistrationv1.ValidatingWebhook, n)
		for i := range out {
			out[i].Name = "h" + string(rune('a'+i))
		}
		return out
	}
	// The ClusterTopologyBinding configuration is missing: it is skipped, not an error.
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: configuration.PodCliqueSetDefaultingConfigurationName},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "m"}}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: configuration.PodCliqueSetValidatingConfigurationName},
			Webhooks: hooks(2)},
	).Build()
	dir := filepath.Join(t.TempDir(), "certs")
	key := types.NamespacedName{Namespace: "grove-system", Name: "grove-webhook-server-cert"}
	r := NewRotator(c, key, testDNS, testIPs, dir, Options{}, logr.Discard())
	ctx := context.Background()
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Ready():
	default:
		t.Fatal("not ready after a successful reconcile")
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, key, secret); err != nil {
		t.Fatal(err)
	}
	if secret.Type != corev1.SecretTypeTLS || secret.Labels[apicommon.LabelManagedByKey] != apicommon.LabelManagedByValue {
		t.Fatalf("secret type %q labels %v", secret.Type, secret.Labels)
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	_ = c.Get(ctx, types.NamespacedName{Name: configuration.PodCliqueSetDefaultingConfigurationName}, m)
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	_ = c.Get(ctx, types.NamespacedName{Name: configuration.PodCliqueSetValidatingConfigurationName}, v)
	for _, b := range [][]byte{m.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle, v.Webhooks[1].ClientConfig.CABundle} {
		if string(b) != string(secret.Data[SecretKeyCACert]) {
			t.Fatal("CA bundle not injected into every webhook")
		}
	}
	for _, name := range []string{SecretKeyTLSCert, SecretKeyTLSKey} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(secret.Data[name]) {
			t.Fatalf("%s not written: %v", name, err)
		}
	}
	before := secret.ResourceVersion
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	_ = c.Get(ctx, key, secret)
	if secret.ResourceVersion != before {
		t.Fatal("a second reconcile of valid certificates rewrote the Secret")
	}
}

func TestSubjectAltNames(t *testing.T) {
	dns, ips := SubjectAltNames("grove-operator", "grove-system", []string{"127.0.0.1", "grove.example.com", "::1"})
	want := append(append([]string{}, testDNS...), "grove.example.com")
	if strings.Join(dns, ",") != strings.Join(want, ",") {
		t.Fatalf("DNS names %v, want %v", dns, want)
	}
	if len(ips) != 2 || !ips[0].Equal(net.ParseIP("127.0.0.1")) || !ips[1].Equal(net.ParseIP("::1")) {
		t.Fatalf("IPs %v", ips)
	}
}

func TestEnsureSecretAdoptsTheWinnerOfACreateRace(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = admissionregistrationv1.AddToScheme(scheme)
	key := types.NamespacedName{Namespace: "grove-system", Name: "grove-webhook-server-cert"}
	other := NewRotator(nil, key, testDNS, testIPs, "", Options{}, logr.Discard())
	winner, _, err := other.plan(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		// Another replica creates the Secret between our Get and Create.
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: secretLabels()},
				Type: corev1.SecretTypeTLS, Data: winner}
			if err := c.Create(ctx, s); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
	dir := t.TempDir()
	r := NewRotator(c, key, testDNS, testIPs, dir, Options{}, logr.Discard())
	if err := r.Reconcile(context.Background()); err != nil {
		t.Fatalf("lost create race was not resolved: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SecretKeyTLSCert))
	if err != nil || string(got) != string(winner[SecretKeyTLSCert]) {
		t.Fatalf("serving the loser's certificate instead of the stored one (%v)", err)
	}
}

// TestTwoReplicasAgreeOnOneCertificate: two replicas' rotators on one Secret
// serve the same serving pair and inject the same bundle; a replica that read
// the Secret before another replica renewed its CA does not write its older
// bundle over the newer one (which would leave the new serving certificate
// untrusted until its next check).
func TestTwoReplicasAgreeOnOneCertificate(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = admissionregistrationv1.AddToScheme(scheme)
	key := types.NamespacedName{Namespace: "grove-system", Name: "grove-webhook-server-cert"}
	cfgKey := types.NamespacedName{Name: configuration.PodCliqueSetValidatingConfigurationName}
	var renewBetweenReadAndWrite func(ctx context.Context, c client.WithWatch)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: cfgKey.Name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "v"}}},
	).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, k, obj, opts...); err != nil {
				return err
			}
			if _, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok && renewBetweenReadAndWrite != nil {
				f := renewBetweenReadAndWrite
				renewBetweenReadAndWrite = nil
				f(ctx, c)
			}
			return nil
		},
	}).Build()
	ctx := context.Background()
	dirA, dirB := t.TempDir(), t.TempDir()
	a := NewRotator(c, key, testDNS, testIPs, dirA, Options{}, logr.Discard())
	b := NewRotator(c, key, testDNS, testIPs, dirB, Options{}, logr.Discard())
	for _, r := range []*Rotator{a, b} {
		if err := r.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{SecretKeyTLSCert, SecretKeyTLSKey} {
		fa, _ := os.ReadFile(filepath.Join(dirA, name))
		fb, _ := os.ReadFile(filepath.Join(dirB, name))
		if len(fa) == 0 || string(fa) != string(fb) {
			t.Fatalf("replicas serve different %s", name)
		}
	}
	bundleOf := func() []byte {
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.Get(ctx, cfgKey, v); err != nil {
			t.Fatal(err)
		}
		return v.Webhooks[0].ClientConfig.CABundle
	}
	secret := &corev1.Secret{}
	_ = c.Get(ctx, key, secret)
	if string(bundleOf()) != string(secret.Data[SecretKeyCACert]) {
		t.Fatal("injected bundle is not the Secret's")
	}

	// Replica b rotates the CA (its Secret write and injection) while
	// replica a, holding a bundle read before, is between reading the webhook
	// configuration and writing it. a's write must not win.
	stale := []byte("stale")
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	_ = c.Get(ctx, cfgKey, v)
	v.Webhooks[0].ClientConfig.CABundle = stale // something for a to fix
	if err := c.Update(ctx, v); err != nil {
		t.Fatal(err)
	}
	oldBundle := secret.Data[SecretKeyCACert]
	var newBundle []byte
	renewBetweenReadAndWrite = func(ctx context.Context, c client.WithWatch) {
		s := &corev1.Secret{}
		_ = c.Get(ctx, key, s)
		data, _, err := b.plan(nil) // a whole new CA, as a rotation makes
		if err != nil {
			t.Fatal(err)
		}
		s.Data, newBundle = data, data[SecretKeyCACert]
		if err := c.Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.injectCABundle(ctx, oldBundle); err == nil {
		t.Fatal("a replica injected a CA bundle the Secret no longer holds")
	}
	if got := bundleOf(); string(got) == string(oldBundle) {
		t.Fatal("the older bundle was written over the renewal")
	}
	// Its next check injects what the Secret holds now.
	if err := a.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if got := bundleOf(); string(got) != string(newBundle) {
		t.Fatal("after the next check the injected bundle is not the renewed one")
	}
}
