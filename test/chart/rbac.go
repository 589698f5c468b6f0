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

// Package chart renders the Helm chart with the pinned helm and checks the
// RBAC it installs: no wildcards, no cluster-wide get, list or watch of Secrets,
// and grove-operator's rules exactly those its +kubebuilder:rbac markers
// produce.
package chart

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// Permission is one verb on one resource (and resource name, "" for any) of
// one API group: a rule expanded to its smallest grants.
type Permission struct {
	Group, Resource, Name, Verb string
}

func (p Permission) String() string {
	s := p.Verb + " " + p.Resource
	if p.Group != "" {
		s += "." + p.Group
	}
	if p.Name != "" {
		s += "/" + p.Name
	}
	return s
}

// Expand lists the permissions rules grant, sorted. Non-resource URLs are
// kept with the URL as Resource and an empty group.
func Expand(rules []rbacv1.PolicyRule) []Permission {
	set := map[Permission]bool{}
	for _, r := range rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, v := range r.Verbs {
			for _, u := range r.NonResourceURLs {
				set[Permission{Resource: u, Verb: v}] = true
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, n := range names {
						set[Permission{Group: g, Resource: res, Name: n, Verb: v}] = true
					}
				}
			}
		}
	}
	out := make([]Permission, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Wildcards returns the rules' wildcard entries, one message each.
func Wildcards(rules []rbacv1.PolicyRule) []string {
	var out []string
	for i, r := range rules {
		for field, values := range map[string][]string{
			"apiGroups": r.APIGroups, "resources": r.Resources, "verbs": r.Verbs,
			"resourceNames": r.ResourceNames, "nonResourceURLs": r.NonResourceURLs,
		} {
			for _, v := range values {
				if strings.Contains(v, "*") {
					out = append(out, fmt.Sprintf("rule %d: wildcard %q in %s", i, v, field))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// SecretReads returns the permissions of rules that get, list or watch
// Secrets: in a ClusterRole bound cluster-wide they read every Secret of the
// cluster (get by name).
func SecretReads(rules []rbacv1.PolicyRule) []Permission {
	var out []Permission
	for _, p := range Expand(rules) {
		if p.Group == "" && p.Resource == "secrets" && (p.Verb == "get" || p.Verb == "list" || p.Verb == "watch") {
			out = append(out, p)
		}
	}
	return out
}

// Diff returns the permissions in got but not in want (extra) and in want
// but not in got (missing).
func Diff(got, want []Permission) (extra, missing []Permission) {
	in := func(ps []Permission) map[Permission]bool {
		m := map[Permission]bool{}
		for _, p := range ps {
			m[p] = true
		}
		return m
	}
	g, w := in(got), in(want)
	for _, p := range got {
		if !w[p] {
			extra = append(extra, p)
		}
	}
	for _, p := range want {
		if !g[p] {
			missing = append(missing, p)
		}
	}
	return extra, missing
}

// Object is one rendered manifest, decoded only as far as the checks need.
type Object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Rules    []rbacv1.PolicyRule `json:"rules"`
	RoleRef  rbacv1.RoleRef      `json:"roleRef"`
	Subjects []rbacv1.Subject    `json:"subjects"`
	// Raw is the whole document, to decode into the kind's type.
	Raw []byte `json:"-"`
}

// Decode decodes the whole document into into.
func (o Object) Decode(into any) error {
	return yaml.Unmarshal(o.Raw, into)
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// Parse decodes a multi-document YAML stream, skipping empty documents.
func Parse(stream []byte) ([]Object, error) {
	var out []Object
	for i, doc := range docSeparator.Split(string(stream), -1) {
		if len(bytes.TrimSpace([]byte(doc))) == 0 {
			continue
		}
		var o Object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if o.Kind == "" {
			continue
		}
		o.Raw = []byte(doc)
		out = append(out, o)
	}
	return out, nil
}

// Find returns the object of kind and name (and namespace for namespaced
// kinds, "" for cluster-scoped ones).
func Find(objs []Object, kind, namespace, name string) (Object, bool) {
	for _, o := range objs {
		if o.Kind == kind && o.Metadata.Name == name && o.Metadata.Namespace == namespace {
			return o, true
		}
	}
	return Object{}, false
}

// BoundRoles returns "Kind/namespace/name" of every Role and ClusterRole the
// rendered bindings grant to the ServiceAccount namespace/name.
func BoundRoles(objs []Object, namespace, name string) []string {
	var out []string
	for _, o := range objs {
		if o.Kind != "RoleBinding" && o.Kind != "ClusterRoleBinding" {
			continue
		}
		for _, s := range o.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Name == name && s.Namespace == namespace {
				ns := ""
				if o.RoleRef.Kind == "Role" {
					ns = o.Metadata.Namespace
				}
				out = append(out, o.RoleRef.Kind+"/"+ns+"/"+o.RoleRef.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}
