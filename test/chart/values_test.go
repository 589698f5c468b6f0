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
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// TestSchemaRejectsBadValues: values.schema.json turns a typo or a wrong type
// into a helm error naming the key, before anything reaches the cluster.
func TestSchemaRejectsBadValues(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		name string
		set  []string
		want []string
	}{
		{"unknown operator.config key", []string{"operator.config.bogus=1"}, []string{"/operator/config", "'bogus' not allowed"}},
		{"unknown nested operator.config key", []string{"operator.config.server.webhooks.prot=9443"}, []string{"/operator/config/server/webhooks", "'prot' not allowed"}},
		{"unknown key in a scheduler backend's config", []string{`json:operator.config.scheduler.profiles=[{"name":"default-scheduler","config":{"gangSchedulng":true}}]`},
			[]string{"/operator/config/scheduler/profiles/0/config", "'gangSchedulng' not allowed"}},
		{"config on grove-scheduler", []string{`json:operator.config.scheduler.profiles=[{"name":"grove-scheduler","config":{}}]`}, []string{"/operator/config/scheduler/profiles/0"}},
		{"unknown scheduler backend", []string{`json:operator.config.scheduler.profiles=[{"name":"yunikorn"}]`}, []string{"/operator/config/scheduler/profiles/0/name", "value must be one of 'grove-scheduler', 'default-scheduler'"}},
		{"chart-owned operator.config key", []string{"operator.config.initContainer.image=x:1"}, []string{"/operator/config", "'initContainer' not allowed"}},
		{"wrong type in operator.config", []string{"operator.config.controllers.podClique.concurrentSyncs=many"}, []string{"/operator/config/controllers/podClique/concurrentSyncs", "want integer"}},
		{"operator log level", []string{"operator.config.logLevel=verbose"}, []string{"/operator/config/logLevel"}},
		{"unknown top-level key", []string{"operatr.replicas=2"}, []string{"'operatr' not allowed"}},
		{"wrong type", []string{"operator.replicas=two"}, []string{"/operator/replicas", "want integer"}},
		{"negative metrics port", []string{"scheduler.metricsPort=-1"}, []string{"/scheduler/metricsPort"}},
		{"scheduler qps 0 (kube-scheduler would read it as its default)", []string{"scheduler.clientConnection.qps=0"}, []string{"/scheduler/clientConnection/qps"}},
		{"scheduler burst 0", []string{"scheduler.clientConnection.burst=0"}, []string{"/scheduler/clientConnection/burst"}},
		{"permit timeout 0 (GroveGang would read it as its default)", []string{"scheduler.permitWaitingTimeSeconds=0"}, []string{"/scheduler/permitWaitingTimeSeconds"}},
		{"operator qps 0", []string{"operator.config.runtimeClientConnection.qps=0"}, []string{"/operator/config/runtimeClientConnection/qps"}},
		{"negative log level", []string{"scheduler.logLevel=-1"}, []string{"/scheduler/logLevel"}},
		{"pull policy", []string{"image.initc.pullPolicy=Sometimes"}, []string{"/image/initc/pullPolicy"}},
		{"digest", []string{"image.operator.digest=latest"}, []string{"/image/operator/digest"}},
		{"unknown image key", []string{"image.initc.image=x"}, []string{"/image/initc", "'image' not allowed"}},
		{"certificate mode", []string{"webhooks.certProvisionMode=vault"}, []string{"/webhooks/certProvisionMode"}},
		{"issuerRef without a name", []string{"certManager.issuerRef.kind=ClusterIssuer"}, []string{"/certManager/issuerRef"}},
		{"Kubernetes older than 1.37", []string{"flag:--kube-version=v1.36.3"}, []string{"chart requires kubeVersion: >=1.37.0-0 which is incompatible with Kubernetes v1.36.3"}},
		{"two operator replicas without leader election", []string{"operator.config.leaderElection.enabled=false"},
			[]string{"operator.replicas is 2: more than one replica needs operator.config.leaderElection.enabled=true"}},
		{"two scheduler replicas without leader election", []string{"scheduler.replicas=2", "scheduler.leaderElect=false"},
			[]string{"scheduler.replicas is 2: more than one replica needs scheduler.leaderElect=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := helmTemplate(t, root, "grove-system", tc.set...)
			if err == nil {
				t.Fatalf("helm template %v succeeded, want an error naming %q", tc.set, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(stderr), w) {
					t.Errorf("helm template %v: error does not contain %q:\n%s", tc.set, w, stderr)
				}
			}
		})
	}
}

