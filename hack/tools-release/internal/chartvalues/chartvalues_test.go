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

package chartvalues

import (
	"strings"
	"testing"
)

func TestSetKeepsCommentsAndSetsNestedKeys(t *testing.T) {
	in := `# Images.
image:
  operator:
    repository: grove-operator
    tag: ""  # the chart's appVersion
  initc:
    repository: grove-initc
other: {a: 1}
`
	keys := []string{"image.operator.tag", "image.operator.digest", "image.initc.digest", "image.scheduler.tag"}
	out, err := Set([]byte(in), map[string]string{
		"image.operator.tag": "v0.2.0", "image.operator.digest": "sha256:aa",
		"image.initc.digest": "sha256:bb", "image.scheduler.tag": "v0.2.0",
	}, keys)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Images.
image:
  operator:
    repository: grove-operator
    tag: v0.2.0 # the chart's appVersion
    digest: sha256:aa
  initc:
    repository: grove-initc
    digest: sha256:bb
  scheduler:
    tag: v0.2.0
other: {a: 1}
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestSetRefusesToDescendIntoAScalar(t *testing.T) {
	_, err := Set([]byte("image: grove\n"), map[string]string{"image.operator.tag": "v1"}, []string{"image.operator.tag"})
	if err == nil || !strings.Contains(err.Error(), "image.operator.tag: image is not a mapping") {
		t.Errorf("error %v, want one naming the key and the scalar in the way", err)
	}
}
