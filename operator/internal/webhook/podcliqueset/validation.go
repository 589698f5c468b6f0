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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
)

// RestartPolicyWarning is the admission warning for a clique pod template
// that asks for a restartPolicy other than Always: Grove pods always restart
// in place so a gang is never broken by a container exit.
const RestartPolicyWarning = "restartPolicy will be ignored, it will be set to Always"

// Validator checks PodCliqueSets against the rules of the validating webhook.
type Validator struct {
	// Backends are the enabled scheduler backends; every clique must use the
	// same one and it must be enabled.
	Backends *backend.Registry
	// TopologyAwareScheduling says whether topology constraints are allowed.
	TopologyAwareScheduling bool
	// Topologies reads the ClusterTopologyBindings constraints refer to. It is only
	// used when TopologyAwareScheduling is true.
	Topologies client.Reader
	// MNNVLEnabled is network.autoMNNVLEnabled: grove.io/mnnvl-group names
	// a group only when it is true.
	MNNVLEnabled bool
}

// Result is the outcome of a validation: field errors reject the object,
// warnings are returned to the client as admission warnings.
type Result struct {
	// Errors reject the object; each carries the full field path.
	Errors field.ErrorList
	// Warnings are shown to the client but do not reject the object.
	Warnings []string
}

// ValidateCreate checks a new PodCliqueSet. The error is only for failures
// to read what the rules need (the ClusterTopologyBinding), never for invalid input.
func (v *Validator) ValidateCreate(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet) (Result, error) {
	r := v.validateStatic(pcs, true)
	if err := v.validateTopology(ctx, pcs, &r); err != nil {
		return r, err
	}
	return r, nil
}

// ValidateUpdate checks a changed PodCliqueSet: the static rules (without the
// create-only ones) and the immutability rules against the stored object.
// Topology constraints are immutable, so they are not resolved again: an
// update must keep working even if their ClusterTopologyBinding changed since.
func (v *Validator) ValidateUpdate(_ context.Context, oldPCS, newPCS *grovecorev1alpha1.PodCliqueSet) (Result, error) {
	r := v.validateStatic(newPCS, false)
	r.Errors = append(r.Errors, validateImmutable(oldPCS, newPCS)...)
	r.Errors = append(r.Errors, mnnvlImmutable(oldPCS, newPCS)...)
	return r, nil
}

// validateStatic applies every rule that needs nothing but the object.
func (v *Validator) validateStatic(pcs *grovecorev1alpha1.PodCliqueSet, create bool) Result {
	s := &staticCheck{pcs: pcs, create: create, backends: v.Backends, mnnvl: v.MNNVLEnabled}
	s.metadata()
	s.spec()
	s.mnnvlGroups()
	if !v.TopologyAwareScheduling {
		s.topologyDisabled()
	}
	return Result{Errors: s.errs, Warnings: s.warnings}
}

var (
	specPath          = field.NewPath("spec")
	templatePath      = specPath.Child("template")
	cliquesPath       = templatePath.Child("cliques")
	scalingGroupsPath = templatePath.Child("podCliqueScalingGroups")
)

type staticCheck struct {
	pcs      *grovecorev1alpha1.PodCliqueSet
	create   bool
	backends *backend.Registry
	mnnvl    bool
	errs     field.ErrorList
	warnings []string
}

func (s *staticCheck) add(errs ...*field.Error) { s.errs = append(s.errs, errs...) }

func (s *staticCheck) metadata() {
	mdPath := field.NewPath("metadata")
	s.add(apimachineryvalidation.ValidateObjectMeta(&s.pcs.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, mdPath)...)
	// The name starts every child name (headless Service <pcs>-<i>, PodCliques,
	// pod hostnames), and Service names must be DNS-1035 labels.
	if name := s.pcs.Name; name != "" {
		for _, msg := range utilvalidation.IsDNS1035Label(name) {
			s.add(field.Invalid(mdPath.Child("name"), name, msg+" (the name starts the names of the headless Services and pods Grove creates)"))
		}
	}
}

