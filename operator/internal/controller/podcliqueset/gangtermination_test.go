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

package podcliqueset

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// A reconcile whose cache still shows the PodCliques gang termination just
// deleted, alive, neither deletes them again nor reports a second
// termination: the deletion is recorded in ownwrites until the cache shows it.
func TestGangTerminationActsOnceWhileTheCacheShowsTheDeletedPodCliques(t *testing.T) {
	breachedSince := metav1.NewTime(time.Now().Add(-time.Hour))
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "gt", Namespace: "default", UID: "pcs-uid", Generation: 1},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			TerminationDelay: &metav1.Duration{Duration: time.Minute},
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "fe", Spec: grovecorev1alpha1.PodCliqueSpec{
				RoleName: "fe", Replicas: 2, PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
			}}},
		}},
	}
	labels := apicommon.DefaultLabels("gt")
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = "0"
	pclq := &grovecorev1alpha1.PodClique{
		ObjectMeta: metav1.ObjectMeta{Name: "gt-0-fe", Namespace: "default", UID: "pclq-uid", Labels: labels,
			Finalizers: []string{apicommon.FinalizerPodClique}},
		Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 2},
		Status: grovecorev1alpha1.PodCliqueStatus{WasScheduled: true, Conditions: []metav1.Condition{{
			Type: grovecorev1alpha1.ConditionTypeMinAvailableBreached, Status: metav1.ConditionTrue,
			Reason: grovecorev1alpha1.ConditionReasonScheduledReplicasBelowMinAvailable, LastTransitionTime: breachedSince,
		}}},
	}
	r, rec := statusTestReconciler(t, pcs, pclq)
	deletes := 0
	lagging(t, r, pclq.DeepCopy(), &deletes)
	ctx := context.Background()
	for i := range 2 {
		cur := &grovecorev1alpha1.PodCliqueSet{}
		if err := r.client.Get(ctx, client.ObjectKeyFromObject(pcs), cur); err != nil {
			t.Fatal(err)
		}
		if _, err := r.terminateBreachedReplicas(ctx, logr.Discard(), cur); err != nil {
			t.Fatalf("pass %d: %v", i+1, err)
		}
	}
	var terminations int
	for _, e := range drain(rec) {
		if strings.Contains(e, ReasonReplicaDeleteSuccessful) {
			terminations++
		}
	}
	if deletes != 1 || terminations != 1 {
		t.Errorf("two passes on a cache that shows the deleted PodClique alive: %d deletes, %d %s events; want 1 and 1",
			deletes, terminations, ReasonReplicaDeleteSuccessful)
	}
}

// lagging makes r read from a cache that lists stale, a PodClique as it was
// before its deletion (and no other object), counts r's deletes in deletes,
// and gives r a record of its own writes that tracks PodCliques, as the
// manager's does.
func lagging(t *testing.T, r *Reconciler, stale *grovecorev1alpha1.PodClique, deletes *int) {
	t.Helper()
	r.client = interceptor.NewClient(r.client.(client.WithWatch), interceptor.Funcs{
		List: func(_ context.Context, _ client.WithWatch, list client.ObjectList, _ ...client.ListOption) error {
			if l, ok := list.(*grovecorev1alpha1.PodCliqueList); ok {
				l.Items = []grovecorev1alpha1.PodClique{*stale.DeepCopy()}
			}
			return nil
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			*deletes++
			return c.Delete(ctx, obj, opts...)
		},
	})
	r.writes = ownwrites.New()
	if err := r.writes.Track(context.Background(), &informertest.FakeInformers{Scheme: r.client.Scheme()}, &grovecorev1alpha1.PodClique{}); err != nil {
		t.Fatal(err)
	}
}
