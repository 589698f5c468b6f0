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
	"encoding/json"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

const kind = "HorizontalPodAutoscaler"

type operator struct{ d childsync.Deps }

// New returns the HPA component operator.
func New(d childsync.Deps) component.Operator[component.SetWork] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync deletes, in the set-level pass, the HPAs no longer wanted and reports
// the wanted names others' objects hold, and otherwise applies the HPAs of
// the work's replicas.
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	if w.IsSetLevel() {
		keep := map[string]bool{}
		for i := int32(0); i < pcs.Spec.Replicas; i++ {
			want, err := o.expected(pcs, i)
			if err != nil {
				return err
			}
			for _, h := range want {
				keep[*h.GetName()] = true
			}
		}
		if err := o.deleteExcept(ctx, pcs, keep); err != nil {
			return err
		}
		return childsync.NotOwnedAmong(ctx, o.d, pcs, func() client.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, keep)
	}
	var want []*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration
	for _, i := range w.Replicas() {
		hpas, err := o.expected(pcs, i)
		if err != nil {
			return err
		}
		want = append(want, hpas...)
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(want), childsync.DefaultParallelism, func(i int) error {
		live := &autoscalingv2.HorizontalPodAutoscaler{}
		res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{
			Key: client.ObjectKey{Namespace: pcs.Namespace, Name: *want[i].GetName()}, Live: live,
			Build: func() (childsync.ApplyConfiguration, error) { return want[i], nil },
		})
		report.Applied(live, res, err)
		return groveerr.Wrapf(err, "ERR_SYNC_HPA", groveerr.OperationSync, "applying HPA %s", live.Name)
	})
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &autoscalingv2.HorizontalPodAutoscalerList{}, Set: pcs.Name, Selector: childsync.Selector(pcs.Name, apicommon.LabelComponentHPA), Kind: kind, ListCode: "ERR_LIST_HPA", DeleteCode: "ERR_DELETE_HPA",
	}, keep)
}

// expected lists the HPAs replica i of the PodCliqueSet should have.
func (o operator) expected(pcs *grovecorev1alpha1.PodCliqueSet, i int32) ([]*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration, error) {
	var out []*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration
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
	return out, nil
}

func (o operator) build(pcs *grovecorev1alpha1.PodCliqueSet, replica int32, targetKind, targetName string, cfg *grovecorev1alpha1.AutoScalingConfig, templateReplicas int32) (*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration, error) {
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
	owner, err := childsync.ControllerReference(o.d.Scheme, pcs)
	if err != nil {
		return nil, groveerr.Wrap(err, "ERR_SYNC_HPA", groveerr.OperationSync, "setting owner of HPA "+name)
	}
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion(grovecorev1alpha1.SchemeGroupVersion.String()).WithKind(targetKind).WithName(targetName)).
		WithMinReplicas(minReplicas).
		WithMaxReplicas(cfg.MaxReplicas)
	for i := range cfg.Metrics {
		m, err := metricSpec(&cfg.Metrics[i])
		if err != nil {
			return nil, groveerr.Wrapf(err, "ERR_SYNC_HPA", groveerr.OperationSync, "converting metric %d of HPA %s", i, name)
		}
		spec.WithMetrics(m)
	}
	return autoscalingv2ac.HorizontalPodAutoscaler(name, pcs.Namespace).
		WithLabels(labels).
		WithOwnerReferences(owner).
		WithSpec(spec), nil
}

// metricSpec converts a metric of the PodCliqueSet's autoScalingConfig into
// its apply configuration. Both have the same JSON form, and every optional
// field of MetricSpec is omitted when unset, so the round trip sets exactly
// the fields the user wrote.
func metricSpec(m *autoscalingv2.MetricSpec) (*autoscalingv2ac.MetricSpecApplyConfiguration, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := &autoscalingv2ac.MetricSpecApplyConfiguration{}
	return out, json.Unmarshal(raw, out)
}
