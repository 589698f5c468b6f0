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
	"testing"

	"k8s.io/apimachinery/pkg/types"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func pcsAt(t *testing.T, uid types.UID, generation int64, image string) *grovecorev1alpha1.PodCliqueSet {
	t.Helper()
	c := cliqueFromJSON(t, baseClique)
	c.Spec.PodSpec.Containers[0].Image = image
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	pcs.UID, pcs.Generation = uid, generation
	pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{*c}
	return pcs
}

func mustHash(t *testing.T, pcs *grovecorev1alpha1.PodCliqueSet) Hashes {
	t.Helper()
	h, err := Of(pcs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestOfIsGenerationAndCliqueHashes(t *testing.T) {
	pcs := pcsAt(t, "a", 1, "nginx:1.27")
	h := mustHash(t, pcs)
	gen, err := GenerationHash(pcs)
	if err != nil {
		t.Fatal(err)
	}
	cliques, err := CliqueHashes(pcs)
	if err != nil {
		t.Fatal(err)
	}
	if h.Generation != gen || len(h.Cliques) != 1 || h.Cliques["worker"] != cliques["worker"] {
		t.Errorf("hashes %+v, want generation %q and cliques %v", h, gen, cliques)
	}
}
