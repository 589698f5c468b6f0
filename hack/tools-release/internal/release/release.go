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

// Package release assembles everything a Grove release publishes, except
// the pushes: the image archives, the Helm chart packaged with the release's
// version and image digests, a rendered install.yaml for kubectl users, an
// SPDX SBOM of the binaries, and SHA256SUMS over all of them.
package release

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/grove-project/grove/hack/tools-release/internal/chartvalues"
	"github.com/grove-project/grove/hack/tools-release/internal/images"
	"github.com/grove-project/grove/hack/tools-release/internal/oci"
	"github.com/grove-project/grove/hack/tools-release/internal/sbom"
)

// Namespace is the namespace install.yaml installs Grove into.
const Namespace = "grove-system"

// semver is a release version: vMAJOR.MINOR.PATCH with an optional pre-release.
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// Options say what to assemble.
type Options struct {
	// Chart is the chart directory (charts/grove); it is copied, never changed.
	Chart string
	// Images are the images built for this release (make images).
	Images []images.Result
	Meta   oci.Meta
	// Registry is where the images are published, e.g. ghcr.io/grove-project:
	// the packaged chart names <Registry>/<image>.
	Registry string
	// Helm is the helm binary.
	Helm string
	// OutDir receives the artifacts (emptied first).
	OutDir string
}

// Artifacts names what DryRun wrote, relative to OutDir.
type Artifacts struct {
	Chart, InstallYAML, SBOM, Checksums string
	Archives                            []string
}

// ChartVersion is the chart's version for a release version: the same
// without the leading v (Helm chart versions are bare SemVer).
func ChartVersion(version string) string { return strings.TrimPrefix(version, "v") }

// ValidateVersion fails unless version is a release version such as v0.2.0.
func ValidateVersion(version string) error {
	if !semver.MatchString(version) {
		return fmt.Errorf("version %q is not a release version vMAJOR.MINOR.PATCH[-PRERELEASE] (e.g. v0.2.0)", version)
	}
	return nil
}

// DryRun writes every artifact of the release into o.OutDir.
func DryRun(ctx context.Context, o Options) (Artifacts, error) {
	var a Artifacts
	if err := ValidateVersion(o.Meta.Version); err != nil {
		return a, err
	}
	if err := os.RemoveAll(o.OutDir); err != nil {
		return a, err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return a, err
	}
	for _, r := range o.Images {
		name := filepath.Base(r.Archive)
		if err := copyFile(r.Archive, filepath.Join(o.OutDir, name)); err != nil {
			return a, err
		}
		a.Archives = append(a.Archives, name)
	}
	var err error
	if a.Chart, err = packageChart(ctx, o); err != nil {
		return a, err
	}
	if a.InstallYAML, err = renderInstall(ctx, o, a.Chart); err != nil {
		return a, err
	}
	if a.SBOM, err = writeSBOM(o); err != nil {
		return a, err
	}
	a.Checksums = "SHA256SUMS"
	return a, writeChecksums(o.OutDir, a.Checksums)
}

// ChartValues are the values the packaged chart carries: each image's
// repository in the release registry, the release version as tag and the
// multi-arch index digest.
func ChartValues(o Options) (map[string]string, []string) {
	values := map[string]string{}
	var keys []string
	for _, r := range o.Images {
		key := "image." + strings.TrimPrefix(r.Component.Name, "grove-")
		values[key+".repository"] = strings.TrimSuffix(o.Registry, "/") + "/" + r.Component.Name
		values[key+".tag"] = o.Meta.Version
		values[key+".digest"] = r.Digest.String()
		keys = append(keys, key+".repository", key+".tag", key+".digest")
	}
	return values, keys
}

// packageChart copies the chart, sets the image values in the copy's
// values.yaml and packages it with helm as version/appVersion of the release.
func packageChart(ctx context.Context, o Options) (string, error) {
	tmp, err := os.MkdirTemp("", "grove-chart-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, filepath.Base(o.Chart))
	if err := os.CopyFS(dir, os.DirFS(o.Chart)); err != nil {
		return "", fmt.Errorf("copying the chart: %w", err)
	}
	valuesPath := filepath.Join(dir, "values.yaml")
	data, err := os.ReadFile(valuesPath)
	if err != nil {
		return "", err
	}
	values, keys := ChartValues(o)
	if data, err = chartvalues.Set(data, values, keys); err != nil {
		return "", err
	}
	if err := os.WriteFile(valuesPath, data, 0o644); err != nil {
		return "", err
	}
	if _, err := helm(ctx, o.Helm, "package", dir, "--version", ChartVersion(o.Meta.Version),
		"--app-version", o.Meta.Version, "--destination", o.OutDir); err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-%s.tgz", filepath.Base(o.Chart), ChartVersion(o.Meta.Version))
	if _, err := os.Stat(filepath.Join(o.OutDir, name)); err != nil {
		return "", fmt.Errorf("helm package wrote no %s: %w", name, err)
	}
	return name, nil
}

// renderInstall renders the packaged chart, CRDs included, into one manifest
// kubectl applies: the namespace first, then the chart's objects.
func renderInstall(ctx context.Context, o Options, chart string) (string, error) {
	kubeVersion, err := minKubeVersion(o.Chart)
	if err != nil {
		return "", err
	}
	out, err := helm(ctx, o.Helm, "template", "grove", filepath.Join(o.OutDir, chart),
		"--namespace", Namespace, "--include-crds", "--kube-version", kubeVersion)
	if err != nil {
		return "", err
	}
	header := fmt.Sprintf("# Grove %s for kubectl: kubectl apply --server-side -f install.yaml\n"+
		"# (rendered from the chart %s with its default values)\n"+
		"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", o.Meta.Version, chart, Namespace)
	name := "install.yaml"
	return name, os.WriteFile(filepath.Join(o.OutDir, name), append([]byte(header), out...), 0o644)
}

func writeSBOM(o Options) (string, error) {
	var bins []sbom.Binary
	for _, r := range o.Images {
		// The module lists are the same for every architecture: one is described.
		bins = append(bins, sbom.Binary{Name: r.Component.Name, Path: r.Binaries[images.Archs[0]]})
	}
	doc, err := sbom.Generate(sbom.Options{Version: o.Meta.Version, Source: oci.Source, License: oci.License, Created: o.Meta.Created}, bins)
	if err != nil {
		return "", err
	}
	data, err := doc.JSON()
	if err != nil {
		return "", err
	}
	name := "grove-" + o.Meta.Version + ".spdx.json"
	return name, os.WriteFile(filepath.Join(o.OutDir, name), data, 0o644)
}

// writeChecksums writes `sha256sum` lines for every file in dir.
func writeChecksums(dir, name string) error {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, sum+"  "+filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

func helm(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm %s: %w: %s", args[0], err, stderr.String())
	}
	return out, nil
}

// minKubeVersion is the lowest Kubernetes version the chart accepts, from its
// Chart.yaml kubeVersion (">=1.37.0-0" gives v1.37.0): helm template checks
// that constraint against a version it is told, and its own default is older.
func minKubeVersion(chartDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return "", fmt.Errorf("reading the chart's Chart.yaml: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "kubeVersion:")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		v, ok = strings.CutPrefix(v, ">=")
		if !ok {
			return "", fmt.Errorf("chart kubeVersion %q: want a lower bound such as \">=1.37.0-0\"", v)
		}
		v, _, _ = strings.Cut(strings.TrimSpace(v), "-")
		return "v" + v, nil
	}
	return "", fmt.Errorf("the chart's Chart.yaml has no kubeVersion")
}
