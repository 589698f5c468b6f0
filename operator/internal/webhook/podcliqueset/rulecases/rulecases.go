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

// Package rulecases holds one case per admission rule of the PodCliqueSet
// webhooks: a manifest that breaks the rule, the field path and message the
// rejection must carry, and a corrected twin that must be accepted. The unit
// tests run them against the validator and the envtest suite sends them
// through the API server, so both prove the same rules.
package rulecases

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// TopologyName is the ClusterTopologyBinding the topology cases refer to.
const TopologyName = "grove-topology"

// Topology returns the ClusterTopologyBinding the topology cases refer to: zone,
// block, rack, host from broadest to narrowest.
func Topology() *grovecorev1alpha1.ClusterTopologyBinding {
	return &grovecorev1alpha1.ClusterTopologyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: TopologyName},
		Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{
			{Domain: grovecorev1alpha1.TopologyDomainZone, Key: "topology.kubernetes.io/zone"},
			{Domain: grovecorev1alpha1.TopologyDomainBlock, Key: "example.com/block"},
			{Domain: grovecorev1alpha1.TopologyDomainRack, Key: "example.com/rack"},
			{Domain: grovecorev1alpha1.TopologyDomainHost, Key: "kubernetes.io/hostname"},
		}},
	}
}

// Base returns a valid PodCliqueSet as the defaulting webhook leaves it:
// a standalone frontend and a leader/worker scaling group "model", started
// in explicit order frontend → leader → worker.
func Base(name, namespace string) *grovecorev1alpha1.PodCliqueSet {
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				StartupType: ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit),
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
					standalone(Clique("frontend", 2)),
					Clique("leader", 1, "frontend"),
					Clique("worker", 3, "leader"),
				},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "model", CliqueNames: []string{"leader", "worker"},
					Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1),
					RollingUpdate: maxUnavailable(intstr.FromInt32(1)),
				}},
				TerminationDelay:      &metav1.Duration{Duration: 4 * time.Hour},
				HeadlessServiceConfig: &grovecorev1alpha1.HeadlessServiceConfig{PublishNotReadyAddresses: true},
			},
		},
	}
}

// Clique returns a defaulted clique template with one container.
func Clique(name string, replicas int32, startsAfter ...string) grovecorev1alpha1.PodCliqueTemplateSpec {
	return grovecorev1alpha1.PodCliqueTemplateSpec{
		Name: name,
		Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName:     name,
			Replicas:     replicas,
			MinAvailable: ptr.To(replicas),
			StartsAfter:  startsAfter,
			PodSpec: corev1.PodSpec{
				RestartPolicy:                 corev1.RestartPolicyAlways,
				TerminationGracePeriodSeconds: ptr.To[int64](30),
				Containers: []corev1.Container{{
					Name: "main", Image: "registry.example.com/engine:1",
					Env: []corev1.EnvVar{{Name: "MODEL", Value: "m"}},
				}},
			},
		},
	}
}

// standalone gives a clique the rollingUpdate the defaulting webhook gives
// cliques outside scaling groups.
func standalone(c grovecorev1alpha1.PodCliqueTemplateSpec) grovecorev1alpha1.PodCliqueTemplateSpec {
	c.Spec.RollingUpdate = maxUnavailable(intstr.FromInt32(1))
	return c
}

// strategy is an updateStrategy of type t with maxUnavailable mu (nil: unset).
func strategy(t grovecorev1alpha1.UpdateStrategyType, mu *intstr.IntOrString) *grovecorev1alpha1.PodCliqueSetUpdateStrategy {
	return &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: t, MaxUnavailable: mu}
}

func maxUnavailable(v intstr.IntOrString) *grovecorev1alpha1.RollingUpdateConfig {
	return &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: &v}
}

// Case is one admission rule.
type Case struct {
	// Name says which rule is broken.
	Name string
	// Bad breaks the rule on a copy of Base.
	Bad func(*grovecorev1alpha1.PodCliqueSet)
	// Good is the corrected twin of Bad, applied to a copy of Base; nil means Base itself.
	Good func(*grovecorev1alpha1.PodCliqueSet)
	// Update says Bad and Good are updates of a stored Base rather than creates.
	Update bool
	// Path is the field path the rejection names.
	Path string
	// Message is part of the validator's message for the rule.
	Message string
	// Warning, when set, means Bad is accepted with an admission warning
	// containing it instead of rejected.
	Warning string
	// Unreachable says the broken state cannot arrive through the API server:
	// the defaulting webhook repairs it first. Only the validator sees it.
	Unreachable bool
	// SchemaFirst says the CRD schema rejects the manifest before the
	// validating webhook sees it, with its own message.
	SchemaFirst bool
	// SchemaPath is the field path of the schema's rejection when it differs
	// from Path (CEL rules on a parent object report the parent's path).
	SchemaPath string
	// TopologyDisabled says the case needs a validator without
	// topology-aware scheduling.
	TopologyDisabled bool
}

