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

package images

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
)

var testMeta = oci.Meta{
	Version:  "v0.9.9-test",
	Revision: "0123456789abcdef0123456789abcdef01234567",
	Created:  time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

// TestImages builds the three images twice into two directories and checks
// the builds are equal to the byte, then reads each image's config and files.
func TestImages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six binaries and six images")
	}
	ctx := context.Background()
	root := repoRoot(t)
	first, err := Build(ctx, Options{RepoRoot: root, Meta: testMeta, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Build(ctx, Options{RepoRoot: root, Meta: testMeta, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the same inputs give the same index digests and archives", func(t *testing.T) {
		if len(first) != len(components.All) || len(second) != len(components.All) {
			t.Fatalf("built %d and %d images, want %d each", len(first), len(second), len(components.All))
		}
		for i := range first {
			a, b := first[i], second[i]
			t.Logf("%s: index %s", a.Component.Name, a.Digest)
			if a.Digest != b.Digest {
				t.Errorf("%s: index digests differ: %s and %s", a.Component.Name, a.Digest, b.Digest)
			}
			if sa, sb := fileSHA256(t, a.Archive), fileSHA256(t, b.Archive); sa != sb {
				t.Errorf("%s: archives differ: sha256 %s and %s", a.Component.Name, sa, sb)
			}
		}
	})

	for _, r := range first {
		t.Run(r.Component.Name, func(t *testing.T) {
			checkArchive(t, r)
		})
	}
}

func checkArchive(t *testing.T, r Result) {
	a, err := oci.OpenArchive(r.Archive)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Tag != testMeta.Version {
		t.Errorf("index.json names the index %q, want the version %q", a.Tag, testMeta.Version)
	}
	if d, _ := a.Index.Digest(); d != r.Digest {
		t.Errorf("archive holds index %s, Build reported %s", d, r.Digest)
	}
	im, err := a.Index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(im.Annotations, testMeta.Labels(r.Component)) {
		t.Errorf("index annotations %v, want %v", im.Annotations, testMeta.Labels(r.Component))
	}
	var platforms []string
	for _, desc := range im.Manifests {
		platforms = append(platforms, desc.Platform.String())
		img, err := a.Index.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, r, desc.Platform.Architecture, img)
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
		t.Errorf("index platforms %v, want %v", platforms, want)
	}
}

func checkImage(t *testing.T, r Result, arch string, img v1.Image) {
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	printed, _ := json.MarshalIndent(cf.Config, "", "  ")
	t.Logf("%s linux/%s config (created %s):\n%s", r.Component.Name, arch, cf.Created.UTC().Format(time.RFC3339), printed)
	want := v1.Config{
		User:       "65532:65532",
		WorkingDir: "/home/nonroot",
		Entrypoint: []string{"/usr/local/bin/" + r.Component.Name},
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{
			"org.opencontainers.image.title":       r.Component.Name,
			"org.opencontainers.image.description": r.Component.Description,
			"org.opencontainers.image.source":      "https://github.com/grove-project/grove",
			"org.opencontainers.image.url":         "https://github.com/grove-project/grove",
			"org.opencontainers.image.revision":    testMeta.Revision,
			"org.opencontainers.image.version":     testMeta.Version,
			"org.opencontainers.image.licenses":    "Apache-2.0",
			"org.opencontainers.image.created":     "2026-11-01T12:00:00Z",
		},
	}
	if !slices.Equal(cf.Config.Entrypoint, want.Entrypoint) || cf.Config.User != want.User ||
		cf.Config.WorkingDir != want.WorkingDir || !slices.Equal(cf.Config.Env, want.Env) ||
		!maps.Equal(cf.Config.Labels, want.Labels) || len(cf.Config.Cmd) != 0 {
		t.Errorf("config %s, want %+v", printed, want)
	}
	if cf.OS != "linux" || cf.Architecture != arch || !cf.Created.Equal(testMeta.Created) {
		t.Errorf("config says %s/%s created %s, want linux/%s created %s", cf.OS, cf.Architecture, cf.Created, arch, testMeta.Created)
	}

	files := imageFiles(t, img)
	wantMode := map[string]int64{
		"etc/passwd": 0o644, "etc/group": 0o644, "etc/ssl/certs/ca-certificates.crt": 0o644,
		"home/nonroot": 0o700, "tmp": 0o1777, "usr/local/bin/" + r.Component.Name: 0o755,
	}
	for name, mode := range wantMode {
		f, ok := files[name]
		switch {
		case !ok:
			t.Errorf("/%s is missing", name)
		case f.header.Mode != mode:
			t.Errorf("/%s has mode %o, want %o", name, f.header.Mode, mode)
		case !f.header.ModTime.Equal(testMeta.Created):
			t.Errorf("/%s has mtime %s, want the commit time %s", name, f.header.ModTime, testMeta.Created)
		}
	}
	if h := files["home/nonroot"].header; h != nil && (h.Uid != 65532 || h.Gid != 65532) {
		t.Errorf("/home/nonroot is owned by %d:%d, want 65532:65532", h.Uid, h.Gid)
	}
	if !strings.Contains(string(files["etc/passwd"].data), "nonroot:x:65532:65532:nonroot:/home/nonroot:") {
		t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", files["etc/passwd"].data)
	}
	if !strings.Contains(string(files["etc/group"].data), "nonroot:x:65532:") {
		t.Errorf("/etc/group has no nonroot group 65532:\n%s", files["etc/group"].data)
	}
	if n := countCertificates(t, files["etc/ssl/certs/ca-certificates.crt"].data); n < 100 {
		t.Errorf("the CA bundle holds %d certificates, want the whole Mozilla root store (over 100)", n)
	}
	if arch == "amd64" {
		checkVersion(t, r.Component.Name, files["usr/local/bin/"+r.Component.Name].data)
	}
}

// checkVersion runs the image's binary with --version: it must print the
// version the image is labelled with.
func checkVersion(t *testing.T, name string, binary []byte) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", name, err)
	}
	if want := name + " " + testMeta.Version + " "; !strings.HasPrefix(string(out), want) {
		t.Errorf("%s --version printed %q, want a line starting %q", name, out, want)
	}
}

type file struct {
	header *tar.Header
	data   []byte
}

// imageFiles reads the image's flattened filesystem.
func imageFiles(t *testing.T, img v1.Image) map[string]file {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string]file{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = file{header: h, data: data}
	}
}

func countCertificates(t *testing.T, bundle []byte) int {
	n := 0
	for {
		var b *pem.Block
		b, bundle = pem.Decode(bundle)
		if b == nil {
			return n
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			t.Errorf("CA bundle certificate %d: %v", n, err)
		}
		n++
	}
}

func fileSHA256(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
