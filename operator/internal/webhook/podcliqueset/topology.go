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
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

// TopologyDisabledMessage rejects topology constraints while the operator runs
// without topology-aware scheduling.
const TopologyDisabledMessage = "topology constraints are not allowed when Topology Aware Scheduling is disabled"

// constraintNode is one topology constraint of a PodCliqueSet with the
// constrained ancestors it inherits from and must not be broader than,
// nearest first.
type constraintNode struct {
	path      *field.Path
	tc        *grovecorev1alpha1.TopologyConstraint
	ancestors []*constraintNode
}

// constraintTree lists the constraints of a PodCliqueSet, parents before children:
// the template's, then each scaling group's, then each clique's (whose parent
// is its scaling group when it is a member, else the template).
func constraintTree(pcs *grovecorev1alpha1.PodCliqueSet) []*constraintNode {
	tmpl := &pcs.Spec.Template
	var nodes []*constraintNode
	var root []*constraintNode
	if tmpl.TopologyConstraint != nil {
		n := &constraintNode{path: templatePath.Child("topologyConstraint"), tc: tmpl.TopologyConstraint}
		nodes = append(nodes, n)
		root = []*constraintNode{n}
	}
	groupAncestors := map[string][]*constraintNode{}
	groupOf := map[string]string{}
	for gi := range tmpl.PodCliqueScalingGroupConfigs {
		g := &tmpl.PodCliqueScalingGroupConfigs[gi]
		anc := root
		if g.TopologyConstraint != nil {
			n := &constraintNode{path: scalingGroupsPath.Index(gi).Child("topologyConstraint"), tc: g.TopologyConstraint, ancestors: root}
			nodes = append(nodes, n)
			anc = append([]*constraintNode{n}, root...)
		}
		if _, dup := groupAncestors[g.Name]; !dup {
			groupAncestors[g.Name] = anc
		}
		for _, c := range g.CliqueNames {
			if _, ok := groupOf[c]; !ok {
				groupOf[c] = g.Name
			}
		}
	}
	for i := range tmpl.Cliques {
		c := &tmpl.Cliques[i]
		if c.TopologyConstraint == nil {
			continue
		}
		anc := root
		if g, ok := groupOf[c.Name]; ok {
			anc = groupAncestors[g]
		}
		nodes = append(nodes, &constraintNode{path: cliquesPath.Index(i).Child("topologyConstraint"), tc: c.TopologyConstraint, ancestors: anc})
	}
	return nodes
}

func (s *staticCheck) topologyDisabled() {
	for _, n := range constraintTree(s.pcs) {
		s.add(field.Forbidden(n.path, TopologyDisabledMessage))
	}
}

