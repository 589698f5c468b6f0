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

// Package podcliqueset holds the admission logic for PodCliqueSets: the
// defaults the mutating webhook applies and the rules the validating webhook
// enforces on create and update, plus the admission handlers that serve them.
package podcliqueset

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

const (
	// DefaultNamespace is the namespace of a PodCliqueSet that names none.
	DefaultNamespace = "default"
	// DefaultTerminationGracePeriodSeconds is the grace period of clique pods that set none.
	DefaultTerminationGracePeriodSeconds int64 = 30
	// DefaultTerminationDelay is how long a clique may stay below minAvailable
	// before Grove recreates its gang, when the template sets no terminationDelay.
	DefaultTerminationDelay = 4 * time.Hour
)

// Default fills every unset field of a PodCliqueSet the webhook owns. It is
// idempotent: defaulting a defaulted object changes nothing, which matters
// because it runs on every UPDATE as well.
func Default(pcs *grovecorev1alpha1.PodCliqueSet) {
	if pcs.Namespace == "" {
		pcs.Namespace = DefaultNamespace
	}
	tmpl := &pcs.Spec.Template
	members := map[string]bool{}
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		defaultScalingGroup(&tmpl.PodCliqueScalingGroupConfigs[i])
		for _, n := range tmpl.PodCliqueScalingGroupConfigs[i].CliqueNames {
			members[n] = true
		}
	}
	for i := range tmpl.Cliques {
		defaultClique(&tmpl.Cliques[i])
		// Members are replaced as whole group replicas: the group's budget applies.
		if !members[tmpl.Cliques[i].Name] {
			tmpl.Cliques[i].Spec.RollingUpdate = defaultRollingUpdate(tmpl.Cliques[i].Spec.RollingUpdate)
		}
	}
	if tmpl.TerminationDelay == nil {
		tmpl.TerminationDelay = &metav1.Duration{Duration: DefaultTerminationDelay}
	}
	if tmpl.HeadlessServiceConfig == nil {
		tmpl.HeadlessServiceConfig = &grovecorev1alpha1.HeadlessServiceConfig{PublishNotReadyAddresses: true}
	}
}

func defaultClique(c *grovecorev1alpha1.PodCliqueTemplateSpec) {
	spec := &c.Spec
	// The first tutorial example names no roleName; the clique name is the
	// natural role and keeps roleNames unique because clique names are.
	if spec.RoleName == "" {
		spec.RoleName = c.Name
	}
	if spec.PodSpec.RestartPolicy == "" {
		spec.PodSpec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.PodSpec.TerminationGracePeriodSeconds == nil {
		spec.PodSpec.TerminationGracePeriodSeconds = ptr.To(DefaultTerminationGracePeriodSeconds)
	}
	// replicas 0 is fixed up before minAvailable is derived from it, so a
	// clique that writes no replicas gets minAvailable 1 rather than an
	// invalid 0.
	if spec.Replicas == 0 {
		spec.Replicas = 1
	}
	if spec.MinAvailable == nil {
		spec.MinAvailable = ptr.To(spec.Replicas)
	}
	if spec.AutoScalingConfig != nil && spec.AutoScalingConfig.MinReplicas == nil {
		spec.AutoScalingConfig.MinReplicas = ptr.To(spec.Replicas)
	}
}

func defaultScalingGroup(g *grovecorev1alpha1.PodCliqueScalingGroupConfig) {
	// The API server applies the CRD defaults (1) while decoding a request,
	// before any webhook runs; they are repeated here so Default is complete
	// for objects that never passed the API server (callers in tests, the
	// fuzz target) and scaleConfig.minReplicas can be derived from replicas.
	if g.Replicas == nil {
		g.Replicas = ptr.To[int32](1)
	}
	if g.MinAvailable == nil {
		g.MinAvailable = ptr.To[int32](1)
	}
	if g.ScaleConfig != nil && g.ScaleConfig.MinReplicas == nil {
		g.ScaleConfig.MinReplicas = ptr.To(*g.Replicas)
	}
	g.RollingUpdate = defaultRollingUpdate(g.RollingUpdate)
}
