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

// Command kubectl-grove is the kubectl plugin `kubectl grove`: it explains a
// PodCliqueSet (status) or one of its pods, PodCliques or PodGangs (why).
// Install it with `go install github.com/grove-project/grove/api/cmd/kubectl-grove@latest`
// or Krew; kubectl finds it on the PATH.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/grove-project/grove/api/internal/kubectlgrove"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := kubectlgrove.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
