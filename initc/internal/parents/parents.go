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

// Package parents parses grove-initc's --podcliques arguments: the parent
// PodCliques a pod starts after, and how many Ready pods each must have.
package parents

import (
	"fmt"
	"strconv"
	"strings"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
)

// FlagName is the flag that names one parent: --podcliques=<podclique-name>:<minAvailable>.
const FlagName = "podcliques"

// Parent is a PodClique to wait for.
type Parent struct {
	// PodClique is the parent PodClique's name, matched exactly against the
	// grove.io/podclique label of pods.
	PodClique string
	// MinAvailable is the number of the parent's pods that must be Ready.
	MinAvailable int
}

// String renders p the way it is given on the command line.
func (p Parent) String() string {
	return fmt.Sprintf("%s:%d", p.PodClique, p.MinAvailable)
}

// Parse turns the values of all --podcliques flags into parents, keeping their
// order. Blank values are skipped, as an empty flag carries no parent. At least
// one parent is required: a grove-initc without parents would order nothing
// and points at a broken pod spec.
func Parse(values []string) ([]Parent, error) {
	var result []Parent
	seen := map[string]bool{}
	for _, raw := range values {
		value := strings.TrimSpace(raw)
		if value == "" {
			continue
		}
		p, err := parseOne(value)
		if err != nil {
			return nil, fmt.Errorf("invalid --%s=%s: %w", FlagName, raw, err)
		}
		if seen[p.PodClique] {
			return nil, fmt.Errorf("invalid --%s=%s: PodClique %q is listed more than once", FlagName, raw, p.PodClique)
		}
		seen[p.PodClique] = true
		result = append(result, p)
	}
	if len(result) == 0 {
		return nil, fmt.Errorf("no parent PodClique given: pass --%s=<podclique-name>:<minAvailable> at least once", FlagName)
	}
	return result, nil
}

func parseOne(value string) (Parent, error) {
	parts := strings.Split(value, ":")
	switch {
	case len(parts) == 1:
		return Parent{}, fmt.Errorf("missing \":<minAvailable>\" after the PodClique name")
	case len(parts) > 2:
		return Parent{}, fmt.Errorf("want <podclique-name>:<minAvailable> with exactly one \":\"")
	}
	name, count := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
	if name == "" {
		return Parent{}, fmt.Errorf("PodClique name is empty")
	}
	if errs := utilvalidation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return Parent{}, fmt.Errorf("PodClique name %q is not a valid object name: %s", name, strings.Join(errs, "; "))
	}
	n, err := strconv.Atoi(count)
	if err != nil {
		return Parent{}, fmt.Errorf("minAvailable %q is not a whole number", count)
	}
	if n <= 0 {
		return Parent{}, fmt.Errorf("minAvailable must be greater than 0, got %d", n)
	}
	return Parent{PodClique: name, MinAvailable: n}, nil
}
