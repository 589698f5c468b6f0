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
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/grove-project/grove/test/docs"
)

// metricName matches a grove_ metric in a PromQL expression (histogram
// series with their _bucket/_sum/_count suffix).
var metricName = regexp.MustCompile(`grove_[a-z_]+`)

// definedMetrics returns the grove_ metrics grove-operator and grove-scheduler register.
func definedMetrics(t *testing.T, root string) []string {
	t.Helper()
	names, err := docs.Metrics(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 8 {
		t.Fatalf("found %d grove_ metric definitions, want at least 8", len(names))
	}
	return names
}

// usedMetrics returns the grove_ metrics the expressions query.
func usedMetrics(exprs []string) []string {
	var out []string
	for _, e := range exprs {
		for _, m := range metricName.FindAllString(e, -1) {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				m = strings.TrimSuffix(m, suffix)
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// renderOnly renders one template of the chart with the given values.
func renderOnly(t *testing.T, root, template string, set ...string) []byte {
	t.Helper()
	stdout, stderr, err := helmTemplate(t, root, "grove-system", append([]string{"flag:--show-only=" + template}, set...)...)
	if err != nil {
		t.Fatalf("helm template --show-only %s %v: %v\n%s", template, set, err, stderr)
	}
	return stdout
}

func TestDashboardAndAlertsAreOffByDefault(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		name string
		set  []string
		want bool
	}{
		{name: "default values"},
		{name: "both enabled", set: []string{"metrics.grafanaDashboard.enabled=true", "metrics.prometheusRule.enabled=true"}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, "grove-system", tc.set...)
			if _, ok := Find(objs, "ConfigMap", "grove-system", "grove-grafana-dashboard"); ok != tc.want {
				t.Errorf("ConfigMap grove-system/grove-grafana-dashboard rendered = %v, want %v", ok, tc.want)
			}
			if _, ok := Find(objs, "PrometheusRule", "grove-system", "grove"); ok != tc.want {
				t.Errorf("PrometheusRule grove-system/grove rendered = %v, want %v", ok, tc.want)
			}
		})
	}
}

// TestDashboardQueriesEveryGroveMetric checks the shipped dashboard: valid
// JSON in a ConfigMap the Grafana sidecar selects, a panel for every grove_
// metric the components register, and no query of a grove_ metric they do not.
func TestDashboardQueriesEveryGroveMetric(t *testing.T) {
	root := repoRoot(t)
	out := renderOnly(t, root, "templates/grafana-dashboard.yaml", "metrics.grafanaDashboard.enabled=true", "metrics.grafanaDashboard.namespace=monitoring")
	var cm struct {
		Metadata struct {
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(out, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Metadata.Namespace != "monitoring" || cm.Metadata.Labels["grafana_dashboard"] != "1" {
		t.Errorf("ConfigMap namespace %q, label grafana_dashboard %q; want monitoring and \"1\"", cm.Metadata.Namespace, cm.Metadata.Labels["grafana_dashboard"])
	}
	var dashboard struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(cm.Data["grove.json"]), &dashboard); err != nil {
		t.Fatalf("grove.json is not a dashboard: %v", err)
	}
	var exprs []string
	for _, p := range dashboard.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	defined, used := definedMetrics(t, root), usedMetrics(exprs)
	for _, m := range defined {
		if !slices.Contains(used, m) {
			t.Errorf("the dashboard has no panel for %s", m)
		}
	}
	for _, m := range used {
		if !slices.Contains(defined, m) {
			t.Errorf("the dashboard queries %s, which neither component registers", m)
		}
	}
}

// TestAlertRulesQueryRegisteredMetrics checks every shipped alert names a
// severity and a summary, queries only grove_ metrics that exist, and is
// explained on docs/operations.md.
func TestAlertRulesQueryRegisteredMetrics(t *testing.T) {
	root := repoRoot(t)
	out := renderOnly(t, root, "templates/prometheus-rule.yaml", "metrics.prometheusRule.enabled=true", "metrics.prometheusRule.labels.release=kube-prometheus")
	var rule struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert       string            `json:"alert"`
					Expr        string            `json:"expr"`
					Labels      map[string]string `json:"labels"`
					Annotations map[string]string `json:"annotations"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(out, &rule); err != nil {
		t.Fatal(err)
	}
	if rule.Metadata.Labels["release"] != "kube-prometheus" {
		t.Errorf("PrometheusRule labels %v lack release=kube-prometheus", rule.Metadata.Labels)
	}
	defined := definedMetrics(t, root)
	page, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if !strings.Contains(string(page), "`"+r.Alert+"`") {
				t.Errorf("alert %s is not explained on docs/operations.md", r.Alert)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("alert %s has no severity or summary", r.Alert)
			}
			for _, m := range usedMetrics([]string{r.Expr}) {
				if !slices.Contains(defined, m) {
					t.Errorf("alert %s queries %s, which neither component registers", r.Alert, m)
				}
			}
		}
	}
	if len(alerts) == 0 {
		t.Error("the PrometheusRule holds no alerts")
	}
}
