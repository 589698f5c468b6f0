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

// Package index holds the manager cache's field indexes. controller-runtime's
// cache answers a list by label selector by matching every cached object of
// the namespace; a list by one of these indexes reads only the objects filed
// under its value (a label selector given with it then filters just those).
// Without them a namespace of 100 PodCliqueSets of 50 replicas matched all
// 5000 PodCliques, PodGangs and Services of the namespace on every reconcile
// of each set, to find its own 50.
//
// Indexes exist only in the cache: lists from the API server (the manager's
// API reader) select by label.
package index

import (
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const (
	// PodClique files Grove's pods under their grove.io/podclique label.
	PodClique = "grove.io/podclique"
	// PartOf files a PodCliqueSet's PodCliques, scaling groups, PodGangs,
	// Services and HPAs under their app.kubernetes.io/part-of label.
	PartOf = "grove.io/part-of"
	// BasePodGang files the PodCliques of scaled PodGangs under their
	// grove.io/base-podgang label.
	BasePodGang = "grove.io/base-podgang"
)

// partOfKinds are the kinds indexed by PartOf.
func partOfKinds() []client.Object {
	return []client.Object{
		&grovecorev1alpha1.PodClique{},
		&grovecorev1alpha1.PodCliqueScalingGroup{},
		&groveschedulerv1alpha1.PodGang{},
		&corev1.Service{},
		&autoscalingv2.HorizontalPodAutoscaler{},
	}
}

// Register adds every index to the manager's cache. Call it once per
// manager, before the manager starts.
func Register(ctx context.Context, indexer client.FieldIndexer) error {
	if err := indexer.IndexField(ctx, &corev1.Pod{}, PodClique, byLabel(apicommon.LabelPodClique)); err != nil {
		return fmt.Errorf("indexing pods by %s: %w", apicommon.LabelPodClique, err)
	}
	for _, obj := range partOfKinds() {
		if err := indexer.IndexField(ctx, obj, PartOf, byLabel(apicommon.LabelPartOfKey)); err != nil {
			return fmt.Errorf("indexing %T by %s: %w", obj, apicommon.LabelPartOfKey, err)
		}
	}
	if err := indexer.IndexField(ctx, &grovecorev1alpha1.PodClique{}, BasePodGang, byLabel(apicommon.LabelBasePodGang)); err != nil {
		return fmt.Errorf("indexing PodCliques by %s: %w", apicommon.LabelBasePodGang, err)
	}
	return nil
}

// byLabel files an object under its value of a label; objects without it
// are not filed.
func byLabel(key string) client.IndexerFunc {
	return func(obj client.Object) []string {
		if v := obj.GetLabels()[key]; v != "" {
			return []string{v}
		}
		return nil
	}
}

// InPodClique selects the pods filed under a PodClique's name.
func InPodClique(name string) client.MatchingFields {
	return client.MatchingFields{PodClique: name}
}

// InSet selects the children filed under a PodCliqueSet's name.
func InSet(pcsName string) client.MatchingFields {
	return client.MatchingFields{PartOf: pcsName}
}

// WaitingOn selects the PodCliques filed under a base PodGang's name.
func WaitingOn(basePodGang string) client.MatchingFields {
	return client.MatchingFields{BasePodGang: basePodGang}
}