func clique(p *grovecorev1alpha1.PodCliqueSet, name string) *grovecorev1alpha1.PodCliqueTemplateSpec {
	for i := range p.Spec.Template.Cliques {
		if p.Spec.Template.Cliques[i].Name == name {
			return &p.Spec.Template.Cliques[i]
		}
	}
	panic("no clique " + name)
}

func group(p *grovecorev1alpha1.PodCliqueSet) *grovecorev1alpha1.PodCliqueScalingGroupConfig {
	return &p.Spec.Template.PodCliqueScalingGroupConfigs[0]
}

func domain(d grovecorev1alpha1.TopologyDomain) *grovecorev1alpha1.TopologyDomain { return &d }

func required(topologyName string, d grovecorev1alpha1.TopologyDomain) *grovecorev1alpha1.TopologyConstraint {
	return &grovecorev1alpha1.TopologyConstraint{TopologyName: topologyName, Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: domain(d)}}
}

func addClique(p *grovecorev1alpha1.PodCliqueSet, c grovecorev1alpha1.PodCliqueTemplateSpec) {
	p.Spec.Template.Cliques = append(p.Spec.Template.Cliques, c)
}

func env(p *grovecorev1alpha1.PodCliqueSet, name string, vars ...string) {
	c := &clique(p, name).Spec.PodSpec.Containers[0]
	c.Env = nil
	for _, v := range vars {
		c.Env = append(c.Env, corev1.EnvVar{Name: v, Value: "x"})
	}
}

