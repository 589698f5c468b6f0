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

import "fmt"

// Label keys on objects Grove manages.
const (
	// LabelManagedByKey marks every object Grove manages; its value is LabelManagedByValue.
	LabelManagedByKey = "app.kubernetes.io/managed-by"
	// LabelManagedByValue is the value of LabelManagedByKey.
	LabelManagedByValue = "grove-operator"
	// LabelPartOfKey holds the name of the PodCliqueSet an object belongs to.
	LabelPartOfKey = "app.kubernetes.io/part-of"
	// LabelAppNameKey holds the object's own name.
	LabelAppNameKey = "app.kubernetes.io/name"
	// LabelComponentKey says which kind of Grove component an object is.
	LabelComponentKey = "app.kubernetes.io/component"

	// LabelPodClique holds the PodClique name (on pods).
	LabelPodClique = "grove.io/podclique"
	// LabelPodGang holds the PodGang name (on PodCliques and pods).
	LabelPodGang = "grove.io/podgang"
	// LabelBasePodGang holds the base PodGang name on PodCliques and pods that
	// belong to a scaled PodGang.
	LabelBasePodGang = "grove.io/base-podgang"
	// LabelPodCliqueSetGenerationHash holds, on PodCliques and their pods, the
	// PodCliqueSet generation hash at which the PodClique's template was last
	// set, and on PodGangs the one their PodCliques share: the revision.
	LabelPodCliqueSetGenerationHash = "grove.io/podcliqueset-generation-hash"
	// LabelPodCliqueSetReplicaIndex holds the PodCliqueSet replica index.
	LabelPodCliqueSetReplicaIndex = "grove.io/podcliqueset-replica-index"
	// LabelPodCliqueScalingGroup holds the PodCliqueScalingGroup name.
	LabelPodCliqueScalingGroup = "grove.io/podcliquescalinggroup"
	// LabelPodCliqueScalingGroupReplicaIndex holds the PodCliqueScalingGroup replica index.
	LabelPodCliqueScalingGroupReplicaIndex = "grove.io/podcliquescalinggroup-replica-index"
	// LabelPodCliquePodIndex holds a pod's index within its PodClique.
	LabelPodCliquePodIndex = "grove.io/podclique-pod-index"
	// LabelPodTemplateHash holds the hash of the clique template a PodClique or pod was built from.
	LabelPodTemplateHash = "grove.io/pod-template-hash"
	// LabelSchedulerName on a PodGang names the scheduler backend that handles it.
	LabelSchedulerName = "grove.io/scheduler-name"
	// LabelPodCliqueTemplateName holds the name of the clique template (in the
	// PodCliqueSet) a PodClique or pod was built from. Grove matches objects to
	// templates by this label, never by parsing names.
	LabelPodCliqueTemplateName = "grove.io/podclique-template-name"
	// AnnotationVolcanoQueue on a PodCliqueSet names the Volcano queue of its
	// PodGangs when the volcano scheduler backend handles it.
	AnnotationVolcanoQueue = "scheduling.grove.io/volcano-queue"
	// KAIQueue, as a label or an annotation on a PodCliqueSet, names the KAI
	// queue of its PodGangs when the kai-scheduler backend handles it (the
	// label wins). The key is KAI's own queue label.
	KAIQueue = "kai.scheduler/queue"
)

// Values of LabelComponentKey.
const (
	LabelComponentHeadlessService = "pcs-headless-service"
	LabelComponentRole            = "pod-role"
	LabelComponentRoleBinding     = "pod-role-binding"
	LabelComponentServiceAccount  = "pod-service-account"
	LabelComponentSATokenSecret   = "pod-sa-token-secret"
	LabelComponentPCSG            = "pcs-podcliquescalinggroup"
	LabelComponentHPA             = "pcs-hpa"
	LabelComponentPodGang         = "podgang"
	LabelComponentPCSPodClique    = "pcs-podclique"
	LabelComponentPCSGPodClique   = "pcsg-podclique"
	LabelComponentComputeDomain   = "pcs-computedomain"
)

