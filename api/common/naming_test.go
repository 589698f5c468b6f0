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

package common

import (
	"strings"
	"testing"
)

// The names of the reference quickstart "simple1": replicas 1, cliques pca,
// pcb, pcc, pcd, scaling group sga = [pcb, pcc] with minAvailable 1.
func TestNamesOfSimple1(t *testing.T) {
	pcsg := PodCliqueScalingGroupName("simple1", 0, "sga")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"standalone clique pca", PodCliqueName("simple1", 0, "pca"), "simple1-0-pca"},
		{"standalone clique pcd", PodCliqueName("simple1", 0, "pcd"), "simple1-0-pcd"},
		{"scaling group", pcsg, "simple1-0-sga"},
		{"member pcb of group replica 0", ScalingGroupPodCliqueName(pcsg, 0, "pcb"), "simple1-0-sga-0-pcb"},
		{"member pcc of group replica 1", ScalingGroupPodCliqueName(pcsg, 1, "pcc"), "simple1-0-sga-1-pcc"},
		{"base podgang", BasePodGangName("simple1", 0), "simple1-0"},
		{"base podgang of replica 1", BasePodGangName("simple1", 1), "simple1-1"},
		{"scaled podgang of group replica 1", ScaledPodGangName(pcsg, 1, 1), "simple1-0-sga-0"},
		{"scaled podgang of group replica 3 with minAvailable 2", ScaledPodGangName(pcsg, 3, 2), "simple1-0-sga-1"},
		{"podgang of base group replica", PodGangNameForScalingGroupReplica("simple1", 0, pcsg, 0, 1), "simple1-0"},
		{"podgang of scaled group replica", PodGangNameForScalingGroupReplica("simple1", 0, pcsg, 1, 1), "simple1-0-sga-0"},
		{"headless service", HeadlessServiceName("simple1", 0), "simple1-0"},
		{"headless service address", HeadlessServiceAddress("simple1", 0, "default"), "simple1-0.default.svc.cluster.local"},
		{"group config in base podgang", TopologyConstraintGroupConfigName(pcsg, 0), "simple1-0-sga-0"},
		{"pod generateName", PodGenerateName("simple1-0-pca"), "simple1-0-pca-"},
		{"pod hostname", PodHostname("simple1-0-pca", 3), "simple1-0-pca-3"},
		{"initc service account", InitcServiceAccountName("simple1"), "simple1"},
		{"initc role", InitcRoleName("simple1"), "grove.io:pcs:simple1"},
		{"initc role binding", InitcRoleBindingName("simple1"), "grove.io:pcs:simple1"},
		{"initc token secret", InitcTokenSecretName("simple1"), "simple1-ic-sat"},
		{"hpa", HorizontalPodAutoscalerName("simple1-0-pca"), "simple1-0-pca"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestCheckNameLength(t *testing.T) {
	tests := []struct {
		name      string
		pcs       string
		clique    string
		group     string
		wantError string
	}{
		{"short standalone", "simple1", "pca", "", ""},
		{"standalone exactly 45", strings.Repeat("a", 20), strings.Repeat("b", 25), "", ""},
		{"standalone 46", strings.Repeat("a", 20), strings.Repeat("b", 26), "", "is 46, more than 45 characters"},
		{"member exactly 45", strings.Repeat("a", 15), strings.Repeat("b", 15), strings.Repeat("c", 15), ""},
		{"member 46 names the group", strings.Repeat("a", 15), strings.Repeat("b", 16), strings.Repeat("c", 15), `scaling group name "ccccccccccccccc"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNameLength(tc.pcs, tc.clique, tc.group)
			if tc.wantError == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantError) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantError)
			}
		})
	}
}

// Names at the limit of the budget still give pod names and hostnames that are
// valid DNS labels (at most 63 characters), with two-digit replica indices and
// the 5-character random suffix the API server appends to generateName.
func TestBudgetKeepsPodNamesWithinDNSLabel(t *testing.T) {
	pcs, sg, clique := strings.Repeat("a", 15), strings.Repeat("c", 15), strings.Repeat("b", 15)
	pclq := ScalingGroupPodCliqueName(PodCliqueScalingGroupName(pcs, 99, sg), 99, clique)
	podName := PodGenerateName(pclq) + "xxxxx"
	if len(podName) > 63 {
		t.Errorf("pod name %q has %d characters", podName, len(podName))
	}
	if h := PodHostname(pclq, 999); len(h) > 63 {
		t.Errorf("hostname %q has %d characters", h, len(h))
	}
	standalone := PodCliqueName(strings.Repeat("a", 20), 99, strings.Repeat("b", 25))
	if n := len(PodGenerateName(standalone) + "xxxxx"); n > 63 {
		t.Errorf("standalone pod name has %d characters", n)
	}
}

func TestSelectors(t *testing.T) {
	if got, want := PodCliqueSetSelector("demo"), "app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=demo"; got != want {
		t.Errorf("PodCliqueSetSelector: got %q, want %q", got, want)
	}
	if got, want := PodCliqueSelector("demo", "demo-0-fe"), "app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=demo,grove.io/podclique=demo-0-fe"; got != want {
		t.Errorf("PodCliqueSelector: got %q, want %q", got, want)
	}
	if got, want := PodCliqueScalingGroupSelector("demo", "demo-0-mn"), "app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=demo,grove.io/podcliquescalinggroup=demo-0-mn"; got != want {
		t.Errorf("PodCliqueScalingGroupSelector: got %q, want %q", got, want)
	}
}
