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

// Package core holds the gang bookkeeping behind the GroveGang plugin, one
// concern per file:
//
//   - manager.go: the Manager, fed by the PodGang, pod and node informers
//     (digested PodGangs, which pods of each gang are reserved or bound);
//   - phase.go: each gang's Phase and its transition table;
//   - queue.go: PreEnqueue and the queue order;
//   - feasibility.go and placement.go: the PreFilter feasibility check and the
//     topology-aware placement search;
//   - groupcycle.go: the group-level cycle, the gang's plan of its minimum set
//     and the pinning of its pods to their planned nodes;
//   - affinity.go and volumes.go: inter-pod (anti-)affinity, host ports and
//     the volume topology of pods' claims in that search;
//   - devices.go and claims.go: DRA ResourceClaims allocated in that search
//     (a shared claim once), and the writes of those allocations before the
//     gang reserves, given back when its attempt fails;
//   - nofit.go: the message of a gang that does not fit;
//   - permit.go: Reserve, Permit and the release of a failed gang;
//   - preemption.go and disruption.go: whole-gang preemption and the
//     PodDisruptionBudgets it weighs;
//   - siblings.go: the order among the gangs of one PodCliqueSet;
//   - hints.go: the cluster events that can make a rejected gang pod schedulable;
//   - status.go: the PodGang status writer.
//
// The plugin facade in package gang only translates framework calls into calls
// on the Manager.
package core
