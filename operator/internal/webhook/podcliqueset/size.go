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
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// MaxPods bounds the pods one PodCliqueSet may ask for, autoscaling maxima
// included: 150,000 is the most pods Kubernetes is tested with in a whole
// cluster (its scalability thresholds). Without a bound a typo such as
// replicas: 2147483647 makes the operator try to create billions of
// PodCliques, Services and pods, flooding the API server and etcd.
const MaxPods = 150_000

// maxPodsMessage is the rejection of a count or product beyond MaxPods.
const maxPodsMessage = "must be at most %d pods in one PodCliqueSet, the most pods Kubernetes is tested with in a whole cluster"

// size rejects replica counts whose pods exceed MaxPods: first any single
// count beyond it, naming that field, then a replica of the template beyond
// it (naming spec.template), then all replicas together (naming
// spec.replicas). Products are computed in int64, so no count overflows.
func (s *staticCheck) size() {
	tmpl := &s.pcs.Spec.Template
	tooMany := func(p *field.Path, v int64) bool {
		if v > MaxPods {
			s.add(field.Invalid(p, v, fmt.Sprintf(maxPodsMessage, MaxPods)))
			return true
		}
		return false
	}
	over := tooMany(specPath.Child("replicas"), int64(s.pcs.Spec.Replicas))
	// The most pods a clique or group can run: its replicas or, when
	// autoscaled, its autoscaler's maximum.
	cliquePods := map[string]int64{}
	for i := range tmpl.Cliques {
		c := &tmpl.Cliques[i]
		p := cliquesPath.Index(i).Child("spec")
		n := int64(c.Spec.Replicas)
		over = tooMany(p.Child("replicas"), n) || over
		if as := c.Spec.AutoScalingConfig; as != nil {
			over = tooMany(p.Child("autoScalingConfig", "maxReplicas"), int64(as.MaxReplicas)) || over
			n = max(n, int64(as.MaxReplicas))
		}
		cliquePods[c.Name] = max(n, 0)
	}
	grouped := map[string]bool{}
	var perReplica int64
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		g := &tmpl.PodCliqueScalingGroupConfigs[i]
		p := scalingGroupsPath.Index(i)
		n := int64(ptr.Deref(g.Replicas, 1))
		over = tooMany(p.Child("replicas"), n) || over
		if sc := g.ScaleConfig; sc != nil {
			over = tooMany(p.Child("scaleConfig", "maxReplicas"), int64(sc.MaxReplicas)) || over
			n = max(n, int64(sc.MaxReplicas))
		}
		var members int64
		for _, name := range g.CliqueNames {
			if !grouped[name] {
				members += cliquePods[name]
			}
			grouped[name] = true
		}
		perReplica += max(n, 0) * members
	}
	if over {
		return
	}
	for name, n := range cliquePods {
		if !grouped[name] {
			perReplica += n
		}
	}
	if perReplica > MaxPods {
		s.add(field.Invalid(templatePath, fmt.Sprintf("%d pods per replica", perReplica), fmt.Sprintf(maxPodsMessage, MaxPods)))
		return
	}
	if total := perReplica * int64(s.pcs.Spec.Replicas); total > MaxPods {
		s.add(field.Invalid(specPath.Child("replicas"), s.pcs.Spec.Replicas,
			fmt.Sprintf("%d replicas of %d pods each (autoscaling maxima included) are %d pods; ", s.pcs.Spec.Replicas, perReplica, total)+fmt.Sprintf(maxPodsMessage, MaxPods)))
	}
}
