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

// Package hpa manages the HorizontalPodAutoscalers of a PodCliqueSet: one per
// replica for every standalone clique with autoScalingConfig (target
// PodClique) and every scaling group with scaleConfig (target
// PodCliqueScalingGroup). HPAs no longer wanted, including those of removed
// replica indices, are deleted.
package hpa

// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;patch;delete

import (
	"context"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/childsync"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

const kind = "HorizontalPodAutoscaler"

type operator struct{ d childsync.Deps }

// New returns the HPA component operator.
func New(d childsync.Deps) component.Operator[*grovecorev1alpha1.PodCliqueSet] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync deletes unwanted HPAs and creates or patches the wanted ones.
func (o operator) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	want, err := o.expected(pcs)
	if err != nil {
		return err
	}
	names := make(map[string]bool, len(want))
	for _, h := range want {
		names[h.Name] = true
	}
	if err := o.deleteExcept(ctx, pcs, names); err != nil {
		return err
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(want), childsync.DefaultParallelism, func(i int) error {
		h := want[i]
		res, err := childsync.Apply(ctx, o.d, h, &autoscalingv2.HorizontalPodAutoscaler{}, func(l *autoscalingv2.HorizontalPodAutoscaler) {
			l.Labels = childsync.MergeLabels(l.Labels, h.Labels)
			l.OwnerReferences = h.OwnerReferences
			l.Spec.ScaleTargetRef = h.Spec.ScaleTargetRef
			l.Spec.MinReplicas = h.Spec.MinReplicas
			l.Spec.MaxReplicas = h.Spec.MaxReplicas
			if h.Spec.Metrics != nil {
				l.Spec.Metrics = h.Spec.Metrics
			}
		})
		report.Applied(h, res, err)
		return groveerr.Wrapf(err, "ERR_SYNC_HPA", groveerr.OperationSync, "creating or patching HPA %s", h.Name)
	})
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &autoscalingv2.HorizontalPodAutoscalerList{}, Component: apicommon.LabelComponentHPA, Kind: kind, ListCode: "ERR_LIST_HPA", DeleteCode: "ERR_DELETE_HPA",
	}, keep)
}

// expected lists the HPAs the PodCliqueSet should have.
func (o operator) expected(pcs *grovecorev1alpha1.PodCliqueSet) ([]*autoscalingv2.HorizontalPodAutoscaler, error) {
	var out []*autoscalingv2.HorizontalPodAutoscaler
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		for _, c := range desired.StandaloneCliques(pcs) {
			if c.Spec.AutoScalingConfig == nil {
				continue
			}
			h, err := o.build(pcs, i, "PodClique", apicommon.PodCliqueName(pcs.Name, i, c.Name), c.Spec.AutoScalingConfig, c.Spec.Replicas)
			if err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		for j := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
			sg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[j]
			if sg.ScaleConfig == nil {
				continue
			}
			h, err := o.build(pcs, i, "PodCliqueScalingGroup", apicommon.PodCliqueScalingGroupName(pcs.Name, i, sg.Name), sg.ScaleConfig, desired.ScalingGroupReplicas(sg))
			if err != nil {
				return nil, err
			}
			out = append(out, h)
		}
	}
	return out, nil
}

func (o operator) build(pcs *grovecorev1alpha1.PodCliqueSet, replica int32, targetKind, targetName string, cfg *grovecorev1alpha1.AutoScalingConfig, templateReplicas int32) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	name := apicommon.HorizontalPodAutoscalerName(targetName)
	labels := childsync.Labels(pcs.Name, name, apicommon.LabelComponentHPA)
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(replica)
	minReplicas := templateReplicas
	if cfg.MinReplicas != nil {
		minReplicas = *cfg.MinReplicas
	}
	// minReplicas 0 means the target may be parked at zero. The API server
	// accepts an HPA minReplicas of 0 only behind the alpha HPAScaleToZero
	// feature gate; with 1 the HPA still leaves a target scaled to zero alone
	// ("scaling is disabled since the replica count of the target is zero")
	// and resumes once it is scaled up.
	minReplicas = max(minReplicas, 1)
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pcs.Namespace, Labels: labels},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
				APIVersion: grovecorev1alpha1.SchemeGroupVersion.String(), Kind: targetKind, Name: targetName,
			},
			MinReplicas: &minReplicas,
			MaxReplicas: cfg.MaxReplicas,
			Metrics:     cfg.Metrics,
		},
	}
	if err := controllerutil.SetControllerReference(pcs, h, o.d.Scheme); err != nil {
		return nil, groveerr.Wrap(err, "ERR_SYNC_HPA", groveerr.OperationSync, "setting owner of HPA "+name)
	}
	return h, nil
}