func (s *staticCheck) spec() {
	spec := &s.pcs.Spec
	if spec.Replicas < 0 {
		s.add(field.Invalid(specPath.Child("replicas"), spec.Replicas, "must be greater than or equal to 0"))
	}
	s.updateStrategy(spec.UpdateStrategy)
	tmpl := &spec.Template
	if st := tmpl.StartupType; st != nil && !validStartupTypes.Has(string(*st)) {
		s.add(field.NotSupported(templatePath.Child("cliqueStartupType"), *st, sets.List(validStartupTypes)))
	}
	if td := tmpl.TerminationDelay; td == nil {
		s.add(field.Required(templatePath.Child("terminationDelay"), "must be set"))
	} else if td.Duration <= 0 {
		s.add(field.Invalid(templatePath.Child("terminationDelay"), td.Duration.String(), "must be greater than 0"))
	}
	if len(tmpl.Cliques) == 0 {
		s.add(field.Required(cliquesPath, "at least one clique is required"))
		return
	}
	members := s.scalingGroups()
	s.cliques(members)
	s.startupOrder()
	s.schedulerBackend()
	s.resourceSharing()
	s.size()
}

var validStartupTypes = sets.New(
	string(grovecorev1alpha1.CliqueStartupTypeAnyOrder),
	string(grovecorev1alpha1.CliqueStartupTypeInOrder),
	string(grovecorev1alpha1.CliqueStartupTypeExplicit),
)

// cliques checks each clique template. members maps a clique name to the
// scaling group it belongs to.
func (s *staticCheck) cliques(members map[string]string) {
	names := sets.New[string]()
	roles := map[string]string{}
	for i := range s.pcs.Spec.Template.Cliques {
		c := &s.pcs.Spec.Template.Cliques[i]
		p := cliquesPath.Index(i)
		s.cliqueName(c, p, members)
		if c.Name != "" {
			if names.Has(c.Name) {
				s.add(field.Duplicate(p.Child("name"), c.Name))
			}
			names.Insert(c.Name)
		}
		if role := effectiveRoleName(c); role != "" {
			if other, ok := roles[role]; ok {
				s.add(field.Invalid(p.Child("spec", "roleName"), role, fmt.Sprintf("roleName is already used by clique %q; roleNames must be unique", other)))
			} else {
				roles[role] = c.Name
			}
		}
		s.add(metav1validation.ValidateLabels(c.Labels, p.Child("labels"))...)
		s.add(apimachineryvalidation.ValidateAnnotations(c.Annotations, p.Child("annotations"))...)
		s.cliqueReplicas(c, p.Child("spec"), members[c.Name] != "")
		if ru := c.Spec.RollingUpdate; ru != nil && members[c.Name] != "" {
			s.add(field.Forbidden(p.Child("spec", "rollingUpdate"),
				fmt.Sprintf("cliques of a scaling group are replaced as whole group replicas: set rollingUpdate on scaling group %q", members[c.Name])))
		} else {
			s.rollingUpdate(ru, p.Child("spec", "rollingUpdate"))
		}
		s.podSpec(&c.Spec.PodSpec, p.Child("spec", "podSpec"))
	}
}

func effectiveRoleName(c *grovecorev1alpha1.PodCliqueTemplateSpec) string {
	if c.Spec.RoleName != "" {
		return c.Spec.RoleName
	}
	return c.Name
}

func (s *staticCheck) cliqueName(c *grovecorev1alpha1.PodCliqueTemplateSpec, p *field.Path, members map[string]string) {
	np := p.Child("name")
	if c.Name == "" {
		s.add(field.Required(np, "clique name is required"))
		return
	}
	for _, msg := range utilvalidation.IsDNS1123Label(c.Name) {
		s.add(field.Invalid(np, c.Name, msg))
	}
	// Scaling-group members are checked with their group's name in the budget.
	if members[c.Name] == "" && s.pcs.Name != "" {
		if err := apicommon.CheckNameLength(s.pcs.Name, c.Name, ""); err != nil {
			s.add(field.Invalid(np, c.Name, err.Error()))
		}
	}
}

