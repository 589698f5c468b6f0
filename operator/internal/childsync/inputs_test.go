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
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// errBuilt stands for a build: the tests below fail the build on purpose to
// see whether the sync asked for one.
var errBuilt = errors.New("built")

func testOwner() *grovecorev1alpha1.PodCliqueSet {
	return &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: "pcs", Namespace: "ns", UID: "pcs-uid"}}
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// A child found converged under some inputs is not built again while the
// inputs stay; other inputs build it (and a child that does not exist yet is
// built to be created).
func TestApplySkipsBuildingUnderRememberedInputs(t *testing.T) {
	owner := testOwner()
	ref := metav1.OwnerReference{APIVersion: "grove.io/v1alpha1", Kind: "PodCliqueSet", Name: "pcs", UID: "pcs-uid", Controller: ptr.To(true)}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), OwnerReferences: []metav1.OwnerReference{ref}}
	}
	scheme := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&grovecorev1alpha1.PodClique{ObjectMeta: meta("pcs-0-a")}, &corev1.Service{ObjectMeta: meta("pcs-0")}).Build()
	ctx := context.Background()
	d := Deps{Client: c, Converged: NewConvergedChildren(), FieldManager: PodCliqueSetFieldManager}
	for _, obj := range []client.Object{&grovecorev1alpha1.PodClique{}, &corev1.Service{}} {
		name := "pcs-0-a"
		if _, ok := obj.(*corev1.Service); ok {
			name = "pcs-0"
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: name}, obj); err != nil {
			t.Fatal(err)
		}
		d.Converged.record(viewOf(obj), []byte(`{"converged":true}`), "pcs-uid/1")
	}

	tests := []struct {
		name   string
		child  string
		inputs string
		built  bool
	}{
		{name: "same inputs", child: "pcs-0-a", inputs: "pcs-uid/1"},
		{name: "a new generation", child: "pcs-0-a", inputs: "pcs-uid/2", built: true},
		{name: "inputs unknown", child: "pcs-0-a", inputs: "", built: true},
		{name: "a child not created yet", child: "pcs-1-a", inputs: "pcs-uid/1", built: true},
	}
	for _, tt := range tests {
		t.Run("PodClique: "+tt.name, func(t *testing.T) {
			fail := func() (*grovecorev1alpha1.PodClique, error) { return nil, errBuilt }
			live := &grovecorev1alpha1.PodClique{}
			res, err := ApplyShared(ctx, d, owner, Shared[*grovecorev1alpha1.PodClique]{
				Name: client.ObjectKey{Namespace: "ns", Name: tt.child}, Inputs: tt.inputs, Create: fail,
				Want: func(*grovecorev1alpha1.PodClique) (ApplyConfiguration, error) { return nil, errBuilt },
			}, live)
			if built := errors.Is(err, errBuilt); built != tt.built {
				t.Errorf("built = %v (result %v, error %v), want %v", built, res, err, tt.built)
			}
			if live.Name != tt.child {
				t.Errorf("live carries name %q, want %q", live.Name, tt.child)
			}
		})
		t.Run("Service: "+tt.name, func(t *testing.T) {
			child := map[string]string{"pcs-0-a": "pcs-0", "pcs-1-a": "pcs-1"}[tt.child]
			live := &corev1.Service{}
			res, err := ServerSideApplyBuilt(ctx, d, owner, client.ObjectKey{Namespace: "ns", Name: child}, tt.inputs,
				func() (ApplyConfiguration, error) { return nil, errBuilt }, live)
			if built := errors.Is(err, errBuilt); built != tt.built {
				t.Errorf("built = %v (result %v, error %v), want %v", built, res, err, tt.built)
			}
		})
	}
}

// A child the sync created is remembered under the inputs it was built from:
// the next sync with those inputs does not build it again.
func TestApplyRemembersWhatItCreated(t *testing.T) {
	owner := testOwner()
	scheme := testScheme(t)
	ctx := context.Background()
	d := Deps{Client: fake.NewClientBuilder().WithScheme(scheme).Build(), Converged: NewConvergedChildren(), FieldManager: PodCliqueSetFieldManager}
	key := client.ObjectKey{Namespace: "ns", Name: "pcs-0-a"}
	builds := 0
	child := Shared[*grovecorev1alpha1.PodClique]{Name: key, Inputs: "pcs-uid/1",
		Create: func() (*grovecorev1alpha1.PodClique, error) {
			builds++
			// The fake client keeps the UID given; the API server would set one.
			p := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, UID: "created-uid"}}
			return p, controllerutil.SetControllerReference(owner, p, scheme)
		},
		Want: func(*grovecorev1alpha1.PodClique) (ApplyConfiguration, error) { builds++; return nil, errBuilt },
	}
	live := &grovecorev1alpha1.PodClique{}
	if res, err := ApplyShared(ctx, d, owner, child, live); err != nil || res != Created {
		t.Fatalf("first sync: %v, %v; want Created", res, err)
	}
	if live.UID == "" || live.ResourceVersion == "" {
		t.Errorf("live is not the created child: %+v", live.ObjectMeta)
	}
	if res, err := ApplyShared(ctx, d, owner, child, &grovecorev1alpha1.PodClique{}); err != nil || res != Unchanged {
		t.Fatalf("second sync: %v, %v; want Unchanged", res, err)
	}
	if builds != 1 {
		t.Errorf("built %d times, want once (for the create)", builds)
	}
	child.Inputs = "pcs-uid/2"
	if _, err := ApplyShared(ctx, d, owner, child, &grovecorev1alpha1.PodClique{}); !errors.Is(err, errBuilt) {
		t.Errorf("a sync with new inputs did not build the child: %v", err)
	}
}

