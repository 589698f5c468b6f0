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

// Command grove-release builds Grove's images and release artifacts
// (make images, make release-dry-run) and publishes them (the release
// workflow). Run it from this module: GOWORK=off go run ./cmd/grove-release.
//
//	grove-release images  --repo-root DIR --version V --revision SHA --created RFC3339 --out DIR
//	grove-release release --repo-root DIR --version V --revision SHA --created RFC3339 --images DIR --out DIR --registry R --helm PATH
//	grove-release push    --archive FILE --repository REPO
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/grove-project/grove/hack/tools-release/internal/images"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
	"github.com/grove-project/grove/hack/tools-release/internal/release"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "grove-release:", err)
		os.Exit(1)
	}
}

// commands are grove-release's subcommands.
var commands = map[string]func(ctx context.Context, args []string, stdout io.Writer) error{
	"images":  imagesCmd,
	"release": releaseCmd,
	"push":    pushCmd,
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: grove-release <command> [flags]; commands: %s", commandNames())
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q; commands: %s", args[0], commandNames())
	}
	return cmd(ctx, args[1:], stdout)
}

func commandNames() string {
	return "images, release, push"
}

// buildFlags are the flags of the commands that build: the repository and
// what the images say about the build.
type buildFlags struct{ root, version, revision, created *string }

func addBuildFlags(fs *flag.FlagSet) buildFlags {
	return buildFlags{
		root:     fs.String("repo-root", "", "repository root, holding go.work (required)"),
		version:  fs.String("version", "", "release version stamped into the binaries and images, e.g. v0.2.0 (required)"),
		revision: fs.String("revision", "", "commit the images are built from (required)"),
		created:  fs.String("created", "", "commit time, RFC 3339: every timestamp in the images (required)"),
	}
}

// parse parses args into fs and returns the repository root and the build's metadata.
func (b buildFlags) parse(fs *flag.FlagSet, args []string) (string, oci.Meta, error) {
	if err := fs.Parse(args); err != nil {
		return "", oci.Meta{}, err
	}
	for _, f := range []struct{ name, value string }{
		{"repo-root", *b.root}, {"version", *b.version}, {"revision", *b.revision}, {"created", *b.created},
	} {
		if f.value == "" {
			return "", oci.Meta{}, fmt.Errorf("%s: --%s is required", fs.Name(), f.name)
		}
	}
	t, err := time.Parse(time.RFC3339, *b.created)
	if err != nil {
		return "", oci.Meta{}, fmt.Errorf("%s: --created %q: %w", fs.Name(), *b.created, err)
	}
	return *b.root, oci.Meta{Version: *b.version, Revision: *b.revision, Created: t.UTC()}, nil
}

func imagesCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	out := fs.String("out", "", "output directory: <name>.tar per image (required)")
	root, meta, err := addBuildFlags(fs).parse(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("images: --out is required")
	}
	results, err := images.Build(ctx, images.Options{RepoRoot: root, Meta: meta, OutDir: *out})
	if err != nil {
		return err
	}
	for _, r := range results {
		fmt.Fprintf(stdout, "%-16s %s  %s\n", r.Component.Name, r.Digest, r.Archive)
	}
	return nil
}

func releaseCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	imagesDir := fs.String("images", "", "directory the images are built into (required)")
	out := fs.String("out", "", "directory receiving the release artifacts; emptied first (required)")
	registry := fs.String("registry", "ghcr.io/grove-project", "registry the images are published to: the packaged chart names <registry>/<image>")
	helm := fs.String("helm", "", "helm binary (required)")
	root, meta, err := addBuildFlags(fs).parse(fs, args)
	if err != nil {
		return err
	}
	if *imagesDir == "" || *out == "" || *helm == "" {
		return fmt.Errorf("release: --images, --out and --helm are required")
	}
	if err := release.ValidateVersion(meta.Version); err != nil {
		return err
	}
	results, err := images.Build(ctx, images.Options{RepoRoot: root, Meta: meta, OutDir: *imagesDir})
	if err != nil {
		return err
	}
	a, err := release.DryRun(ctx, release.Options{
		Chart: filepath.Join(root, "charts", "grove"), Images: results, Meta: meta,
		Registry: *registry, Helm: *helm, OutDir: *out,
	})
	if err != nil {
		return err
	}
	for _, r := range results {
		fmt.Fprintf(stdout, "%-16s %s\n", r.Component.Name, r.Digest)
	}
	fmt.Fprintf(stdout, "artifacts in %s: %s %s %s %s %s\n", *out,
		strings.Join(a.Archives, " "), a.Chart, a.InstallYAML, a.SBOM, a.Checksums)
	return nil
}

// pushCmd pushes the multi-arch index of an image archive, with every image
// and blob it holds, to a repository, tagged as the archive names it (the
// version); authentication comes from the Docker config (docker login).
func pushCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	archive := fs.String("archive", "", "OCI image-layout archive written by images (required)")
	repository := fs.String("repository", "", "repository to push to, e.g. ghcr.io/grove-project/grove-operator (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *archive == "" || *repository == "" {
		return fmt.Errorf("push: --archive and --repository are required")
	}
	a, err := oci.OpenArchive(*archive)
	if err != nil {
		return err
	}
	defer a.Close()
	if a.Tag == "" {
		return fmt.Errorf("push: %s names its index with no tag", *archive)
	}
	ref, err := name.NewTag(*repository + ":" + a.Tag)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	if err := remote.WriteIndex(ref, a.Index, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := a.Index.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s@%s\n", ref, d)
	return nil
}
