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

// Package topology resolves a PodCliqueSet's topology constraints against the
// ClusterTopologyBinding they name: it translates domains into node label keys
// for the PodGangs and says, in the PodCliqueSet's TopologyLevelsUnavailable
// condition, which constraints could not be translated and why, so a required
// constraint is never dropped without the user seeing it.
package topology

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// Name is the ClusterTopologyBinding a PodCliqueSet's constraints refer to:
// the first name set on the PodCliqueSet, a scaling group or a clique, in
// that order. Constraints without a name inherit it (the webhook makes all
// names agree).
func Name(pcs *grovecorev1alpha1.PodCliqueSet) string {
	for _, c := range constraints(pcs) {
		if c.tc.TopologyName != "" {
			return c.tc.TopologyName
		}
	}
	return ""
}

// constraint is one topology constraint of a PodCliqueSet and its field path.
type constraint struct {
	path *field.Path
	tc   *grovecorev1alpha1.TopologyConstraint
}

// constraints lists the PodCliqueSet's topology constraints: the set's own,
// then each scaling group's, then each clique's.
func constraints(pcs *grovecorev1alpha1.PodCliqueSet) []constraint {
	tmpl := &pcs.Spec.Template
	tp := field.NewPath("spec", "template")
	var out []constraint
	if tmpl.TopologyConstraint != nil {
		out = append(out, constraint{tp.Child("topologyConstraint"), tmpl.TopologyConstraint})
	}
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		if tc := tmpl.PodCliqueScalingGroupConfigs[i].TopologyConstraint; tc != nil {
			out = append(out, constraint{tp.Child("podCliqueScalingGroups").Index(i).Child("topologyConstraint"), tc})
		}
	}
	for i := range tmpl.Cliques {
		if tc := tmpl.Cliques[i].TopologyConstraint; tc != nil {
			out = append(out, constraint{tp.Child("cliques").Index(i).Child("topologyConstraint"), tc})
		}
	}
	return out
}

// domainRef is one domain a constraint packs into, with its field path.
type domainRef struct {
	path   *field.Path
	domain grovecorev1alpha1.TopologyDomain
}

func (d domainRef) String() string { return fmt.Sprintf("%s=%s", d.path, d.domain) }

// domains lists every required and preferred domain the constraints name.
func domains(pcs *grovecorev1alpha1.PodCliqueSet) []domainRef {
	var out []domainRef
	for _, c := range constraints(pcs) {
		if c.tc.Pack == nil {
			continue
		}
		pp := c.path.Child("pack")
		if d := c.tc.Pack.Required; d != nil {
			out = append(out, domainRef{pp.Child("required"), *d})
		}
		if d := c.tc.Pack.Preferred; d != nil {
			out = append(out, domainRef{pp.Child("preferred"), *d})
		}
	}
	return out
}

// Resolution is a PodCliqueSet's topology constraints resolved against its
// ClusterTopologyBinding.
type Resolution struct {
	// enabled says whether the operator translates topology constraints.
	enabled bool
	// name is the ClusterTopologyBinding the constraints refer to, if any.
	name string
	// found says whether that ClusterTopologyBinding exists.
	found bool
	// levels are its domains, broadest first, and keys their node label keys.
	levels []string
	keys   map[grovecorev1alpha1.TopologyDomain]string
}

// Resolve reads the ClusterTopologyBinding the PodCliqueSet's constraints
// name. enabled says whether topology-aware scheduling is on; when it is
// off, nothing is read and nothing translates. A binding that does not exist
// is not an error: it shows in the condition.
func Resolve(ctx context.Context, c client.Reader, pcs *grovecorev1alpha1.PodCliqueSet, enabled bool) (Resolution, error) {
	r := Resolution{enabled: enabled, name: Name(pcs)}
	if !enabled || r.name == "" {
		return r, nil
	}
	ctb := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := c.Get(ctx, client.ObjectKey{Name: r.name}, ctb); err != nil {
		if apierrors.IsNotFound(err) {
			return r, nil
		}
		return r, groveerr.Wrap(err, "ERR_GET_CLUSTERTOPOLOGYBINDING", groveerr.OperationSync, "reading ClusterTopologyBinding "+r.name)
	}
	r.found = true
	r.keys = make(map[grovecorev1alpha1.TopologyDomain]string, len(ctb.Spec.Levels))
	for _, l := range ctb.Spec.Levels {
		r.levels = append(r.levels, string(l.Domain))
		r.keys[l.Domain] = l.Key
	}
	return r, nil
}