// The same holds for a child created by server-side apply.
func TestServerSideApplyRemembersWhatItCreated(t *testing.T) {
	owner := testOwner()
	scheme := testScheme(t)
	ctx := context.Background()
	// The fake client sets no UID; the API server does, and both the apply's
	// answer and the cache carry it.
	withUID := interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			if err := c.Apply(ctx, obj, opts...); err != nil {
				return err
			}
			obj.(*corev1ac.ServiceApplyConfiguration).WithUID("svc-uid")
			return nil
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			obj.SetUID("svc-uid")
			return nil
		},
	}
	d := Deps{Client: fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(withUID).Build(), Converged: NewConvergedChildren(), FieldManager: PodCliqueSetFieldManager}
	key := client.ObjectKey{Namespace: "ns", Name: "pcs-0"}
	builds := 0
	build := func() (ApplyConfiguration, error) {
		builds++
		return corev1ac.Service(key.Name, key.Namespace).
			WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion("grove.io/v1alpha1").WithKind("PodCliqueSet").
				WithName("pcs").WithUID("pcs-uid").WithController(true)).
			WithSpec(corev1ac.ServiceSpec().WithClusterIP("None")), nil
	}
	if res, err := ServerSideApplyBuilt(ctx, d, owner, key, "pcs-uid/1", build, &corev1.Service{}); err != nil || res != Created {
		t.Fatalf("first sync: %v, %v; want Created", res, err)
	}
	if res, err := ServerSideApplyBuilt(ctx, d, owner, key, "pcs-uid/1", build, &corev1.Service{}); err != nil || res != Unchanged {
		t.Fatalf("second sync: %v, %v; want Unchanged", res, err)
	}
	if builds != 1 {
		t.Errorf("built %d times, want once (for the create)", builds)
	}
}

// A change of a shared field alone leaves the child converged under its
// inputs; a change of anything else has the next sync build and check it.
func TestApplyComparesChildrenWithoutSharedFields(t *testing.T) {
	owner := testOwner()
	scheme := testScheme(t)
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	d := Deps{Client: c, Converged: NewConvergedChildren(), FieldManager: PodCliqueSetFieldManager}
	key := client.ObjectKey{Namespace: "ns", Name: "pcs-0-a"}
	builds := 0
	child := Shared[*grovecorev1alpha1.PodClique]{Name: key, Inputs: "pcs-uid/1",
		Create: func() (*grovecorev1alpha1.PodClique, error) {
			// The fake client keeps the UID given; the API server would set one.
			p := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, UID: "created-uid"}}
			return p, controllerutil.SetControllerReference(owner, p, scheme)
		},
		Want: func(*grovecorev1alpha1.PodClique) (ApplyConfiguration, error) { builds++; return nil, errBuilt },
		// Here spec.replicas stands for the shared fields.
		Unshared: func(p *grovecorev1alpha1.PodClique) *grovecorev1alpha1.PodClique {
			out := *p
			out.Spec.Replicas = 0
			return &out
		},
	}
	if res, err := ApplyShared(ctx, d, owner, child, &grovecorev1alpha1.PodClique{}); err != nil || res != Created {
		t.Fatalf("create: %v, %v", res, err)
	}
	change := func(f func(*grovecorev1alpha1.PodClique)) {
		p := &grovecorev1alpha1.PodClique{}
		if err := c.Get(ctx, key, p); err != nil {
			t.Fatal(err)
		}
		f(p)
		if err := c.Update(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	change(func(p *grovecorev1alpha1.PodClique) { p.Spec.Replicas = 5 })
	if _, err := ApplyShared(ctx, d, owner, child, &grovecorev1alpha1.PodClique{}); err != nil || builds != 0 {
		t.Errorf("after a shared field changed: built %d times (%v), want none", builds, err)
	}
	change(func(p *grovecorev1alpha1.PodClique) { p.Labels = map[string]string{"by": "hand"} })
	if _, err := ApplyShared(ctx, d, owner, child, &grovecorev1alpha1.PodClique{}); !errors.Is(err, errBuilt) || builds != 1 {
		t.Errorf("after a label changed: built %d times (%v), want once", builds, err)
	}
}
