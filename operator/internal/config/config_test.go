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

package config

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/grove-project/grove/operator/internal/version"
)

func TestDefaults(t *testing.T) {
	c, err := Parse([]byte("apiVersion: operator.config.grove.io/v1alpha1\nkind: OperatorConfiguration\n"))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"qps", c.RuntimeClientConnection.QPS, float32(500)},
		{"burst", c.RuntimeClientConnection.Burst, 1000},
		{"lease duration", c.LeaderElection.LeaseDuration.Duration, 15 * time.Second},
		{"renew deadline", c.LeaderElection.RenewDeadline.Duration, 10 * time.Second},
		{"retry period", c.LeaderElection.RetryPeriod.Duration, 2 * time.Second},
		{"resource lock", c.LeaderElection.ResourceLock, "leases"},
		{"resource name", c.LeaderElection.ResourceName, "grove-operator-leader-election"},
		{"webhook port", c.Server.Webhooks.Port, 2750},
		{"cert dir", c.Server.Webhooks.ServerCertDir, "/etc/grove-operator/webhook-certs"},
		{"secret name", c.Server.Webhooks.SecretName, "grove-webhook-server-cert"},
		{"cert mode", c.Server.Webhooks.CertProvisionMode, CertProvisionModeAuto},
		{"health port", c.Server.HealthProbes.Port, 2751},
		{"metrics port", c.Server.Metrics.Port, 2752},
		{"metrics secure", *c.Server.Metrics.SecureServing, true},
		{"authorizer", c.Authorizer.Enabled, false},
		{"pprof port", c.Debugging.PprofBindPort, 2753},
		{"pcs syncs", c.Controllers.PodCliqueSet.ConcurrentSyncs, 10},
		{"pclq syncs", c.Controllers.PodClique.ConcurrentSyncs, 50},
		{"pcsg syncs", c.Controllers.PodCliqueScalingGroup.ConcurrentSyncs, 5},
		{"log level", c.LogLevel, LogLevelInfo},
		{"log format", c.LogFormat, LogFormatJSON},
		{"profiles", len(c.Scheduler.Profiles), 2},
		{"default profile", c.Scheduler.DefaultProfileName, SchedulerBackendGrove},
		{"default-scheduler enabled", c.SchedulerEnabled(SchedulerBackendDefault), true},
		{"tas", *c.TopologyAwareScheduling.Enabled, true},
		{"initc image", c.InitContainer.Image, "ghcr.io/grove-project/grove-initc:" + version.GitVersion()},
		{"initc pull policy", c.InitContainer.ImagePullPolicy, corev1.PullIfNotPresent},
	}
	for _, tc := range checks {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	const header = "apiVersion: operator.config.grove.io/v1alpha1\nkind: OperatorConfiguration\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", "must have apiVersion operator.config.grove.io/v1alpha1 and kind OperatorConfiguration"},
		{"unknown field", header + "logLevl: info\n", `unknown field "logLevl"`},
		{"log level", header + "logLevel: verbose\n", `logLevel: Unsupported value: "verbose"`},
		{"log format", header + "logFormat: xml\n", `logFormat: Unsupported value: "xml"`},
		{"cert mode", header + "server:\n  webhooks:\n    certProvisionMode: vault\n", `server.webhooks.certProvisionMode: Unsupported value: "vault"`},
		{"exempt user", header + "authorizer:\n  exemptServiceAccountUserNames: [\"system:serviceaccount:a:b\", \"\"]\n", `authorizer.exemptServiceAccountUserNames[1]: Invalid value: ""`},
		{"scheduler", header + "scheduler:\n  profiles:\n  - name: yunikorn\n", `scheduler.profiles[0].name: Unsupported value: "yunikorn": supported values: "default-scheduler", "grove-scheduler", "kai-scheduler", "scheduler-plugins-scheduler", "volcano"`},
		{"kai queue", header + "scheduler:\n  profiles:\n  - name: kai-scheduler\n    config: {defaultQueue: Team_A}\n", `scheduler.profiles[0].config: Invalid value: "{\"defaultQueue\":\"Team_A\"}": defaultQueue "Team_A" is no KAI queue name: a lowercase RFC 1123 subdomain`},
		{"unknown backend config key", header + "scheduler:\n  profiles:\n  - name: default-scheduler\n    config: {gangSchedulng: true}\n", `scheduler.profiles[0].config: Invalid value: "{\"gangSchedulng\":true}": decoding the default-scheduler config: json: unknown field "gangSchedulng"`},
		{"config on grove-scheduler", header + "scheduler:\n  profiles:\n  - name: grove-scheduler\n    config: {queue: a}\n", "scheduler.profiles[0].config: Invalid value: \"{\\\"queue\\\":\\\"a\\\"}\": grove-scheduler takes no config"},
		{"schedule timeout", header + "scheduler:\n  profiles:\n  - name: scheduler-plugins-scheduler\n    config: {scheduleTimeoutSeconds: 0}\n", "scheduleTimeoutSeconds must be greater than zero"},
		{"volcano config type", header + "scheduler:\n  profiles:\n  - name: volcano\n    config: {defaultQueue: 3}\n", "decoding the volcano config: json: cannot unmarshal number into Go struct field VolcanoConfig.defaultQueue of type string"},
		{"duplicate scheduler", header + "scheduler:\n  profiles:\n  - name: grove-scheduler\n  - name: grove-scheduler\n", `scheduler.profiles[1].name: Duplicate value`},
		{"default scheduler not enabled", header + "scheduler:\n  profiles:\n  - name: default-scheduler\n  defaultProfileName: grove-scheduler\n", "scheduler.defaultProfileName"},
		{"negative syncs", header + "controllers:\n  podClique:\n    concurrentSyncs: -1\n", "controllers.podClique.concurrentSyncs"},
		{"initc image without tag or digest", header + "initContainer:\n  image: registry.example:5000/grove-initc\n", `initContainer.image: Invalid value: "registry.example:5000/grove-initc": must name a tag or a digest`},
		{"initc image with whitespace", header + "initContainer:\n  image: \"grove-initc :v1\"\n", `initContainer.image: Invalid value: "grove-initc :v1": must not contain whitespace`},
		{"initc pull policy", header + "initContainer:\n  imagePullPolicy: Sometimes\n", `initContainer.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`},
		{"initc unknown field", header + "initContainer:\n  tag: v1\n", `unknown field "tag"`},
		{"lease shorter than renew", header + "leaderElection:\n  enabled: true\n  leaseDuration: 5s\n  renewDeadline: 10s\n", "leaderElection.leaseDuration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestProfileConfig(t *testing.T) {
	c, err := Parse([]byte(`apiVersion: operator.config.grove.io/v1alpha1
kind: OperatorConfiguration
scheduler:
  profiles:
  - name: default-scheduler
    config: {gangScheduling: true}
  - name: scheduler-plugins-scheduler
    config: {scheduleTimeoutSeconds: 30}
  - name: volcano
`))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Profile(SchedulerBackendDefault)
	d, err := ProfileConfig[DefaultSchedulerConfig](p)
	if err != nil || !d.GangScheduling || d.TopologyAwareScheduling {
		t.Errorf("default-scheduler config %+v, %v: want gangScheduling only", d, err)
	}
	p, _ = c.Profile(SchedulerBackendSchedulerPlugins)
	sp, err := ProfileConfig[SchedulerPluginsConfig](p)
	if err != nil || sp.ScheduleTimeoutSeconds == nil || *sp.ScheduleTimeoutSeconds != 30 {
		t.Errorf("scheduler-plugins config %+v, %v: want scheduleTimeoutSeconds 30", sp, err)
	}
	p, _ = c.Profile(SchedulerBackendVolcano)
	if v, err := ProfileConfig[VolcanoConfig](p); err != nil || v.DefaultQueue != "" {
		t.Errorf("volcano config %+v, %v: want empty", v, err)
	}
	if c.Scheduler.DefaultProfileName != SchedulerBackendDefault {
		t.Errorf("defaultProfileName %q: want the first profile", c.Scheduler.DefaultProfileName)
	}
}

