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
	"os"
	"testing"

	"sigs.k8s.io/yaml"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// BenchmarkOf hashes the vLLM disaggregated sample, as every PodClique
// reconcile does once.
func BenchmarkOf(b *testing.B) {
	raw, err := os.ReadFile("../../../samples/inference/vllm-disaggregated.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := yaml.Unmarshal(raw, pcs); err != nil {
		b.Fatal(err)
	}
	pcs.UID, pcs.Generation = "uid", 1
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Of(pcs); err != nil {
			b.Fatal(err)
		}
	}
}
