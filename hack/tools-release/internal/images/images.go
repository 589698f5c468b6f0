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

// Package images builds Grove's three images end to end: the binaries for
// each architecture, the images around them, and one OCI image-layout
// archive per image holding its multi-arch index (bin/images/<name>.tar).
package images

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
	"github.com/grove-project/grove/hack/tools-release/internal/gobuild"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
)

// Archs are the architectures every image is built for.
var Archs = []string{"amd64", "arm64"}

// Options say what to build and where.
type Options struct {
	RepoRoot string
	Meta     oci.Meta
	// OutDir receives <name>.tar per image and binaries/linux_<arch>/<name>.
	OutDir string
}

// Result is one built image.
type Result struct {
	Component components.Component
	// Archive is the OCI image-layout archive.
	Archive string
	// Digest is the multi-arch index's digest.
	Digest v1.Hash
	// Binaries are the binaries in the images, by architecture.
	Binaries map[string]string
}

// Build builds every component's binaries and image.
func Build(ctx context.Context, o Options) ([]Result, error) {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(components.All))
	for _, c := range components.All {
		r, err := buildOne(ctx, o, c)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

func buildOne(ctx context.Context, o Options, c components.Component) (Result, error) {
	r := Result{Component: c, Archive: filepath.Join(o.OutDir, c.Name+".tar"), Binaries: map[string]string{}}
	bo := gobuild.Options{RepoRoot: o.RepoRoot, Version: o.Meta.Version, OutDir: filepath.Join(o.OutDir, "binaries")}
	imgs := map[string]v1.Image{}
	for _, arch := range Archs {
		bin, err := gobuild.Binary(ctx, bo, c, arch)
		if err != nil {
			return r, err
		}
		r.Binaries[arch] = bin
		if imgs[arch], err = oci.Image(o.Meta, c, arch, bin); err != nil {
			return r, err
		}
	}
	idx, err := oci.Index(o.Meta, c, Archs, imgs)
	if err != nil {
		return r, err
	}
	if r.Digest, err = idx.Digest(); err != nil {
		return r, fmt.Errorf("%s: index digest: %w", c.Name, err)
	}
	if err := oci.WriteArchive(r.Archive, idx, o.Meta.Version, o.Meta.Created); err != nil {
		return r, fmt.Errorf("%s: %w", c.Name, err)
	}
	return r, nil
}