// Annotation keys.
const (
	// AnnotationReconcileTrigger on a PodCliqueSet forces a reconcile when its value changes.
	AnnotationReconcileTrigger = "grove.io/reconcile-trigger"
	// AnnotationDisableManagedResourceProtection "true" on a PodCliqueSet lets
	// anyone with RBAC rights change its children despite the authorizer webhook.
	AnnotationDisableManagedResourceProtection = "grove.io/disable-managed-resource-protection"
	// AnnotationTopologyName on a PodGang names the ClusterTopologyBinding its constraints were translated with.
	AnnotationTopologyName = "grove.io/topology-name"
	// AnnotationStartsAfter on a pod lists the PodCliques it waits for, comma separated.
	AnnotationStartsAfter = "grove.io/starts-after"
	// AnnotationServiceAccountName is the annotation binding a token Secret to its ServiceAccount.
	AnnotationServiceAccountName = "kubernetes.io/service-account.name"
	// AnnotationTemplateReplicas on a PodClique or PodCliqueScalingGroup records
	// the template replicas last applied to it, so a later template change is
	// propagated while a kubectl scale on the child persists until then.
	AnnotationTemplateReplicas = "grove.io/template-replicas"
	// AnnotationMNNVLGroup on a PodCliqueSet, a scaling-group config or a
	// clique template names the multi-node NVLink group its GPU cliques share
	// a ComputeDomain in; the nearest one wins (clique, scaling group, set).
	// MNNVLGroupNone opts out. On a ComputeDomain it names the group.
	AnnotationMNNVLGroup = "grove.io/mnnvl-group"
	// MNNVLGroupNone as AnnotationMNNVLGroup opts out of MNNVL.
	MNNVLGroupNone = "none"
)

// Scheduling gate and finalizers.
const (
	// PodGangSchedulingGate holds a pod back until it is referenced by its PodGang.
	PodGangSchedulingGate = "grove.io/podgang-pending-creation"
	// FinalizerComputeDomain keeps a ComputeDomain until the operator removes
	// it on its PodCliqueSet's deletion.
	FinalizerComputeDomain = "grove.io/computedomain-finalizer"
	// FinalizerPodCliqueSet is the PodCliqueSet finalizer.
	FinalizerPodCliqueSet = "grove.io/podcliqueset.grove.io"
	// FinalizerPodClique is the PodClique finalizer.
	FinalizerPodClique = "grove.io/podclique.grove.io"
	// FinalizerPodCliqueScalingGroup is the PodCliqueScalingGroup finalizer.
	FinalizerPodCliqueScalingGroup = "grove.io/podcliquescalinggroup.grove.io"
)

// DefaultLabels are the labels every object of a PodCliqueSet carries.
func DefaultLabels(pcsName string) map[string]string {
	return map[string]string{
		LabelManagedByKey: LabelManagedByValue,
		LabelPartOfKey:    pcsName,
	}
}

// PodCliqueSetSelector is the label selector of all pods of a PodCliqueSet,
// published in status.hpaPodSelector.
func PodCliqueSetSelector(pcsName string) string {
	return fmt.Sprintf("%s=%s,%s=%s", LabelManagedByKey, LabelManagedByValue, LabelPartOfKey, pcsName)
}

// PodCliqueSelector is the label selector of the pods of one PodClique.
func PodCliqueSelector(pcsName, pclqName string) string {
	return fmt.Sprintf("%s,%s=%s", PodCliqueSetSelector(pcsName), LabelPodClique, pclqName)
}

// PodCliqueScalingGroupSelector is the label selector of the pods of one PodCliqueScalingGroup.
func PodCliqueScalingGroupSelector(pcsName, pcsgName string) string {
	return fmt.Sprintf("%s,%s=%s", PodCliqueSetSelector(pcsName), LabelPodCliqueScalingGroup, pcsgName)
}
