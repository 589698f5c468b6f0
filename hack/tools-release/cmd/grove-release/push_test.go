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

package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
	"github.com/grove-project/grove/hack/tools-release/internal/images"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
)

// push sends the whole multi-arch index of an archive to a registry, tagged
// with the archive's version, under the same digest.
func TestPushSendsTheIndexUnderItsDigest(t *testing.T) {
	srv := httptest.NewServer(registry.New())
	defer srv.Close()
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // anonymous: no credentials of the machine's

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	meta := oci.Meta{Version: "v0.2.0", Revision: "abc", Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	c := components.All[2]
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
	want, _ := idx.Digest()
	archive := filepath.Join(t.TempDir(), c.Name+".tar")
	if err := oci.WriteArchive(archive, idx, meta.Version, meta.Created); err != nil {
		t.Fatal(err)
	}

	repo := strings.TrimPrefix(srv.URL, "http://") + "/grove-project/" + c.Name
	var out bytes.Buffer
	if err := run(context.Background(), []string{"push", "--archive", archive, "--repository", repo}, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != repo+":v0.2.0@"+want.String() {
		t.Errorf("push printed %q, want %s:v0.2.0@%s", got, repo, want)
	}
	ref, err := name.NewTag(repo+":v0.2.0", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := pushed.Digest(); d != want {
		t.Errorf("the registry holds %s under v0.2.0, want %s", d, want)
	}
	m, err := pushed.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 2 {
		t.Errorf("pushed index lists %d images, want 2 (amd64, arm64)", len(m.Manifests))
	}
}
