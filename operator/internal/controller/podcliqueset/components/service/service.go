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

// Package service manages the headless Service of every PodCliqueSet
// replica, <pcs>-<i>, which gives pods stable DNS names. Services of removed
// replica indices are deleted on scale-in.
package service

// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch;delete

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

const kind = "Service"

type operator struct{ d childsync.Deps }

// New returns the headless Service component operator.
func New(d childsync.Deps) component.Operator[component.SetWork] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync deletes, in the set-level pass, the Services of replicas at or above
// spec.replicas and reports the wanted names others' objects hold, and
// otherwise applies the Services of the work's replicas.
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	if w.IsSetLevel() {
		keep := make(map[string]bool, pcs.Spec.Replicas)
		for i := int32(0); i < pcs.Spec.Replicas; i++ {
			keep[apicommon.HeadlessServiceName(pcs.Name, i)] = true
		}
		if err := childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
			List: &corev1.ServiceList{}, Set: pcs.Name, Selector: childsync.Selector(pcs.Name, apicommon.LabelComponentHeadlessService),
			Kind: kind, ListCode: "ERR_LIST_SERVICE", DeleteCode: "ERR_DELETE_PODCLIQUESET_SERVICE",
		}, keep); err != nil {
			return err
		}
		return childsync.NotOwnedAmong(ctx, o.d, pcs, func() client.Object { return &corev1.Service{} }, keep)
	}
	replicas := w.Replicas()
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(replicas), childsync.DefaultParallelism, func(i int) error {
		key := client.ObjectKey{Namespace: pcs.Namespace, Name: apicommon.HeadlessServiceName(pcs.Name, replicas[i])}
		live := &corev1.Service{}
		res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{Key: key, Live: live,
			Build: func() (childsync.ApplyConfiguration, error) { return o.build(pcs, replicas[i]) }})
		report.Applied(live, res, err)
		return groveerr.Wrapf(err, "ERR_SYNC_PODCLIQUESET_SERVICE", groveerr.OperationSync, "applying Service %s", key.Name)
	})
}

func (o operator) build(pcs *grovecorev1alpha1.PodCliqueSet, replica int32) (*corev1ac.ServiceApplyConfiguration, error) {
	name := apicommon.HeadlessServiceName(pcs.Name, replica)
	labels := childsync.Labels(pcs.Name, name, apicommon.LabelComponentHeadlessService)
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(replica)
	selector := apicommon.DefaultLabels(pcs.Name)
	selector[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(replica)
	publishNotReady := true
	if cfg := pcs.Spec.Template.HeadlessServiceConfig; cfg != nil {
		publishNotReady = cfg.PublishNotReadyAddresses
	}
	owner, err := childsync.ControllerReference(o.d.Scheme, pcs)
	if err != nil {
		return nil, groveerr.Wrap(err, "ERR_SYNC_PODCLIQUESET_SERVICE", groveerr.OperationSync, "setting owner of Service "+name)
	}
	return corev1ac.Service(name, pcs.Namespace).
		WithLabels(labels).
		WithOwnerReferences(owner).
		WithSpec(corev1ac.ServiceSpec().
			WithClusterIP(corev1.ClusterIPNone).
			WithSelector(selector).
			WithPublishNotReadyAddresses(publishNotReady)), nil
}
