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
// have placed pods so later pods (and best-effort extras) join them.
func (t *scopeTemplate) instantiate(domainOf func(groups []int, key string) string) *Scope {
	s := &Scope{Name: t.name, RequiredKey: t.requiredKey, PreferredKey: t.preferredKey, Groups: t.groups}
	if t.requiredKey != "" {
		s.FixedRequired = domainOf(t.members(), t.requiredKey)
	}
	for _, c := range t.children {
		s.Children = append(s.Children, c.instantiate(domainOf))
	}
	return s
}

// refs lists every referenced pod name, group by group.
func (s *gangSpec) refs() []string {
	out := make([]string, 0, len(s.refIndex))
	for _, g := range s.groups {
		out = append(out, g.refs...)
	}
	return out
}
