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

package hash

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// cliqueFromJSON decodes a clique template the way the API server stores it.
func cliqueFromJSON(t *testing.T, raw string) *grovecorev1alpha1.PodCliqueTemplateSpec {
	t.Helper()
	c := &grovecorev1alpha1.PodCliqueTemplateSpec{}
	if err := json.Unmarshal([]byte(raw), c); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return c
}

const baseClique = `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27"}]}}}`

func TestPodTemplateHash(t *testing.T) {
	base := cliqueFromJSON(t, baseClique)
	baseHash, err := PodTemplateHash(base, "")
	if err != nil {
		t.Fatal(err)
	}
	// The value is pinned: a hash that moves between builds would roll every
	// pod of every PodCliqueSet on upgrade.
	if baseHash != "dc5x2vzf2zz5f264" {
		t.Errorf("hash of the base template moved: got %q", baseHash)
	}

	tests := []struct {
		name     string
		clique   string
		priority string
		same     bool
	}{
		{name: "identical template", clique: baseClique, same: true},
		{name: "empty objects and arrays a newer API version might serialise",
			clique: `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27","resources":{},"env":[],"ports":null}],"securityContext":{},"volumes":[]}}}`,
			same:   true},
		{name: "empty string fields", clique: `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":2,"podSpec":{"schedulerName":"","containers":[{"name":"w","image":"nginx:1.27","workingDir":""}]}}}`, same: true},
		{name: "replicas are not part of the pod template", clique: `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":5,"minAvailable":1,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27"}]}}}`, same: true},
		{name: "image change", clique: `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.28"}]}}}`},
		{name: "added env var", clique: `{"name":"worker","labels":{"team":"a"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27","env":[{"name":"A","value":"1"}]}]}}}`},
		{name: "label change", clique: `{"name":"worker","labels":{"team":"b"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27"}]}}}`},
		{name: "annotation added", clique: `{"name":"worker","labels":{"team":"a"},"annotations":{"x":"y"},"spec":{"replicas":2,"podSpec":{"containers":[{"name":"w","image":"nginx:1.27"}]}}}`},
		{name: "priority class", clique: baseClique, priority: "high"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PodTemplateHash(cliqueFromJSON(t, tt.clique), tt.priority)
			if err != nil {
				t.Fatal(err)
			}
			if (got == baseHash) != tt.same {
				t.Errorf("hash %q vs base %q: want same=%v", got, baseHash, tt.same)
			}
		})
	}
}

// TestHashIgnoresGoZeroValues shows the hash follows the JSON, not the Go
// struct: a spec built in Go with explicit zero-valued structs hashes like the
// written JSON.
func TestHashIgnoresGoZeroValues(t *testing.T) {
	written := cliqueFromJSON(t, baseClique)
	built := written.DeepCopy()
	built.Spec.PodSpec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{}}
	built.Spec.PodSpec.SecurityContext = &corev1.PodSecurityContext{}
	built.Spec.PodSpec.Tolerations = []corev1.Toleration{}
	a, _ := PodTemplateHash(written, "")
	b, _ := PodTemplateHash(built, "")
	if a != b {
		t.Errorf("zero values changed the hash: %q vs %q", a, b)
	}
	built.Spec.PodSpec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")
	c, _ := PodTemplateHash(built, "")
	if c == a {
		t.Errorf("a resource request did not change the hash")
	}
}

func TestGenerationHash(t *testing.T) {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{*cliqueFromJSON(t, baseClique)}
	a, err := GenerationHash(pcs)
	if err != nil {
		t.Fatal(err)
	}
	// Pinned like the pod-template hash: currentGenerationHash of every
	// PodCliqueSet is compared against it after an upgrade.
	if a != "77d54869v48bd7v7" {
		t.Errorf("generation hash of the base template moved: got %q", a)
	}
	pcs.Spec.Template.Cliques[0].Spec.RollingUpdate = &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromString("50%"))}
	pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.OnDeleteStrategyType}
	if b, _ := GenerationHash(pcs); a != b {
		t.Errorf("the update budget or strategy changed the generation hash: they replace no pod")
	}
	pcs.Spec.Replicas = 3
	b, _ := GenerationHash(pcs)
	if a != b {
		t.Errorf("PodCliqueSet replicas changed the generation hash")
	}
	pcs.Spec.Template.PriorityClassName = "high"
	c, _ := GenerationHash(pcs)
	if c == a {
		t.Errorf("priorityClassName did not change the generation hash")
	}
}

func TestCliqueHashesAreEachTemplatesHash(t *testing.T) {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	second := cliqueFromJSON(t, baseClique)
	second.Name = "decode"
	second.Labels = map[string]string{"role": "decode"}
	pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{*cliqueFromJSON(t, baseClique), *second}
	pcs.Spec.Template.PriorityClassName = "high"
	got, err := CliqueHashes(pcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("hashes %v, want one per clique", got)
	}
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		want, err := PodTemplateHash(c, "high")
		if err != nil {
			t.Fatal(err)
		}
		if got[c.Name] != want {
			t.Errorf("clique %s: hash %q, want PodTemplateHash %q", c.Name, got[c.Name], want)
		}
	}
	if got[pcs.Spec.Template.Cliques[0].Name] == got["decode"] {
		t.Errorf("two different templates share hash %q", got["decode"])
	}
}