func (s *staticCheck) cliqueReplicas(c *grovecorev1alpha1.PodCliqueTemplateSpec, p *field.Path, member bool) {
	spec := &c.Spec
	if spec.Replicas <= 0 {
		s.add(field.Invalid(p.Child("replicas"), spec.Replicas, "must be greater than 0"))
	}
	switch ma := spec.MinAvailable; {
	case ma == nil:
		s.add(field.Required(p.Child("minAvailable"), "must be set"))
	case *ma <= 0:
		s.add(field.Invalid(p.Child("minAvailable"), *ma, "must be greater than 0"))
	case *ma > spec.Replicas:
		s.add(field.Invalid(p.Child("minAvailable"), *ma, fmt.Sprintf("must be less than or equal to replicas (%d)", spec.Replicas)))
	}
	asc := spec.AutoScalingConfig
	if asc == nil {
		return
	}
	ap := p.Child("autoScalingConfig")
	if member {
		s.add(field.Forbidden(ap, "cliques of a scaling group are scaled through the group's scaleConfig and may not set autoScalingConfig"))
		return
	}
	minReplicas := spec.Replicas
	if asc.MinReplicas != nil {
		minReplicas = *asc.MinReplicas
		minAvailable := int32(1)
		if spec.MinAvailable != nil {
			minAvailable = *spec.MinAvailable
		}
		s.minReplicas(ap.Child("minReplicas"), minReplicas, minAvailable)
	}
	if asc.MaxReplicas < minReplicas {
		s.add(field.Invalid(ap.Child("maxReplicas"), asc.MaxReplicas, fmt.Sprintf("must be greater than or equal to minReplicas (%d)", minReplicas)))
	}
	if asc.MaxReplicas < spec.Replicas {
		s.add(field.Invalid(ap.Child("maxReplicas"), asc.MaxReplicas, fmt.Sprintf("must be greater than or equal to replicas (%d)", spec.Replicas)))
	}
}

// minReplicas checks an autoscaler's lower bound: 0 (the component may be
// parked at zero) or at least minAvailable, the invariant its /scale obeys.
func (s *staticCheck) minReplicas(p *field.Path, minReplicas, minAvailable int32) {
	switch {
	case minReplicas < 0:
		s.add(field.Invalid(p, minReplicas, "must be greater than or equal to 0"))
	case minReplicas > 0 && minReplicas < minAvailable:
		s.add(field.Invalid(p, minReplicas, fmt.Sprintf("must be 0 or greater than or equal to minAvailable (%d)", minAvailable)))
	}
}

func (s *staticCheck) podSpec(ps *corev1.PodSpec, p *field.Path) {
	if ps.RestartPolicy != "" && ps.RestartPolicy != corev1.RestartPolicyAlways {
		s.warnings = append(s.warnings, fmt.Sprintf("%s: %s", p.Child("restartPolicy"), RestartPolicyWarning))
	}
	if s.create {
		// Grove's scheduler backend places pods; a preset node or spread
		// constraints would bypass or fight gang and topology placement.
		if ps.NodeName != "" {
			s.add(field.Forbidden(p.Child("nodeName"), "must not be set: pods are placed by the scheduler backend"))
		}
		if len(ps.TopologySpreadConstraints) > 0 {
			s.add(field.Forbidden(p.Child("topologySpreadConstraints"), "must not be set: use topologyConstraint to place pods"))
		}
	}
	for i := range ps.InitContainers {
		s.env(ps.InitContainers[i].Env, p.Child("initContainers").Index(i).Child("env"))
	}
	for i := range ps.Containers {
		s.env(ps.Containers[i].Env, p.Child("containers").Index(i).Child("env"))
	}
}

func (s *staticCheck) env(env []corev1.EnvVar, p *field.Path) {
	seen := sets.New[string]()
	for i := range env {
		np := p.Index(i).Child("name")
		name := env[i].Name
		if name == "" {
			s.add(field.Required(np, "environment variable name is required"))
			continue
		}
		for _, msg := range utilvalidation.IsEnvVarName(name) {
			s.add(field.Invalid(np, name, msg))
		}
		if seen.Has(name) {
			s.add(field.Duplicate(np, name))
		}
		seen.Insert(name)
	}
}

