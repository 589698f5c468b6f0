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

import (
	"fmt"
	"strconv"
)

// MaxCombinedResourceNameLength bounds the sum of the user-chosen parts of a
// generated name: len(pcs) + len(clique) for a standalone clique, plus
// len(scaling group) for a scaling-group member. With it, pod names
// (<pcs>-<i>-[<sg>-<j>-]<clique>-<5 random>) and pod hostnames stay within the
// 63 characters of a DNS label, leaving room for hyphens and replica indices.
const MaxCombinedResourceNameLength = 45

// CombinedNameLength is the length the name budget counts for a clique: the
// PodCliqueSet name, the clique name and, for a scaling-group member, the
// scaling group name.
func CombinedNameLength(pcsName, cliqueName, scalingGroupName string) int {
	return len(pcsName) + len(cliqueName) + len(scalingGroupName)
}

// CheckNameLength returns an error when a clique's names exceed the budget of
// MaxCombinedResourceNameLength. scalingGroupName is empty for a standalone clique.
func CheckNameLength(pcsName, cliqueName, scalingGroupName string) error {
	n := CombinedNameLength(pcsName, cliqueName, scalingGroupName)
	if n <= MaxCombinedResourceNameLength {
		return nil
	}
	if scalingGroupName == "" {
		return fmt.Errorf("combined length of PodCliqueSet name %q and clique name %q is %d, more than %d characters",
			pcsName, cliqueName, n, MaxCombinedResourceNameLength)
	}
	return fmt.Errorf("combined length of PodCliqueSet name %q, scaling group name %q and clique name %q is %d, more than %d characters",
		pcsName, scalingGroupName, cliqueName, n, MaxCombinedResourceNameLength)
}

func join(base string, index int32, suffix string) string {
	return base + "-" + strconv.Itoa(int(index)) + "-" + suffix
}

// PodCliqueSetReplicaName is <pcs>-<i>: the name of a replica's headless
// Service and of its base PodGang, and the pods' subdomain.
func PodCliqueSetReplicaName(pcsName string, replicaIndex int32) string {
	return pcsName + "-" + strconv.Itoa(int(replicaIndex))
}

// HeadlessServiceName is the name of the headless Service of a PodCliqueSet replica.
func HeadlessServiceName(pcsName string, replicaIndex int32) string {
	return PodCliqueSetReplicaName(pcsName, replicaIndex)
}

// HeadlessServiceAddress is the cluster DNS name of a replica's headless Service.
func HeadlessServiceAddress(pcsName string, replicaIndex int32, namespace string) string {
	return fmt.Sprintf("%s.%s.svc.cluster.local", HeadlessServiceName(pcsName, replicaIndex), namespace)
}

// BasePodGangName is the name of the base PodGang of a PodCliqueSet replica.
func BasePodGangName(pcsName string, replicaIndex int32) string {
	return PodCliqueSetReplicaName(pcsName, replicaIndex)
}

// PodCliqueName is the name of a standalone PodClique: <pcs>-<i>-<clique>.
func PodCliqueName(pcsName string, replicaIndex int32, cliqueName string) string {
	return join(pcsName, replicaIndex, cliqueName)
}

// PodCliqueScalingGroupName is the name of a PodCliqueScalingGroup: <pcs>-<i>-<sg>.
func PodCliqueScalingGroupName(pcsName string, replicaIndex int32, scalingGroupName string) string {
	return join(pcsName, replicaIndex, scalingGroupName)
}

// ScalingGroupPodCliqueName is the name of a scaling-group member PodClique:
// <pcsg>-<j>-<clique>.
func ScalingGroupPodCliqueName(pcsgName string, pcsgReplicaIndex int32, cliqueName string) string {
	return join(pcsgName, pcsgReplicaIndex, cliqueName)
}

// ScaledPodGangName is the name of the PodGang of scaling-group replica j,
// for j >= minAvailable: <pcsg>-<j-minAvailable>.
func ScaledPodGangName(pcsgName string, pcsgReplicaIndex, minAvailable int32) string {
	return pcsgName + "-" + strconv.Itoa(int(pcsgReplicaIndex-minAvailable))
}

// PodGangNameForScalingGroupReplica is the PodGang a scaling-group replica
// belongs to: the base PodGang for j < minAvailable, its scaled PodGang otherwise.
func PodGangNameForScalingGroupReplica(pcsName string, pcsReplicaIndex int32, pcsgName string, pcsgReplicaIndex, minAvailable int32) string {
	if pcsgReplicaIndex < minAvailable {
		return BasePodGangName(pcsName, pcsReplicaIndex)
	}
	return ScaledPodGangName(pcsgName, pcsgReplicaIndex, minAvailable)
}

// TopologyConstraintGroupConfigName names the group config of scaling-group
// replica j inside a base PodGang: <pcsg>-<j>.
func TopologyConstraintGroupConfigName(pcsgName string, pcsgReplicaIndex int32) string {
	return pcsgName + "-" + strconv.Itoa(int(pcsgReplicaIndex))
}

// PodGenerateName is the generateName of a PodClique's pods: <pclq>-.
func PodGenerateName(pclqName string) string {
	return pclqName + "-"
}

// PodHostname is the hostname of a pod: <pclq>-<podIndex>.
func PodHostname(pclqName string, podIndex int) string {
	return pclqName + "-" + strconv.Itoa(podIndex)
}

// InitcServiceAccountName is the ServiceAccount grove-initc runs as: <pcs>.
func InitcServiceAccountName(pcsName string) string {
	return pcsName
}

// InitcRoleName is the name of the Role (and RoleBinding) grove-initc uses: grove.io:pcs:<pcs>.
func InitcRoleName(pcsName string) string {
	return "grove.io:pcs:" + pcsName
}

// InitcRoleBindingName is the name of grove-initc's RoleBinding.
func InitcRoleBindingName(pcsName string) string {
	return InitcRoleName(pcsName)
}

// InitcTokenSecretName is the token Secret mounted into grove-initc: <pcs>-ic-sat.
func InitcTokenSecretName(pcsName string) string {
	return pcsName + "-ic-sat"
}

// HorizontalPodAutoscalerName is the name of the HPA of a PodClique or
// PodCliqueScalingGroup: the target's name.
func HorizontalPodAutoscalerName(targetName string) string {
	return targetName
}