func deployment(t *testing.T, objs []Object, name string) appsv1.Deployment {
	t.Helper()
	return deploymentIn(t, objs, "grove-system", name)
}

func deploymentIn(t *testing.T, objs []Object, namespace, name string) appsv1.Deployment {
	t.Helper()
	o, ok := Find(objs, "Deployment", namespace, name)
	if !ok {
		t.Fatalf("no Deployment %s/%s", namespace, name)
	}
	var d appsv1.Deployment
	if err := o.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// operatorConfig is the OperatorConfiguration in the operator's ConfigMap,
// as a map (the Go type is internal to the operator module).
func operatorConfig(t *testing.T, objs []Object) map[string]any {
	t.Helper()
	return operatorConfigIn(t, objs, "grove-system")
}

func operatorConfigIn(t *testing.T, objs []Object, namespace string) map[string]any {
	t.Helper()
	d := deploymentIn(t, objs, namespace, "grove-operator")
	var cmName string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == "config" && v.ConfigMap != nil {
			cmName = v.ConfigMap.Name
		}
	}
	o, ok := Find(objs, "ConfigMap", namespace, cmName)
	if !ok {
		t.Fatalf("no ConfigMap %q mounted by grove-operator", cmName)
	}
	var cm corev1.ConfigMap
	if err := o.Decode(&cm); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	if err := yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func containerPorts(c corev1.Container) []string {
	var out []string
	for _, p := range c.Ports {
		out = append(out, p.Name)
	}
	return out
}

// TestZeroValuesAreHonoured: a value of 0 renders 0, or (metricsPort) what
// values.yaml says 0 means; nothing falls back to a default.
func TestZeroValuesAreHonoured(t *testing.T) {
	root := repoRoot(t)
	t.Run("scheduler.metricsPort=0 turns the plain metrics endpoint off", func(t *testing.T) {
		objs := render(t, root, "grove-system", "metrics.secureServing=false", "scheduler.metricsPort=0", "metrics.serviceMonitor.enabled=true")
		c := deployment(t, objs, "grove-scheduler").Spec.Template.Spec.Containers[0]
		if ports := containerPorts(c); !slices.Equal(ports, []string{"https"}) {
			t.Errorf("grove-scheduler ports %v, want only https", ports)
		}
		if !slices.Contains(c.Args, "--grove-metrics-bind-address=0") {
			t.Errorf("grove-scheduler args %v lack --grove-metrics-bind-address=0", c.Args)
		}
		if _, ok := Find(objs, "Service", "grove-system", "grove-scheduler-metrics"); ok {
			t.Error("Service grove-scheduler-metrics rendered with metricsPort 0")
		}
		if _, ok := Find(objs, "ServiceMonitor", "grove-system", "grove-scheduler"); ok {
			t.Error("ServiceMonitor grove-scheduler rendered with metricsPort 0")
		}
		if _, ok := Find(objs, "ServiceMonitor", "grove-system", "grove-operator"); !ok {
			t.Error("ServiceMonitor grove-operator missing")
		}
	})
	t.Run("scheduler.metricsPort=9090", func(t *testing.T) {
		c := deployment(t, render(t, root, "grove-system", "metrics.secureServing=false", "scheduler.metricsPort=9090"), "grove-scheduler").Spec.Template.Spec.Containers[0]
		if !slices.Contains(c.Args, "--grove-metrics-bind-address=0.0.0.0:9090") || c.Ports[0].ContainerPort != 9090 {
			t.Errorf("grove-scheduler args %v ports %v, want metrics on 9090", c.Args, c.Ports)
		}
	})
	t.Run("scheduler.logLevel=0 renders --v=0", func(t *testing.T) {
		c := deployment(t, render(t, root, "grove-system", "scheduler.logLevel=0"), "grove-scheduler").Spec.Template.Spec.Containers[0]
		if !slices.Contains(c.Args, "--v=0") {
			t.Errorf("grove-scheduler args %v lack --v=0", c.Args)
		}
	})
	t.Run("small rates and timeouts are rendered as given", func(t *testing.T) {
		objs := render(t, root, "grove-system", "json:scheduler.clientConnection.qps=0.5", "scheduler.clientConnection.burst=1",
			"json:scheduler.permitWaitingTimeSeconds=0.25", "operator.gcPercent=null", "scheduler.replicas=0", "operator.replicas=0")
		o, _ := Find(objs, "ConfigMap", "grove-system", "grove-scheduler-config")
		var cm corev1.ConfigMap
		if err := o.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"qps: 0.5\n", "burst: 1\n", "permitWaitingTimeSeconds: 0.25\n"} {
			if !strings.Contains(cm.Data["config.yaml"], want) {
				t.Errorf("scheduler configuration lacks %q:\n%s", want, cm.Data["config.yaml"])
			}
		}
		for _, name := range []string{"grove-operator", "grove-scheduler"} {
			if r := deployment(t, objs, name).Spec.Replicas; r == nil || *r != 0 {
				t.Errorf("%s replicas %v, want 0", name, r)
			}
		}
		for _, e := range deployment(t, objs, "grove-operator").Spec.Template.Spec.Containers[0].Env {
			if e.Name == "GOGC" {
				t.Errorf("GOGC=%s rendered with operator.gcPercent null", e.Value)
			}
		}
	})
}

