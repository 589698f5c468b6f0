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

package podcliqueset

import (
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// DefaultMaxUnavailable is the maxUnavailable of a standalone clique or a
// scaling group that sets none: one pod, or one group replica, at a time.
const DefaultMaxUnavailable int32 = 1

// MaxUnavailableMessage is the rejection of a maxUnavailable that would
// never let an update move or is no count or percentage.
const MaxUnavailableMessage = "must be an integer of at least 1 or a percentage from 1% to 100%"

var percentage = regexp.MustCompile(`^([1-9][0-9]?|100)%$`)

// defaultRollingUpdate fills maxUnavailable.
func defaultRollingUpdate(ru *grovecorev1alpha1.RollingUpdateConfig) *grovecorev1alpha1.RollingUpdateConfig {
	if ru == nil {
		ru = &grovecorev1alpha1.RollingUpdateConfig{}
	}
	if ru.MaxUnavailable == nil {
		v := intstr.FromInt32(DefaultMaxUnavailable)
		ru.MaxUnavailable = &v
	}
	return ru
}

// rollingUpdate checks a component's budget: maxUnavailable is a count of at
// least 1 or a percentage from 1% to 100%; progressDeadline is positive.
func (s *staticCheck) rollingUpdate(ru *grovecorev1alpha1.RollingUpdateConfig, p *field.Path) {
	if ru == nil {
		return
	}
	if mu := ru.MaxUnavailable; mu != nil {
		switch {
		case mu.Type == intstr.Int && mu.IntVal < 1:
			s.add(field.Invalid(p.Child("maxUnavailable"), mu.IntVal, MaxUnavailableMessage))
		case mu.Type == intstr.String && !percentage.MatchString(mu.StrVal):
			s.add(field.Invalid(p.Child("maxUnavailable"), mu.StrVal, MaxUnavailableMessage))
		}
	}
	if pd := ru.ProgressDeadline; pd != nil && pd.Duration <= 0 {
		s.add(field.Invalid(p.Child("progressDeadline"), pd.Duration.String(), "must be greater than 0"))
	}
}

// updateStrategyTypes are the update strategies, in the order the API lists them.
var updateStrategyTypes = []string{
	string(grovecorev1alpha1.CoherentStrategyType), string(grovecorev1alpha1.RollingRecreateStrategyType), string(grovecorev1alpha1.OnDeleteStrategyType),
}

// CoherentOnlyMessage is the rejection of a PodCliqueSet-level budget with a
// strategy other than Coherent: RollingRecreate takes one replica at a time
// and budgets per clique and scaling group; OnDelete replaces nothing.
const CoherentOnlyMessage = "maxUnavailable and progressDeadline apply to updateStrategy type Coherent only"

// updateStrategy checks the strategy type and, for Coherent, its budget: the
// same rules as a component's (rollingUpdate).
func (s *staticCheck) updateStrategy(us *grovecorev1alpha1.PodCliqueSetUpdateStrategy) {
	if us == nil {
		return
	}
	p := specPath.Child("updateStrategy")
	if us.Type != "" && !slices.Contains(updateStrategyTypes, string(us.Type)) {
		s.add(field.NotSupported(p.Child("type"), us.Type, updateStrategyTypes))
	}
	budget := &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: us.MaxUnavailable, ProgressDeadline: us.ProgressDeadline}
	if us.Type != grovecorev1alpha1.CoherentStrategyType && (us.MaxUnavailable != nil || us.ProgressDeadline != nil) {
		s.add(field.Invalid(p, us.Type, CoherentOnlyMessage))
		return
	}
	s.rollingUpdate(budget, p)
}
