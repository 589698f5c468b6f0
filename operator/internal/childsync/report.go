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
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/grove-project/grove/operator/internal/controller/common"
)

// Report gathers what one sync did to the children of one kind and emits one
// event per outcome when the sync ends: a sync that creates 500 PodCliques
// posts one event naming them, not 500. (The events.k8s.io/v1 recorder has no
// spam filter; an event per child made event writes the operator's largest
// request kind at scale.) Patches stay silent: pod references change with
// every pod, and an event per change would cost more than the patch itself.
// A Report is safe for concurrent use by Parallel workers.
type Report struct {
	d     Deps
	owner runtime.Object
	kind  string

	mu       sync.Mutex
	outcomes map[outcome][]reported
}

type outcome int

const (
	created outcome = iota
	applyFailed
	notOwned
	deleted
	deleteFailed
)

// ReasonChildNameTaken is the reason of the Warning event that names the
// objects holding a child's name that the owner does not control (see
// ErrNotOwned); they are left untouched.
const ReasonChildNameTaken = "ChildNameTaken"

type reported struct {
	child client.Object
	err   error
}

// NewReport starts the report of one sync of owner's children of kind.
func (d Deps) NewReport(owner runtime.Object, kind string) *Report {
	return &Report{d: d, owner: owner, kind: kind, outcomes: map[outcome][]reported{}}
}

// Applied records the result of Apply for child.
func (r *Report) Applied(child client.Object, res Result, err error) {
	var taken ErrNotOwned
	switch {
	case errors.As(err, &taken):
		r.add(notOwned, child, taken)
	case err != nil:
		r.add(applyFailed, child, err)
	case res == Created:
		r.add(created, child, nil)
	}
}

// Deleted records the result of deleting child.
func (r *Report) Deleted(child client.Object, err error) {
	if err != nil {
		r.add(deleteFailed, child, err)
		return
	}
	r.add(deleted, child, nil)
}

func (r *Report) add(o outcome, child client.Object, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes[o] = append(r.outcomes[o], reported{child: child, err: err})
}

// Emit posts one event per outcome seen since NewReport. A single child is
// the event's related object; several are named in the note, sorted, as many
// as fit in an event note.
func (r *Report) Emit() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range []outcome{created, applyFailed, notOwned, deleted, deleteFailed} {
		items := r.outcomes[o]
		if len(items) == 0 {
			continue
		}
		sort.Slice(items, func(i, j int) bool { return items[i].child.GetName() < items[j].child.GetName() })
		eventType, reason, action := o.event(r.kind)
		var related runtime.Object
		if len(items) == 1 {
			related = items[0].child
		}
		r.d.Recorder.Eventf(r.owner, related, eventType, reason, action, "%s", note(o, r.kind, items))
	}
	r.outcomes = map[outcome][]reported{}
}

func (o outcome) event(kind string) (eventType, reason, action string) {
	switch o {
	case created:
		return corev1.EventTypeNormal, kind + "CreateSuccessful", common.ActionCreate
	case applyFailed:
		return corev1.EventTypeWarning, kind + "CreateOrUpdateFailed", common.ActionCreateOrUpdate
	case notOwned:
		return corev1.EventTypeWarning, ReasonChildNameTaken, common.ActionCreateOrUpdate
	case deleted:
		return corev1.EventTypeNormal, kind + "DeleteSuccessful", common.ActionDelete
	default:
		return corev1.EventTypeWarning, kind + "DeleteFailed", common.ActionDelete
	}
}

// note is the event note for items of one outcome: "Created PodClique a" for
// one, "Created 3 PodCliques: a, b, c" for several, with the names (and, for
// failures, their errors) that fit in common.MaxEventNote followed by
// "and N more".
func note(o outcome, kind string, items []reported) string {
	verb := map[outcome]string{
		created: "Created", applyFailed: "Error creating or updating", deleted: "Deleted", deleteFailed: "Error deleting",
		notOwned: "Not controlled by this owner, left untouched:",
	}[o]
	entry := func(it reported) string {
		var taken ErrNotOwned
		switch {
		case errors.As(it.err, &taken):
			return fmt.Sprintf("%s (%s)", it.child.GetName(), taken.Holder())
		case it.err != nil:
			return fmt.Sprintf("%s: %v", it.child.GetName(), it.err)
		}
		return it.child.GetName()
	}
	if len(items) == 1 {
		return fmt.Sprintf("%s %s %s", verb, kind, entry(items[0]))
	}
	sep := ", "
	if o == applyFailed || o == deleteFailed {
		sep = "; "
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %ss: ", verb, len(items), kind)
	for i, it := range items {
		e := entry(it)
		if i > 0 {
			e = sep + e
		}
		// Room must stay for the "and N more" a later cut would need.
		var suffix string
		if left := len(items) - i - 1; left > 0 {
			suffix = fmt.Sprintf(" and %d more", left)
		}
		if b.Len()+len(e)+len(suffix) > common.MaxEventNote {
			if i == 0 {
				// Not even the first entry fits: cut it as LimitNote does.
				return common.LimitNote(b.String() + e)
			}
			fmt.Fprintf(&b, " and %d more", len(items)-i)
			return b.String()
		}
		b.WriteString(e)
	}
	return b.String()
}
