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
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// RefNameAnnotation names an index in an OCI layout's index.json; podman and
// skopeo take it as the image's tag.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteArchive writes idx as an OCI image-layout archive at path: a tar of
// the layout (oci-layout, index.json naming idx by tag, blobs/) with files in
// sorted order, stamped with mtime and owned by root, so that equal indexes
// give equal archives.
func WriteArchive(path string, idx v1.ImageIndex, tag string, mtime time.Time) error {
	dir, err := os.MkdirTemp(filepath.Dir(path), ".layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("creating an OCI layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag})); err != nil {
		return fmt.Errorf("writing the index to the OCI layout: %w", err)
	}
	return tarDir(dir, path, mtime)
}

// tarDir writes the tree under dir (relative names, sorted) to the tar file out.
func tarDir(dir, out string, mtime time.Time) (err error) {
	f, err := os.Create(out + ".tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(out + ".tmp")
		}
	}()
	tw := tar.NewWriter(f)
	// WalkDir visits entries in lexical order.
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, walkErr error) error {
		if walkErr != nil || p == dir {
			return walkErr
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Typeflag: tar.TypeReg}
		if d.IsDir() {
			h.Name += "/"
			h.Mode, h.Typeflag = 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h.Size = int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("archiving the OCI layout: %w", err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(out+".tmp", out)
}

// Archive is an OCI image-layout archive unpacked to read it.
type Archive struct {
	dir string
	// Tag is the ref name index.json gives the index.
	Tag string
	// Index is the multi-arch index the archive holds.
	Index v1.ImageIndex
}

// Close removes the unpacked layout.
func (a *Archive) Close() error { return os.RemoveAll(a.dir) }

// OpenArchive unpacks the archive at path (as WriteArchive writes it: one
// index in index.json) into a temporary directory and reads its index.
func OpenArchive(path string) (*Archive, error) {
	dir, err := os.MkdirTemp("", "grove-oci-")
	if err != nil {
		return nil, err
	}
	a := &Archive{dir: dir}
	if err := untar(path, dir); err != nil {
		a.Close()
		return nil, fmt.Errorf("unpacking %s: %w", path, err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("%s is not an OCI layout: %w", path, err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		a.Close()
		return nil, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		a.Close()
		return nil, err
	}
	if len(m.Manifests) != 1 || !m.Manifests[0].MediaType.IsIndex() {
		a.Close()
		return nil, fmt.Errorf("%s: index.json holds %d descriptors, want one image index", path, len(m.Manifests))
	}
	a.Tag = m.Manifests[0].Annotations[RefNameAnnotation]
	if a.Index, err = top.ImageIndex(m.Manifests[0].Digest); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func untar(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("entry %q leaves the archive", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.Create(target)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q: type %c not expected in an OCI layout", h.Name, h.Typeflag)
		}
	}
}