// scalingGroups checks the scaling-group configs and returns which group each
// member clique belongs to.
func (s *staticCheck) scalingGroups() map[string]string {
	tmpl := &s.pcs.Spec.Template
	cliques := map[string]*grovecorev1alpha1.PodCliqueTemplateSpec{}
	for i := range tmpl.Cliques {
		cliques[tmpl.Cliques[i].Name] = &tmpl.Cliques[i]
	}
	members := map[string]string{}
	names := sets.New[string]()
	for gi := range tmpl.PodCliqueScalingGroupConfigs {
		g := &tmpl.PodCliqueScalingGroupConfigs[gi]
		p := scalingGroupsPath.Index(gi)
		switch {
		case g.Name == "":
			s.add(field.Required(p.Child("name"), "scaling group name is required"))
		case names.Has(g.Name):
			s.add(field.Duplicate(p.Child("name"), g.Name))
		default:
			for _, msg := range utilvalidation.IsDNS1123Label(g.Name) {
				s.add(field.Invalid(p.Child("name"), g.Name, msg))
			}
		}
		names.Insert(g.Name)
		s.scalingGroupMembers(g, p, cliques, members)
		s.scalingGroupReplicas(g, p)
		s.rollingUpdate(g.RollingUpdate, p.Child("rollingUpdate"))
	}
	return members
}

func (s *staticCheck) scalingGroupMembers(g *grovecorev1alpha1.PodCliqueScalingGroupConfig, p *field.Path,
	cliques map[string]*grovecorev1alpha1.PodCliqueTemplateSpec, members map[string]string) {
	cp := p.Child("cliqueNames")
	if len(g.CliqueNames) == 0 {
		s.add(field.Required(cp, "at least one clique name is required"))
	}
	inGroup := sets.New[string]()
	for i, name := range g.CliqueNames {
		ip := cp.Index(i)
		if inGroup.Has(name) {
			s.add(field.Duplicate(ip, name))
			continue
		}
		inGroup.Insert(name)
		if _, ok := cliques[name]; !ok {
			s.add(field.NotFound(ip, name))
			continue
		}
		if other, ok := members[name]; ok {
			s.add(field.Invalid(ip, name, fmt.Sprintf("clique already belongs to scaling group %q; a clique may belong to at most one scaling group", other)))
			continue
		}
		members[name] = g.Name
		if s.pcs.Name != "" && g.Name != "" {
			if err := apicommon.CheckNameLength(s.pcs.Name, name, g.Name); err != nil {
				s.add(field.Invalid(ip, name, err.Error()))
			}
		}
	}
}

func (s *staticCheck) scalingGroupReplicas(g *grovecorev1alpha1.PodCliqueScalingGroupConfig, p *field.Path) {
	replicas, minAvailable := int32(1), int32(1)
	if g.Replicas != nil {
		replicas = *g.Replicas
	}
	if g.MinAvailable != nil {
		minAvailable = *g.MinAvailable
	}
	if replicas <= 0 {
		s.add(field.Invalid(p.Child("replicas"), replicas, "must be greater than 0"))
	}
	if minAvailable <= 0 {
		s.add(field.Invalid(p.Child("minAvailable"), minAvailable, "must be greater than 0"))
	} else if minAvailable > replicas {
		s.add(field.Invalid(p.Child("minAvailable"), minAvailable, fmt.Sprintf("must be less than or equal to replicas (%d)", replicas)))
	}
	sc := g.ScaleConfig
	if sc == nil {
		return
	}
	sp := p.Child("scaleConfig")
	minReplicas := replicas
	if sc.MinReplicas != nil {
		minReplicas = *sc.MinReplicas
		s.minReplicas(sp.Child("minReplicas"), minReplicas, minAvailable)
	}
	if sc.MaxReplicas < minReplicas {
		s.add(field.Invalid(sp.Child("maxReplicas"), sc.MaxReplicas, fmt.Sprintf("must be greater than or equal to minReplicas (%d)", minReplicas)))
	}
}

