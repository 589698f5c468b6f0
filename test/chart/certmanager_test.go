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
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
