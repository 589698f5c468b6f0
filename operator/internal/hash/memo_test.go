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

func mustCompute(t *testing.T, pcs *grovecorev1alpha1.PodCliqueSet) Hashes {
	t.Helper()
	h, err := compute(pcs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestComputeIsGenerationAndCliqueHashes(t *testing.T) {
	pcs := pcsAt(t, "a", 1, "nginx:1.27")
	h := mustCompute(t, pcs)
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

// The memo answers by UID and generation: the spec is not looked at again
// until the generation changes, which is why an image changed behind an
// unchanged generation (impossible on the API server) still shows the
// remembered hash here.
func TestMemoRemembersByUIDAndGeneration(t *testing.T) {
	v1, v2 := "nginx:1.27", "nginx:1.28"
	tests := []struct {
		name  string
		calls []*grovecorev1alpha1.PodCliqueSet
		// want is the image whose hashes the last call returns.
		want string
		// entries is how many sets the memo holds afterwards.
		entries int
	}{
		{name: "same generation answers from memory",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "a", 1, v1), pcsAt(t, "a", 1, v2)}, want: v1, entries: 1},
		{name: "a newer generation is hashed again",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "a", 1, v1), pcsAt(t, "a", 2, v2)}, want: v2, entries: 1},
		{name: "an older cached copy is hashed but does not replace the newer entry",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "a", 2, v2), pcsAt(t, "a", 1, v1), pcsAt(t, "a", 2, "ignored")}, want: v2, entries: 1},
		{name: "a set recreated under the same name has another UID",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "a", 1, v1), pcsAt(t, "b", 1, v2)}, want: v2, entries: 2},
		{name: "a set without UID is hashed every time and not remembered",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "", 1, v1), pcsAt(t, "", 1, v2)}, want: v2, entries: 0},
		{name: "past the capacity all entries are forgotten",
			calls: []*grovecorev1alpha1.PodCliqueSet{pcsAt(t, "a", 1, v1), pcsAt(t, "b", 1, v1), pcsAt(t, "c", 1, v1), pcsAt(t, "d", 1, v1), pcsAt(t, "a", 1, v2)}, want: v2, entries: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemo(3)
			var got Hashes
			for _, pcs := range tt.calls {
				var err error
				if got, err = m.of(pcs); err != nil {
					t.Fatal(err)
				}
			}
			want := mustCompute(t, pcsAt(t, "", 0, tt.want))
			if got.Generation != want.Generation || got.Cliques["worker"] != want.Cliques["worker"] {
				t.Errorf("got %+v, want the hashes of image %s %+v", got, tt.want, want)
			}
			if len(m.entries) != tt.entries {
				t.Errorf("memo holds %d sets, want %d", len(m.entries), tt.entries)
			}
		})
	}
}
