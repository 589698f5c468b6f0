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

package chart

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// issuer and certificate are the fields of the chart's cert-manager objects the
// checks read.
type issuer struct {
	Spec struct {
		SelfSigned *struct{} `json:"selfSigned"`
	} `json:"spec"`
}

type certificate struct {
	Spec struct {
		SecretName string   `json:"secretName"`
		DNSNames   []string `json:"dnsNames"`
		IssuerRef  struct {
			Name, Kind, Group string
		} `json:"issuerRef"`
	} `json:"spec"`
}

var webhookConfigurations = []struct{ kind, name string }{
	{"MutatingWebhookConfiguration", "podcliqueset-defaulting-webhook"},
	{"ValidatingWebhookConfiguration", "podcliqueset-validating-webhook"},
	{"ValidatingWebhookConfiguration", "clustertopology-validating-webhook"},
}

// TestCertManagerMode: certManager.enabled renders an Issuer (or uses
// issuerRef) and a Certificate for the webhook Service's DNS names into the
// Secret the operator mounts, runs the operator in manual mode, and points
// cert-manager's CA injector at the Certificate from every webhook
// configuration.
func TestCertManagerMode(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		name, namespace string
		set             []string
		issuer          bool
		issuerRef       [3]string
		service, secret string
	}{
		{name: "self-signed Issuer", namespace: "grove-system", set: []string{"certManager.enabled=true"}, issuer: true,
			issuerRef: [3]string{"grove-selfsigned-issuer", "Issuer", "cert-manager.io"}, service: "grove-operator", secret: "grove-webhook-server-cert"},
		{name: "the user's ClusterIssuer, other names", namespace: "ai-infra",
			set: []string{"certManager.enabled=true", "certManager.issuerRef.name=corp-ca", "certManager.issuerRef.kind=ClusterIssuer",
				"operator.config.server.webhooks.serviceName=grove-webhooks", "operator.config.server.webhooks.secretName=grove-tls"},
			issuerRef: [3]string{"corp-ca", "ClusterIssuer", "cert-manager.io"}, service: "grove-webhooks", secret: "grove-tls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, tc.namespace, tc.set...)
			o, ok := Find(objs, "Issuer", tc.namespace, "grove-selfsigned-issuer")
			if ok != tc.issuer {
				t.Fatalf("Issuer grove-selfsigned-issuer rendered = %v, want %v", ok, tc.issuer)
			}
			if ok {
				var i issuer
				if err := o.Decode(&i); err != nil || i.Spec.SelfSigned == nil {
					t.Errorf("Issuer %+v (%v): want spec.selfSigned", i, err)
				}
			}
			o, ok = Find(objs, "Certificate", tc.namespace, "grove-webhook-server-cert")
			if !ok {
				t.Fatalf("no Certificate %s/grove-webhook-server-cert", tc.namespace)
			}
			var c certificate
			if err := o.Decode(&c); err != nil {
				t.Fatal(err)
			}
			s, ns := tc.service, tc.namespace
			if want := []string{s, s + "." + ns, s + "." + ns + ".svc", s + "." + ns + ".svc.cluster.local"}; !slices.Equal(c.Spec.DNSNames, want) {
				t.Errorf("Certificate dnsNames %v, want %v", c.Spec.DNSNames, want)
			}
			if c.Spec.SecretName != tc.secret {
				t.Errorf("Certificate secretName %q, want %q", c.Spec.SecretName, tc.secret)
			}
			if got := [3]string{c.Spec.IssuerRef.Name, c.Spec.IssuerRef.Kind, c.Spec.IssuerRef.Group}; got != tc.issuerRef {
				t.Errorf("Certificate issuerRef %v, want %v", got, tc.issuerRef)
			}
			if _, ok := Find(objs, "Service", ns, s); !ok {
				t.Errorf("no Service %s/%s: the Certificate names a Service the chart does not render", ns, s)
			}

			d := deploymentIn(t, objs, ns, "grove-operator")
			var mounted string
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == "webhook-certs" && v.Secret != nil {
					mounted = v.Secret.SecretName
				}
			}
			if mounted != tc.secret {
				t.Errorf("grove-operator mounts Secret %q as webhook-certs, want %q", mounted, tc.secret)
			}
			if mode := dig(operatorConfigIn(t, objs, ns), "server", "webhooks", "certProvisionMode"); mode != "manual" {
				t.Errorf("operator certProvisionMode %v, want manual", mode)
			}
			for _, w := range webhookConfigurations {
				o, ok := Find(objs, w.kind, "", w.name)
				if !ok {
					t.Fatalf("no %s %s", w.kind, w.name)
				}
				var cfg admissionregistrationv1.ValidatingWebhookConfiguration
				if err := o.Decode(&cfg); err != nil {
					t.Fatal(err)
				}
				if got, want := cfg.Annotations["cert-manager.io/inject-ca-from"], ns+"/grove-webhook-server-cert"; got != want {
					t.Errorf("%s cert-manager.io/inject-ca-from %q, want %q", w.name, got, want)
				}
				if len(cfg.Webhooks[0].ClientConfig.CABundle) != 0 {
					t.Errorf("%s has a caBundle the chart set; the CA injector owns it", w.name)
				}
			}
		})
	}
	t.Run("off by default", func(t *testing.T) {
		objs := render(t, root, "grove-system")
		for _, kind := range []string{"Issuer", "Certificate"} {
			for _, o := range objs {
				if o.Kind == kind {
					t.Errorf("%s %s rendered without certManager.enabled", kind, o.Metadata.Name)
				}
			}
		}
		if mode := dig(operatorConfig(t, objs), "server", "webhooks", "certProvisionMode"); mode != "auto" {
			t.Errorf("operator certProvisionMode %v, want auto", mode)
		}
	})
}

