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

// Command grove-initc is the init container Grove injects into pods of
// PodCliques with startup dependencies. It exits 0 once every parent PodClique
// named by --podcliques=<podclique-name>:<minAvailable> has at least
// minAvailable Ready pods in the pod's own PodGang. See
// docs/startup-ordering.md for flags and exit codes.
package main

import (
	"os"

	"github.com/grove-project/grove/initc/internal/command"
)

func main() {
	os.Exit(command.Main())
}
