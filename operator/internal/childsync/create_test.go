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

package childsync

import (
	"context"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// A child created by an apply that the cache does not show yet is not
// applied again: a second apply would force the creating values back
// (spec.replicas an HPA set meanwhile among them). Once the informer reports
// the child deleted, it is created again.
func TestApplyCreatesAChildOnceWhileTheCacheLags(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	informers := &informertest.FakeInformers{Scheme: scheme}
	writes := ownwrites.New()
	if err := writes.Track(ctx, informers, &corev1.Service{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	applies := 0
	// The cache never shows the child; the API server answers every apply.
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).Build(), interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, "demo-0")
		},
		Apply: func(_ context.Context, _ client.WithWatch, obj runtime.ApplyConfiguration, _ ...client.ApplyOption) error {
			mu.Lock()
			defer mu.Unlock()
			applies++
			obj.(interface{ SetResourceVersion(string) }).SetResourceVersion(strconv.Itoa(10 * applies))
			return nil
		},
	})
	d := Deps{Client: c, Scheme: scheme, FieldManager: PodCliqueSetFieldManager, Writes: writes}
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo", UID: "owner-uid"}}
	apply := func() Result {
		t.Helper()
		res, err := Apply(ctx, d, owner, Child{
			Key: client.ObjectKey{Namespace: "ns", Name: "demo-0"}, Live: &corev1.Service{},
			Build: func() (ApplyConfiguration, error) {
				return corev1ac.Service("demo-0", "ns").WithSpec(corev1ac.ServiceSpec().WithClusterIP("None")), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// Two passes find the child missing at once: one creates it.
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i := range results {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = apply() }()
	}
	wg.Wait()
	if created := (results[0] == Created) != (results[1] == Created); !created || applies != 1 {
		t.Fatalf("two concurrent passes: results %v, %d applies; want one create", results, applies)
	}
	if res := apply(); res != Unchanged || applies != 1 {
		t.Errorf("a pass on a cache behind the create: %v, %d applies; want Unchanged, 1", res, applies)
	}
	inf, err := informers.FakeInformerFor(ctx, &corev1.Service{})
	if err != nil {
		t.Fatal(err)
	}
	inf.Delete(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo-0", ResourceVersion: "11"}})
	if res := apply(); res != Created || applies != 2 {
		t.Errorf("after the informer reported the child deleted: %v, %d applies; want Created, 2", res, applies)
	}
}
