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

// Package desired builds the objects a PodCliqueSet should have: it looks up
// templates and scaling-group configs and builds PodCliques exactly as the
// PodCliqueSet and PodCliqueScalingGroup controllers create them. Template
// matching goes through names and labels Grove sets, never through parsing.
package desired

import (
	"maps"
	"strconv"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// CliqueTemplate returns the clique template with the given name, or nil.
func CliqueTemplate(pcs *grovecorev1alpha1.PodCliqueSet, name string) *grovecorev1alpha1.PodCliqueTemplateSpec {
	for i := range pcs.Spec.Template.Cliques {
		if pcs.Spec.Template.Cliques[i].Name == name {
			return &pcs.Spec.Template.Cliques[i]
		}
	}
	return nil
}

// ScalingGroupConfig returns the scaling-group config with the given name, or nil.
func ScalingGroupConfig(pcs *grovecorev1alpha1.PodCliqueSet, name string) *grovecorev1alpha1.PodCliqueScalingGroupConfig {
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		if pcs.Spec.Template.PodCliqueScalingGroupConfigs[i].Name == name {
			return &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]
		}
	}
	return nil
}

// ScalingGroupOfClique returns the scaling-group config a clique belongs to,
// or nil for a standalone clique.
func ScalingGroupOfClique(pcs *grovecorev1alpha1.PodCliqueSet, cliqueName string) *grovecorev1alpha1.PodCliqueScalingGroupConfig {
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, c := range pcs.Spec.Template.PodCliqueScalingGroupConfigs[i].CliqueNames {
			if c == cliqueName {
				return &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]
			}
		}
	}
	return nil
}

// StandaloneCliques returns the clique templates that belong to no scaling
// group, in template order.
func StandaloneCliques(pcs *grovecorev1alpha1.PodCliqueSet) []*grovecorev1alpha1.PodCliqueTemplateSpec {
	var out []*grovecorev1alpha1.PodCliqueTemplateSpec
	for i := range pcs.Spec.Template.Cliques {
		if ScalingGroupOfClique(pcs, pcs.Spec.Template.Cliques[i].Name) == nil {
			out = append(out, &pcs.Spec.Template.Cliques[i])
		}
	}
	return out
}

// ScalingGroupReplicas is a config's template replicas (CRD default 1).
func ScalingGroupReplicas(cfg *grovecorev1alpha1.PodCliqueScalingGroupConfig) int32 {
	if cfg.Replicas == nil {
		return 1
	}
	return *cfg.Replicas
}

// ScalingGroupMinAvailable is a config's minAvailable (CRD default 1).
func ScalingGroupMinAvailable(cfg *grovecorev1alpha1.PodCliqueScalingGroupConfig) int32 {
	if cfg.MinAvailable == nil {
		return 1
	}
	return *cfg.MinAvailable
}

// PCSGMinAvailable is a PodCliqueScalingGroup's minAvailable (default 1).
func PCSGMinAvailable(pcsg *grovecorev1alpha1.PodCliqueScalingGroup) int32 {
	if pcsg.Spec.MinAvailable == nil {
		return 1
	}
	return *pcsg.Spec.MinAvailable
}

// CliqueMinAvailable is a clique spec's minAvailable; unset means all
// replicas, as the defaulting webhook would write it.
func CliqueMinAvailable(spec *grovecorev1alpha1.PodCliqueSpec) int32 {
	if spec.MinAvailable == nil {
		return spec.Replicas
	}
	return *spec.MinAvailable
}

// ReplicaIndexLabel formats a replica index as a label value.
func ReplicaIndexLabel(i int32) string {
	return strconv.Itoa(int(i))
}

// merge returns a copy of base overlaid with every map in overlays, later ones winning.
func merge(base map[string]string, overlays ...map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	for _, o := range overlays {
		maps.Copy(out, o)
	}
	return out
}
