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

// Package faults is Grove's fault suite. On the local cluster of
// hack/local-cluster it kills one component with SIGKILL (kube-apiserver,
// etcd, grove-operator, grove-scheduler or kube-controller-manager) at a
// random moment while a PodCliqueSet of a few hundred pods is being created,
// scaled out, scaled in, updated or deleted, starts it again after a short
// random outage, and checks the invariants of package test/cluster once the
// cluster is quiet: exact pods per PodClique with unique indices and
// hostnames 0..n-1, no PodGang partly bound, PodGangs referencing exactly
// their pods, nothing left after deletion, status converged, and every
// component recovered by itself. The moments come from a printed seed, so a
// run can be replayed.
//
// The specs carry the build tag faults; run them with `make e2e-faults`.
package faults
