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

package core

import (
	"context"
	"slices"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A gang's claims are written as the per-pod plugin writes its own (finalizer,
// then status.allocation), the scheduler's view not caught up counts as
// unobserved, and a failed attempt gives back exactly the claims no pod
// reserved since.
func TestClaimsWrittenThenGivenBack(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	shared, own := gpuClaim("shared", "gpu", 1), gpuClaim("own", "gpu", 1)
	dra := &fakeDRA{claims: map[string]*resourcev1.ResourceClaim{"ns/shared": shared, "ns/own": own}}
	e.m.dra = dra
	for _, c := range []*resourcev1.ResourceClaim{shared, own} {
		if _, err := e.kube.ResourceV1().ResourceClaims("ns").Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	allocs := []ClaimAllocation{
		{Claim: shared, Result: *allocatedOn(shared, "n1").Status.Allocation},
		{Claim: own, Result: *allocatedOn(own, "n1").Status.Allocation},
	}
	if err := e.m.writeClaims("ns/g", allocs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shared", "own"} {
		c, err := e.kube.ResourceV1().ResourceClaims("ns").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Status.Allocation == nil || c.Status.Allocation.AllocationTimestamp == nil || c.Status.Allocation.Devices.Results[0].Pool != "n1" {
			t.Errorf("claim %s allocation = %+v, want n1's device with a timestamp", name, c.Status.Allocation)
		}
		if !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
			t.Errorf("claim %s finalizers = %v, want %s", name, c.Finalizers, resourcev1.Finalizer)
		}
	}
	if got := e.m.claimsUnobserved("ns/g"); got != 2 {
		t.Errorf("unobserved claims = %d while the scheduler's view lags, want 2", got)
	}
	dra.claims["ns/shared"] = allocatedOn(shared, "n1")
	dra.claims["ns/own"] = allocatedOn(own, "n1")
	if got := e.m.claimsUnobserved("ns/g"); got != 0 {
		t.Errorf("unobserved claims = %d once seen, want 0", got)
	}

	// A pod of the gang got "own" reserved before the attempt failed: it stays allocated.
	c, _ := e.kube.ResourceV1().ResourceClaims("ns").Get(ctx, "own", metav1.GetOptions{})
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "uid-p"}}
	if _, err := e.kube.ResourceV1().ResourceClaims("ns").UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.m.releaseClaims("ns/g")
	got, _ := e.kube.ResourceV1().ResourceClaims("ns").Get(ctx, "shared", metav1.GetOptions{})
	if got.Status.Allocation != nil || slices.Contains(got.Finalizers, resourcev1.Finalizer) {
		t.Errorf("shared after the failed attempt: allocation %+v, finalizers %v; want neither", got.Status.Allocation, got.Finalizers)
	}
	got, _ = e.kube.ResourceV1().ResourceClaims("ns").Get(ctx, "own", metav1.GetOptions{})
	if got.Status.Allocation == nil {
		t.Error("own was deallocated although a pod reserved it")
	}
	if got := e.m.claimsUnobserved("ns/g"); got != 0 || e.m.states["ns/g"].claims != nil {
		t.Errorf("the failed attempt's claims are still tracked: %v", e.m.states["ns/g"].claims)
	}
}
