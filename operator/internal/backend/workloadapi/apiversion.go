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

package workloadapi

// The one place that names the Workload API version. Kubernetes 1.37 serves
// the Workload and PodGroup kinds as scheduling.k8s.io/v1beta1 and the
// builder's declarative-validation inputs as v1alpha3; 1.38 plans
// scheduling.k8s.io/v1. Moving there changes the imports and aliases of this
// file (and the builder's version with the k8s.io/* libraries), nothing else.

import (
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
)

type (
	workload         = schedulingv1beta1.Workload
	podGroup         = schedulingv1beta1.PodGroup
	podGroupList     = schedulingv1beta1.PodGroupList
	podGroupTemplate = schedulingv1beta1.PodGroupTemplate

	// The builder's inputs: the building blocks as a controller's own API
	// would embed them, checked by the builder's declarative validation.
	policyInput      = schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy
	gangPolicyInput  = schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy
	basicPolicyInput = schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy
	constraintsInput = schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints
	topologyInput    = schedulingv1alpha3.TopologyConstraint
)

// The Workload API's limits: templates in one list of a Workload (pod group
// templates, or composite templates), and how deep composite templates nest.
const (
	MaxPodGroupTemplates = schedulingv1beta1.WorkloadMaxPodGroupTemplates
	maxTreeDepth         = schedulingv1beta1.WorkloadMaxTreeDepth
)

// newBuilder is the upstream helper that compiles a WorkloadItem into the
// Workload and PodGroup objects of this API version.
var newBuilder = workloadbuilder.NewBuilder
