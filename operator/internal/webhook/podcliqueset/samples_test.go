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

package podcliqueset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// TestSamplesPassTheWebhooks runs every PodCliqueSet under samples/ through
// the defaulting and validating webhooks (with the local cluster's topology
// binding), so a sample the docs point users at is never refused.
func TestSamplesPassTheWebhooks(t *testing.T) {
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "..", "..", "..", "samples"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	v := newValidator(t, true)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(data, &kind); err != nil || kind.Kind != "PodCliqueSet" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			if err := yaml.UnmarshalStrict(data, pcs); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if pcs.Namespace == "" {
				pcs.Namespace = "default"
			}
			Default(pcs)
			r, err := v.ValidateCreate(context.Background(), pcs)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range r.Errors {
				t.Errorf("%s: %v", f, e)
			}
		})
		checked++
	}
	if checked < 9 {
		t.Errorf("checked %d sample PodCliqueSets, want the 5 tutorial examples and the inference and migration samples", checked)
	}
}
