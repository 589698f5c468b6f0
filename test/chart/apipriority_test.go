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

package chart

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// TestFlowSchemas checks the API Priority and Fairness classification the
// chart installs: the release's operator and scheduler service accounts, the
// priority level of each schema and its precedence, and nothing when
// apiPriority is off.
func TestFlowSchemas(t *testing.T) {
	root := repoRoot(t)
	type schema struct {
		Level      string
		Precedence int32
		Subjects   []string
		Leases     bool
	}
	for _, tc := range []struct {
		name      string
		namespace string
		set       []string
		want      map[string]schema
	}{
		{name: "default values", namespace: "grove-system", want: map[string]schema{
			"grove-leader-election": {Level: "leader-election", Precedence: 1000, Subjects: []string{"grove-system/grove-operator", "grove-system/grove-scheduler"}, Leases: true},
			"grove-workload":        {Level: "workload-high", Precedence: 1001, Subjects: []string{"grove-system/grove-operator", "grove-system/grove-scheduler"}},
		}},
		{name: "own service account, other namespace, other precedence", namespace: "ai-infra",
			set: []string{"operator.serviceAccountName=grove-ctrl", "apiPriority.matchingPrecedence=500"}, want: map[string]schema{
				"grove-leader-election": {Level: "leader-election", Precedence: 500, Subjects: []string{"ai-infra/grove-ctrl", "ai-infra/grove-scheduler"}, Leases: true},
				"grove-workload":        {Level: "workload-high", Precedence: 501, Subjects: []string{"ai-infra/grove-ctrl", "ai-infra/grove-scheduler"}},
			}},
		{name: "off", namespace: "grove-system", set: []string{"apiPriority.enabled=false"}, want: map[string]schema{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]schema{}
			for _, o := range render(t, root, tc.namespace, tc.set...) {
				if o.Kind != "FlowSchema" {
					continue
				}
				fs := &flowcontrolv1.FlowSchema{}
				if err := o.Decode(fs); err != nil {
					t.Fatalf("decoding FlowSchema %s: %v", o.Metadata.Name, err)
				}
				if len(fs.Spec.Rules) != 1 {
					t.Fatalf("FlowSchema %s has %d rules, want 1", fs.Name, len(fs.Spec.Rules))
				}
				if fs.Spec.DistinguisherMethod == nil || fs.Spec.DistinguisherMethod.Type != flowcontrolv1.FlowDistinguisherMethodByUserType {
					t.Errorf("FlowSchema %s: distinguisher %v, want ByUser", fs.Name, fs.Spec.DistinguisherMethod)
				}
				rule := fs.Spec.Rules[0]
				s := schema{Level: fs.Spec.PriorityLevelConfiguration.Name, Precedence: fs.Spec.MatchingPrecedence}
				for _, sub := range rule.Subjects {
					if sub.Kind != flowcontrolv1.SubjectKindServiceAccount || sub.ServiceAccount == nil {
						t.Fatalf("FlowSchema %s: subject %+v is not a ServiceAccount", fs.Name, sub)
					}
					s.Subjects = append(s.Subjects, sub.ServiceAccount.Namespace+"/"+sub.ServiceAccount.Name)
				}
				s.Leases = len(rule.ResourceRules) == 1 && cmp.Equal(rule.ResourceRules[0].Resources, []string{"leases"}) &&
					cmp.Equal(rule.ResourceRules[0].APIGroups, []string{"coordination.k8s.io"})
				got[fs.Name] = s
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FlowSchemas (-want +got):\n%s", diff)
			}
		})
	}
}