// TestImages: the image values contract, and grove-initc's reference and pull
// policy reaching the operator through its configuration.
func TestImages(t *testing.T) {
	root := repoRoot(t)
	const app = "v0.1.0-dev" // Chart.yaml appVersion
	for _, tc := range []struct {
		name                       string
		set                        []string
		operator, scheduler, initc string
		initcPullPolicy            string
	}{
		{name: "defaults: ghcr.io, tag appVersion",
			operator: "ghcr.io/grove-project/grove-operator:" + app, scheduler: "ghcr.io/grove-project/grove-scheduler:" + app,
			initc: "ghcr.io/grove-project/grove-initc:" + app, initcPullPolicy: "IfNotPresent"},
		{name: "mirror and tags",
			set: []string{"image.operator.repository=registry.example/grove/op", "image.operator.tag=v9",
				"image.scheduler.tag=v8", "image.initc.repository=registry.example:5000/initc", "image.initc.tag=v7", "image.initc.pullPolicy=Always"},
			operator: "registry.example/grove/op:v9", scheduler: "ghcr.io/grove-project/grove-scheduler:v8",
			initc: "registry.example:5000/initc:v7", initcPullPolicy: "Always"},
		{name: "digests, with and without a tag",
			set: []string{"image.operator.digest=sha256:aaaa", "image.scheduler.tag=v0.2.0", "image.scheduler.digest=sha256:bbbb",
				"image.initc.digest=sha256:cccc", "image.initc.pullPolicy=Never"},
			operator: "ghcr.io/grove-project/grove-operator@sha256:aaaa", scheduler: "ghcr.io/grove-project/grove-scheduler:v0.2.0@sha256:bbbb",
			initc: "ghcr.io/grove-project/grove-initc@sha256:cccc", initcPullPolicy: "Never"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, "grove-system", tc.set...)
			if got := deployment(t, objs, "grove-operator").Spec.Template.Spec.Containers[0].Image; got != tc.operator {
				t.Errorf("grove-operator image %q, want %q", got, tc.operator)
			}
			if got := deployment(t, objs, "grove-scheduler").Spec.Template.Spec.Containers[0].Image; got != tc.scheduler {
				t.Errorf("grove-scheduler image %q, want %q", got, tc.scheduler)
			}
			cfg := operatorConfig(t, objs)
			if got := dig(cfg, "initContainer", "image"); got != tc.initc {
				t.Errorf("operator config initContainer.image %v, want %q", got, tc.initc)
			}
			if got := dig(cfg, "initContainer", "imagePullPolicy"); got != tc.initcPullPolicy {
				t.Errorf("operator config initContainer.imagePullPolicy %v, want %q", got, tc.initcPullPolicy)
			}
		})
	}
}

