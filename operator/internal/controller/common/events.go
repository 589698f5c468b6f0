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

package common

import (
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The actions of the operator's events.k8s.io/v1 Events: what the controller
// did, or failed to do, regarding the object.
const (
	// ActionCreate creates child objects (PodCliques, pods, PodGangs, ...).
	ActionCreate = "Create"
	// ActionCreateOrUpdate creates or patches a child object.
	ActionCreateOrUpdate = "CreateOrUpdate"
	// ActionDelete deletes child objects.
	ActionDelete = "Delete"
	// ActionUpdate moves the object's replicas to a new generation (rolling update).
	ActionUpdate = "Update"
	// ActionReconcile brings the object's status in line with what the controller observes.
	ActionReconcile = "Reconcile"
)

// MaxEventNote is the longest note the events.k8s.io/v1 API accepts (bytes).
const MaxEventNote = 1024

// NewEventRecorder returns the manager's events.k8s.io/v1 recorder for the
// controller (its reportingController) with notes cut to MaxEventNote: the
// API server rejects a longer note, and the recorder would drop the event.
func NewEventRecorder(mgr manager.Manager, controller string) events.EventRecorder {
	return noteLimit{mgr.GetEventRecorder(controller)}
}

type noteLimit struct{ events.EventRecorder }

func (r noteLimit) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", LimitNote(fmt.Sprintf(note, args...)))
}

// LimitNote cuts a note longer than MaxEventNote bytes at a rune boundary and
// marks the cut with "...".
func LimitNote(note string) string {
	if len(note) <= MaxEventNote {
		return note
	}
	end := MaxEventNote - len("...")
	for end > 0 && !utf8.RuneStart(note[end]) {
		end--
	}
	return note[:end] + "..."
}
