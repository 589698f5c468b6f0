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

// Package e2e is Grove's end-to-end suite. It runs against the local cluster
// of hack/local-cluster (etcd, kube-apiserver, kube-controller-manager, kwok
// fake nodes, grove-scheduler and grove-operator as processes) and checks what
// only a whole cluster shows: the tutorial's names and scaling steps, garbage
// collection, gang scheduling under starved capacity, HPAs and /scale.
//
// The specs carry the build tag e2e; run them with `make e2e`.
package e2e
