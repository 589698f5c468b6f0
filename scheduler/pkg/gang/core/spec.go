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

package core

import (
	"fmt"
	"time"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// gangSpec is a PodGang digested for the hot path: reference lookups are map
// reads and the pack scopes are precomputed, so no scheduling cycle ever walks
// the PodGang object or lists pods.
type gangSpec struct {
	key               string
	namespace         string
	name              string
	created           time.Time
	priorityClassName string
	// family groups the PodGangs of one PodCliqueSet ("namespace/part-of");
	// empty when the PodGang carries no part-of label.
	family string
	// base is the key of the base PodGang of a scaled gang's PodCliqueSet
	// replica; empty for any other gang.
	base   string
	groups []groupSpec
	// refIndex maps a referenced pod name to its group index.
	refIndex map[string]int
	// root holds the pack scopes in tree form without fixed domains.
	root *scopeTemplate
	// topologyKeys are the node label keys the scopes pack by.
	topologyKeys []string
}

type groupSpec struct {
	name string
	min  int64
	refs []string
}

// scopeTemplate is the static part of a Scope; fixed domains are filled per cycle.
type scopeTemplate struct {
	name         string
	requiredKey  string
	preferredKey string
	groups       []int
	children     []*scopeTemplate
	// replica marks the scope of a scaled gang's PodCliqueSet-level
	// constraint: its domains come from the base gang's placed pods.
	replica bool
}

func packKeys(tc *groveschedulerv1alpha1.TopologyConstraint) (required, preferred string) {
	if tc == nil || tc.PackConstraint == nil {
		return "", ""
	}
	if tc.PackConstraint.Required != nil {
		required = *tc.PackConstraint.Required
	}
	if tc.PackConstraint.Preferred != nil {
		preferred = *tc.PackConstraint.Preferred
	}
	return required, preferred
}

// newGangSpec digests a PodGang.
func newGangSpec(pg *groveschedulerv1alpha1.PodGang) *gangSpec {
	s := &gangSpec{
		key:               pg.Namespace + "/" + pg.Name,
		namespace:         pg.Namespace,
		name:              pg.Name,
		created:           pg.CreationTimestamp.Time,
		priorityClassName: pg.Spec.PriorityClassName,
		refIndex:          map[string]int{},
	}
	if pcs := pg.Labels[apicommon.LabelPartOfKey]; pcs != "" {
		s.family = pg.Namespace + "/" + pcs
	}
	groupIndex := map[string]int{}
	for i, g := range pg.Spec.PodGroups {
		gs := groupSpec{name: g.Name, min: int64(g.MinReplicas)}
		for _, ref := range g.PodReferences {
			// Pods live in the PodGang's namespace; a foreign reference is ignored
			// rather than letting one gang claim another namespace's pods.
			if ref.Namespace != "" && ref.Namespace != pg.Namespace {
				continue
			}
			if _, dup := s.refIndex[ref.Name]; dup {
				continue
			}
			s.refIndex[ref.Name] = i
			gs.refs = append(gs.refs, ref.Name)
		}
		s.groups = append(s.groups, gs)
		groupIndex[g.Name] = i
	}

	req, pref := packKeys(pg.Spec.TopologyConstraint)
	root := &scopeTemplate{name: "podgang " + pg.Name, requiredKey: req, preferredKey: pref}
	inConfig := map[int]bool{}
	for _, cfg := range pg.Spec.TopologyConstraintGroupConfigs {
		creq, cpref := packKeys(cfg.TopologyConstraint)
		child := &scopeTemplate{name: "group config " + cfg.Name, requiredKey: creq, preferredKey: cpref}
		for _, gname := range cfg.PodGroupNames {
			gi, ok := groupIndex[gname]
			if !ok || inConfig[gi] {
				continue
			}
			inConfig[gi] = true
			child.attachGroup(gi, pg.Spec.PodGroups[gi])
		}
		root.children = append(root.children, child)
	}
	for gi, g := range pg.Spec.PodGroups {
		if !inConfig[gi] {
			root.attachGroup(gi, g)
		}
	}
	if b := pg.Spec.BasePodGang; b != nil && b.Name != "" {
		s.base = pg.Namespace + "/" + b.Name
		// The PodCliqueSet-level constraint encloses the gang's own scopes: the
		// gang's own key may be a finer level inside the replica's domain.
		if breq, bpref := packKeys(b.TopologyConstraint); breq != "" || bpref != "" {
			root = &scopeTemplate{
				name: "PodCliqueSet replica of base PodGang " + s.base, requiredKey: breq, preferredKey: bpref,
				children: []*scopeTemplate{root}, replica: true,
			}
		}
	}
	s.root = root
	s.topologyKeys = root.topologyKeys()
	return s
}

// attachGroup adds a group directly, or in its own scope when it has a pack constraint.
func (t *scopeTemplate) attachGroup(gi int, g groveschedulerv1alpha1.PodGroup) {
	req, pref := packKeys(g.TopologyConstraint)
	if req == "" && pref == "" {
		t.groups = append(t.groups, gi)
		return
	}
	t.children = append(t.children, &scopeTemplate{name: "group " + g.Name, requiredKey: req, preferredKey: pref, groups: []int{gi}})
}

// topologyKeys lists the node label keys any scope packs by, without duplicates.
func (t *scopeTemplate) topologyKeys() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*scopeTemplate)
	walk = func(s *scopeTemplate) {
		for _, k := range []string{s.requiredKey, s.preferredKey} {
			if k != "" && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
		for _, c := range s.children {
			walk(c)
		}
	}
	walk(t)
	return out
}