// startupOrder checks startsAfter: with Explicit startup every entry must
// name another known clique once, and the dependencies must not form a cycle.
func (s *staticCheck) startupOrder() {
	tmpl := &s.pcs.Spec.Template
	explicit := tmpl.StartupType != nil && *tmpl.StartupType == grovecorev1alpha1.CliqueStartupTypeExplicit
	known := sets.New[string]()
	for i := range tmpl.Cliques {
		known.Insert(tmpl.Cliques[i].Name)
	}
	valid := true
	for i := range tmpl.Cliques {
		c := &tmpl.Cliques[i]
		p := cliquesPath.Index(i).Child("spec", "startsAfter")
		if !explicit {
			if len(c.Spec.StartsAfter) > 0 {
				s.warnings = append(s.warnings, fmt.Sprintf("%s: ignored because cliqueStartupType is not %s", p, grovecorev1alpha1.CliqueStartupTypeExplicit))
			}
			continue
		}
		seen := sets.New[string]()
		for j, dep := range c.Spec.StartsAfter {
			jp := p.Index(j)
			switch {
			case dep == "":
				s.add(field.Invalid(jp, dep, "must not be empty"))
			case dep == c.Name:
				s.add(field.Invalid(jp, dep, "a clique cannot start after itself"))
			case seen.Has(dep):
				s.add(field.Duplicate(jp, dep))
			case !known.Has(dep):
				s.add(field.NotFound(jp, dep))
			default:
				seen.Insert(dep)
				continue
			}
			valid = false
		}
	}
	if explicit && valid {
		s.startupCycles()
	}
}

// startupCycles reports each cycle of the startsAfter graph once, on the
// clique where the depth-first search closes it, naming the whole cycle.
func (s *staticCheck) startupCycles() {
	tmpl := &s.pcs.Spec.Template
	index := map[string]int{}
	for i := range tmpl.Cliques {
		index[tmpl.Cliques[i].Name] = i
	}
	const (
		unvisited = iota
		onStack
		done
	)
	state := make([]int, len(tmpl.Cliques))
	var stack []string
	var visit func(i int)
	visit = func(i int) {
		state[i] = onStack
		stack = append(stack, tmpl.Cliques[i].Name)
		for _, dep := range tmpl.Cliques[i].Spec.StartsAfter {
			j := index[dep]
			switch state[j] {
			case unvisited:
				visit(j)
			case onStack:
				start := 0
				for k, n := range stack {
					if n == dep {
						start = k
					}
				}
				cycle := append(append([]string{}, stack[start:]...), dep)
				s.add(field.Invalid(cliquesPath.Index(i).Child("spec", "startsAfter"), tmpl.Cliques[i].Spec.StartsAfter,
					"startsAfter forms a cycle: "+strings.Join(cycle, " -> ")))
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
	}
	for i := range tmpl.Cliques {
		if state[i] == unvisited {
			visit(i)
		}
	}
}

// schedulerBackend checks that all cliques hand their pods to the same
// scheduler backend, that it is enabled, and that the backend can express the
// PodCliqueSet: a PodGang is scheduled by exactly one scheduler.
func (s *staticCheck) schedulerBackend() {
	cliques := s.pcs.Spec.Template.Cliques
	effective := func(name string) string {
		if name == "" && s.backends != nil {
			return s.backends.Default().Name()
		}
		return name
	}
	first := effective(cliques[0].Spec.PodSpec.SchedulerName)
	for i := range cliques {
		p := cliquesPath.Index(i).Child("spec", "podSpec", "schedulerName")
		name := cliques[i].Spec.PodSpec.SchedulerName
		if got := effective(name); got != first {
			s.add(field.Invalid(p, name, fmt.Sprintf("all cliques must use the same scheduler backend: clique %q uses %q", cliques[0].Name, first)))
			continue
		}
		if i == 0 && s.backends != nil {
			b, err := s.backends.ForSchedulerName(name)
			if err != nil {
				s.add(field.NotSupported(p, name, s.backends.Names()))
				continue
			}
			// What the backend's scheduler cannot honour is rejected here,
			// before any gang is created for it.
			s.add(b.ValidatePodCliqueSet(s.pcs)...)
		}
	}
}
