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
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SupportedSchedulerBackends are the scheduler backends grove-operator knows.
var SupportedSchedulerBackends = sets.New(SchedulerBackendGrove, SchedulerBackendDefault, SchedulerBackendSchedulerPlugins, SchedulerBackendVolcano, SchedulerBackendKAI)

// Validate checks a defaulted configuration and names every bad field.
func Validate(c *OperatorConfiguration) field.ErrorList {
	var errs field.ErrorList
	if c.RuntimeClientConnection.QPS < 0 {
		errs = append(errs, field.Invalid(field.NewPath("runtimeClientConnection", "qps"), c.RuntimeClientConnection.QPS, "must not be negative"))
	}
	if c.RuntimeClientConnection.Burst < 0 {
		errs = append(errs, field.Invalid(field.NewPath("runtimeClientConnection", "burst"), c.RuntimeClientConnection.Burst, "must not be negative"))
	}
	if le := c.LeaderElection; le.Enabled {
		p := field.NewPath("leaderElection")
		for name, d := range map[string]int64{"leaseDuration": int64(le.LeaseDuration.Duration), "renewDeadline": int64(le.RenewDeadline.Duration), "retryPeriod": int64(le.RetryPeriod.Duration)} {
			if d <= 0 {
				errs = append(errs, field.Invalid(p.Child(name), d, "must be greater than zero"))
			}
		}
		if le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs = append(errs, field.Invalid(p.Child("leaseDuration"), le.LeaseDuration.Duration.String(), "must be greater than renewDeadline"))
		}
	}
	if m := c.Server.Webhooks.CertProvisionMode; m != CertProvisionModeAuto && m != CertProvisionModeManual {
		errs = append(errs, field.NotSupported(field.NewPath("server", "webhooks", "certProvisionMode"), m, []string{string(CertProvisionModeAuto), string(CertProvisionModeManual)}))
	}
	for name, port := range map[string]int{"webhooks": c.Server.Webhooks.Port, "healthProbes": c.Server.HealthProbes.Port, "metrics": c.Server.Metrics.Port} {
		if port < 0 || port > 65535 {
			errs = append(errs, field.Invalid(field.NewPath("server", name, "port"), port, "must be between 0 and 65535"))
		}
	}
	cp := field.NewPath("controllers")
	for name, cc := range map[string]ControllerConfig{"podCliqueSet": c.Controllers.PodCliqueSet, "podClique": c.Controllers.PodClique, "podCliqueScalingGroup": c.Controllers.PodCliqueScalingGroup} {
		if cc.ConcurrentSyncs <= 0 {
			errs = append(errs, field.Invalid(cp.Child(name, "concurrentSyncs"), cc.ConcurrentSyncs, "must be greater than zero"))
		}
	}
	if l := c.LogLevel; l != LogLevelDebug && l != LogLevelInfo && l != LogLevelError {
		errs = append(errs, field.NotSupported(field.NewPath("logLevel"), l, []string{string(LogLevelDebug), string(LogLevelInfo), string(LogLevelError)}))
	}
	if f := c.LogFormat; f != LogFormatJSON && f != LogFormatText {
		errs = append(errs, field.NotSupported(field.NewPath("logFormat"), f, []string{string(LogFormatJSON), string(LogFormatText)}))
	}
	sp := field.NewPath("scheduler")
	seen := sets.New[string]()
	for i, p := range c.Scheduler.Profiles {
		path := sp.Child("profiles").Index(i).Child("name")
		switch {
		case !SupportedSchedulerBackends.Has(p.Name):
			errs = append(errs, field.NotSupported(path, p.Name, sets.List(SupportedSchedulerBackends)))
		case seen.Has(p.Name):
			errs = append(errs, field.Duplicate(path, p.Name))
		default:
			if err := validateProfileConfig(p); err != nil {
				errs = append(errs, field.Invalid(sp.Child("profiles").Index(i).Child("config"), string(rawConfig(p)), err.Error()))
			}
		}
		seen.Insert(p.Name)
	}
	if !seen.Has(c.Scheduler.DefaultProfileName) {
		errs = append(errs, field.Invalid(sp.Child("defaultProfileName"), c.Scheduler.DefaultProfileName, "must name one of scheduler.profiles"))
	}
	errs = append(errs, validateInitContainer(c.InitContainer, field.NewPath("initContainer"))...)
	for i, name := range c.Authorizer.ExemptServiceAccountUserNames {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n") {
			errs = append(errs, field.Invalid(field.NewPath("authorizer", "exemptServiceAccountUserNames").Index(i), name, "must be a user name without whitespace, e.g. system:serviceaccount:kube-system:generic-garbage-collector"))
		}
	}
	return errs
}

