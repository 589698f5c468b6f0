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
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

// Kinds `kubectl grove why` explains, by the names a user may type.
const (
	kindPod       = "Pod"
	kindPodClique = "PodClique"
	kindPodGang   = "PodGang"
)

var kindNames = map[string]string{
	"pod": kindPod, "pods": kindPod, "po": kindPod,
	"podclique": kindPodClique, "podcliques": kindPodClique, "pclq": kindPodClique, "podcliques.grove.io": kindPodClique,
	"podgang": kindPodGang, "podgangs": kindPodGang, "pg": kindPodGang, "podgangs.scheduler.grove.io": kindPodGang,
}

// kindOf resolves what a user typed for a kind.
func kindOf(typed string) (string, error) {
	if k, ok := kindNames[strings.ToLower(typed)]; ok {
		return k, nil
	}
	return "", fmt.Errorf("kubectl grove why explains a pod, podclique (pclq) or podgang (pg), not %q", typed)
}

// why explains one object: it reads the object for the PodCliqueSet it
// belongs to, takes a snapshot of that set and prints the object's line,
// notes and, for a PodClique or PodGang, the pods that are not running.
func why(ctx context.Context, c Clients, ns, kind, name string, now time.Time) (*node, error) {
	var partOf string
	switch kind {
	case kindPod:
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
		}
		partOf = p.Labels[apicommon.LabelPartOfKey]
	case kindPodClique:
		q, err := c.Grove.GroveV1alpha1().PodCliques(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading PodClique %s/%s: %w", ns, name, err)
		}
		partOf = q.Labels[apicommon.LabelPartOfKey]
	case kindPodGang:
		pg, err := c.Grove.SchedulerV1alpha1().PodGangs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading PodGang %s/%s: %w", ns, name, err)
		}
		partOf = pg.Labels[apicommon.LabelPartOfKey]
	}
	if partOf == "" {
		return nil, fmt.Errorf("%s %s/%s has no %s label: Grove did not create it", kind, ns, name, apicommon.LabelPartOfKey)
	}
	s, err := read(ctx, c, ns, partOf, now)
	if err != nil {
		return nil, err
	}
	switch kind {
	case kindPod:
		return s.whyPod(name), nil
	case kindPodClique:
		return s.whyPodClique(name), nil
	}
	return s.whyPodGang(name), nil
}

func (s *snapshot) whyPod(name string) *node {
	for _, pods := range s.podsOf {
		for _, p := range pods {
			if p.Name != name {
				continue
			}
			n := &node{line: fmt.Sprintf("Pod %s/%s: %s", p.Namespace, p.Name, podState(p)), notes: s.podNotes(p, true)}
			if len(n.notes) == 0 {
				n.notes = []string{"running and ready: nothing to explain"}
			}
			return n
		}
	}
	return &node{line: fmt.Sprintf("Pod %s/%s: gone", s.pcs.Namespace, name)}
}

func (s *snapshot) whyPodClique(name string) *node {
	q, ok := s.pclqs[name]
	if !ok {
		return &node{line: fmt.Sprintf("PodClique %s/%s: gone", s.pcs.Namespace, name)}
	}
	n := &node{line: cliqueLine(q), notes: s.cliqueNotes(q)}
	if pg, ok := s.gangs[q.Labels[apicommon.LabelPodGang]]; ok {
		n.add(&node{line: gangLine(pg), notes: s.gangNotes(pg)})
	}
	for _, p := range s.podsOf[q.Name] {
		if !podFine(p) {
			n.add(&node{line: fmt.Sprintf("pod %s: %s", p.Name, podState(p)), notes: s.podNotes(p, false)})
		}
	}
	if len(n.notes) == 0 && len(n.children) == 0 {
		n.notes = []string{"every pod is running and ready: nothing to explain"}
	}
	return n
}

func (s *snapshot) whyPodGang(name string) *node {
	pg, ok := s.gangs[name]
	if !ok {
		return &node{line: fmt.Sprintf("PodGang %s/%s: gone", s.pcs.Namespace, name)}
	}
	n := &node{line: gangLine(pg), notes: s.gangNotes(pg)}
	for _, g := range pg.Spec.PodGroups {
		q, ok := s.pclqs[g.Name]
		if !ok {
			continue
		}
		c := &node{line: cliqueLine(q), notes: s.cliqueNotes(q)}
		for _, p := range s.podsOf[q.Name] {
			if !podFine(p) {
				c.add(&node{line: fmt.Sprintf("pod %s: %s", p.Name, podState(p)), notes: s.podNotes(p, false)})
			}
		}
		if len(c.notes) > 0 || len(c.children) > 0 {
			n.add(c)
		}
	}
	if len(n.notes) == 0 && len(n.children) == 0 {
		n.notes = []string{"its minimum set is bound and ready: nothing to explain"}
	}
	return n
}
