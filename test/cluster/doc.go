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

// Package cluster holds test helpers that work on a whole local cluster (the
// processes of hack/local-cluster): connecting as cluster admin, killing and
// starting its components, snapshotting everything a PodCliqueSet owns,
// checking the invariants Grove keeps for it once the cluster is quiet, and
// dumping diagnostics when a check fails. The checks are pure functions of a
// Snapshot, so their own tests need no cluster.
package cluster