// BindingName is the ClusterTopologyBinding translated constraints come from.
func (r Resolution) BindingName() string { return r.name }

// Identity changes whenever Translate or BindingName may answer otherwise:
// it names the binding and its domains' node label keys.
func (r Resolution) Identity() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t:%s:%t", r.enabled, r.name, r.found)
	for _, d := range slices.Sorted(maps.Keys(r.keys)) {
		fmt.Fprintf(&b, ":%s=%s", d, r.keys[d])
	}
	return b.String()
}

// Translate returns the PodGang form of a constraint: each domain that is a
// level of the binding becomes that level's node label key. Domains that are
// not are left out (Condition reports them); nothing left means no constraint.
func (r Resolution) Translate(tc *grovecorev1alpha1.TopologyConstraint) *groveschedulerv1alpha1.TopologyConstraint {
	if tc == nil || tc.Pack == nil || r.keys == nil {
		return nil
	}
	pack := &groveschedulerv1alpha1.TopologyPackConstraint{}
	if d := tc.Pack.Required; d != nil {
		if k, ok := r.keys[*d]; ok {
			pack.Required = &k
		}
	}
	if d := tc.Pack.Preferred; d != nil {
		if k, ok := r.keys[*d]; ok {
			pack.Preferred = &k
		}
	}
	if pack.Required == nil && pack.Preferred == nil {
		return nil
	}
	return &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: pack}
}

// Condition is the PodCliqueSet's TopologyLevelsUnavailable condition, or nil
// when it should be absent (topology-aware scheduling off and no constraints).
// Whenever a constraint could not be translated, the message lists each
// domain left out of the PodGangs by its field path.
func (r Resolution) Condition(pcs *grovecorev1alpha1.PodCliqueSet) *metav1.Condition {
	refs := domains(pcs)
	cond := &metav1.Condition{Type: grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable, ObservedGeneration: pcs.Generation}
	set := func(status metav1.ConditionStatus, reason, msg string) *metav1.Condition {
		cond.Status, cond.Reason, cond.Message = status, reason, msg
		return cond
	}
	dropped := func(refs []domainRef) string {
		s := make([]string, len(refs))
		for i, d := range refs {
			s[i] = d.String()
		}
		return "left out of the PodGangs: " + strings.Join(s, ", ")
	}
	switch {
	case !r.enabled && len(refs) == 0:
		return nil
	case !r.enabled:
		return set(metav1.ConditionUnknown, grovecorev1alpha1.ConditionReasonTopologyAwareSchedulingDisabled,
			"topology-aware scheduling is disabled in the operator configuration; "+dropped(refs))
	case len(refs) == 0:
		return set(metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonAllClusterTopologyLevelsAvailable, "No topology constraints defined")
	case r.name == "":
		return set(metav1.ConditionUnknown, grovecorev1alpha1.ConditionReasonTopologyNameMissing,
			"no topology constraint names a ClusterTopologyBinding (topologyName); "+dropped(refs))
	case !r.found:
		return set(metav1.ConditionUnknown, grovecorev1alpha1.ConditionReasonClusterTopologyNotFound,
			fmt.Sprintf("ClusterTopologyBinding %q does not exist; %s", r.name, dropped(refs)))
	}
	var missing []domainRef
	for _, d := range refs {
		if _, ok := r.keys[d.domain]; !ok {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		return set(metav1.ConditionTrue, grovecorev1alpha1.ConditionReasonClusterTopologyLevelsUnavailable,
			fmt.Sprintf("domains that are not levels of ClusterTopologyBinding %q (levels: %s) are %s",
				r.name, strings.Join(r.levels, ", "), dropped(missing)))
	}
	return set(metav1.ConditionFalse, grovecorev1alpha1.ConditionReasonAllClusterTopologyLevelsAvailable,
		fmt.Sprintf("every topology domain is a level of ClusterTopologyBinding %q", r.name))
}
