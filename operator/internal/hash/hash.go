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

// Package hash computes the pod-template hash of a clique template and the
// generation hash of a PodCliqueSet. Only what the user wrote takes part: the
// template's JSON as stored, with empty values dropped, so upgrading Grove or
// Kubernetes (new struct fields, new defaults in Go types) never changes a
// hash and never rolls pods by itself.
package hash

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"

	"k8s.io/apimachinery/pkg/util/rand"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// hashedTemplate is what a pod-template hash covers.
type hashedTemplate struct {
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	PodSpec           any               `json:"podSpec,omitempty"`
	PriorityClassName string            `json:"priorityClassName,omitempty"`
}

// PodTemplateHash returns the hash of a clique template: its pod spec, labels
// and annotations plus the PodCliqueSet's priorityClassName.
func PodTemplateHash(clique *grovecorev1alpha1.PodCliqueTemplateSpec, priorityClassName string) (string, error) {
	podSpec, err := canonical(clique.Spec.PodSpec)
	if err != nil {
		return "", fmt.Errorf("canonicalising pod spec of clique %q: %w", clique.Name, err)
	}
	return sum(hashedTemplate{
		Labels: clique.Labels, Annotations: clique.Annotations,
		PodSpec: podSpec, PriorityClassName: priorityClassName,
	})
}

// CliqueHashes returns PodTemplateHash of every clique template of pcs, by
// clique name: what the rollouts compare PodCliques against, and what a sync
// that builds a PodClique per replica uses, hashing each template once
// instead of once per replica.
func CliqueHashes(pcs *grovecorev1alpha1.PodCliqueSet) (map[string]string, error) {
	out := make(map[string]string, len(pcs.Spec.Template.Cliques))
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		h, err := PodTemplateHash(c, pcs.Spec.Template.PriorityClassName)
		if err != nil {
			return nil, err
		}
		out[c.Name] = h
	}
	return out, nil
}

// GenerationHash returns the hash of all clique templates of a PodCliqueSet
// (in template order) and its priorityClassName. It changes exactly when some
// clique's pod-template hash changes.
func GenerationHash(pcs *grovecorev1alpha1.PodCliqueSet) (string, error) {
	cliques, err := CliqueHashes(pcs)
	if err != nil {
		return "", err
	}
	return generationHash(pcs, cliques)
}

// generationHash is GenerationHash from the cliques' hashes.
func generationHash(pcs *grovecorev1alpha1.PodCliqueSet, cliques map[string]string) (string, error) {
	hashes := make([]string, 0, len(pcs.Spec.Template.Cliques))
	for i := range pcs.Spec.Template.Cliques {
		name := pcs.Spec.Template.Cliques[i].Name
		hashes = append(hashes, name+"="+cliques[name])
	}
	return sum(hashes)
}

// canonical turns v into its JSON value with nulls, empty strings, empty
// objects and empty arrays removed: the JSON a user would have written.
func canonical(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return nil, err
	}
	pruned, _ := prune(generic)
	return pruned, nil
}

// prune drops empty values; the boolean says whether anything is left.
func prune(v any) (any, bool) {
	switch t := v.(type) {
	case nil:
		return nil, false
	case string:
		return t, t != ""
	case map[string]any:
		out := make(map[string]any, len(t))
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if pv, ok := prune(t[k]); ok {
				out[k] = pv
			}
		}
		return out, len(out) > 0
	case []any:
		if len(t) == 0 {
			return nil, false
		}
		out := make([]any, 0, len(t))
		for _, e := range t {
			// Elements keep their positions: an empty element still counts.
			pe, ok := prune(e)
			if !ok {
				pe = map[string]any{}
			}
			out = append(out, pe)
		}
		return out, true
	default:
		return t, true
	}
}

// sum hashes the JSON encoding of v (map keys sorted by encoding/json) with
// FNV-64a and encodes it with characters safe for label values.
func sum(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return rand.SafeEncodeString(fmt.Sprintf("%016x", h.Sum64())), nil
}