// validateInitContainer requires an image reference that names a tag or a
// digest: a bare repository would run whatever :latest is, which is never the
// grove-initc of this operator (and is what a configuration written for the
// earlier repository-only image field holds).
func validateInitContainer(ic InitContainer, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	image := ic.Image
	switch {
	case image == "":
		errs = append(errs, field.Required(p.Child("image"), "the grove-initc image reference"))
	case strings.ContainsAny(image, " \t\n"):
		errs = append(errs, field.Invalid(p.Child("image"), image, "must not contain whitespace"))
	case !strings.Contains(image, "@") && !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":"):
		errs = append(errs, field.Invalid(p.Child("image"), image, "must name a tag or a digest (repository:tag, repository@sha256:..., or repository:tag@sha256:...)"))
	}
	if !supportedPullPolicies.Has(ic.ImagePullPolicy) {
		errs = append(errs, field.NotSupported(p.Child("imagePullPolicy"), ic.ImagePullPolicy, sets.List(supportedPullPolicies)))
	}
	return errs
}

var supportedPullPolicies = sets.New(corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever)

func validateProfileConfig(p SchedulerProfile) error {
	switch p.Name {
	case SchedulerBackendDefault:
		_, err := ProfileConfig[DefaultSchedulerConfig](p)
		return err
	case SchedulerBackendSchedulerPlugins:
		c, err := ProfileConfig[SchedulerPluginsConfig](p)
		if err == nil && c.ScheduleTimeoutSeconds != nil && *c.ScheduleTimeoutSeconds <= 0 {
			err = fmt.Errorf("scheduleTimeoutSeconds must be greater than zero")
		}
		return err
	case SchedulerBackendVolcano:
		_, err := ProfileConfig[VolcanoConfig](p)
		return err
	case SchedulerBackendKAI:
		c, err := ProfileConfig[KAIConfig](p)
		if err == nil && c.DefaultQueue != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(c.DefaultQueue); len(msgs) > 0 {
				err = fmt.Errorf("defaultQueue %q is no KAI queue name: %s", c.DefaultQueue, strings.Join(msgs, "; "))
			}
		}
		return err
	default:
		if len(rawConfig(p)) > 0 {
			return fmt.Errorf("%s takes no config", p.Name)
		}
		return nil
	}
}

func rawConfig(p SchedulerProfile) []byte {
	if p.Config == nil {
		return nil
	}
	return p.Config.Raw
}

// ProfileConfig decodes a profile's config into the backend's settings;
// unknown keys are errors, so a misspelt setting is not silently ignored.
func ProfileConfig[T any](p SchedulerProfile) (T, error) {
	var c T
	raw := rawConfig(p)
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("decoding the %s config: %w", p.Name, err)
	}
	return c, nil
}

// Profile returns the named profile, if enabled.
func (c *OperatorConfiguration) Profile(name string) (SchedulerProfile, bool) {
	for _, p := range c.Scheduler.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return SchedulerProfile{}, false
}

// SchedulerEnabled reports whether a scheduler backend is enabled.
func (c *OperatorConfiguration) SchedulerEnabled(name string) bool {
	for _, p := range c.Scheduler.Profiles {
		if p.Name == name {
			return true
		}
	}
	return false
}
