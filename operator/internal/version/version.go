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

// Package version holds grove-operator's build information, stamped at link
// time with -ldflags "-X github.com/grove-project/grove/operator/internal/version.gitVersion=…".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// clientGoModule is the module whose version fixes the Kubernetes line the
// operator is built on: client-go v0.X.Y is released with Kubernetes v1.X.Y.
const clientGoModule = "k8s.io/client-go"

var (
	gitVersion   = "v0.0.0-dev"
	gitCommit    = "unknown"
	gitTreeState = "unknown"
	buildDate    = "unknown"
)

// Info is the build information.
type Info struct {
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
	// KubernetesVersion is the Kubernetes release whose client libraries the
	// operator is built with, e.g. v1.37.2 ("unknown" without module build info).
	KubernetesVersion string `json:"kubernetesVersion"`
}

// Get returns the build information.
func Get() Info {
	return Info{
		GitVersion: gitVersion, GitCommit: gitCommit, GitTreeState: gitTreeState, BuildDate: buildDate,
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
		KubernetesVersion: kubernetesVersion(),
	}
}

// kubernetesVersion reads the client-go version linked into the binary from
// its module build information and names the matching Kubernetes release.
func kubernetesVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range bi.Deps {
		if dep.Path != clientGoModule {
			continue
		}
		v := dep.Version
		if dep.Replace != nil && dep.Replace.Version != "" {
			v = dep.Replace.Version
		}
		return kubernetesRelease(v)
	}
	return "unknown"
}

// kubernetesRelease maps a k8s.io staging module version (v0.37.2) to the
// Kubernetes release it ships with (v1.37.2); other versions come back as they are.
func kubernetesRelease(moduleVersion string) string {
	if rest, ok := strings.CutPrefix(moduleVersion, "v0."); ok {
		return "v1." + rest
	}
	return moduleVersion
}

// GitVersion is the version grove-operator was built as; it is also the tag of
// the grove-initc image the operator injects.
func GitVersion() string { return gitVersion }

func (i Info) String() string {
	return fmt.Sprintf("%s (Kubernetes %s, commit %s, tree %s, built %s, %s %s %s)",
		i.GitVersion, i.KubernetesVersion, i.GitCommit, i.GitTreeState, i.BuildDate, i.GoVersion, i.Compiler, i.Platform)
}
