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
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// serviceMonitorEndpoint is the one endpoint of a rendered ServiceMonitor.
type serviceMonitorEndpoint struct {
	Port, Path, Scheme, BearerTokenFile string
	TLSConfig                           map[string]any `json:"tlsConfig"`
}

func monitorEndpoint(t *testing.T, objs []Object, name string) serviceMonitorEndpoint {
	t.Helper()
	o, ok := Find(objs, "ServiceMonitor", "grove-system", name)
	if !ok {
		t.Fatalf("no ServiceMonitor %s", name)
	}
	var sm struct {
		Spec struct {
			Endpoints []serviceMonitorEndpoint `json:"endpoints"`
		} `json:"spec"`
	}
	if err := o.Decode(&sm); err != nil {
		t.Fatal(err)
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("ServiceMonitor %s has %d endpoints, want 1", name, len(sm.Spec.Endpoints))
	}
	return sm.Spec.Endpoints[0]
}

// TestMetricsBehindAuthentication: by default both components serve /metrics
// over HTTPS to authorized bearer tokens only, the chart ships the reader
// role and the ServiceMonitors scrape with Prometheus's token;
// metrics.secureServing=false brings plain HTTP back.
func TestMetricsBehindAuthentication(t *testing.T) {
	root := repoRoot(t)
	objs := render(t, root, "grove-system", "metrics.serviceMonitor.enabled=true",
		"metrics.serviceMonitor.prometheusServiceAccount.name=prometheus-k8s", "metrics.serviceMonitor.prometheusServiceAccount.namespace=monitoring")

	if got := dig(operatorConfig(t, objs), "server", "metrics", "secureServing"); got != true {
		t.Errorf("operator server.metrics.secureServing = %v, want true", got)
	}
	reader, ok := Find(objs, "ClusterRole", "", "grove-metrics-reader")
	if !ok {
		t.Fatal("no ClusterRole grove-metrics-reader")
	}
	want := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if !reflect.DeepEqual(reader.Rules, want) {
		t.Errorf("grove-metrics-reader rules %+v, want %+v", reader.Rules, want)
	}
	binding, ok := Find(objs, "ClusterRoleBinding", "", "grove-metrics-reader")
	if !ok || binding.RoleRef.Name != "grove-metrics-reader" || len(binding.Subjects) != 1 ||
		binding.Subjects[0] != (rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"}) {
		t.Errorf("ClusterRoleBinding grove-metrics-reader = %+v (found %t), want prometheus-k8s/monitoring bound to grove-metrics-reader", binding, ok)
	}
	for _, name := range []string{"grove-operator", "grove-scheduler"} {
		ep := monitorEndpoint(t, objs, name)
		if ep.Scheme != "https" || ep.BearerTokenFile != "/var/run/secrets/kubernetes.io/serviceaccount/token" || ep.TLSConfig["insecureSkipVerify"] != true {
			t.Errorf("ServiceMonitor %s endpoint %+v, want https with the ServiceAccount token and the self-signed certificate accepted", name, ep)
		}
	}
	// grove-scheduler: no plain endpoint; the Service reaches kube-scheduler's secure port.
	c := deployment(t, objs, "grove-scheduler").Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--grove-metrics-bind-address=0") || !slices.Equal(containerPorts(c), []string{"https"}) {
		t.Errorf("grove-scheduler args %v ports %v, want the plain endpoint off and only https", c.Args, containerPorts(c))
	}
	o, ok := Find(objs, "Service", "grove-system", "grove-scheduler-metrics")
	if !ok {
		t.Fatal("no Service grove-scheduler-metrics")
	}
	var svc corev1.Service
	if err := o.Decode(&svc); err != nil {
		t.Fatal(err)
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Name != "metrics" || p[0].Port != 10259 || p[0].TargetPort.String() != "https" {
		t.Errorf("grove-scheduler-metrics ports %+v, want metrics 10259 -> https", p)
	}

	plain := render(t, root, "grove-system", "metrics.secureServing=false", "metrics.serviceMonitor.enabled=true")
	if got := dig(operatorConfig(t, plain), "server", "metrics", "secureServing"); got != false {
		t.Errorf("with metrics.secureServing=false the operator's secureServing = %v, want false", got)
	}
	if _, ok := Find(plain, "ClusterRole", "", "grove-metrics-reader"); ok {
		t.Error("grove-metrics-reader rendered for plain HTTP metrics")
	}
	for _, name := range []string{"grove-operator", "grove-scheduler"} {
		if ep := monitorEndpoint(t, plain, name); ep.Scheme != "http" || ep.BearerTokenFile != "" {
			t.Errorf("plain ServiceMonitor %s endpoint %+v, want http without a token", name, ep)
		}
	}
	if c := deployment(t, plain, "grove-scheduler").Spec.Template.Spec.Containers[0]; !slices.Contains(c.Args, "--grove-metrics-bind-address=0.0.0.0:8080") {
		t.Errorf("plain grove-scheduler args %v, want its HTTP endpoint on 8080", c.Args)
	}
}