// schedulerTopology rejects constraints for kai-scheduler whose
// ClusterTopologyBinding names no KAI Topology: KAI's PodGroups must name one.
func (v *Validator) schedulerTopology(pcs *grovecorev1alpha1.PodCliqueSet, ct *grovecorev1alpha1.ClusterTopologyBinding, path *field.Path) field.ErrorList {
	if v.Backends == nil || len(pcs.Spec.Template.Cliques) == 0 {
		return nil
	}
	b, err := v.Backends.ForSchedulerName(pcs.Spec.Template.Cliques[0].Spec.PodSpec.SchedulerName)
	if err != nil || b.Name() != config.SchedulerBackendKAI {
		return nil
	}
	for _, sb := range ct.Spec.SchedulerTopologyBindings {
		if sb.SchedulerName == b.Name() {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(path, ct.Name, fmt.Sprintf(
		"ClusterTopologyBinding %q names no KAI Topology: scheduler backend %s needs a spec.schedulerTopologyBindings entry for it", ct.Name, b.Name()))}
}

// validateTopology resolves the constraints against their ClusterTopologyBinding:
// one topology per PodCliqueSet, known domains, and no child broader than a
// constrained ancestor.
func (v *Validator) validateTopology(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, r *Result) error {
	if !v.TopologyAwareScheduling {
		return nil
	}
	nodes := constraintTree(pcs)
	if len(nodes) == 0 {
		return nil
	}
	name, errs := resolveTopologyName(nodes)
	if len(errs) > 0 {
		r.Errors = append(r.Errors, errs...)
		return nil
	}
	if v.Topologies == nil {
		return errors.New("topology-aware scheduling is enabled but the validator has no ClusterTopologyBinding reader")
	}
	ct := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := v.Topologies.Get(ctx, client.ObjectKey{Name: name}, ct); err != nil {
		if apierrors.IsNotFound(err) {
			r.Errors = append(r.Errors, field.Invalid(namingNode(nodes).path.Child("topologyName"), name,
				fmt.Sprintf("ClusterTopologyBinding %q does not exist", name)))
			return nil
		}
		return fmt.Errorf("reading ClusterTopologyBinding %q: %w", name, err)
	}
	r.Errors = append(r.Errors, v.schedulerTopology(pcs, ct, namingNode(nodes).path.Child("topologyName"))...)
	levels := map[grovecorev1alpha1.TopologyDomain]int{}
	domains := make([]string, 0, len(ct.Spec.Levels))
	for i, l := range ct.Spec.Levels {
		levels[l.Domain] = i
		domains = append(domains, string(l.Domain))
	}
	known := func(p *field.Path, d *grovecorev1alpha1.TopologyDomain) bool {
		if d == nil {
			return false
		}
		if _, ok := levels[*d]; !ok {
			r.Errors = append(r.Errors, field.Invalid(p, *d, fmt.Sprintf("domain is not a level of ClusterTopologyBinding %q (levels: %s)", name, strings.Join(domains, ", "))))
			return false
		}
		return true
	}
	for _, n := range nodes {
		if n.tc.Pack == nil {
			r.Errors = append(r.Errors, field.Required(n.path.Child("pack"), "pack must set required or preferred (or both)"))
			continue
		}
		pp := n.path.Child("pack")
		reqOK := known(pp.Child("required"), n.tc.Pack.Required)
		prefOK := known(pp.Child("preferred"), n.tc.Pack.Preferred)
		if reqOK && prefOK && levels[*n.tc.Pack.Preferred] <= levels[*n.tc.Pack.Required] {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: preferred domain %q is redundant: it is not narrower than the required domain %q",
				pp.Child("preferred"), *n.tc.Pack.Preferred, *n.tc.Pack.Required))
		}
	}
	for _, n := range nodes {
		for _, a := range n.ancestors {
			r.Errors = append(r.Errors, notBroader(n, a, levels)...)
		}
	}
	return nil
}

// resolveTopologyName returns the ClusterTopologyBinding all constraints refer to,
// each naming it or inheriting it from its nearest constrained ancestor.
func resolveTopologyName(nodes []*constraintNode) (string, field.ErrorList) {
	var errs field.ErrorList
	effective := map[*constraintNode]string{}
	name := ""
	for _, n := range nodes {
		e := n.tc.TopologyName
		for _, a := range n.ancestors {
			if e != "" {
				break
			}
			e = effective[a]
		}
		effective[n] = e
		switch {
		case e == "":
			errs = append(errs, field.Required(n.path.Child("topologyName"), "must be set here or on a constrained parent"))
		case name == "":
			name = e
		case e != name:
			errs = append(errs, field.Invalid(n.path.Child("topologyName"), e,
				fmt.Sprintf("all topology constraints of a PodCliqueSet must refer to the same ClusterTopologyBinding (%q)", name)))
		}
	}
	return name, errs
}

// namingNode is the first constraint that names the topology explicitly.
func namingNode(nodes []*constraintNode) *constraintNode {
	for _, n := range nodes {
		if n.tc.TopologyName != "" {
			return n
		}
	}
	return nodes[0]
}

// notBroader rejects a child domain that is broader (closer to the first
// level) than the same kind of domain on an ancestor: a clique cannot be
// spread wider than the group it is packed into.
func notBroader(child, ancestor *constraintNode, levels map[grovecorev1alpha1.TopologyDomain]int) field.ErrorList {
	if child.tc.Pack == nil || ancestor.tc.Pack == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(kind string, c, a *grovecorev1alpha1.TopologyDomain) {
		if c == nil || a == nil {
			return
		}
		ci, cok := levels[*c]
		ai, aok := levels[*a]
		if cok && aok && ci < ai {
			errs = append(errs, field.Invalid(child.path.Child("pack", kind), *c,
				fmt.Sprintf("must not be broader than %q set in %s", *a, ancestor.path.Child("pack", kind))))
		}
	}
	check("required", child.tc.Pack.Required, ancestor.tc.Pack.Required)
	check("preferred", child.tc.Pack.Preferred, ancestor.tc.Pack.Preferred)
	return errs
}
