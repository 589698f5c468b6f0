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

package kubectlgrove

import (
	"fmt"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// statusTree is `kubectl grove status`: the PodCliqueSet, then per replica its
// base PodGang, standalone PodCliques and scaling groups, per scaling-group
// replica its own PodGang (when it is a scaled one) and PodCliques, and
// under every PodClique its pods; whatever is not running carries notes
// saying why.
func (s *snapshot) statusTree() *node {
	pcs := s.pcs
	root := &node{line: fmt.Sprintf("PodCliqueSet %s/%s: %d of %d replicas available", pcs.Namespace, pcs.Name, pcs.Status.AvailableReplicas, pcs.Spec.Replicas)}
	for _, t := range []string{grovecorev1alpha1.ConditionTypeReady, grovecorev1alpha1.ConditionTypeUpdateInProgress, grovecorev1alpha1.ConditionTypeTopologyLevelsUnavailable} {
		c := meta.FindStatusCondition(pcs.Status.Conditions, t)
		if c == nil || (t != grovecorev1alpha1.ConditionTypeReady && c.Status == metav1.ConditionFalse) {
			continue
		}
		root.notes = append(root.notes, conditionNote(c))
	}
	if !meta.IsStatusConditionTrue(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeReady) {
		root.notes = append(root.notes, s.eventNotes("PodCliqueSet", pcs.Name)...)
	}
	for _, i := range s.indices(pcs.Spec.Replicas, apicommon.LabelPodCliqueSetReplicaIndex, nil) {
		root.add(s.replicaNode(int32(i)))
	}
	return root
}

// indices are 0..want-1 plus any index the PodCliques (those match accepts)
// carry in label key: stray children show too.
func (s *snapshot) indices(want int32, key string, match func(*grovecorev1alpha1.PodClique) bool) []int {
	seen := map[int]bool{}
	for i := 0; i < int(want); i++ {
		seen[i] = true
	}
	for _, q := range s.pclqs {
		if match == nil || match(q) {
			if i := labelInt(q, key); i >= 0 {
				seen[i] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

func (s *snapshot) replicaNode(i int32) *node {
	pcs := s.pcs
	index := strconv.Itoa(int(i))
	n := &node{line: fmt.Sprintf("replica %d", i)}
	available := true
	if g, ok := s.gangs[apicommon.BasePodGangName(pcs.Name, i)]; ok {
		n.add(&node{line: gangLine(g), notes: s.gangNotes(g)})
	}
	for _, q := range s.cliquesOf(func(q *grovecorev1alpha1.PodClique) bool {
		return q.Labels[apicommon.LabelPodCliqueSetReplicaIndex] == index && q.Labels[apicommon.LabelPodCliqueScalingGroup] == ""
	}) {
		available = available && (q.Spec.Replicas == 0 || q.Status.ReadyReplicas >= minAvailable(q))
		n.add(s.cliqueNode(q))
	}
	for k := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		name := apicommon.PodCliqueScalingGroupName(pcs.Name, i, pcs.Spec.Template.PodCliqueScalingGroupConfigs[k].Name)
		g, ok := s.pcsgs[name]
		if !ok {
			available = false
			n.add(&node{line: fmt.Sprintf("PodCliqueScalingGroup %s: not created yet", name)})
			continue
		}
		available = available && (g.Spec.Replicas == 0 || g.Status.AvailableReplicas >= ptrOr(g.Spec.MinAvailable, 1))
		n.add(s.scalingGroupNode(g, apicommon.BasePodGangName(pcs.Name, i)))
	}
	if available {
		n.line += ": available"
	} else {
		n.line += ": not available"
	}
	return n
}

// ptrOr is *p, or def when p is nil.
func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func (s *snapshot) scalingGroupNode(g *grovecorev1alpha1.PodCliqueScalingGroup, baseGang string) *node {
	n := &node{line: scalingGroupLine(g), notes: s.scalingGroupNotes(g)}
	member := func(q *grovecorev1alpha1.PodClique) bool {
		return q.Labels[apicommon.LabelPodCliqueScalingGroup] == g.Name
	}
	for _, j := range s.indices(g.Spec.Replicas, apicommon.LabelPodCliqueScalingGroupReplicaIndex, member) {
		index := strconv.Itoa(j)
		r := &node{line: fmt.Sprintf("replica %d", j)}
		cliques := s.cliquesOf(func(q *grovecorev1alpha1.PodClique) bool {
			return member(q) && q.Labels[apicommon.LabelPodCliqueScalingGroupReplicaIndex] == index
		})
		if len(cliques) > 0 {
			if gang := cliques[0].Labels[apicommon.LabelPodGang]; gang != baseGang {
				if pg, ok := s.gangs[gang]; ok {
					r.add(&node{line: gangLine(pg), notes: s.gangNotes(pg)})
				}
			}
		}
		for _, q := range cliques {
			r.add(s.cliqueNode(q))
		}
		n.add(r)
	}
	return n
}

func (s *snapshot) cliqueNode(q *grovecorev1alpha1.PodClique) *node {
	n := &node{line: cliqueLine(q), notes: s.cliqueNotes(q)}
	for _, p := range s.podsOf[q.Name] {
		n.add(&node{line: fmt.Sprintf("pod %s: %s", p.Name, podState(p)), notes: s.podNotes(p, false)})
	}
	return n
}
