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

package v1alpha1

// Condition types and reasons written by Grove on its resources.
const (
	// ConditionTypeReady on a PodCliqueSet is True when every replica is
	// available (availableReplicas equals spec.replicas), so that
	// `kubectl wait --for=condition=Ready pcs/NAME` waits for the whole system.
	ConditionTypeReady = "Ready"
	// ConditionTypePodCliqueScheduled is True when a PodClique has at least minAvailable pods scheduled.
	ConditionTypePodCliqueScheduled = "PodCliqueScheduled"
	// ConditionTypeMinAvailableBreached is True when a PodClique or PodCliqueScalingGroup
	// has fewer than minAvailable scheduled or ready pods (or replicas).
	ConditionTypeMinAvailableBreached = "MinAvailableBreached"
	// ConditionTypeGangTerminationInProgress is True while Grove recreates a breached gang.
	ConditionTypeGangTerminationInProgress = "GangTerminationInProgress"
	// ConditionTypeTopologyLevelsUnavailable reports whether the topology levels a
	// PodCliqueSet's constraints name exist.
	ConditionTypeTopologyLevelsUnavailable = "TopologyLevelsUnavailable"
	// ConditionTypeNodesLabelled on a ClusterTopologyBinding is True when at
	// least one node carries the label key of every level; its message counts
	// the nodes and domains of each level.
	ConditionTypeNodesLabelled = "NodesLabelled"
	// ConditionTypeChildNameConflict on a PodCliqueSet is True while objects
	// that the set does not control hold names of its children; Grove leaves
	// them untouched and the message names them. Absent until the first
	// conflict.
	ConditionTypeChildNameConflict = "ChildNameConflict"
	// ConditionTypePodCliqueCreationHeld on a PodCliqueScalingGroup is True
	// while member PodCliques it should have are not created because its
	// PodCliqueSet replica's Coherent update holds them back (a scale-out of
	// a replica that still runs an older template waits for the replica's
	// turn); the message names them and why. Absent until the first hold.
	ConditionTypePodCliqueCreationHeld = "PodCliqueCreationHeld"

	// ConditionReasonAllReplicasAvailable goes with Ready=True; the message
	// counts the available replicas.
	ConditionReasonAllReplicasAvailable = "AllReplicasAvailable"
	// ConditionReasonReplicasUnavailable goes with Ready=False; the message
	// counts the available replicas and names the first unavailable ones.
	ConditionReasonReplicasUnavailable = "ReplicasUnavailable"
	// ConditionReasonCoherentUpdate goes with PodCliqueCreationHeld=True.
	ConditionReasonCoherentUpdate = "CoherentUpdate"
	// ConditionReasonPodCliquesCreated goes with PodCliqueCreationHeld=False:
	// every member PodClique exists.
	ConditionReasonPodCliquesCreated = "PodCliquesCreated"
	// ConditionReasonSufficientScheduledPods goes with PodCliqueScheduled=True.
	ConditionReasonSufficientScheduledPods = "SufficientScheduledPods"
	// ConditionReasonInsufficientScheduledPods goes with PodCliqueScheduled=False.
	ConditionReasonInsufficientScheduledPods = "InsufficientScheduledPods"
	// ConditionReasonScheduledReplicasBelowMinAvailable goes with MinAvailableBreached=True
	// when fewer than minAvailable pods are scheduled.
	ConditionReasonScheduledReplicasBelowMinAvailable = "ScheduledReplicasBelowMinAvailable"
	// ConditionReasonInsufficientReadyPods goes with MinAvailableBreached=True
	// when fewer than minAvailable scheduled pods are healthy.
	ConditionReasonInsufficientReadyPods = "InsufficientReadyPods"
	// ConditionReasonSufficientReadyPods goes with MinAvailableBreached=False on a PodClique.
	ConditionReasonSufficientReadyPods = "SufficientReadyPods"
	// ConditionReasonUpdateInProgress goes with MinAvailableBreached=Unknown during a rolling update.
	ConditionReasonUpdateInProgress = "UpdateInProgress"
	// ConditionReasonInsufficientAvailablePCSGReplicas goes with MinAvailableBreached=True on a PodCliqueScalingGroup.
	ConditionReasonInsufficientAvailablePCSGReplicas = "InsufficientAvailablePodCliqueScalingGroupReplicas"
	// ConditionReasonSufficientAvailablePCSGReplicas goes with MinAvailableBreached=False on a PodCliqueScalingGroup.
	ConditionReasonSufficientAvailablePCSGReplicas = "SufficientAvailablePodCliqueScalingGroupReplicas"
	// ConditionReasonGangTerminationActive goes with GangTerminationInProgress=True.
	ConditionReasonGangTerminationActive = "GangTerminationActive"
	// ConditionReasonScaledToZero goes with PodCliqueScheduled=False and
	// MinAvailableBreached=False on a PodClique or PodCliqueScalingGroup scaled
	// to zero replicas: it wants no pods, so it lacks none.
	ConditionReasonScaledToZero = "ScaledToZero"
	// ConditionReasonAllClusterTopologyLevelsAvailable goes with TopologyLevelsUnavailable=False.
	ConditionReasonAllClusterTopologyLevelsAvailable = "AllClusterTopologyLevelsAvailable"
	// ConditionReasonClusterTopologyLevelsUnavailable goes with TopologyLevelsUnavailable=True.
	ConditionReasonClusterTopologyLevelsUnavailable = "ClusterTopologyLevelsUnavailable"
	// ConditionReasonClusterTopologyNotFound goes with TopologyLevelsUnavailable=Unknown.
	ConditionReasonClusterTopologyNotFound = "ClusterTopologyNotFound"
	// ConditionReasonTopologyNameMissing goes with TopologyLevelsUnavailable=Unknown.
	ConditionReasonTopologyNameMissing = "TopologyNameMissing"
	// ConditionReasonTopologyAwareSchedulingDisabled goes with
	// TopologyLevelsUnavailable=Unknown when the operator does not translate
	// topology constraints.
	ConditionReasonTopologyAwareSchedulingDisabled = "TopologyAwareSchedulingDisabled"
	// ConditionReasonAllLevelsLabelled goes with NodesLabelled=True.
	ConditionReasonAllLevelsLabelled = "AllLevelsLabelled"
	// ConditionReasonLevelsNotLabelled goes with NodesLabelled=False: some
	// level's label key is on no node.
	ConditionReasonLevelsNotLabelled = "LevelsNotLabelled"
	// ConditionReasonChildNamesTaken goes with ChildNameConflict=True.
	ConditionReasonChildNamesTaken = "ChildNamesTaken"
	// ConditionReasonNoChildNameConflict goes with ChildNameConflict=False:
	// the conflicting objects are gone or the set no longer wants their names.
	ConditionReasonNoChildNameConflict = "NoChildNameConflict"
)
