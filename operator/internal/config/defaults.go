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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/grove-project/grove/operator/internal/version"
)

// SetDefaults fills every unset field with its default.
func SetDefaults(c *OperatorConfiguration) {
	c.APIVersion, c.Kind = APIVersion, Kind
	if c.RuntimeClientConnection.QPS == 0 {
		c.RuntimeClientConnection.QPS = 500
	}
	if c.RuntimeClientConnection.Burst == 0 {
		c.RuntimeClientConnection.Burst = 1000
	}
	le := &c.LeaderElection
	setDuration(&le.LeaseDuration, 15*time.Second)
	setDuration(&le.RenewDeadline, 10*time.Second)
	setDuration(&le.RetryPeriod, 2*time.Second)
	setString(&le.ResourceLock, "leases")
	setString(&le.ResourceName, "grove-operator-leader-election")

	wh := &c.Server.Webhooks
	setInt(&wh.Port, 2750)
	setString(&wh.ServerCertDir, "/etc/grove-operator/webhook-certs")
	setString(&wh.SecretName, "grove-webhook-server-cert")
	if wh.CertProvisionMode == "" {
		wh.CertProvisionMode = CertProvisionModeAuto
	}
	setString(&wh.ServiceName, "grove-operator")
	setInt(&c.Server.HealthProbes.Port, 2751)
	setInt(&c.Server.Metrics.Port, 2752)
	if c.Server.Metrics.SecureServing == nil {
		secure := true
		c.Server.Metrics.SecureServing = &secure
	}

	setString(&c.Debugging.PprofBindHost, "127.0.0.1")
	setInt(&c.Debugging.PprofBindPort, 2753)

	setInt(&c.Controllers.PodCliqueSet.ConcurrentSyncs, 10)
	setInt(&c.Controllers.PodClique.ConcurrentSyncs, 50)
	setInt(&c.Controllers.PodCliqueScalingGroup.ConcurrentSyncs, 5)

	if c.LogLevel == "" {
		c.LogLevel = LogLevelInfo
	}
	if c.LogFormat == "" {
		c.LogFormat = LogFormatJSON
	}

	s := &c.Scheduler
	if len(s.Profiles) == 0 {
		s.Profiles = []SchedulerProfile{{Name: SchedulerBackendGrove}}
	}
	// default-scheduler is always available: it needs nothing but kube-scheduler.
	if !slices.ContainsFunc(s.Profiles, func(p SchedulerProfile) bool { return p.Name == SchedulerBackendDefault }) {
		s.Profiles = append(s.Profiles, SchedulerProfile{Name: SchedulerBackendDefault})
	}
	setString(&s.DefaultProfileName, s.Profiles[0].Name)

	if c.TopologyAwareScheduling.Enabled == nil {
		enabled := true
		c.TopologyAwareScheduling.Enabled = &enabled
	}
	setString(&c.InitContainer.Image, DefaultInitContainerRepository+":"+version.GitVersion())
	if c.InitContainer.ImagePullPolicy == "" {
		c.InitContainer.ImagePullPolicy = corev1.PullIfNotPresent
	}
}

func setDuration(d *metav1.Duration, v time.Duration) {
	if d.Duration == 0 {
		d.Duration = v
	}
}

func setString(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

func setInt(i *int, v int) {
	if *i == 0 {
		*i = v
	}
}
