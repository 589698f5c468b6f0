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

// Package components names Grove's three binaries: where each main package
// lives, the variable its version is stamped into, and what its image says
// about it. Everything that builds, packages or releases them reads this table.
package components

// Component is one of Grove's shipped binaries and its image.
type Component struct {
	// Name is the binary's, the image's and the image repository's name.
	Name string
	// Package is the main package, relative to the repository root.
	Package string
	// VersionVar is the fully qualified string variable -ldflags -X stamps
	// the release version into (what --version prints).
	VersionVar string
	// Description is the image's org.opencontainers.image.description.
	Description string
}

// EntrypointDir is the directory of every image's binary.
const EntrypointDir = "/usr/local/bin"

// Entrypoint is the image's entrypoint: the binary alone; the chart's
// Deployment (or the operator, for grove-initc) gives the arguments.
func (c Component) Entrypoint() []string { return []string{EntrypointDir + "/" + c.Name} }

// All are Grove's binaries in build order.
var All = []Component{
	{
		Name:        "grove-operator",
		Package:     "./operator/cmd/grove-operator",
		VersionVar:  "github.com/grove-project/grove/operator/internal/version.gitVersion",
		Description: "Grove operator: turns PodCliqueSets into PodCliques, PodCliqueScalingGroups, PodGangs, pods, Services and HPAs; serves Grove's webhooks",
	},
	{
		Name:        "grove-scheduler",
		Package:     "./scheduler/cmd/grove-scheduler",
		VersionVar:  "main.version",
		Description: "Grove scheduler: kube-scheduler with Grove's gang scheduling plugin",
	},
	{
		Name:        "grove-initc",
		Package:     "./initc/cmd/grove-initc",
		VersionVar:  "github.com/grove-project/grove/initc/internal/command.version",
		Description: "Grove startup-ordering init container: waits until parent PodCliques have enough Ready pods",
	},
}

// ByName returns the component called name.
func ByName(name string) (Component, bool) {
	for _, c := range All {
		if c.Name == name {
			return c, true
		}
	}
	return Component{}, false
}
