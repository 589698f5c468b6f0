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

package desired

import (
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	grovecoreac "github.com/grove-project/grove/api/client/applyconfiguration/core/v1alpha1"
	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// Member places a PodClique in a replica of a PodCliqueScalingGroup.
type Member struct {
	// PCSGName is the PodCliqueScalingGroup's name.
	PCSGName string
	// ReplicaIndex is the scaling-group replica index j.
	ReplicaIndex int32
	// MinAvailable is the scaling group's minAvailable: replicas below it are
	// in the base PodGang, the others each in a scaled PodGang.
	MinAvailable int32
}

// PodClique builds the PodClique of clique template tmpl in PodCliqueSet
// replica pcsReplica: standalone (member nil, owned by the PodCliqueSet) or
// a scaling-group member (owned by owner, the PodCliqueScalingGroup).
// spec.replicas is the template's; callers keep a live value with Replicas.
// templateHash is the template's hash.PodTemplateHash (see hash.CliqueHashes),
// genHash the PodCliqueSet's generation hash (the revision).
func PodClique(scheme *runtime.Scheme, pcs *grovecorev1alpha1.PodCliqueSet, pcsReplica int32, tmpl *grovecorev1alpha1.PodCliqueTemplateSpec, templateHash, genHash string, member *Member, owner client.Object) (*grovecorev1alpha1.PodClique, error) {
	basePodGang := apicommon.BasePodGangName(pcs.Name, pcsReplica)
	grove := map[string]string{
		apicommon.LabelManagedByKey:               apicommon.LabelManagedByValue,
		apicommon.LabelPartOfKey:                  pcs.Name,
		apicommon.LabelComponentKey:               apicommon.LabelComponentPCSPodClique,
		apicommon.LabelPodCliqueSetReplicaIndex:   ReplicaIndexLabel(pcsReplica),
		apicommon.LabelPodGang:                    basePodGang,
		apicommon.LabelPodTemplateHash:            templateHash,
		apicommon.LabelPodCliqueSetGenerationHash: genHash,
		apicommon.LabelPodCliqueTemplateName:      tmpl.Name,
	}
	var name string
	pcsgReplica := int32(0)
	if member == nil {
		name = apicommon.PodCliqueName(pcs.Name, pcsReplica, tmpl.Name)
	} else {
		pcsgReplica = member.ReplicaIndex
		name = apicommon.ScalingGroupPodCliqueName(member.PCSGName, member.ReplicaIndex, tmpl.Name)
		grove[apicommon.LabelComponentKey] = apicommon.LabelComponentPCSGPodClique
		grove[apicommon.LabelPodCliqueScalingGroup] = member.PCSGName
		grove[apicommon.LabelPodCliqueScalingGroupReplicaIndex] = ReplicaIndexLabel(member.ReplicaIndex)
		grove[apicommon.LabelPodGang] = apicommon.PodGangNameForScalingGroupReplica(pcs.Name, pcsReplica, member.PCSGName, member.ReplicaIndex, member.MinAvailable)
		if member.ReplicaIndex >= member.MinAvailable {
			grove[apicommon.LabelBasePodGang] = basePodGang
		}
	}
	grove[apicommon.LabelAppNameKey] = name

	annotations := merge(tmpl.Annotations)
	delete(annotations, apicommon.AnnotationTopologyName)
	annotations[apicommon.AnnotationTemplateReplicas] = strconv.Itoa(int(tmpl.Spec.Replicas))

	pclq := &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   pcs.Namespace,
			Labels:      merge(tmpl.Labels, grove),
			Annotations: annotations,
			Finalizers:  []string{apicommon.FinalizerPodClique},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	if pclq.Spec.MinAvailable == nil {
		minAvailable := pclq.Spec.Replicas
		pclq.Spec.MinAvailable = &minAvailable
	}
	parents, err := startuporder.Parents(pcs, pcsReplica, tmpl.Name, pcsgReplica)
	if err != nil {
		return nil, fmt.Errorf("resolving startup order of %s: %w", name, err)
	}
	pclq.Spec.StartsAfter = nil
	for _, p := range parents {
		pclq.Spec.StartsAfter = append(pclq.Spec.StartsAfter, p.Name)
	}
	if err := controllerutil.SetControllerReference(owner, pclq, scheme); err != nil {
		return nil, err
	}
	return pclq, nil
}

// Replicas decides spec.replicas of an existing PodClique or
// PodCliqueScalingGroup (design decision 3): an autoscaled child keeps its
// live value; otherwise a kubectl scale on the child persists until the
// template value changes from the one recorded in AnnotationTemplateReplicas.
func Replicas(live int32, liveAnnotations map[string]string, templateReplicas int32, autoscaled bool) int32 {
	if autoscaled {
		return live
	}
	if liveAnnotations[apicommon.AnnotationTemplateReplicas] == strconv.Itoa(int(templateReplicas)) {
		return live
	}
	return templateReplicas
}

// PodCliqueApply is the apply configuration of want without spec.replicas,
// which Grove sets only at creation and when the template's value changes
// (see Replicas and childsync.Scale).
func PodCliqueApply(want *grovecorev1alpha1.PodClique) (*grovecoreac.PodCliqueApplyConfiguration, error) {
	ac := &grovecoreac.PodCliqueApplyConfiguration{}
	if err := convert(want, ac); err != nil {
		return nil, fmt.Errorf("building the apply configuration of PodClique %s: %w", want.Name, err)
	}
	ac.WithKind("PodClique").WithAPIVersion(grovecorev1alpha1.SchemeGroupVersion.String())
	ac.Status = nil
	if ac.Spec != nil {
		ac.Spec.Replicas = nil
	}
	return ac, nil
}

// PodCliqueScalingGroupApply is the apply configuration of want without
// spec.replicas.
func PodCliqueScalingGroupApply(want *grovecorev1alpha1.PodCliqueScalingGroup) (*grovecoreac.PodCliqueScalingGroupApplyConfiguration, error) {
	ac := &grovecoreac.PodCliqueScalingGroupApplyConfiguration{}
	if err := convert(want, ac); err != nil {
		return nil, fmt.Errorf("building the apply configuration of PodCliqueScalingGroup %s: %w", want.Name, err)
	}
	ac.WithKind("PodCliqueScalingGroup").WithAPIVersion(grovecorev1alpha1.SchemeGroupVersion.String())
	ac.Status = nil
	if ac.Spec != nil {
		ac.Spec.Replicas = nil
	}
	return ac, nil
}

// convert fills an apply configuration from the typed object built for
// creation. Both share the JSON form; optional fields of Grove's types are
// omitted when unset, so the apply sets what the PodCliqueSet asks for.
func convert(typed, ac any) error {
	raw, err := json.Marshal(typed)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, ac)
}

