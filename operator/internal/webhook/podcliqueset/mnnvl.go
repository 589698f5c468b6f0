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
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// MNNVLDisabledMessage rejects an MNNVL group the operator would not serve.
const MNNVLDisabledMessage = "an MNNVL group other than \"none\" requires network.autoMNNVLEnabled in the operator configuration"

// mnnvlAnnotation is one place grove.io/mnnvl-group may be set.
type mnnvlAnnotation struct {
	path  *field.Path
	value string
	set   bool
}

// mnnvlAnnotations returns the grove.io/mnnvl-group annotations of the set,
// its scaling-group configs and clique templates, keyed by the field path
// of the annotation (scaling groups and cliques by name, so an update that
// reorders them compares like with like).
func mnnvlAnnotations(pcs *grovecorev1alpha1.PodCliqueSet) map[string]mnnvlAnnotation {
	out := map[string]mnnvlAnnotation{}
	at := func(key string, p *field.Path, annotations map[string]string) {
		v, ok := annotations[apicommon.AnnotationMNNVLGroup]
		out[key] = mnnvlAnnotation{path: p.Child("annotations").Key(apicommon.AnnotationMNNVLGroup), value: v, set: ok}
	}
	at("pcs", field.NewPath("metadata"), pcs.Annotations)
	for i, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		at("pcsg/"+g.Name, scalingGroupsPath.Index(i), g.Annotations)
	}
	for i, c := range pcs.Spec.Template.Cliques {
		at("clique/"+c.Name, cliquesPath.Index(i), c.Annotations)
	}
	return out
}

// mnnvlGroups checks each grove.io/mnnvl-group: a DNS-1123 label (it ends
// the ComputeDomain's name) or "none", and a group only when MNNVL is enabled.
func (s *staticCheck) mnnvlGroups() {
	for _, a := range mnnvlAnnotations(s.pcs) {
		if !a.set || a.value == apicommon.MNNVLGroupNone {
			continue
		}
		msgs := utilvalidation.IsDNS1123Label(a.value)
		for _, msg := range msgs {
			s.add(field.Invalid(a.path, a.value, msg+` (or "none" to opt out)`))
		}
		if len(msgs) == 0 && !s.mnnvl {
			s.add(field.Forbidden(a.path, MNNVLDisabledMessage))
		}
	}
}

// mnnvlImmutable rejects adding, removing or changing a grove.io/mnnvl-group:
// the ComputeDomains and the pods' claims are built around it.
func mnnvlImmutable(oldPCS, newPCS *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	var errs field.ErrorList
	old := mnnvlAnnotations(oldPCS)
	for key, n := range mnnvlAnnotations(newPCS) {
		o := old[key] // a scaling group or clique added or removed is refused elsewhere
		if n.set != o.set || n.value != o.value {
			errs = append(errs, field.Forbidden(n.path, ImmutableMessage))
		}
	}
	return errs
}
