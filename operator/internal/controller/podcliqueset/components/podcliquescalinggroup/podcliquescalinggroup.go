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

// Package podcliquescalinggroup manages the PodCliqueScalingGroups of a
// PodCliqueSet, <pcs>-<i>-<sg> for every replica i and scaling-group config.
package podcliquescalinggroup

// +kubebuilder:rbac:groups=grove.io,resources=podcliquescalinggroups,verbs=get;list;watch;create;patch;delete

import (
	"context"
	"strconv"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

const kind = "PodCliqueScalingGroup"

type operator struct{ d childsync.Deps }

// New returns the PodCliqueScalingGroup component operator.
func New(d childsync.Deps) component.Operator[component.SetWork] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync deletes, in the set-level pass, the PodCliqueScalingGroups of
// removed replicas or configs and reports the wanted names others' objects
// hold, and otherwise applies those of the work's replicas.
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	configs := pcs.Spec.Template.PodCliqueScalingGroupConfigs
	if w.IsSetLevel() {
		keep := map[string]bool{}
		for i := int32(0); i < pcs.Spec.Replicas; i++ {
			for j := range configs {
				keep[apicommon.PodCliqueScalingGroupName(pcs.Name, i, configs[j].Name)] = true
			}
		}
		if err := o.deleteExcept(ctx, pcs, keep); err != nil {
			return err
		}
		return childsync.NotOwnedAmong(ctx, o.d, pcs, func() client.Object { return &grovecorev1alpha1.PodCliqueScalingGroup{} }, keep)
	}
	replicas := w.Replicas()
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(replicas)*len(configs), childsync.DefaultParallelism, func(i int) error {
		cfg := &configs[i%len(configs)]
		want, err := o.build(pcs, replicas[i/len(configs)], cfg)
		if err != nil {
			return err
		}
		res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{
			Key: client.ObjectKeyFromObject(want), Live: &grovecorev1alpha1.PodCliqueScalingGroup{}, Scale: desired.ScalingGroupScale(cfg),
			Build: func() (childsync.ApplyConfiguration, error) { return desired.PodCliqueScalingGroupApply(want) },
		})
		report.Applied(want, res, err)
		return groveerr.Wrapf(err, "ERR_SYNC_PODCLIQUESCALINGGROUP", groveerr.OperationSync, "applying PodCliqueScalingGroup %s", want.Name)
	})
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &grovecorev1alpha1.PodCliqueScalingGroupList{}, Set: pcs.Name, Selector: childsync.Selector(pcs.Name, apicommon.LabelComponentPCSG), Kind: kind, ListCode: "ERR_LIST_PODCLIQUESCALINGGROUP", DeleteCode: "ERR_DELETE_PODCLIQUESCALINGGROUP",
	}, keep)
}

func (o operator) build(pcs *grovecorev1alpha1.PodCliqueSet, replica int32, cfg *grovecorev1alpha1.PodCliqueScalingGroupConfig) (*grovecorev1alpha1.PodCliqueScalingGroup, error) {
	name := apicommon.PodCliqueScalingGroupName(pcs.Name, replica, cfg.Name)
	labels := childsync.Labels(pcs.Name, name, apicommon.LabelComponentPCSG)
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(replica)
	annotations := map[string]string{}
	for k, v := range cfg.Annotations {
		annotations[k] = v
	}
	// The group carries the MNNVL group its cliques inherit when its config
	// names none: the set's (none opts out as well).
	if g, ok := pcs.Annotations[apicommon.AnnotationMNNVLGroup]; ok {
		if _, own := annotations[apicommon.AnnotationMNNVLGroup]; !own {
			annotations[apicommon.AnnotationMNNVLGroup] = g
		}
	}
	annotations[apicommon.AnnotationTemplateReplicas] = strconv.Itoa(int(desired.ScalingGroupReplicas(cfg)))
	minAvailable := desired.ScalingGroupMinAvailable(cfg)
	pcsg := &grovecorev1alpha1.PodCliqueScalingGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: pcs.Namespace, Labels: labels, Annotations: annotations,
			Finalizers: []string{apicommon.FinalizerPodCliqueScalingGroup},
		},
		Spec: grovecorev1alpha1.PodCliqueScalingGroupSpec{
			Replicas:     desired.ScalingGroupReplicas(cfg),
			MinAvailable: &minAvailable,
			CliqueNames:  append([]string(nil), cfg.CliqueNames...),
			// Copied, as the group's controller reads the budget from its own spec.
			RollingUpdate: cfg.RollingUpdate.DeepCopy(),
		},
	}
	if err := controllerutil.SetControllerReference(pcs, pcsg, o.d.Scheme); err != nil {
		return nil, groveerr.Wrap(err, "ERR_SYNC_PODCLIQUESCALINGGROUP", groveerr.OperationSync, "setting owner of PodCliqueScalingGroup "+name)
	}
	return pcsg, nil
}
