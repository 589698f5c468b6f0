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

package podclique

import (
	"context"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/update"
)

// updatingReplicaChanged enqueues the PodCliques of the PodCliqueSet replicas
// whose turn in an update starts or ends (status.updateProgress), and all of
// a PodCliqueSet's PodCliques when its update strategy changes: that is when
// a PodClique starts or stops replacing pods, and its MinAvailableBreached
// turns Unknown or back. It also enqueues a PodCliqueSet's PodCliques when
// the set appears in the cache: a PodClique reconciled before that took the
// set for deleted (pod.Result.Orphaned) and waits for no other event.
func (r *Reconciler) updatingReplicaChanged() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.enqueuePodCliques(ctx, q, e.Object.GetNamespace(), podCliquesOfSet(e.Object.GetName()))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			o, ok1 := e.ObjectOld.(*grovecorev1alpha1.PodCliqueSet)
			n, ok2 := e.ObjectNew.(*grovecorev1alpha1.PodCliqueSet)
			if !ok1 || !ok2 {
				return
			}
			sel := podCliquesOfSet(n.Name)
			if equality.Semantic.DeepEqual(o.Spec.UpdateStrategy, n.Spec.UpdateStrategy) {
				if update.RecordKey(o) == update.RecordKey(n) {
					return
				}
				for _, i := range updatingReplicas(o, n) {
					sel[apicommon.LabelPodCliqueSetReplicaIndex] = strconv.Itoa(int(i))
					r.enqueuePodCliques(ctx, q, n.Namespace, sel)
				}
				return
			}
			r.enqueuePodCliques(ctx, q, n.Namespace, sel)
		},
	}
}

// podCliquesOfSet selects the Grove-managed PodCliques of the set called name.
func podCliquesOfSet(name string) client.MatchingLabels {
	return client.MatchingLabels{apicommon.LabelManagedByKey: apicommon.LabelManagedByValue, apicommon.LabelPartOfKey: name}
}

// updatingReplicas lists the replicas updated in either version of the record.
func updatingReplicas(pcss ...*grovecorev1alpha1.PodCliqueSet) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for _, pcs := range pcss {
		if pcs.Status.UpdateProgress == nil {
			continue
		}
		for _, r := range pcs.Status.UpdateProgress.CurrentlyUpdating {
			if !seen[r.ReplicaIndex] {
				seen[r.ReplicaIndex] = true
				out = append(out, r.ReplicaIndex)
			}
		}
	}
	return out
}

func (r *Reconciler) enqueuePodCliques(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], ns string, sel client.MatchingLabels) {
	list := &grovecorev1alpha1.PodCliqueList{}
	if err := r.client.List(ctx, list, client.InNamespace(ns), index.InSet(sel[apicommon.LabelPartOfKey]), sel, client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing PodCliques of a PodCliqueSet", "namespace", ns)
		return
	}
	for i := range list.Items {
		q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
}