// Create returns the rules checked on create.
func Create() []Case {
	return append([]Case{
		{Name: "name must be a DNS-1035 label", Path: "metadata.name", Message: "DNS-1035 label",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { p.Name = "1" + p.Name }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { p.Name += "1" }},
		{Name: "updateStrategy type is a known strategy", Path: "spec.updateStrategy.type", Message: "supported values", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.UpdateStrategy = strategy("Blue", nil) },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, nil)
			}},
		{Name: "updateStrategy budget only with Coherent", Path: "spec.updateStrategy", Message: "maxUnavailable and progressDeadline apply to updateStrategy type Coherent only", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.RollingRecreateStrategyType, ptr.To(intstr.FromInt32(2)))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, ptr.To(intstr.FromInt32(2)))
			}},
		{Name: "updateStrategy maxUnavailable at least 1", Path: "spec.updateStrategy.maxUnavailable", Message: "must be an integer of at least 1 or a percentage from 1% to 100%", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, ptr.To(intstr.FromInt32(0)))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, ptr.To(intstr.FromString("50%")))
			}},
		{Name: "updateStrategy progressDeadline positive", Path: "spec.updateStrategy.progressDeadline", Message: "must be greater than 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, nil)
				p.Spec.UpdateStrategy.ProgressDeadline = &metav1.Duration{}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.UpdateStrategy = strategy(grovecorev1alpha1.CoherentStrategyType, nil)
				p.Spec.UpdateStrategy.ProgressDeadline = &metav1.Duration{Duration: 10 * time.Minute}
			}},
		{Name: "clique maxUnavailable at least 1", Path: "spec.template.cliques[0].spec.rollingUpdate.maxUnavailable", Message: "must be an integer of at least 1 or a percentage from 1% to 100%", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromInt32(0))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromInt32(2))
			}},
		{Name: "clique maxUnavailable percentage at most 100%", Path: "spec.template.cliques[0].spec.rollingUpdate.maxUnavailable", Message: "must be an integer of at least 1 or a percentage from 1% to 100%", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromString("150%"))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromString("50%"))
			}},
		{Name: "clique maxUnavailable is a count or a percentage", Path: "spec.template.cliques[0].spec.rollingUpdate.maxUnavailable", Message: "must be an integer of at least 1 or a percentage from 1% to 100%", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromString("half"))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate = maxUnavailable(intstr.FromString("100%"))
			}},
		{Name: "clique progressDeadline positive", Path: "spec.template.cliques[0].spec.rollingUpdate.progressDeadline", Message: "must be greater than 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate.ProgressDeadline = &metav1.Duration{}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.RollingUpdate.ProgressDeadline = &metav1.Duration{Duration: 10 * time.Minute}
			}},
		{Name: "scaling group maxUnavailable at least 1", Path: "spec.template.podCliqueScalingGroups[0].rollingUpdate.maxUnavailable", Message: "must be an integer of at least 1 or a percentage from 1% to 100%", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).RollingUpdate = maxUnavailable(intstr.FromInt32(-1)) },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).RollingUpdate = maxUnavailable(intstr.FromString("50%"))
			}},
		{Name: "scaling group progressDeadline positive", Path: "spec.template.podCliqueScalingGroups[0].rollingUpdate.progressDeadline", Message: "must be greater than 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).RollingUpdate.ProgressDeadline = &metav1.Duration{Duration: -time.Minute}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).RollingUpdate.ProgressDeadline = &metav1.Duration{Duration: time.Minute}
			}},
		{Name: "scaling-group member has no rollingUpdate of its own", Path: "spec.template.cliques[2].spec.rollingUpdate", Message: `set rollingUpdate on scaling group "model"`,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.RollingUpdate = maxUnavailable(intstr.FromInt32(2))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).RollingUpdate = maxUnavailable(intstr.FromInt32(2)) }},
		{Name: "replicas non-negative", Path: "spec.replicas", Message: "must be greater than or equal to 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Replicas = -1 }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Replicas = 3 }},
		{Name: "startup type allowed", Path: "spec.template.cliqueStartupType", Message: "Unsupported value", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupType("Sometimes"))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit)
			}},
		{Name: "at least one clique", Path: "spec.template.cliques", Message: "at least one clique is required", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.Cliques = nil
				p.Spec.Template.PodCliqueScalingGroupConfigs = nil
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.Cliques = p.Spec.Template.Cliques[:1]
				p.Spec.Template.PodCliqueScalingGroupConfigs = nil
			}},
		{Name: "clique names unique", Path: "spec.template.cliques[3].name", Message: "Duplicate value", SchemaFirst: true, SchemaPath: "spec.template.cliques[3]",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				c := Clique("frontend", 1)
				c.Spec.RoleName = "frontend-2"
				addClique(p, c)
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { addClique(p, Clique("frontend-2", 1)) }},
		{Name: "clique name is a DNS label", Path: "spec.template.cliques[3].name", Message: "RFC 1123", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { addClique(p, Clique("Router", 1)) }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { addClique(p, Clique("router", 1)) }},
		{Name: "roleNames unique", Path: "spec.template.cliques[1].spec.roleName", Message: `already used by clique "frontend"`,
			Bad:  func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "leader").Spec.RoleName = "frontend" },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "leader").Spec.RoleName = "model-leader" }},
		{Name: "standalone clique name length", Path: "spec.template.cliques[3].name", Message: "more than 45 characters",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				addClique(p, Clique(strings.Repeat("r", 45-len(p.Name)+1), 1))
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { addClique(p, Clique(strings.Repeat("r", 45-len(p.Name)), 1)) }},
		{Name: "scaling-group member name length", Path: "spec.template.podCliqueScalingGroups[0].cliqueNames[2]", Message: "more than 45 characters",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				n := strings.Repeat("w", 45-len(p.Name)-len("model")+1)
				addClique(p, Clique(n, 1))
				group(p).CliqueNames = append(group(p).CliqueNames, n)
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				n := strings.Repeat("w", 45-len(p.Name)-len("model"))
				addClique(p, Clique(n, 1))
				group(p).CliqueNames = append(group(p).CliqueNames, n)
			}},
		{Name: "clique labels valid", Path: "spec.template.cliques[0].labels", Message: "name part must consist of",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Labels = map[string]string{"bad key!": "v"}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Labels = map[string]string{"example.com/tier": "web"}
			}},
		{Name: "clique annotations valid", Path: "spec.template.cliques[0].annotations", Message: "name part must consist of",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Annotations = map[string]string{"bad key!": "v"}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Annotations = map[string]string{"example.com/note": "v"}
			}},
		{Name: "clique replicas positive", Path: "spec.template.cliques[0].spec.replicas", Message: "must be greater than 0", Unreachable: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.Replicas = 0
				clique(p, "frontend").Spec.MinAvailable = nil
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.Replicas = 4 }},
		{Name: "clique minAvailable set", Path: "spec.template.cliques[0].spec.minAvailable", Message: "Required value", Unreachable: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = nil }},
		{Name: "clique minAvailable positive", Path: "spec.template.cliques[0].spec.minAvailable", Message: "must be greater than 0", SchemaFirst: true,
			Bad:  func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](0) },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](1) }},
		{Name: "clique minAvailable at most replicas", Path: "spec.template.cliques[0].spec.minAvailable", Message: "less than or equal to replicas",
			SchemaFirst: true, SchemaPath: "spec.template.cliques[0].spec.replicas",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](3) }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](2) }},
		{Name: "startsAfter entry non-empty", Path: "spec.template.cliques[2].spec.startsAfter[1]", Message: "must not be empty",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "worker").Spec.StartsAfter = []string{"leader", ""} },
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.StartsAfter = []string{"leader", "frontend"}
			}},
		{Name: "startsAfter not self", Path: "spec.template.cliques[2].spec.startsAfter[1]", Message: "cannot start after itself",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.StartsAfter = []string{"leader", "worker"}
			}},
		{Name: "startsAfter no duplicates", Path: "spec.template.cliques[2].spec.startsAfter[1]", Message: "Duplicate value",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.StartsAfter = []string{"leader", "leader"}
			}},
		{Name: "startsAfter names known cliques", Path: "spec.template.cliques[2].spec.startsAfter[0]", Message: "Not found",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "worker").Spec.StartsAfter = []string{"router"} }},
		{Name: "startsAfter has no cycles", Path: "spec.template.cliques[2].spec.startsAfter", Message: "startsAfter forms a cycle: leader -> worker -> leader",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "leader").Spec.StartsAfter = []string{"frontend", "worker"}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.StartsAfter = []string{"frontend", "leader"}
			}},
		{Name: "startsAfter ignored without explicit startup", Path: "spec.template.cliques[1].spec.startsAfter", Warning: "ignored because cliqueStartupType is not CliqueStartupTypeExplicit",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder)
			}},
		{Name: "autoscaling minReplicas at least minAvailable", Path: "spec.template.cliques[0].spec.autoScalingConfig.minReplicas", Message: "greater than or equal to minAvailable (2)",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](1), MaxReplicas: 5}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](2), MaxReplicas: 5}
			}},
		{Name: "autoscaling minReplicas not negative, 0 allowed", Path: "spec.template.cliques[0].spec.autoScalingConfig.minReplicas", Message: "must be greater than or equal to 0",
			SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](-1), MaxReplicas: 5}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](0), MaxReplicas: 5}
			}},
		{Name: "autoscaling maxReplicas at least replicas", Path: "spec.template.cliques[0].spec.autoScalingConfig.maxReplicas", Message: "greater than or equal to replicas (2)",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](1)
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](1), MaxReplicas: 1}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](1)
				clique(p, "frontend").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](1), MaxReplicas: 2}
			}},
		{Name: "nodeName forbidden", Path: "spec.template.cliques[0].spec.podSpec.nodeName", Message: "must not be set",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.PodSpec.NodeName = "node-1" }},
		{Name: "topologySpreadConstraints forbidden", Path: "spec.template.cliques[0].spec.podSpec.topologySpreadConstraints", Message: "use topologyConstraint",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.PodSpec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule,
				}}
			}},
		{Name: "env var names valid", Path: "spec.template.cliques[0].spec.podSpec.containers[0].env[1].name", Message: "a valid environment variable name",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { env(p, "frontend", "MODEL", "1=BAD") }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { env(p, "frontend", "MODEL", "BAD_1") }},
		{Name: "env var names unique per container", Path: "spec.template.cliques[0].spec.podSpec.containers[0].env[1].name", Message: "Duplicate value",
			SchemaFirst: true, SchemaPath: "spec.template.cliques[0].spec.podSpec.containers[0].env[1]",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { env(p, "frontend", "MODEL", "MODEL") }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { env(p, "frontend", "MODEL", "MODEL_2") }},
		{Name: "init container env var names unique", Path: "spec.template.cliques[0].spec.podSpec.initContainers[0].env[1].name", Message: "Duplicate value",
			SchemaFirst: true, SchemaPath: "spec.template.cliques[0].spec.podSpec.initContainers[0].env[1]",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.PodSpec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox",
					Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}}}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.PodSpec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox",
					Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}}}
			}},
		{Name: "restartPolicy other than Always warned", Path: "spec.template.cliques[0].spec.podSpec.restartPolicy", Warning: "restartPolicy will be ignored, it will be set to Always",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").Spec.PodSpec.RestartPolicy = corev1.RestartPolicyOnFailure
			}},
		{Name: "one scheduler backend per PodCliqueSet", Path: "spec.template.cliques[2].spec.podSpec.schedulerName", Message: "all cliques must use the same scheduler backend",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.PodSpec.SchedulerName = "default-scheduler"
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				for i := range p.Spec.Template.Cliques {
					p.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "default-scheduler"
				}
			}},
		{Name: "scheduler backend enabled", Path: "spec.template.cliques[0].spec.podSpec.schedulerName", Message: "supported values",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				for i := range p.Spec.Template.Cliques {
					p.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "volcano"
				}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				for i := range p.Spec.Template.Cliques {
					p.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "grove-scheduler"
				}
			}},
		{Name: "scaling group names unique", Path: "spec.template.podCliqueScalingGroups[1].name", Message: "Duplicate value",
			SchemaFirst: true, SchemaPath: "spec.template.podCliqueScalingGroups[1]",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				addClique(p, Clique("extra", 1))
				p.Spec.Template.PodCliqueScalingGroupConfigs = append(p.Spec.Template.PodCliqueScalingGroupConfigs,
					grovecorev1alpha1.PodCliqueScalingGroupConfig{Name: "model", CliqueNames: []string{"extra"}, Replicas: ptr.To[int32](1), MinAvailable: ptr.To[int32](1)})
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				addClique(p, Clique("extra", 1))
				p.Spec.Template.PodCliqueScalingGroupConfigs = append(p.Spec.Template.PodCliqueScalingGroupConfigs,
					grovecorev1alpha1.PodCliqueScalingGroupConfig{Name: "model-2", CliqueNames: []string{"extra"}, Replicas: ptr.To[int32](1), MinAvailable: ptr.To[int32](1)})
			}},
		{Name: "scaling group name is a DNS label", Path: "spec.template.podCliqueScalingGroups[0].name", Message: "RFC 1123", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).Name = "Model" }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).Name = "model-a" }},
		{Name: "scaling group cliqueNames exist", Path: "spec.template.podCliqueScalingGroups[0].cliqueNames[1]", Message: "Not found",
			SchemaFirst: true, SchemaPath: "spec.template.podCliqueScalingGroups",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).CliqueNames = []string{"leader", "workers"} }},
		{Name: "scaling group cliqueNames not repeated", Path: "spec.template.podCliqueScalingGroups[0].cliqueNames[2]", Message: "Duplicate value",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).CliqueNames = []string{"leader", "worker", "leader"} }},
		{Name: "clique in at most one scaling group", Path: "spec.template.podCliqueScalingGroups[1].cliqueNames[0]", Message: `already belongs to scaling group "model"`,
			SchemaFirst: true, SchemaPath: "spec.template.podCliqueScalingGroups",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.PodCliqueScalingGroupConfigs = append(p.Spec.Template.PodCliqueScalingGroupConfigs,
					grovecorev1alpha1.PodCliqueScalingGroupConfig{Name: "model-2", CliqueNames: []string{"worker"}, Replicas: ptr.To[int32](1), MinAvailable: ptr.To[int32](1)})
			}},
		{Name: "scaling group replicas positive", Path: "spec.template.podCliqueScalingGroups[0].replicas", Message: "must be greater than 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).Replicas = ptr.To[int32](0) }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).Replicas = ptr.To[int32](1) }},
		{Name: "scaling group minAvailable positive", Path: "spec.template.podCliqueScalingGroups[0].minAvailable", Message: "must be greater than 0", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).MinAvailable = ptr.To[int32](0) }, Good: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).MinAvailable = ptr.To[int32](2) }},
		{Name: "scaling group minAvailable at most replicas", Path: "spec.template.podCliqueScalingGroups[0].minAvailable", Message: "less than or equal to replicas (2)", SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).MinAvailable = ptr.To[int32](3) }},
		{Name: "scaling group scaleConfig minReplicas at least minAvailable", Path: "spec.template.podCliqueScalingGroups[0].scaleConfig.minReplicas", Message: "greater than or equal to minAvailable (2)",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).MinAvailable = ptr.To[int32](2)
				group(p).ScaleConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](1), MaxReplicas: 4}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).MinAvailable = ptr.To[int32](2)
				group(p).ScaleConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](2), MaxReplicas: 4}
			}},
		{Name: "scaling group scaleConfig minReplicas not negative, 0 allowed", Path: "spec.template.podCliqueScalingGroups[0].scaleConfig.minReplicas", Message: "must be greater than or equal to 0",
			SchemaFirst: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ScaleConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](-1), MaxReplicas: 4}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ScaleConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](0), MaxReplicas: 4}
			}},
		{Name: "scaling group members have no autoScalingConfig", Path: "spec.template.cliques[2].spec.autoScalingConfig", Message: "may not set autoScalingConfig",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "worker").Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 6}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).ScaleConfig = &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 6}
			}},
		{Name: "terminationDelay positive", Path: "spec.template.terminationDelay", Message: "must be greater than 0",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TerminationDelay = &metav1.Duration{Duration: -time.Minute}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TerminationDelay = &metav1.Duration{Duration: time.Minute}
			}},
		{Name: "terminationDelay set", Path: "spec.template.terminationDelay", Message: "Required value", Unreachable: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.TerminationDelay = nil }},
		{Name: "topology rejected when topology-aware scheduling is disabled", Path: "spec.template.topologyConstraint",
			Message: "topology constraints are not allowed when Topology Aware Scheduling is disabled", TopologyDisabled: true,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
			}},
		{Name: "topology names an existing ClusterTopologyBinding", Path: "spec.template.topologyConstraint.topologyName", Message: `ClusterTopologyBinding "no-such-topology" does not exist`,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required("no-such-topology", "zone")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
			}},
		{Name: "topology name resolvable", Path: "spec.template.cliques[0].topologyConstraint.topologyName", Message: "must be set here or on a constrained parent",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				clique(p, "frontend").TopologyConstraint = required("", "rack")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
				clique(p, "frontend").TopologyConstraint = required("", "rack")
			}},
		{Name: "one ClusterTopologyBinding per PodCliqueSet", Path: "spec.template.podCliqueScalingGroups[0].topologyConstraint.topologyName", Message: "must refer to the same ClusterTopologyBinding",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
				group(p).TopologyConstraint = required("other-topology", "block")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
				group(p).TopologyConstraint = required(TopologyName, "block")
			}},
		{Name: "topology domain is a level", Path: "spec.template.topologyConstraint.pack.required", Message: "not a level of ClusterTopologyBinding",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "datacenter")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "block")
			}},
		{Name: "scaling group not broader than the PodCliqueSet", Path: "spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required", Message: `must not be broader than "block"`,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "block")
				group(p).TopologyConstraint = required("", "zone")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "block")
				group(p).TopologyConstraint = required("", "block")
			}},
		{Name: "member clique not broader than its scaling group", Path: "spec.template.cliques[2].topologyConstraint.pack.preferred", Message: `must not be broader than "host"`,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: TopologyName,
					Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: domain("rack"), Preferred: domain("host")}}
				clique(p, "worker").TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Preferred: domain("rack")}}
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				group(p).TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: TopologyName,
					Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: domain("rack"), Preferred: domain("host")}}
				clique(p, "worker").TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Preferred: domain("host")}}
			}},
		{Name: "standalone clique not broader than the PodCliqueSet", Path: "spec.template.cliques[0].topologyConstraint.pack.required", Message: `must not be broader than "rack"`,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "rack")
				clique(p, "frontend").TopologyConstraint = required("", "block")
			},
			Good: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = required(TopologyName, "rack")
				clique(p, "frontend").TopologyConstraint = required("", "host")
			}},
		{Name: "redundant preferred domain warned", Path: "spec.template.topologyConstraint.pack.preferred", Warning: "is redundant",
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				p.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: TopologyName,
					Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: domain("rack"), Preferred: domain("block")}}
			}},
	}, resourceSharingCreate()...)
}

