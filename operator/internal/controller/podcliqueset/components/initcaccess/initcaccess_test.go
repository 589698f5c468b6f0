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

package initcaccess

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// operatorClusterRules reads the operator's cluster-wide rules that make
// generate renders from the +kubebuilder:rbac markers into the chart.
func operatorClusterRules(t *testing.T) []rbacv1.PolicyRule {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "..", "charts", "grove", "files", "operator-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(raw), -1) {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind == "ClusterRole" {
			return role.Rules
		}
	}
	t.Fatal("charts/grove/files/operator-rbac.yaml has no ClusterRole")
	return nil
}

// grants reports whether rules grant verb on group/resource for every name.
func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if len(r.ResourceNames) == 0 && slices.Contains(r.APIGroups, group) &&
			slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestOperatorHoldsWhatTheInitcRoleGrants: the API server refuses to let the
// operator create the grove-initc Role (or bind it) unless the operator holds
// every permission in it in every namespace, since it has neither escalate
// nor bind.
func TestOperatorHoldsWhatTheInitcRoleGrants(t *testing.T) {
	held := operatorClusterRules(t)
	for _, r := range RoleRules() {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if !grants(held, g, res, v) {
						t.Errorf("the grove-initc Role grants %s %s (group %q), which the operator's markers do not: add a +kubebuilder:rbac marker and run make generate", v, res, g)
					}
				}
			}
		}
	}
	if grants(held, rbacv1.GroupName, "roles", "escalate") || grants(held, rbacv1.GroupName, "roles", "bind") {
		t.Error("the operator holds escalate or bind on roles; it needs neither")
	}
}
