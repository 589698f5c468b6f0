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

package cluster

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Snapshot is the PodCliqueSet and every object labelled as part of it
// (app.kubernetes.io/part-of), listed one kind after another.
type Snapshot struct {
	Namespace, Name string
	// PCS is nil once the PodCliqueSet is gone.
	PCS             *grovecorev1alpha1.PodCliqueSet
	ScalingGroups   []grovecorev1alpha1.PodCliqueScalingGroup
	PodCliques      []grovecorev1alpha1.PodClique
	PodGangs        []groveschedulerv1alpha1.PodGang
	Pods            []corev1.Pod
	Services        []corev1.Service
	HPAs            []autoscalingv2.HorizontalPodAutoscaler
	ServiceAccounts []corev1.ServiceAccount
	Roles           []rbacv1.Role
	RoleBindings    []rbacv1.RoleBinding
	Secrets         []corev1.Secret
}

// TakeSnapshot lists the PodCliqueSet ns/name and everything part of it.
func TakeSnapshot(ctx context.Context, c client.Reader, ns, name string) (*Snapshot, error) {
	s := &Snapshot{Namespace: ns, Name: name}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	switch err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pcs); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("getting PodCliqueSet %s/%s: %w", ns, name, err)
	default:
		s.PCS = pcs
	}
	opts := []client.ListOption{client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: name}}
	lists := []struct {
		kind string
		list client.ObjectList
	}{
		{"PodCliqueScalingGroups", &grovecorev1alpha1.PodCliqueScalingGroupList{}},
		{"PodCliques", &grovecorev1alpha1.PodCliqueList{}},
		{"PodGangs", &groveschedulerv1alpha1.PodGangList{}},
		{"Pods", &corev1.PodList{}},
		{"Services", &corev1.ServiceList{}},
		{"HorizontalPodAutoscalers", &autoscalingv2.HorizontalPodAutoscalerList{}},
		{"ServiceAccounts", &corev1.ServiceAccountList{}},
		{"Roles", &rbacv1.RoleList{}},
		{"RoleBindings", &rbacv1.RoleBindingList{}},
		{"Secrets", &corev1.SecretList{}},
	}
	for _, l := range lists {
		if err := c.List(ctx, l.list, opts...); err != nil {
			return nil, fmt.Errorf("listing %s of PodCliqueSet %s/%s: %w", l.kind, ns, name, err)
		}
		switch list := l.list.(type) {
		case *grovecorev1alpha1.PodCliqueScalingGroupList:
			s.ScalingGroups = list.Items
		case *grovecorev1alpha1.PodCliqueList:
			s.PodCliques = list.Items
		case *groveschedulerv1alpha1.PodGangList:
			s.PodGangs = list.Items
		case *corev1.PodList:
			s.Pods = list.Items
		case *corev1.ServiceList:
			s.Services = list.Items
		case *autoscalingv2.HorizontalPodAutoscalerList:
			s.HPAs = list.Items
		case *corev1.ServiceAccountList:
			s.ServiceAccounts = list.Items
		case *rbacv1.RoleList:
			s.Roles = list.Items
		case *rbacv1.RoleBindingList:
			s.RoleBindings = list.Items
		case *corev1.SecretList:
			s.Secrets = list.Items
		}
	}
	return s, nil
}

// LivePods returns the pods that are not being deleted.
func (s *Snapshot) LivePods() []*corev1.Pod {
	var out []*corev1.Pod
	for i := range s.Pods {
		if s.Pods[i].DeletionTimestamp == nil {
			out = append(out, &s.Pods[i])
		}
	}
	return out
}