// Updates returns the immutability rules and the mutable fields, as changes to a stored Base.
func Updates() []Case {
	podTemplateChange := func(p *grovecorev1alpha1.PodCliqueSet) {
		for i := range p.Spec.Template.Cliques {
			p.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = "registry.example.com/engine:2"
		}
	}
	immutable := func(name, path string, bad func(*grovecorev1alpha1.PodCliqueSet)) Case {
		return Case{Name: name + " immutable", Update: true, Path: path, Message: "field is immutable", Bad: bad, Good: podTemplateChange}
	}
	return append([]Case{
		{Name: "replicas mutable", Update: true, Bad: nil, Good: func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Replicas = 3
			clique(p, "frontend").Spec.Replicas = 4
			group(p).Replicas = ptr.To[int32](3)
		}},
		{Name: "rollingUpdate mutable", Update: true, Bad: nil, Good: func(p *grovecorev1alpha1.PodCliqueSet) {
			clique(p, "frontend").Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{
				MaxUnavailable: ptr.To(intstr.FromString("50%")), ProgressDeadline: &metav1.Duration{Duration: 5 * time.Minute}}
			group(p).RollingUpdate = maxUnavailable(intstr.FromInt32(2))
		}},
		{Name: "pod template mutable", Update: true, Bad: nil, Good: func(p *grovecorev1alpha1.PodCliqueSet) {
			podTemplateChange(p)
			env(p, "worker", "MODEL", "SHARDS")
			clique(p, "frontend").Spec.PodSpec.TerminationGracePeriodSeconds = ptr.To[int64](60)
		}},
		immutable("cliqueStartupType", "spec.template.cliqueStartupType", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeAnyOrder)
		}),
		{Name: "cliques not added", Update: true, Path: "spec.template.cliques", Message: "may not be added, removed or renamed", Good: podTemplateChange,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { addClique(p, Clique("router", 1)) }},
		{Name: "cliques not reordered", Update: true, Path: "spec.template.cliques", Message: "may not be reordered", Good: podTemplateChange,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) {
				c := p.Spec.Template.Cliques
				c[0], c[1] = c[1], c[0]
			}},
		immutable("roleName", "spec.template.cliques[1].spec.roleName", func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "leader").Spec.RoleName = "head" }),
		immutable("minAvailable", "spec.template.cliques[0].spec.minAvailable", func(p *grovecorev1alpha1.PodCliqueSet) { clique(p, "frontend").Spec.MinAvailable = ptr.To[int32](1) }),
		immutable("startsAfter", "spec.template.cliques[2].spec.startsAfter", func(p *grovecorev1alpha1.PodCliqueSet) {
			clique(p, "worker").Spec.StartsAfter = []string{"leader", "frontend"}
		}),
		immutable("schedulerName", "spec.template.cliques[0].spec.podSpec.schedulerName", func(p *grovecorev1alpha1.PodCliqueSet) {
			for i := range p.Spec.Template.Cliques {
				p.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "default-scheduler"
			}
		}),
		{Name: "scaling groups not added", Update: true, Path: "spec.template.podCliqueScalingGroups", Message: "may not be added, removed or renamed", Good: podTemplateChange,
			Bad: func(p *grovecorev1alpha1.PodCliqueSet) { group(p).Name = "model-2" }},
		immutable("scaling group cliqueNames", "spec.template.podCliqueScalingGroups[0].cliqueNames", func(p *grovecorev1alpha1.PodCliqueSet) {
			group(p).CliqueNames = []string{"leader"}
		}),
		immutable("scaling group minAvailable", "spec.template.podCliqueScalingGroups[0].minAvailable", func(p *grovecorev1alpha1.PodCliqueSet) {
			group(p).MinAvailable = ptr.To[int32](2)
		}),
		immutable("PodCliqueSet topologyConstraint", "spec.template.topologyConstraint", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = required(TopologyName, "zone")
		}),
		immutable("scaling group topologyConstraint", "spec.template.podCliqueScalingGroups[0].topologyConstraint", func(p *grovecorev1alpha1.PodCliqueSet) {
			group(p).TopologyConstraint = required(TopologyName, "rack")
		}),
		immutable("clique topologyConstraint", "spec.template.cliques[0].topologyConstraint", func(p *grovecorev1alpha1.PodCliqueSet) {
			clique(p, "frontend").TopologyConstraint = required(TopologyName, "host")
		}),
	}, resourceSharingUpdates(immutable)...)
}