// TestAuthorizerWebhook: off by default; when enabled, the configuration the
// reference describes, named as the operator injects its CA into it.
func TestAuthorizerWebhook(t *testing.T) {
	root := repoRoot(t)
	off := render(t, root, "grove-system")
	if _, ok := Find(off, "ValidatingWebhookConfiguration", "", "authorizer-webhook"); ok {
		t.Error("authorizer-webhook rendered by default")
	}
	if got := dig(operatorConfig(t, off), "authorizer", "enabled"); got != false {
		t.Errorf("operator authorizer.enabled = %v by default, want false", got)
	}
	on := render(t, root, "grove-system", "operator.config.authorizer.enabled=true")
	exempt := dig(operatorConfig(t, on), "authorizer", "exemptServiceAccountUserNames")
	wantExempt := []any{"system:serviceaccount:kube-system:generic-garbage-collector", "system:serviceaccount:kube-system:horizontal-pod-autoscaler",
		"system:serviceaccount:kube-system:namespace-controller", "system:kube-controller-manager"}
	if !reflect.DeepEqual(exempt, wantExempt) {
		t.Errorf("exempt users %v, want %v", exempt, wantExempt)
	}
	o, ok := Find(on, "ValidatingWebhookConfiguration", "", "authorizer-webhook")
	if !ok {
		t.Fatal("no authorizer-webhook with operator.config.authorizer.enabled=true")
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	if err := o.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Webhooks) != 1 {
		t.Fatalf("authorizer-webhook has %d webhooks, want 1", len(cfg.Webhooks))
	}
	w := cfg.Webhooks[0]
	if w.Name != "authorizer.webhooks.grove.io" || w.ClientConfig.Service == nil || *w.ClientConfig.Service.Path != "/webhooks/authorizer-webhook" ||
		*w.FailurePolicy != admissionregistrationv1.Fail || *w.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("authorizer webhook %+v: want authorizer.webhooks.grove.io at /webhooks/authorizer-webhook, Fail, no side effects", w)
	}
	wantMatch := `!(request.userInfo.username in ["system:serviceaccount:grove-system:grove-operator",` +
		`"system:serviceaccount:kube-system:generic-garbage-collector","system:serviceaccount:kube-system:horizontal-pod-autoscaler",` +
		`"system:serviceaccount:kube-system:namespace-controller","system:kube-controller-manager"])`
	if len(w.MatchConditions) != 1 || w.MatchConditions[0].Expression != wantMatch {
		t.Errorf("authorizer matchConditions %+v, want one skipping the operator and the exempt users: %s", w.MatchConditions, wantMatch)
	}
	if w.ObjectSelector == nil || !reflect.DeepEqual(w.ObjectSelector.MatchLabels, map[string]string{"app.kubernetes.io/managed-by": "grove-operator"}) {
		t.Errorf("authorizer objectSelector %+v, want managed-by grove-operator", w.ObjectSelector)
	}
	// resource -> operations, for every group and version.
	got := map[string]string{}
	for _, r := range w.Rules {
		for _, res := range r.Resources {
			for _, v := range r.APIVersions {
				ops := make([]string, 0, len(r.Operations))
				for _, op := range r.Operations {
					ops = append(ops, string(op))
				}
				got[r.APIGroups[0]+"/"+v+"/"+res] = strings.Join(ops, ",")
			}
		}
	}
	wantRules := map[string]string{
		"/v1/secrets": "UPDATE,DELETE", "/v1/serviceaccounts": "UPDATE,DELETE", "/v1/services": "UPDATE,DELETE", "/v1/pods": "UPDATE",
		"rbac.authorization.k8s.io/v1/roles": "UPDATE,DELETE", "rbac.authorization.k8s.io/v1/rolebindings": "UPDATE,DELETE",
		"autoscaling/v1/horizontalpodautoscalers": "UPDATE,DELETE", "autoscaling/v2/horizontalpodautoscalers": "UPDATE,DELETE",
		"grove.io/v1alpha1/podcliques": "CREATE,UPDATE,DELETE", "grove.io/v1alpha1/podcliquescalinggroups": "CREATE,UPDATE,DELETE",
		"scheduler.grove.io/v1alpha1/podgangs": "CREATE,UPDATE,DELETE",
	}
	if !reflect.DeepEqual(got, wantRules) {
		t.Errorf("authorizer rules %v, want %v", got, wantRules)
	}
}
