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

package oci

import (
	"fmt"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
)

// Source is the repository the images are built from (org.opencontainers.image.source).
const Source = "https://github.com/grove-project/grove"

// License is the SPDX identifier of Grove's license (org.opencontainers.image.licenses).
const License = "Apache-2.0"

// Meta is what the images say about the build.
type Meta struct {
	Version  string    // org.opencontainers.image.version, and what --version prints
	Revision string    // the commit, org.opencontainers.image.revision
	Created  time.Time // the commit time: every timestamp in the images
}

// Labels are the OCI annotation keys and values of c's image (on each
// image's config and on the index).
func (m Meta) Labels(c components.Component) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       c.Name,
		"org.opencontainers.image.description": c.Description,
		"org.opencontainers.image.source":      Source,
		"org.opencontainers.image.url":         Source,
		"org.opencontainers.image.revision":    m.Revision,
		"org.opencontainers.image.version":     m.Version,
		"org.opencontainers.image.licenses":    License,
		"org.opencontainers.image.created":     m.Created.UTC().Format(time.RFC3339),
	}
}

// Image assembles c's image for linux/arch around the binary at binaryPath.
func Image(m Meta, c components.Component, arch, binaryPath string) (v1.Image, error) {
	binary, err := readFile(binaryPath)
	if err != nil {
		return nil, err
	}
	base, err := layer(baseEntries(), m.Created)
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	bin, err := layer(binaryEntries(components.EntrypointDir, c.Name, binary), m.Created)
	if err != nil {
		return nil, fmt.Errorf("%s layer: %w", c.Name, err)
	}
	created := v1.Time{Time: m.Created.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "grove-release: /etc/passwd, /etc/group (nonroot 65532), CA certificates, " + HomeDir + ", /tmp"}},
		mutate.Addendum{Layer: bin, History: v1.History{Created: created, CreatedBy: "grove-release: " + c.Entrypoint()[0]}},
	)
	if err != nil {
		return nil, fmt.Errorf("%s: adding layers: %w", c.Name, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, created
	user := strconv.Itoa(NonRootUID) + ":" + strconv.Itoa(NonRootUID)
	cf.Config = v1.Config{
		User:       user,
		WorkingDir: HomeDir,
		Entrypoint: c.Entrypoint(),
		Env: []string{
			"PATH=" + components.EntrypointDir + ":/usr/bin:/bin",
			"SSL_CERT_FILE=" + CABundlePath,
		},
		Labels: m.Labels(c),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", c.Name, err)
	}
	return img, nil
}

// Index is the multi-arch index of images (keyed by architecture, added in
// the order of archs), annotated with c's labels.
func Index(m Meta, c components.Component, archs []string, images map[string]v1.Image) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range archs {
		img, ok := images[arch]
		if !ok {
			return nil, fmt.Errorf("%s: no image for linux/%s", c.Name, arch)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
		})
	}
	out, ok := mutate.Annotations(idx, m.Labels(c)).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("%s: annotating the index", c.Name)
	}
	return out, nil
}