func pdb(t *testing.T, objs []Object, name string) (policyv1.PodDisruptionBudget, bool) {
	t.Helper()
	o, ok := Find(objs, "PodDisruptionBudget", "grove-system", name)
	if !ok {
		return policyv1.PodDisruptionBudget{}, false
	}
	var p policyv1.PodDisruptionBudget
	if err := o.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p, true
}

// TestHighAvailability: two leader-elected operator replicas by default, kept
// through drains by a PodDisruptionBudget and spread over nodes and zones;
// the scheduler likewise once it runs more than one replica.
func TestHighAvailability(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		name                  string
		set                   []string
		operatorReplicas      int32
		operatorPDB, schedPDB bool
		schedReplicas         int32
	}{
		{name: "defaults", operatorReplicas: 2, operatorPDB: true, schedReplicas: 1},
		{name: "one operator replica: no PDB (it would block every drain)", set: []string{"operator.replicas=1"}, operatorReplicas: 1, schedReplicas: 1},
		{name: "two scheduler replicas", set: []string{"scheduler.replicas=2"}, operatorReplicas: 2, operatorPDB: true, schedPDB: true, schedReplicas: 2},
		{name: "PDBs off", set: []string{"scheduler.replicas=3", "operator.podDisruptionBudget.enabled=false", "scheduler.podDisruptionBudget.enabled=false"},
			operatorReplicas: 2, schedReplicas: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, "grove-system", tc.set...)
			for _, c := range []struct {
				name     string
				replicas int32
				wantPDB  bool
			}{{"grove-operator", tc.operatorReplicas, tc.operatorPDB}, {"grove-scheduler", tc.schedReplicas, tc.schedPDB}} {
				d := deployment(t, objs, c.name)
				if d.Spec.Replicas == nil || *d.Spec.Replicas != c.replicas {
					t.Errorf("%s replicas %v, want %d", c.name, d.Spec.Replicas, c.replicas)
				}
				p, ok := pdb(t, objs, c.name)
				if ok != c.wantPDB {
					t.Fatalf("%s PodDisruptionBudget rendered = %v, want %v", c.name, ok, c.wantPDB)
				}
				if ok && (p.Spec.MinAvailable == nil || p.Spec.MinAvailable.IntValue() != 1 || p.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != c.name) {
					t.Errorf("%s PodDisruptionBudget %+v, want minAvailable 1 selecting app.kubernetes.io/name=%s", c.name, p.Spec, c.name)
				}
				var keys []string
				for _, s := range d.Spec.Template.Spec.TopologySpreadConstraints {
					keys = append(keys, s.TopologyKey)
					if s.WhenUnsatisfiable != corev1.ScheduleAnyway || s.LabelSelector.MatchLabels["app.kubernetes.io/name"] != c.name {
						t.Errorf("%s spread constraint %+v: want ScheduleAnyway over its own pods", c.name, s)
					}
				}
				if !slices.Equal(keys, []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}) {
					t.Errorf("%s spreads over %v, want hostname and zone", c.name, keys)
				}
			}
			cfg := operatorConfig(t, objs)
			if dig(cfg, "leaderElection", "enabled") != true || dig(cfg, "leaderElection", "resourceNamespace") != "grove-system" {
				t.Errorf("operator leaderElection %v, want enabled in grove-system", cfg["leaderElection"])
			}
		})
	}
	t.Run("own spread constraints replace the default", func(t *testing.T) {
		objs := render(t, root, "grove-system", `json:operator.topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"example.com/rack","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app.kubernetes.io/name":"grove-operator"}}}]`)
		s := deployment(t, objs, "grove-operator").Spec.Template.Spec.TopologySpreadConstraints
		if len(s) != 1 || s[0].TopologyKey != "example.com/rack" {
			t.Errorf("spread constraints %+v, want only example.com/rack", s)
		}
	})
}

