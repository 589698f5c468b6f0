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

// Package gobuild builds Grove's binaries the way images and releases need
// them: static (CGO_ENABLED=0), without local paths (-trimpath), with an
// empty build ID and the release version stamped in, so that one commit
// always yields the same bytes.
package gobuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/grove-project/grove/hack/tools-release/internal/components"
)

// Options say what to build.
type Options struct {
	// RepoRoot is the repository root (the directory holding go.work).
	RepoRoot string
	// Version is stamped into each binary's version variable.
	Version string
	// OutDir receives <OutDir>/<os>_<arch>/<binary>.
	OutDir string
}

// LDFlags are the linker flags of a release build of c: no symbol table or
// DWARF (stack traces and pprof use the runtime's own tables), an empty build
// ID, and the version.
func LDFlags(c components.Component, version string) string {
	return fmt.Sprintf("-s -w -buildid= -X %s=%s", c.VersionVar, version)
}

// Binary builds c for linux/arch and returns the binary's path.
func Binary(ctx context.Context, o Options, c components.Component, arch string) (string, error) {
	out := filepath.Join(o.OutDir, "linux_"+arch, c.Name)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", LDFlags(c, o.Version), "-o", out, c.Package)
	cmd.Dir = o.RepoRoot
	cmd.Env = buildEnv(os.Environ(), arch)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s for linux/%s: %w", c.Name, arch, err)
	}
	return out, nil
}

// buildEnv is env for a static linux/arch build in the repository's
// workspace: this tool runs with GOWORK=off (it is a module of its own), and
// GOFLAGS from the caller could change the output, so neither is passed on.
func buildEnv(env []string, arch string) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GOWORK", "GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
}
