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
	"fmt"
	"slices"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The writes of the search's claim allocations (devices.go says why the
// gang's first pod writes them). The allocation is written as the per-pod
// plugin writes its own at PreBind: the delete-protection finalizer first,
// then status.allocation; status.reservedFor is left to the per-pod plugin,
// which adds each pod at its PreBind. The kube-controller-manager clears an
// allocation only when its last consumer leaves reservedFor, so a claim
// allocated here stays allocated while the gang's pods reserve.
//
// A gang attempt that fails before its minimum set passes Permit gives the
// claims back: every claim it allocated that still has no consumer is
// deallocated, so a gang that does not fit holds no devices.

const (
	// claimsObservedPoll is how often the gang's pods look again whether the
	// scheduler's view has caught up with the allocations written.
	claimsObservedPoll = 100 * time.Millisecond
	// claimWriteTimeout bounds the writes of one gang's claims.
	claimWriteTimeout = 10 * time.Second
)

// writeClaims writes the search's allocations and remembers them for the
// gang's attempt. On an error, the claims written so far are given back.
func (m *Manager) writeClaims(key string, allocs []ClaimAllocation) error {
	ctx, cancel := context.WithTimeout(context.Background(), claimWriteTimeout)
	defer cancel()
	for _, a := range allocs {
		c := a.Claim.DeepCopy()
		claims := m.kube.ResourceV1().ResourceClaims(c.Namespace)
		if !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
			c.Finalizers = append(c.Finalizers, resourcev1.Finalizer)
			updated, err := claims.Update(ctx, c, metav1.UpdateOptions{})
			if err != nil {
				m.releaseClaims(key)
				return fmt.Errorf("protecting ResourceClaim %s/%s: %w", c.Namespace, c.Name, err)
			}
			c = updated
		}
		c.Status.Allocation = a.Result.DeepCopy()
		c.Status.Allocation.AllocationTimestamp = new(metav1.Now())
		updated, err := claims.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		if err != nil {
			m.releaseClaims(key)
			return fmt.Errorf("allocating ResourceClaim %s/%s: %w", c.Namespace, c.Name, err)
		}
		c = updated
		m.assumeClaim(c)
		m.mu.Lock()
		st := m.stateLocked(key)
		if st.claims == nil {
			st.claims = map[types.NamespacedName]types.UID{}
		}
		st.claims[types.NamespacedName{Namespace: c.Namespace, Name: c.Name}] = c.UID
		m.mu.Unlock()
		m.log.V(4).Info("Allocated ResourceClaim for gang", "podGang", key, "resourceClaim", c.Namespace+"/"+c.Name, "devices", len(c.Status.Allocation.Devices.Results))
	}
	return nil
}

// assumeClaim shows the written claim to the scheduler's DRA view at once,
// as the per-pod plugin does after its own writes: every later scheduling
// cycle, its DynamicResources PreFilter included, sees the allocation
// without waiting for the informer. Without it the informer catches up.
func (m *Manager) assumeClaim(c *resourcev1.ResourceClaim) {
	if m.dra == nil {
		return
	}
	if err := m.dra.ResourceClaims().AssumeClaimAfterAPICall(c); err != nil {
		m.log.V(4).Info("ResourceClaim not assumed, the informer will bring it", "resourceClaim", c.Namespace+"/"+c.Name, "err", err)
	}
}

// claimsUnobserved counts the claims the gang's attempt allocated that the
// scheduler's view (the per-pod plugin's) does not show allocated yet.
func (m *Manager) claimsUnobserved(key string) int {
	if m.dra == nil {
		return 0
	}
	m.mu.RLock()
	written := make(map[types.NamespacedName]types.UID, len(m.states[key].claimsOrNil()))
	for k, uid := range m.states[key].claimsOrNil() {
		written[k] = uid
	}
	m.mu.RUnlock()
	n := 0
	for k, uid := range written {
		c, err := m.dra.ResourceClaims().Get(k.Namespace, k.Name)
		if err == nil && c.UID == uid && c.Status.Allocation == nil {
			n++
		}
	}
	return n
}

// claimsOrNil is the state's written claims; nil for a nil state.
func (st *gangState) claimsOrNil() map[types.NamespacedName]types.UID {
	if st == nil {
		return nil
	}
	return st.claims
}

// keepClaims ends the tracking of the attempt's claims once its minimum set
// passed Permit: from then on they belong to the pods' reservations.
func (st *gangState) keepClaims() {
	st.claims = nil
}

// releaseClaims deallocates the claims the gang's failed attempt allocated
// that no pod reserved since, and forgets them.
func (m *Manager) releaseClaims(key string) {
	m.mu.Lock()
	st := m.states[key]
	written := st.claimsOrNil()
	if st != nil {
		st.claims = nil
	}
	m.mu.Unlock()
	if len(written) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimWriteTimeout)
	defer cancel()
	for k, uid := range written {
		if err := m.deallocate(ctx, k, uid); err != nil {
			m.log.Error(err, "Giving back a ResourceClaim of a failed gang attempt", "podGang", key, "resourceClaim", k.String())
		}
	}
}

// deallocate clears the claim's allocation and finalizer if it is still the
// claim allocated (same UID) and no pod reserved it.
func (m *Manager) deallocate(ctx context.Context, k types.NamespacedName, uid types.UID) error {
	claims := m.kube.ResourceV1().ResourceClaims(k.Namespace)
	c, err := claims.Get(ctx, k.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading ResourceClaim %s: %w", k, err)
	case c.UID != uid || len(c.Status.ReservedFor) > 0:
		return nil
	}
	if c.Status.Allocation != nil {
		c.Status.Allocation = nil
		if c, err = claims.UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("deallocating ResourceClaim %s: %w", k, err)
		}
		m.assumeClaim(c)
	}
	if i := slices.Index(c.Finalizers, resourcev1.Finalizer); i >= 0 {
		c.Finalizers = slices.Delete(c.Finalizers, i, i+1)
		if _, err := claims.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("removing the finalizer of ResourceClaim %s: %w", k, err)
		}
	}
	m.log.V(4).Info("Gave back the ResourceClaim of a failed gang attempt", "resourceClaim", k.String())
	return nil
}
