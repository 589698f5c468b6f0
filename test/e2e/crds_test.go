//go:build e2e

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

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The chart renders Grove's CRDs as templates, so helm upgrade keeps them
// current (make e2e-upgrade installs an older chart first, whose CRDs helm
// takes over on the upgrade). This spec fails when the served CRDs are not
// the checkout's or helm does not own them.
var _ = Describe("Grove CRDs", func() {
	It("are the checkout's chart's, owned by the helm release and kept on uninstall", func() {
		files, err := filepath.Glob(filepath.Join(repoRoot, "charts", "grove", "files", "crds", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(5))
		for _, f := range files {
			b, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			want := map[string]any{}
			Expect(yaml.Unmarshal(b, &want)).To(Succeed())
			name := want["metadata"].(map[string]any)["name"].(string)

			served := &unstructured.Unstructured{}
			served.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, served)).To(Succeed())
			Expect(served.GetAnnotations()).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"), name)
			Expect(served.GetAnnotations()).To(HaveKeyWithValue("meta.helm.sh/release-name", "grove"), name)
			Expect(served.GetLabels()).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "Helm"), name)

			wantSpec := want["spec"].(map[string]any)
			gotSpec := served.Object["spec"].(map[string]any)
			for _, field := range []string{"group", "names", "scope", "versions"} {
				Expect(jsonRoundTrip(gotSpec[field])).To(Equal(jsonRoundTrip(wantSpec[field])), "%s spec.%s differs from %s: the upgrade did not apply the chart's CRD", name, field, f)
			}
		}
	})
})

// jsonRoundTrip round-trips v through JSON so numbers and maps compare alike.
func jsonRoundTrip(v any) any {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	var out any
	Expect(json.Unmarshal(b, &out)).To(Succeed())
	return out
}
