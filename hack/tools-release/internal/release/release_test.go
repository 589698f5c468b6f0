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

package release

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"gopkg.in/yaml.v3"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
	"github.com/grove-project/grove/hack/tools-release/internal/images"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
)

const repoRoot = "../../../.."

// helmBinary is the pinned helm (make test-release passes it as HELM).
func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	matches, _ := filepath.Glob(filepath.Join(repoRoot, "bin", "helm-*", "helm"))
	if len(matches) == 0 {
		t.Fatal("no helm: run hack/helm.sh (make test-release sets HELM)")
	}
	return matches[0]
}

// fakeImages are the three components as small images around a stand-in
// binary (this package's test binary has module build information, which
// the SBOM reads): the release logic under test does not care what the binary does.
func fakeImages(t *testing.T, meta oci.Meta) []images.Result {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out []images.Result
	for _, c := range components.All {
		imgs := map[string]v1.Image{}
		for _, arch := range images.Archs {
			if imgs[arch], err = oci.Image(meta, c, arch, exe); err != nil {
				t.Fatal(err)
			}
		}
		idx, err := oci.Index(meta, c, images.Archs, imgs)
		if err != nil {
			t.Fatal(err)
		}
		r := images.Result{Component: c, Archive: filepath.Join(dir, c.Name+".tar"), Binaries: map[string]string{"amd64": exe, "arm64": exe}}
		if r.Digest, err = idx.Digest(); err != nil {
			t.Fatal(err)
		}
		if err := oci.WriteArchive(r.Archive, idx, meta.Version, meta.Created); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestDryRunWritesEveryArtifact(t *testing.T) {
	meta := oci.Meta{Version: "v0.2.0", Revision: "0123456789abcdef0123456789abcdef01234567", Created: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	imgs := fakeImages(t, meta)
	out := t.TempDir()
	a, err := DryRun(context.Background(), Options{
		Chart: filepath.Join(repoRoot, "charts", "grove"), Images: imgs, Meta: meta,
		Registry: "ghcr.io/grove-project", Helm: helmBinary(t), OutDir: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Artifacts{
		Chart: "grove-0.2.0.tgz", InstallYAML: "install.yaml", SBOM: "grove-v0.2.0.spdx.json", Checksums: "SHA256SUMS",
		Archives: []string{"grove-operator.tar", "grove-scheduler.tar", "grove-initc.tar"},
	}
	if strings.Join(a.Archives, ",") != strings.Join(want.Archives, ",") || a.Chart != want.Chart ||
		a.InstallYAML != want.InstallYAML || a.SBOM != want.SBOM || a.Checksums != want.Checksums {
		t.Errorf("artifacts %+v, want %+v", a, want)
	}

	t.Run("SHA256SUMS verifies every other artifact", func(t *testing.T) {
		cmd := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
		cmd.Dir = out
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sha256sum --check: %v\n%s", err, got)
		}
		for _, f := range append(want.Archives, want.Chart, want.InstallYAML, want.SBOM) {
			if !strings.Contains(string(got), f+": OK") {
				t.Errorf("SHA256SUMS does not cover %s:\n%s", f, got)
			}
		}
	})

	t.Run("the packaged chart carries the version and each image's digest", func(t *testing.T) {
		files := chartFiles(t, filepath.Join(out, a.Chart))
		var chart struct {
			Version    string `yaml:"version"`
			AppVersion string `yaml:"appVersion"`
		}
		if err := yaml.Unmarshal(files["grove/Chart.yaml"], &chart); err != nil {
			t.Fatal(err)
		}
		if chart.Version != "0.2.0" || chart.AppVersion != "v0.2.0" {
			t.Errorf("Chart.yaml version %q appVersion %q, want 0.2.0 and v0.2.0", chart.Version, chart.AppVersion)
		}
		var values struct {
			Image map[string]struct{ Repository, Tag, Digest string }
		}
		if err := yaml.Unmarshal(files["grove/values.yaml"], &values); err != nil {
			t.Fatal(err)
		}
		for _, r := range imgs {
			key := strings.TrimPrefix(r.Component.Name, "grove-")
			got := values.Image[key]
			if got.Repository != "ghcr.io/grove-project/"+r.Component.Name || got.Tag != "v0.2.0" || got.Digest != r.Digest.String() {
				t.Errorf("values image.%s = %+v, want ghcr.io/grove-project/%s, tag v0.2.0, digest %s", key, got, r.Component.Name, r.Digest)
			}
		}
		orig, err := os.ReadFile(filepath.Join(repoRoot, "charts", "grove", "values.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(orig), imgs[0].Digest.String()) {
			t.Error("charts/grove/values.yaml was changed: only the packaged copy may carry digests")
		}
	})

	t.Run("install.yaml creates the namespace, the CRDs and the operator", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(out, a.InstallYAML))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for _, w := range []string{"kind: Namespace\nmetadata:\n  name: grove-system", "name: podcliquesets.grove.io", "kind: Deployment", "name: grove-operator"} {
			if !strings.Contains(s, w) {
				t.Errorf("install.yaml has no %q", w)
			}
		}
		if i, j := strings.Index(s, "kind: Namespace"), strings.Index(s, "kind: CustomResourceDefinition"); i < 0 || j < i {
			t.Error("install.yaml does not start with the Namespace")
		}
	})

	t.Run("the SBOM describes the three binaries", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(out, a.SBOM))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Relationships []struct{ SPDXElementID, RelationshipType, RelatedSPDXElement string } `json:"relationships"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var described []string
		for _, r := range doc.Relationships {
			if r.RelationshipType == "DESCRIBES" {
				described = append(described, r.RelatedSPDXElement)
			}
		}
		if got := strings.Join(described, ","); got != "SPDXRef-Binary-grove-operator-v0.2.0,SPDXRef-Binary-grove-scheduler-v0.2.0,SPDXRef-Binary-grove-initc-v0.2.0" {
			t.Errorf("the SBOM describes %s", got)
		}
	})
}

func TestDryRunRefusesAVersionThatIsNotARelease(t *testing.T) {
	for _, v := range []string{"0.2.0", "v0.2", "abc1234-dirty", "v0.2.0+build"} {
		_, err := DryRun(context.Background(), Options{Meta: oci.Meta{Version: v}, OutDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "is not a release version vMAJOR.MINOR.PATCH") {
			t.Errorf("version %q: error %v, want one naming the expected form", v, err)
		}
	}
}

func chartFiles(t *testing.T, p string) map[string][]byte {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
	}
}
