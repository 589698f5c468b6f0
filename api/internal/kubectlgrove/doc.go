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

// Package kubectlgrove is `kubectl grove`, the kubectl plugin that explains a
// PodCliqueSet: `status` prints the tree PodCliqueSet → replicas → scaling
// groups → PodCliques → pods with each PodGang's phase and, for whatever is
// not running, why (the PodGang's Scheduled condition, scheduling gates,
// grove-initc waiting for its parent PodCliques, containers waiting, the last
// Warning events); `why` prints the reason for one pod, PodClique or PodGang.
// It only reads, with the user's kubeconfig, through client-go and the api
// module's clientset.
package kubectlgrove
