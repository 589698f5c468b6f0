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

package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/grove-project/grove/scheduler/pkg/gang"
)

// kubernetesModule is the module grove-scheduler embeds kube-scheduler from;
// its version is the Kubernetes release the scheduler is built on.
const kubernetesModule = "k8s.io/kubernetes"

// version is Grove's release version, stamped at link time with
// -ldflags "-X main.version=…" (make build, make images): the same version
// as grove-operator's, grove-initc's, the images' and the chart's.
var version = "v0.0.0-dev"

// versionLine is what --version prints: Grove's version, then the Kubernetes
// release whose kube-scheduler and scheduling framework grove-scheduler is built on.
func versionLine() string {
	return fmt.Sprintf("grove-scheduler %s (kube-scheduler %s with the %s plugin, %s %s/%s)",
		version, moduleVersion(kubernetesModule), gang.Name, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// moduleVersion is the version of a dependency linked into the binary, taken
// from its module build information (a replaced module reports the replacement's version).
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range bi.Deps {
		if dep.Path != path {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		return dep.Version
	}
	return "unknown"
}