// PodCliqueScale is the childsync.Scale of a PodClique of the clique
// template spec: its replicas at creation, then Replicas.
func PodCliqueScale(spec *grovecorev1alpha1.PodCliqueSpec) *childsync.Scale {
	return scale(spec.Replicas, spec.AutoScalingConfig != nil, func(live client.Object) (int32, map[string]string) {
		p, ok := live.(*grovecorev1alpha1.PodClique)
		if !ok {
			return 0, nil
		}
		return p.Spec.Replicas, p.Annotations
	})
}

// ScalingGroupScale is the childsync.Scale of a PodCliqueScalingGroup of
// the scaling-group config cfg.
func ScalingGroupScale(cfg *grovecorev1alpha1.PodCliqueScalingGroupConfig) *childsync.Scale {
	return scale(ScalingGroupReplicas(cfg), cfg.ScaleConfig != nil, func(live client.Object) (int32, map[string]string) {
		g, ok := live.(*grovecorev1alpha1.PodCliqueScalingGroup)
		if !ok {
			return 0, nil
		}
		return g.Spec.Replicas, g.Annotations
	})
}

func scale(templateReplicas int32, autoscaled bool, of func(client.Object) (int32, map[string]string)) *childsync.Scale {
	return &childsync.Scale{
		Initial: templateReplicas,
		Want: func(live client.Object) (int32, int32) {
			current, annotations := of(live)
			return current, Replicas(current, annotations, templateReplicas, autoscaled)
		},
	}
}
