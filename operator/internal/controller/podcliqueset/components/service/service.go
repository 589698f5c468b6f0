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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
func New(d childsync.Deps) component.Operator[*grovecorev1alpha1.PodCliqueSet] {
	return operator{d}
}

func (operator) Kind() string { return kind }

// Sync applies the Services of replicas [0, spec.replicas) and
// deletes those of higher indices.
func (o operator) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	if err := o.deleteExcess(ctx, pcs); err != nil {
		return err
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	// A Service is a function of the set's spec, name and UID.
	inputs := childsync.OwnerInputs(pcs)
	return childsync.Parallel(int(pcs.Spec.Replicas), childsync.DefaultParallelism, func(i int) error {
		key := client.ObjectKey{Namespace: pcs.Namespace, Name: apicommon.HeadlessServiceName(pcs.Name, int32(i))}
		live := &corev1.Service{}
		res, err := childsync.ServerSideApplyBuilt(ctx, o.d, pcs, key, inputs, func() (childsync.ApplyConfiguration, error) { return o.build(pcs, int32(i)) }, live)
		report.Applied(live, res, err)
		return groveerr.Wrapf(err, "ERR_SYNC_PODCLIQUESET_SERVICE", groveerr.OperationSync, "applying Service %s", key.Name)
	})
}

func (o operator) deleteExcess(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet) error {
	return o.deleteFrom(ctx, pcs, pcs.Spec.Replicas)
}

func (o operator) deleteFrom(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, firstRemoved int32) error {
	list := &corev1.ServiceList{}
	// Only read and deleted: no copies of the cached Services.
	if err := o.d.Client.List(ctx, list, childsync.ReadChildren(pcs, apicommon.LabelComponentHeadlessService)...); err != nil {
		return groveerr.Wrap(err, "ERR_LIST_SERVICE", groveerr.OperationSync, "listing headless Services")
	}
	var excess []*corev1.Service
	for i := range list.Items {
		if !metav1.IsControlledBy(&list.Items[i], pcs) || !childsync.IndexAtLeast(&list.Items[i], apicommon.LabelPodCliqueSetReplicaIndex, firstRemoved) {
			continue
		}
		excess = append(excess, &list.Items[i])
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(excess), childsync.DefaultParallelism, func(i int) error {
		err := childsync.DeleteIgnoringNotFound(ctx, o.d.Client, excess[i])
		report.Deleted(excess[i], err)
		return groveerr.Wrapf(err, "ERR_DELETE_PODCLIQUESET_SERVICE", groveerr.OperationDelete, "deleting Service %s", excess[i].Name)
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