// TestCRDsAreTemplates: the five CRDs are rendered (so helm upgrade applies
// them), each exactly files/crds/<file> apart from the keep annotation and
// the chart's labels, and nothing is left in crds/, which helm would install
// a second time and never upgrade.
func TestCRDsAreTemplates(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "charts", "grove", "crds")); !os.IsNotExist(err) {
		t.Fatalf("charts/grove/crds exists (%v): helm installs it once and never upgrades it", err)
	}
	files, err := filepath.Glob(filepath.Join(root, "charts", "grove", "files", "crds", "*.yaml"))
	if err != nil || len(files) != 5 {
		t.Fatalf("files/crds holds %v (%v), want the five CRDs", files, err)
	}
	objs := render(t, root, "grove-system")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{}
		if err := yaml.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		name := dig(want, "metadata", "name").(string)
		o, ok := Find(objs, "CustomResourceDefinition", "", name)
		if !ok {
			t.Errorf("CRD %s not rendered", name)
			continue
		}
		got := map[string]any{}
		if err := o.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if a := dig(got, "metadata", "annotations", "helm.sh/resource-policy"); a != "keep" {
			t.Errorf("CRD %s helm.sh/resource-policy %v, want keep", name, a)
		}
		if l := dig(got, "metadata", "labels", "app.kubernetes.io/part-of"); l != "grove" {
			t.Errorf("CRD %s app.kubernetes.io/part-of %v, want grove", name, l)
		}
		if !reflect.DeepEqual(got["spec"], want["spec"]) {
			t.Errorf("CRD %s spec differs from %s", name, f)
		}
	}
}

// TestConfigChangeRollsTheDeployment: each process reads its configuration
// once at start, so a `helm upgrade` that changes only that configuration
// must change the Deployment's pod template (grove-operator: the hashed name
// of its ConfigMap; grove-scheduler: a checksum annotation), and one that
// changes neither configuration nor pod leaves the template alone.
func TestConfigChangeRollsTheDeployment(t *testing.T) {
	root := repoRoot(t)
	templates := func(set ...string) map[string]string {
		objs := render(t, root, "grove-system", set...)
		out := map[string]string{}
		for _, name := range []string{"grove-operator", "grove-scheduler"} {
			b, err := json.Marshal(deployment(t, objs, name).Spec.Template)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = string(b)
		}
		return out
	}
	base := templates()
	for _, tc := range []struct {
		name    string
		set     []string
		changed map[string]bool
	}{
		{"operator config", []string{"operator.config.network.autoMNNVLEnabled=true"}, map[string]bool{"grove-operator": true}},
		{"operator log level", []string{"operator.config.logLevel=debug"}, map[string]bool{"grove-operator": true}},
		{"scheduler permit timeout", []string{"scheduler.permitWaitingTimeSeconds=30"}, map[string]bool{"grove-scheduler": true}},
		{"neither configuration", []string{"webhooks.annotations.team=ml"}, map[string]bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, tmpl := range templates(tc.set...) {
				if (tmpl != base[name]) != tc.changed[name] {
					t.Errorf("%v: Deployment %s pod template changed = %t, want %t", tc.set, name, tmpl != base[name], tc.changed[name])
				}
			}
		})
	}
}
