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

// Package clustertopology holds the validating admission webhook for
// ClusterTopologies: every level names a distinct domain and node label key.
package clustertopology

import (
	"fmt"
	"regexp"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// domainPattern is the TopologyDomain format of the API.
var domainPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// maxDomainLength is the TopologyDomain length limit of the API.
const maxDomainLength = 63

// Validate checks a ClusterTopology: valid metadata, at least one level, each
// level a well-formed domain and label key, domains and keys unique. Levels
// are ordered broadest first, so a duplicated domain or key would make
// "broader than" ambiguous for constraint checks and the scheduler.
func Validate(ct *grovecorev1alpha1.ClusterTopology) field.ErrorList {
	errs := apimachineryvalidation.ValidateObjectMeta(&ct.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
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
