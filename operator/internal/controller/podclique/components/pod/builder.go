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

package pod

import (
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/mnnvl"
	"github.com/grove-project/grove/operator/internal/resourceclaim"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// Identity says where a PodClique sits in its PodCliqueSet. It is read from
// the PodClique's labels (set by the PodCliqueSet and scaling-group
// controllers), never parsed from names.
type Identity struct {
	PCSName         string
	PCSReplicaIndex int32
	// TemplateName is the clique template the PodClique was built from.
	TemplateName string
	// PCSGName is the PodCliqueScalingGroup name; empty for a standalone clique.
	PCSGName string
	// PCSGReplicaIndex is the scaling-group replica index (members only).
	PCSGReplicaIndex int32
	// PodGangName is the PodGang the PodClique's pods belong to.
	PodGangName string
	// BasePodGangName is set when the pods belong to a scaled PodGang.
	BasePodGangName string
}

// IdentityOf reads a PodClique's identity from its labels.
func IdentityOf(pclq *grovecorev1alpha1.PodClique) (Identity, error) {
	l := pclq.Labels
	id := Identity{
		PCSName:         l[apicommon.LabelPartOfKey],
		TemplateName:    l[apicommon.LabelPodCliqueTemplateName],
		PCSGName:        l[apicommon.LabelPodCliqueScalingGroup],
		PodGangName:     l[apicommon.LabelPodGang],
		BasePodGangName: l[apicommon.LabelBasePodGang],
	}
	for key, val := range map[string]string{
		apicommon.LabelPartOfKey: id.PCSName, apicommon.LabelPodCliqueTemplateName: id.TemplateName, apicommon.LabelPodGang: id.PodGangName,
	} {
		if val == "" {
			return id, fmt.Errorf("PodClique %s/%s has no label %s", pclq.Namespace, pclq.Name, key)
		}
	}
	idx, err := indexLabel(l, apicommon.LabelPodCliqueSetReplicaIndex)
	if err != nil {
		return id, fmt.Errorf("PodClique %s/%s: %w", pclq.Namespace, pclq.Name, err)
	}
	id.PCSReplicaIndex = idx
	if id.PCSGName != "" {
		if id.PCSGReplicaIndex, err = indexLabel(l, apicommon.LabelPodCliqueScalingGroupReplicaIndex); err != nil {
			return id, fmt.Errorf("PodClique %s/%s: %w", pclq.Namespace, pclq.Name, err)
		}
	}
	return id, nil
}

func indexLabel(labels map[string]string, key string) (int32, error) {
	v, ok := labels[key]
	if !ok {
		return 0, fmt.Errorf("missing label %s", key)
	}
	i, err := strconv.ParseInt(v, 10, 32)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("label %s=%q is not a replica index", key, v)
	}
	return int32(i), nil
}

// Builder builds the pods of one PodClique.
type Builder struct {
	PCLQ     *grovecorev1alpha1.PodClique
	PCS      *grovecorev1alpha1.PodCliqueSet
	Identity Identity
	Backend  backend.Backend
	// InitContainerImage is the grove-initc image and its pull policy.
	InitContainerImage startuporder.Image
	// MNNVLGroup is the clique's grove.io/mnnvl-group when MNNVL is enabled
	// and the clique is enrolled: its pods get the claim of the replica's
	// ComputeDomain.
	MNNVLGroup         string
	parents            []startuporder.Parent
	pcsgPodIndexOffset int
	pcsgTemplatePods   int
}

// NewBuilder prepares a builder: it resolves the startup dependencies and,
// for scaling-group members, the rank offset of the clique in its group.
func NewBuilder(pclq *grovecorev1alpha1.PodClique, pcs *grovecorev1alpha1.PodCliqueSet, id Identity, be backend.Backend, initcImage startuporder.Image) (*Builder, error) {
	b := &Builder{PCLQ: pclq, PCS: pcs, Identity: id, Backend: be, InitContainerImage: initcImage}
	parents, err := startuporder.Parents(pcs, id.PCSReplicaIndex, id.TemplateName, id.PCSGReplicaIndex)
	if err != nil {
		return nil, fmt.Errorf("resolving startup dependencies of %s: %w", pclq.Name, err)
	}
	b.parents = parents
	if id.PCSGName != "" {
		offset, total, err := scalingGroupRank(pcs, id.TemplateName)
		if err != nil {
			return nil, err
		}
		b.pcsgPodIndexOffset, b.pcsgTemplatePods = offset, total
	}
	return b, nil
}

// scalingGroupRank returns, for a clique in a scaling group, the number of
// template pods of the cliques listed before it in cliqueNames (its rank
// offset, design decision 7) and the template pods of one group replica.
func scalingGroupRank(pcs *grovecorev1alpha1.PodCliqueSet, cliqueName string) (offset, total int, err error) {
	replicas := map[string]int{}
	for _, c := range pcs.Spec.Template.Cliques {
		replicas[c.Name] = int(c.Spec.Replicas)
	}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		found := false
		offset, total = 0, 0
		for _, name := range g.CliqueNames {
			if name == cliqueName {
				found = true
			}
			if !found {
				offset += replicas[name]
			}
			total += replicas[name]
		}
		if found {
			return offset, total, nil
		}
	}
	return 0, 0, fmt.Errorf("clique %q is in no scaling group of PodCliqueSet %s", cliqueName, pcs.Name)
}

