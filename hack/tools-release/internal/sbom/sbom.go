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

// Package sbom writes an SPDX 2.3 JSON software bill of materials of Grove's
// binaries from the module lists Go links into them (what `go version -m`
// prints): one package per binary, one per module it contains, the Go
// standard library, and a DEPENDS_ON relationship from each binary to each
// of its modules.
package sbom

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Binary is one binary to describe.
type Binary struct {
	Name string // e.g. grove-operator
	Path string // the built file
}

// Document is an SPDX 2.3 document (the fields Grove fills).
type Document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      CreationInfo   `json:"creationInfo"`
	Packages          []Package      `json:"packages"`
	Relationships     []Relationship `json:"relationships"`
}

// CreationInfo says who made the document and when.
type CreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

// Package is one SPDX package: a binary or a Go module.
type Package struct {
	Name             string        `json:"name"`
	SPDXID           string        `json:"SPDXID"`
	VersionInfo      string        `json:"versionInfo,omitempty"`
	DownloadLocation string        `json:"downloadLocation"`
	FilesAnalyzed    bool          `json:"filesAnalyzed"`
	LicenseConcluded string        `json:"licenseConcluded"`
	LicenseDeclared  string        `json:"licenseDeclared"`
	CopyrightText    string        `json:"copyrightText"`
	PrimaryPurpose   string        `json:"primaryPackagePurpose,omitempty"`
	ExternalRefs     []ExternalRef `json:"externalRefs,omitempty"`
}

// ExternalRef is a package URL.
type ExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

// Relationship links two SPDX elements.
type Relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// Options describe the release the SBOM belongs to.
type Options struct {
	Version string    // the release version
	Source  string    // the repository URL
	License string    // the binaries' SPDX license
	Created time.Time // the commit time
}

const noAssertion = "NOASSERTION"

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func spdxID(kind, name, version string) string {
	return "SPDXRef-" + kind + "-" + unsafeID.ReplaceAllString(name+"-"+version, "-")
}

// Generate reads each binary's build information and returns the document.
func Generate(o Options, binaries []Binary) (*Document, error) {
	doc := &Document{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              "grove-" + o.Version,
		DocumentNamespace: strings.TrimSuffix(o.Source, "/") + "/releases/" + o.Version + "/sbom.spdx.json",
		CreationInfo: CreationInfo{
			Created:  o.Created.UTC().Format(time.RFC3339),
			Creators: []string{"Organization: The Grove Authors", "Tool: grove-release"},
		},
	}
	modules := map[string]Package{}
	for _, b := range binaries {
		info, err := buildinfo.ReadFile(b.Path)
		if err != nil {
			return nil, fmt.Errorf("reading the build information of %s: %w", b.Path, err)
		}
		binID := spdxID("Binary", b.Name, o.Version)
		doc.Packages = append(doc.Packages, Package{
			Name: b.Name, SPDXID: binID, VersionInfo: o.Version,
			DownloadLocation: o.Source, LicenseConcluded: o.License, LicenseDeclared: o.License,
			CopyrightText: "Copyright The Grove Authors", PrimaryPurpose: "APPLICATION",
			ExternalRefs: []ExternalRef{purl(info.Path, o.Version)},
		})
		doc.Relationships = append(doc.Relationships, Relationship{Element: doc.SPDXID, Type: "DESCRIBES", Related: binID})
		deps := []Package{module("stdlib", strings.TrimPrefix(info.GoVersion, "go"))}
		deps[0].DownloadLocation = "https://go.dev/dl/"
		deps[0].LicenseDeclared = "BSD-3-Clause"
		for _, d := range info.Deps {
			path, version := d.Path, d.Version
			if d.Replace != nil {
				path, version = d.Replace.Path, d.Replace.Version
			}
			deps = append(deps, module(path, version))
		}
		for _, dep := range deps {
			modules[dep.SPDXID] = dep
			doc.Relationships = append(doc.Relationships, Relationship{Element: binID, Type: "DEPENDS_ON", Related: dep.SPDXID})
		}
	}
	ids := make([]string, 0, len(modules))
	for id := range modules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		doc.Packages = append(doc.Packages, modules[id])
	}
	return doc, nil
}

// module is the SPDX package of a Go module. Licenses are not in the build
// information, so they are not asserted.
func module(path, version string) Package {
	return Package{
		Name: path, SPDXID: spdxID("Module", path, version), VersionInfo: version,
		DownloadLocation: "https://proxy.golang.org/" + path + "/@v/" + version + ".zip",
		LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
		PrimaryPurpose: "LIBRARY",
		ExternalRefs:   []ExternalRef{purl(path, version)},
	}
}

func purl(path, version string) ExternalRef {
	return ExternalRef{ReferenceCategory: "PACKAGE-MANAGER", ReferenceType: "purl", ReferenceLocator: "pkg:golang/" + path + "@" + version}
}

// JSON is the document as indented JSON.
func (d *Document) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
