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
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Phase is where a gang's scheduling attempts stand. Whether the minimum set
// is placed right now is not a phase: it is counted from the gang's reserved
// and bound pods, which informer events change at any time. The phase records
// what the attempts themselves found, which nothing else can tell. Every change
// goes through Phase.next ("-" keeps the phase):
//
//	event            Pending    Reserving  Placed     Misfit           MisfitReserving
//	AttemptStarted   -          -          Pending    -                -
//	SearchRejected   -          -          Pending    Pending          Reserving
//	PermitWaiting    Reserving  -          Reserving  MisfitReserving  -
//	PermitComplete   Placed     Placed     -          Placed           Placed
//	AttemptFailed    Misfit     Misfit     Misfit     -                Misfit
//	AttemptRejected  -          Pending    Pending    -                Misfit
type Phase int

const (
	// PhasePending means no pod of the gang holds a node at Permit and the
	// placement search's verdict on the gang is trusted. A new gang starts here,
	// and so does one whose minimum set the search rejected.
	PhasePending Phase = iota
	// PhaseReserving means pods of the gang hold their nodes at Permit until
	// every pod group has minReplicas pods reserved.
	PhaseReserving
	// PhasePlaced means the latest attempt got the whole minimum set through
	// Permit. A later attempt (a placed pod was lost) starts from Pending.
	PhasePlaced
	// PhaseMisfit means an attempt failed although the placement search said
	// the minimum set fits: something the search does not model (another
	// filter plugin, a bind error, a Permit timeout) stopped it. Best-effort pods
	// of the gang's PodCliqueSet do not yield to a misfit gang, so they cannot
	// starve behind it; the search's verdict is trusted again once it rejects
	// the gang itself or the gang is placed.
	PhaseMisfit
	// PhaseMisfitReserving is a misfit gang's retry holding nodes at Permit:
	// its pods wait like Reserving ones, but it is still not trusted.
	PhaseMisfitReserving
)

func (p Phase) String() string {
	switch p {
	case PhasePending:
		return "Pending"
	case PhaseReserving:
		return "Reserving"
	case PhasePlaced:
		return "Placed"
	case PhaseMisfit:
		return "Misfit"
	case PhaseMisfitReserving:
		return "MisfitReserving"
	}
	return "Unknown"
}

// waitingAtPermit reports whether pods of the gang hold nodes at Permit.
func (p Phase) waitingAtPermit() bool {
	return p == PhaseReserving || p == PhaseMisfitReserving
}

// misfit reports whether the placement search's verdict on the gang is not trusted.
func (p Phase) misfit() bool {
	return p == PhaseMisfit || p == PhaseMisfitReserving
}

// gangEvent is what happened to a gang at an extension point.
type gangEvent int

const (
	// evAttemptStarted: PreFilter of a pod the incomplete minimum set needs.
	evAttemptStarted gangEvent = iota
	// evSearchRejected: the placement search, or missing pods, say the minimum set does not fit.
	evSearchRejected
	// evPermitWaiting: a pod waits at Permit for the rest of the minimum set.
	evPermitWaiting
	// evPermitComplete: the minimum set is complete at Permit and its waiting pods are allowed.
	evPermitComplete
	// evAttemptFailed: the attempt ended without the minimum set although the
	// search had found room (Unreserve of an incomplete gang, or PostFilter after
	// another plugin's filter rejected a pod the search placed).
	evAttemptFailed
	// evAttemptRejected: PostFilter released the gang after its own search failed.
	evAttemptRejected
)

func (e gangEvent) String() string {
	switch e {
	case evAttemptStarted:
		return "AttemptStarted"
	case evSearchRejected:
		return "SearchRejected"
	case evPermitWaiting:
		return "PermitWaiting"
	case evPermitComplete:
		return "PermitComplete"
	case evAttemptFailed:
		return "AttemptFailed"
	case evAttemptRejected:
		return "AttemptRejected"
	}
	return "Unknown"
}