// members lists every group index under the scope.
func (t *scopeTemplate) members() []int {
	out := append([]int(nil), t.groups...)
	for _, c := range t.children {
		out = append(out, c.members()...)
	}
	return out
}

// instantiate builds a Scope, fixing required domains of scopes that already
// have placed pods so later pods (and best-effort extras) join them. The
// replica scope of a scaled gang takes its domains from the base gang (anchor)
// until the gang's own pods hold one: the required domain is fixed to the
// base's, or the scope is unavailable while the base holds none; the
// preferred domain is tried first.
func (t *scopeTemplate) instantiate(domainOf func(groups []int, key string) string, anchor baseAnchor) *Scope {
	s := &Scope{Name: t.name, RequiredKey: t.requiredKey, PreferredKey: t.preferredKey, Groups: t.groups}
	if t.requiredKey != "" {
		s.FixedRequired = domainOf(t.members(), t.requiredKey)
	}
	if t.replica {
		if t.requiredKey != "" && s.FixedRequired == "" {
			if d := anchor.domainOf(t.requiredKey); d != "" {
				s.FixedRequired, s.FixedBy = d, "base PodGang "+anchor.key
			} else {
				s.Unavailable = fmt.Sprintf("waits for base PodGang %s to hold pods in a %q domain: its PodCliqueSet replica's pods must share one", anchor.key, t.requiredKey)
			}
		}
		if t.preferredKey != "" {
			if s.PreferredFirst = domainOf(t.members(), t.preferredKey); s.PreferredFirst == "" {
				s.PreferredFirst = anchor.domainOf(t.preferredKey)
			}
		}
	}
	for _, c := range t.children {
		s.Children = append(s.Children, c.instantiate(domainOf, anchor))
	}
	return s
}

// baseAnchor is what a scaled gang's replica scope knows of its base gang:
// the nodes the base gang's pods hold.
type baseAnchor struct {
	key   string
	nodes []*SimNode
}

// domainOf returns the value of key that most of the base gang's placed pods
// hold (the smallest value on a tie); empty when none of them holds it.
func (a baseAnchor) domainOf(key string) string {
	count := map[string]int{}
	for _, n := range a.nodes {
		if v, ok := n.Labels[key]; ok {
			count[v]++
		}
	}
	best := ""
	for v, c := range count {
		if best == "" || c > count[best] || (c == count[best] && v < best) {
			best = v
		}
	}
	return best
}

// refs lists every referenced pod name, group by group.
func (s *gangSpec) refs() []string {
	out := make([]string, 0, len(s.refIndex))
	for _, g := range s.groups {
		out = append(out, g.refs...)
	}
	return out
}