// certManagerModule is the cert-manager release whose CRDs the rendered
// objects are checked against (its deploy/crds, from the Go module proxy).
const certManagerModule = "github.com/cert-manager/cert-manager@v1.21.2"

// certManagerCRDs downloads the cert-manager module and returns its CRD directory.
func certManagerCRDs(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", certManagerModule)
	cmd.Dir = t.TempDir() // outside any module: only the one module is fetched
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s (the Go module proxy serves it): %v\n%s", certManagerModule, err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s printed %s (%v)", certManagerModule, out, err)
	}
	return filepath.Join(mod.Dir, "deploy", "crds")
}

// TestCertManagerObjectsAreValid creates the rendered Issuer and Certificate
// by server-side dry run on a kube-apiserver (envtest) serving cert-manager's
// own CRDs, so a field cert-manager's schema does not know, or a value it
// refuses, fails here. (cert-manager's controller and CA injector are not
// run: their main packages are modules of their own, cmd/controller and
// cmd/cainjector, which the Go module proxy here does not serve.)
func TestCertManagerObjectsAreValid(t *testing.T) {
	root := repoRoot(t)
	crds := certManagerCRDs(t)
	env := &envtest.Environment{
		CRDInstallOptions: envtest.CRDInstallOptions{Paths: []string{
			filepath.Join(crds, "cert-manager.io_issuers.yaml"),
			filepath.Join(crds, "cert-manager.io_clusterissuers.yaml"),
			filepath.Join(crds, "cert-manager.io_certificates.yaml"),
		}},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (KUBEBUILDER_ASSETS, set by make): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		set  []string
		want []string
	}{
		{"self-signed Issuer", []string{"certManager.enabled=true"}, []string{"Certificate/grove-webhook-server-cert", "Issuer/grove-selfsigned-issuer"}},
		{"the user's ClusterIssuer", []string{"certManager.enabled=true", "certManager.issuerRef.name=corp-ca", "certManager.issuerRef.kind=ClusterIssuer",
			"certManager.duration=2160h", "certManager.renewBefore=360h"}, []string{"Certificate/grove-webhook-server-cert"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := "grove-" + strings.ReplaceAll(strings.ToLower(strings.Fields(tc.name)[1]), "'", "")
			cs := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
			nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
			if _, err := cs.Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var created []string
			for _, o := range render(t, root, ns, tc.set...) {
				if o.Kind != "Issuer" && o.Kind != "Certificate" {
					continue
				}
				u := &unstructured.Unstructured{}
				if err := o.Decode(&u.Object); err != nil {
					t.Fatal(err)
				}
				gvr := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: strings.ToLower(o.Kind) + "s"}
				if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}); err != nil {
					t.Errorf("%s %s is not a valid cert-manager object: %v", o.Kind, o.Metadata.Name, err)
				}
				created = append(created, o.Kind+"/"+o.Metadata.Name)
			}
			slices.Sort(created)
			if !slices.Equal(created, tc.want) {
				t.Errorf("cert-manager objects %v, want %v", created, tc.want)
			}
		})
	}

	// The check catches a field cert-manager does not know.
	t.Run("an unknown field is refused", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
			"metadata": map[string]any{"name": "bad", "namespace": corev1.NamespaceDefault},
			"spec":     map[string]any{"secretName": "s", "dnsName": []any{"x"}, "issuerRef": map[string]any{"name": "i"}}}}
		_, err := dyn.Resource(schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}).Namespace(corev1.NamespaceDefault).
			Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		if err == nil || !strings.Contains(err.Error(), `unknown field "spec.dnsName"`) {
			t.Fatalf("Certificate with spec.dnsName: got %v, want an unknown-field error", err)
		}
	})
}
