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

// Package clustertopologybinding holds the validating admission webhook for
// ClusterTopologyBindings: every level names a distinct domain and node label
// key, and scheduler topology bindings name an enabled backend that keeps a
// topology object of its own.
package clustertopologybinding

import (
	"fmt"
	"regexp"
	"slices"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

// domainPattern is the TopologyDomain format of the API.
var domainPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// maxDomainLength is the TopologyDomain length limit of the API.
const maxDomainLength = 63

// Validate checks a ClusterTopologyBinding: valid metadata, at least one
// level, each level a well-formed domain and label key, domains and keys
// unique, and its scheduler topology bindings (see validateSchedulerBindings).
// Levels are ordered broadest first, so a duplicated domain or key would make
// "broader than" ambiguous for constraint checks and the scheduler.
// enabledBackends are the scheduler backends the operator runs with.
func Validate(ct *grovecorev1alpha1.ClusterTopologyBinding, enabledBackends []string) field.ErrorList {
	errs := apimachineryvalidation.ValidateObjectMeta(&ct.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateSchedulerBindings(ct.Spec.SchedulerTopologyBindings, enabledBackends)...)
	lp := field.NewPath("spec", "levels")
	if len(ct.Spec.Levels) == 0 {
		return append(errs, field.Required(lp, "at least one level is required"))
	}
	domains := map[grovecorev1alpha1.TopologyDomain]int{}
	keys := map[string]int{}
	for i, l := range ct.Spec.Levels {
		p := lp.Index(i)
		dp, kp := p.Child("domain"), p.Child("key")
		switch {
		case l.Domain == "":
			errs = append(errs, field.Required(dp, "domain is required"))
		case len(l.Domain) > maxDomainLength:
			errs = append(errs, field.TooLong(dp, l.Domain, maxDomainLength))
		case !domainPattern.MatchString(string(l.Domain)):
			errs = append(errs, field.Invalid(dp, l.Domain, "must match "+domainPattern.String()))
		}
		if first, dup := domains[l.Domain]; dup && l.Domain != "" {
			errs = append(errs, field.Invalid(dp, l.Domain, fmt.Sprintf("domain is already used by %s", lp.Index(first))))
		} else {
			domains[l.Domain] = i
		}
		if l.Key == "" {
			errs = append(errs, field.Required(kp, "key is required"))
		} else {
			for _, msg := range utilvalidation.IsQualifiedName(l.Key) {
				errs = append(errs, field.Invalid(kp, l.Key, msg))
			}
		}
		if first, dup := keys[l.Key]; dup && l.Key != "" {
			errs = append(errs, field.Invalid(kp, l.Key, fmt.Sprintf("key is already used by %s", lp.Index(first))))
		} else {
			keys[l.Key] = i
		}
	}
	return errs
}

// validateSchedulerBindings checks that each binding names an enabled
// scheduler backend that keeps its own topology object: only kai-scheduler
// does (its PodGroups name the KAI Topology the binding gives). The other
// backends read the levels from the ClusterTopologyBinding itself or ignore
// topology; a binding for them would be accepted and never used, so it is
// rejected. The CRD keys the list by
// schedulerName and requires both fields, so the API server rejects
// duplicates and empty references before this runs.
func validateSchedulerBindings(bindings []grovecorev1alpha1.SchedulerTopologyBinding, enabledBackends []string) field.ErrorList {
	var errs field.ErrorList
	bp := field.NewPath("spec", "schedulerTopologyBindings")
	for i, b := range bindings {
		sp := bp.Index(i).Child("schedulerName")
		switch {
		case b.SchedulerName == "":
			errs = append(errs, field.Required(sp, "schedulerName is required"))
		case !slices.Contains(enabledBackends, b.SchedulerName):
			errs = append(errs, field.NotSupported(sp, b.SchedulerName, enabledBackends))
		case b.SchedulerName == config.SchedulerBackendKAI:
		default:
			errs = append(errs, field.Invalid(sp, b.SchedulerName,
				"scheduler backend keeps no topology object of its own (grove-scheduler reads the levels of this ClusterTopologyBinding directly), so there is nothing to bind"))
		}
	}
	return errs
}
