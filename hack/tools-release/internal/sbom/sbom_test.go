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

package sbom

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// grove-release itself is a Go binary with module dependencies: its SBOM
// must list it, the standard library and the modules it links by package
// URL, each related to the binary.
func TestGenerateListsTheModulesOfTheBinary(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "grove-release")
	build := exec.Command("go", "build", "-o", exe, "../../cmd/grove-release")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building grove-release: %v\n%s", err, out)
	}
	doc, err := Generate(Options{
		Version: "v0.2.0", Source: "https://github.com/grove-project/grove", License: "Apache-2.0",
		Created: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
	}, []Binary{{Name: "grove-test", Path: exe}})
	if err != nil {
		t.Fatal(err)
	}
	if doc.SPDXVersion != "SPDX-2.3" || doc.CreationInfo.Created != "2026-11-01T12:00:00Z" ||
		doc.DocumentNamespace != "https://github.com/grove-project/grove/releases/v0.2.0/sbom.spdx.json" {
		t.Errorf("document header %+v", doc)
	}
	byName := map[string]Package{}
	for _, p := range doc.Packages {
		byName[p.Name] = p
	}
	bin, ok := byName["grove-test"]
	if !ok || bin.VersionInfo != "v0.2.0" || bin.LicenseDeclared != "Apache-2.0" {
		t.Fatalf("binary package %+v", bin)
	}
	ggcr, ok := byName["github.com/google/go-containerregistry"]
	if !ok {
		t.Fatalf("no package for go-containerregistry among %d packages", len(doc.Packages))
	}
	if want := "pkg:golang/github.com/google/go-containerregistry@v0.22.1"; ggcr.ExternalRefs[0].ReferenceLocator != want {
		t.Errorf("go-containerregistry purl %q, want %q", ggcr.ExternalRefs[0].ReferenceLocator, want)
	}
	if std, ok := byName["stdlib"]; !ok || !strings.HasPrefix(std.VersionInfo, "1.") {
		t.Errorf("stdlib package %+v, want the Go version", std)
	}
	depends := 0
	for _, r := range doc.Relationships {
		if r.Element == bin.SPDXID && r.Type == "DEPENDS_ON" {
			depends++
		}
	}
	if depends != len(doc.Packages)-1 {
		t.Errorf("%d DEPENDS_ON relationships from the binary, want one per module (%d)", depends, len(doc.Packages)-1)
	}
}
