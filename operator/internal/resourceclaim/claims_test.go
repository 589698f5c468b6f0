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

package resourceclaim

import (
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// rsTest is upstream's resource-sharing scenario, the manifest the e2e spec applies.
func rsTest(t *testing.T) *grovecorev1alpha1.PodCliqueSet {
	t.Helper()
	raw, err := os.ReadFile("../../../test/testdata/e2e/resource-sharing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
		t.Fatal(err)
	}
	return pcs
}

func TestPodClaimNames(t *testing.T) {
	pcs := rsTest(t)
	for _, tc := range []struct {
		name string
		pod  Pod
		want []string
	}{
		{"standalone worker-a pod 1: PCS entries without filter or naming worker-a, its own two",
			Pod{PCSReplica: 0, Clique: "worker-a", PodClique: "rs-test-0-worker-a", Index: 1},
			[]string{"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-1-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"}},
		{"worker-b in sga replica 1: PCS entries for sga, every sga entry, its own",
			Pod{PCSReplica: 0, Clique: "worker-b", PCSG: "rs-test-0-sga", PCSGReplica: 1, PodClique: "rs-test-0-sga-1-worker-b", Index: 0},
			[]string{"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-1-worker-b-all-int-tpl6"}},
		{"worker-c in sga replica 0: int-tpl8's filter leaves it out",
			Pod{PCSReplica: 0, Clique: "worker-c", PCSG: "rs-test-0-sga", PCSGReplica: 0, PodClique: "rs-test-0-sga-0-worker-c", Index: 0},
			[]string{"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3"}},
		{"PCS replica 2 gets its own PerReplica claims",
			Pod{PCSReplica: 2, Clique: "worker-a", PodClique: "rs-test-2-worker-a", Index: 0},
			[]string{"rs-test-all-int-tpl5", "rs-test-2-ext-tpl", "rs-test-2-int-tpl", "rs-test-2-worker-a-0-int-tpl4", "rs-test-2-worker-a-all-ext-ns-tpl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodClaimNames(pcs, tc.pod); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestWanted(t *testing.T) {
	pcs := rsTest(t)
	names := func(cs []Claim) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	sga := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[0]
	for _, tc := range []struct {
		name string
		got  []Claim
		want []string
	}{
		{"PodCliqueSet with 2 replicas", Wanted(pcs.Name, PodCliqueSetEntries(pcs), 2),
			[]string{"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-1-ext-tpl", "rs-test-0-int-tpl", "rs-test-1-int-tpl", "rs-test-all-int-tpl7"}},
		{"scaling group with 2 replicas", Wanted("rs-test-0-sga", ScalingGroupEntries(sga), 2),
			[]string{"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-1-int-tpl3", "rs-test-0-sga-all-int-tpl8"}},
		{"scaling group scaled in to 1", Wanted("rs-test-0-sga", ScalingGroupEntries(sga), 1),
			[]string{"rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3", "rs-test-0-sga-all-int-tpl8"}},
		{"clique with 2 pods", Wanted("rs-test-0-worker-a", pcs.Spec.Template.Cliques[0].ResourceSharing, 2),
			[]string{"rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-1-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(tc.got); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestInject(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "setup"}},
		Containers:     []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "user"}}}}, {Name: "sidecar"}},
		ResourceClaims: []corev1.PodResourceClaim{{Name: "user"}},
	}}
	Inject(pod, []string{"a", "b"})
	Inject(pod, []string{"a"}) // idempotent
	var podClaims []string
	for _, c := range pod.Spec.ResourceClaims {
		if c.Name != "user" && (c.ResourceClaimName == nil || *c.ResourceClaimName != c.Name) {
			t.Errorf("pod claim %s references %v, want the claim of its own name", c.Name, c.ResourceClaimName)
		}
		podClaims = append(podClaims, c.Name)
	}
	if want := []string{"user", "a", "b"}; !slices.Equal(podClaims, want) {
		t.Fatalf("spec.resourceClaims = %q, want %q", podClaims, want)
	}
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		var got []string
		for _, rc := range c.Resources.Claims {
			got = append(got, rc.Name)
		}
		want := []string{"a", "b"}
		if c.Name == "main" {
			want = []string{"user", "a", "b"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("container %s resources.claims = %q, want %q", c.Name, got, want)
		}
	}
}