func TestDefaultSchedulerOnlyProfile(t *testing.T) {
	c, err := Parse([]byte("apiVersion: operator.config.grove.io/v1alpha1\nkind: OperatorConfiguration\nscheduler:\n  profiles:\n  - name: default-scheduler\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Scheduler.DefaultProfileName != SchedulerBackendDefault || c.SchedulerEnabled(SchedulerBackendGrove) {
		t.Errorf("profiles %+v default %q: want only default-scheduler", c.Scheduler.Profiles, c.Scheduler.DefaultProfileName)
	}
}

// TestInitContainerImageReferences: every reference form the chart renders
// from image.initc is accepted as it is.
func TestInitContainerImageReferences(t *testing.T) {
	for _, image := range []string{
		"ghcr.io/grove-project/grove-initc:v0.2.0",
		"registry.example:5000/grove-initc:v0.2.0",
		"registry.example:5000/grove-initc@sha256:0123456789abcdef",
		"ghcr.io/grove-project/grove-initc:v0.2.0@sha256:0123456789abcdef",
		"grove-initc:dev",
	} {
		c, err := Parse([]byte("apiVersion: operator.config.grove.io/v1alpha1\nkind: OperatorConfiguration\ninitContainer:\n  image: " + image + "\n  imagePullPolicy: Always\n"))
		if err != nil {
			t.Errorf("image %s: %v", image, err)
			continue
		}
		if c.InitContainer.Image != image || c.InitContainer.ImagePullPolicy != corev1.PullAlways {
			t.Errorf("image %s: got %q %q", image, c.InitContainer.Image, c.InitContainer.ImagePullPolicy)
		}
	}
}