// next is the gang phase transition table.
func (p Phase) next(ev gangEvent) Phase {
	switch ev {
	case evAttemptStarted:
		if p == PhasePlaced {
			return PhasePending
		}
		return p
	case evSearchRejected:
		// The search itself says no: from now on its verdict counts again.
		if p.waitingAtPermit() {
			return PhaseReserving
		}
		return PhasePending
	case evPermitWaiting:
		if p.misfit() {
			return PhaseMisfitReserving
		}
		return PhaseReserving
	case evPermitComplete:
		return PhasePlaced
	case evAttemptFailed:
		return PhaseMisfit
	case evAttemptRejected:
		if p.misfit() {
			return PhaseMisfit
		}
		return PhasePending
	}
	return p
}

// gangState is the mutable per-gang bookkeeping, guarded by Manager.mu.
type gangState struct {
	// phase is changed only through Manager.transitionLocked.
	phase Phase
	// reason explains the latest search rejection, for the Scheduled condition
	// and Events; it is cleared when the minimum set passes Permit.
	reason string
	// attemptStart is when the current gang attempt began (zero between
	// attempts); it feeds the attempt duration metric.
	attemptStart time.Time
	// reserved holds pods assumed by this scheduler but not yet seen bound.
	reserved map[string]string
	// bound holds pods the informer reports bound (pod name → node).
	bound map[string]string
	// victims are pods (namespace/name → UID) this gang is preempting.
	victims map[string]string
	// victimsDeadline bounds how long the gang waits for its victims before preempting again.
	victimsDeadline time.Time
	// plan is the group-level cycle's placement of the minimum set being
	// reserved (groupcycle.go); nil outside an attempt.
	plan *gangPlan
	// claims are the ResourceClaims the current attempt allocated
	// (claims.go), given back if it fails; nil outside such an attempt.
	claims map[types.NamespacedName]types.UID
}

func newGangState() *gangState {
	return &gangState{reserved: map[string]string{}, bound: map[string]string{}}
}

// assigned returns a copy of every pod of the gang that holds a node (reserved or bound).
func (st *gangState) assigned() map[string]string {
	out := make(map[string]string, len(st.reserved)+len(st.bound))
	for n, node := range st.reserved {
		out[n] = node
	}
	for n, node := range st.bound {
		out[n] = node
	}
	return out
}

// counts returns, per group, how many referenced pods hold a node (reserved or bound).
func counts(spec *gangSpec, st *gangState) []int64 {
	out := make([]int64, len(spec.groups))
	for name, gi := range spec.refIndex {
		if _, ok := st.bound[name]; ok {
			out[gi]++
		} else if _, ok := st.reserved[name]; ok {
			out[gi]++
		}
	}
	return out
}

func minSetMet(spec *gangSpec, c []int64) bool {
	for i, g := range spec.groups {
		if c[i] < g.min {
			return false
		}
	}
	return true
}

// gangView is a consistent copy of a gang's bookkeeping, taken under Manager.mu
// and used after the lock is released.
type gangView struct {
	spec  *gangSpec
	phase Phase
	// counts holds, per group, the pods that hold a node.
	counts []int64
	// assigned maps the gang's pods that hold a node to that node.
	assigned map[string]string
	// baseAssigned is assigned of a scaled gang's base gang (nil otherwise).
	baseAssigned map[string]string
}

func viewOf(spec *gangSpec, st *gangState) gangView {
	if st == nil {
		return gangView{spec: spec, counts: make([]int64, len(spec.groups)), assigned: map[string]string{}}
	}
	return gangView{spec: spec, phase: st.phase, counts: counts(spec, st), assigned: st.assigned()}
}

// minSetMet reports whether every group has minReplicas pods holding a node.
func (v gangView) minSetMet() bool { return minSetMet(v.spec, v.counts) }
