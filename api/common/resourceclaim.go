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

package common

import "strconv"

// LabelComponentResourceClaim is the LabelComponentKey value of the
// ResourceClaims Grove makes for resourceSharing entries.
const LabelComponentResourceClaim = "resource-claim"

// AllReplicasResourceClaimName is the claim an AllReplicas resourceSharing
// entry makes for its owner: <owner>-all-<template>. The owner is the
// PodCliqueSet, PodCliqueScalingGroup or PodClique by its own name.
func AllReplicasResourceClaimName(owner, template string) string {
	return owner + "-all-" + template
}

// PerReplicaResourceClaimName is the claim a PerReplica resourceSharing
// entry makes for one replica of its owner: <owner>-<index>-<template>, the
// index being the PodCliqueSet replica, the scaling-group replica or the
// pod index, by owner.
func PerReplicaResourceClaimName(owner string, index int32, template string) string {
	return owner + "-" + strconv.Itoa(int(index)) + "-" + template
}
