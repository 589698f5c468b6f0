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

// Environment variables Grove prepends to every container of its pods. The
// names are reserved: a user variable with the same name is dropped.
const (
	// EnvPCSName is the PodCliqueSet name.
	EnvPCSName = "GROVE_PCS_NAME"
	// EnvPCSIndex is the PodCliqueSet replica index.
	EnvPCSIndex = "GROVE_PCS_INDEX"
	// EnvPCLQName is the PodClique name.
	EnvPCLQName = "GROVE_PCLQ_NAME"
	// EnvHeadlessService is the DNS name of the replica's headless Service.
	EnvHeadlessService = "GROVE_HEADLESS_SERVICE"
	// EnvPCLQPodIndex is the pod's index within its PodClique.
	EnvPCLQPodIndex = "GROVE_PCLQ_POD_INDEX"
	// EnvPCSGName is the PodCliqueScalingGroup name (scaling-group members only).
	EnvPCSGName = "GROVE_PCSG_NAME"
	// EnvPCSGTemplateNumPods is the number of pods in one scaling-group replica
	// according to the template (scaling-group members only).
	EnvPCSGTemplateNumPods = "GROVE_PCSG_TEMPLATE_NUM_PODS"
	// EnvPCSGIndex is the scaling-group replica index (scaling-group members only).
	EnvPCSGIndex = "GROVE_PCSG_INDEX"
	// EnvPCSGPodIndex is the pod's rank across its scaling-group replica:
	// the template replicas of the cliques listed before its clique plus its
	// pod index (scaling-group members only).
	EnvPCSGPodIndex = "GROVE_PCSG_POD_INDEX"
)

// Files and paths of the grove-initc contract.
const (
	// InitContainerName is the name of the injected startup-ordering init container.
	InitContainerName = "grove-initc"
	// PodInfoMountPath is where the downward-API pod info is mounted in grove-initc.
	PodInfoMountPath = "/var/grove/pod-info"
	// PodInfoNamespaceFile holds the pod's namespace.
	PodInfoNamespaceFile = "namespace"
	// PodInfoPodGangFile holds the pod's PodGang name.
	PodInfoPodGangFile = "podgangname"
	// ServiceAccountTokenMountPath is where grove-initc's token is mounted.
	ServiceAccountTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
)
