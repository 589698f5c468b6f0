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
	"fmt"

	"k8s.io/client-go/tools/events"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// statusEvent is an event a status computation decided on.
type statusEvent struct {
	eventType, reason, action, note string
}

// statusEvents are the events of one status computation. They announce
// transitions the status records (an update started, a replica's turn, the
// update completed), so they are posted only once that status is written: a
// reconcile that read the PodCliqueSet from a cache that has not yet seen
// the previous write re-derives the same transitions, and its write is
// refused by optimistic locking, so its events must be dropped with it.
type statusEvents []statusEvent

func (e *statusEvents) add(eventType, reason, action, format string, args ...any) {
	*e = append(*e, statusEvent{eventType: eventType, reason: reason, action: action, note: fmt.Sprintf(format, args...)})
}

// post records the events on the PodCliqueSet.
func (e statusEvents) post(recorder events.EventRecorder, pcs *grovecorev1alpha1.PodCliqueSet) {
	for _, ev := range e {
		recorder.Eventf(pcs, nil, ev.eventType, ev.reason, ev.action, "%s", ev.note)
	}
}
