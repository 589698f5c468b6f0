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

// Package oci assembles Grove's images with go-containerregistry: a base
// layer this package makes itself (nothing is pulled), one layer with the
// binary, the standard OCI labels, and a multi-arch index written as an OCI
// image-layout archive. Every timestamp is the commit time and every file
// has a fixed owner and mode, so the same inputs give the same digests.
package oci

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// The non-root user every image runs as (the uid distroless' "nonroot" has,
// which cluster policies commonly expect).
const (
	NonRootUID  = 65532
	NonRootName = "nonroot"
	HomeDir     = "/home/nonroot"
	// CABundlePath is where Go (and most TLS stacks) look for trusted roots on Linux.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
)

// entry is one file or directory of a layer.
type entry struct {
	name     string // absolute path in the image
	mode     int64
	uid, gid int
	dir      bool
	data     []byte
}

// CABundle is the Mozilla (NSS) root store of golang.org/x/crypto/x509roots/fallback,
// a Go module pinned in this tool's go.mod, as a PEM bundle.
func CABundle() []byte {
	var b bytes.Buffer
	for root := range bundle.Roots() {
		// Roots with extra constraints (a distrust-after date) cannot say so in
		// a PEM file; leaving them out is what a bundle that cannot enforce them must do.
		if root.Constraint != nil {
			continue
		}
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return b.Bytes()
}

// baseEntries are the files of the base layer every image shares: the user
// and group databases with root and the non-root user, the CA bundle, a home
// directory for the non-root user (the working directory) and /tmp.
func baseEntries() []entry {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n",
		NonRootName, NonRootUID, NonRootUID, NonRootName, HomeDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", NonRootName, NonRootUID)
	return []entry{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "/etc/group", mode: 0o644, data: []byte(group)},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: CABundlePath, mode: 0o644, data: CABundle()},
		{name: "/home", mode: 0o755, dir: true},
		{name: HomeDir, mode: 0o700, uid: NonRootUID, gid: NonRootUID, dir: true},
		{name: "/tmp", mode: 0o1777, dir: true},
	}
}

// binaryEntries put the binary at dir/name, owned by root and not writable by the user.
func binaryEntries(dir, name string, binary []byte) []entry {
	var out []entry
	for d := dir; d != "/"; d = path.Dir(d) {
		out = append(out, entry{name: d, mode: 0o755, dir: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return append(out, entry{name: dir + "/" + name, mode: 0o755, data: binary})
}

// layer makes a gzip-compressed OCI layer of entries, in their order, every
// entry stamped with mtime.
func layer(entries []entry, mtime time.Time) (v1.Layer, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		h := &tar.Header{
			Name: e.name[1:], Mode: e.mode, Uid: e.uid, Gid: e.gid,
			ModTime: mtime,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// readFile reads a binary to put in an image.
func readFile(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return b, nil
}