// Build returns the pod with the given index in the PodClique.
func (b *Builder) Build(podIndex int) *corev1.Pod {
	pclq, id := b.PCLQ, b.Identity
	labels := maps.Clone(pclq.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, apicommon.DefaultLabels(id.PCSName))
	labels[apicommon.LabelPodClique] = pclq.Name
	labels[apicommon.LabelPodCliquePodIndex] = strconv.Itoa(podIndex)
	// The PodClique's own name label would be misleading on a pod.
	delete(labels, apicommon.LabelAppNameKey)

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: apicommon.PodGenerateName(pclq.Name),
			Namespace:    pclq.Namespace,
			Labels:       labels,
			Annotations:  maps.Clone(pclq.Annotations),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         grovecorev1alpha1.SchemeGroupVersion.String(),
				Kind:               "PodClique",
				Name:               pclq.Name,
				UID:                pclq.UID,
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: *pclq.Spec.PodSpec.DeepCopy(),
	}
	// What the PodClique records about its own writes is not the pods'.
	delete(pod.Annotations, apicommon.AnnotationTemplateReplicas)
	delete(pod.Annotations, childsync.AppliedHashAnnotation)
	// Cliques are long-running roles; the admission webhook warns that any
	// other restartPolicy is ignored.
	pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
	// Pods run at their gang's priority (the PodGang carries the same class),
	// so kubelet eviction and preemption see what the scheduler ranks by; a
	// class the clique's own pod spec names wins.
	if pod.Spec.PriorityClassName == "" {
		pod.Spec.PriorityClassName = b.PCS.Spec.Template.PriorityClassName
	}
	pod.Spec.Hostname = apicommon.PodHostname(pclq.Name, podIndex)
	pod.Spec.Subdomain = apicommon.HeadlessServiceName(id.PCSName, id.PCSReplicaIndex)
	// Grove's gate holds the pod until its PodGang references it; gates other
	// controllers put in the template are kept.
	pod.Spec.SchedulingGates = append(withoutGate(pod.Spec.SchedulingGates), corev1.PodSchedulingGate{Name: apicommon.PodGangSchedulingGate})

	env := b.groveEnv(podIndex)
	for i := range pod.Spec.InitContainers {
		pod.Spec.InitContainers[i].Env = prependEnv(env, pod.Spec.InitContainers[i].Env)
	}
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].Env = prependEnv(env, pod.Spec.Containers[i].Env)
	}
	resourceclaim.Inject(pod, b.claimsOf(podIndex))
	if b.MNNVLGroup != "" {
		mnnvl.Inject(pod, mnnvl.Name(id.PCSName, id.PCSReplicaIndex, b.MNNVLGroup))
	}
	b.Backend.PreparePod(pod)
	startuporder.InjectInitContainer(pod, id.PCSName, b.InitContainerImage, b.parents)
	return pod
}

// groveEnv returns the GROVE_* variables of a pod, in their documented order.
func (b *Builder) groveEnv(podIndex int) []corev1.EnvVar {
	id := b.Identity
	env := []corev1.EnvVar{
		{Name: apicommon.EnvPCSName, Value: id.PCSName},
		{Name: apicommon.EnvPCSIndex, Value: strconv.Itoa(int(id.PCSReplicaIndex))},
		{Name: apicommon.EnvPCLQName, Value: b.PCLQ.Name},
		{Name: apicommon.EnvHeadlessService, Value: apicommon.HeadlessServiceAddress(id.PCSName, id.PCSReplicaIndex, b.PCLQ.Namespace)},
		{Name: apicommon.EnvPCLQPodIndex, Value: strconv.Itoa(podIndex)},
	}
	if id.PCSGName != "" {
		env = append(env,
			corev1.EnvVar{Name: apicommon.EnvPCSGName, Value: id.PCSGName},
			corev1.EnvVar{Name: apicommon.EnvPCSGTemplateNumPods, Value: strconv.Itoa(b.pcsgTemplatePods)},
			corev1.EnvVar{Name: apicommon.EnvPCSGIndex, Value: strconv.Itoa(int(id.PCSGReplicaIndex))},
			corev1.EnvVar{Name: apicommon.EnvPCSGPodIndex, Value: strconv.Itoa(b.pcsgPodIndexOffset + podIndex)},
		)
	}
	return env
}

// prependEnv puts Grove's variables first, so template variables can refer to
// them with $(GROVE_…), and drops user variables with a reserved name.
func prependEnv(grove, user []corev1.EnvVar) []corev1.EnvVar {
	reserved := make(map[string]bool, len(grove))
	for _, e := range grove {
		reserved[e.Name] = true
	}
	out := make([]corev1.EnvVar, 0, len(grove)+len(user))
	out = append(out, grove...)
	for _, e := range user {
		if !reserved[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

func withoutGate(gates []corev1.PodSchedulingGate) []corev1.PodSchedulingGate {
	out := make([]corev1.PodSchedulingGate, 0, len(gates)+1)
	for _, g := range gates {
		if g.Name != apicommon.PodGangSchedulingGate {
			out = append(out, g)
		}
	}
	return out
}

// HasGroveGate reports whether a pod still carries Grove's scheduling gate.
func HasGroveGate(pod *corev1.Pod) bool {
	for _, g := range pod.Spec.SchedulingGates {
		if g.Name == apicommon.PodGangSchedulingGate {
			return true
		}
	}
	return false
}
