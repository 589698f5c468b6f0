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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
)

func TestLimitNote(t *testing.T) {
	for _, tc := range []struct {
		name, note, want string
	}{
		{"short note unchanged", "Created 2 pod(s): a, b", "Created 2 pod(s): a, b"},
		{"exactly the limit unchanged", strings.Repeat("a", MaxEventNote), strings.Repeat("a", MaxEventNote)},
		{"one byte over is cut", strings.Repeat("a", MaxEventNote+1), strings.Repeat("a", MaxEventNote-3) + "..."},
		// "é" is two bytes starting at even offsets after "xx"; byte 1021 is the
		// second byte of one, so the cut moves back to byte 1020.
		{"cut at a rune boundary", "xx" + strings.Repeat("é", MaxEventNote/2), "xx" + strings.Repeat("é", 509) + "..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LimitNote(tc.note)
			if got != tc.want {
				t.Errorf("LimitNote() = %q (%d bytes), want %q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
			if len(got) > MaxEventNote {
				t.Errorf("LimitNote() has %d bytes, more than %d", len(got), MaxEventNote)
			}
		})
	}
}

func TestNoteLimitRecorder(t *testing.T) {
	fake := events.NewFakeRecorder(2)
	r := noteLimit{fake}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	r.Eventf(pod, nil, corev1.EventTypeNormal, "PodCreateSuccessful", ActionCreate, "Created %d pod(s): %s", 1, "p-0")
	r.Eventf(pod, nil, corev1.EventTypeWarning, "PodCreateFailed", ActionCreate, "%s", strings.Repeat("e", 2*MaxEventNote))
	if got, want := <-fake.Events, "Normal PodCreateSuccessful Created 1 pod(s): p-0"; got != want {
		t.Errorf("first event = %q, want %q", got, want)
	}
	if got, want := <-fake.Events, "Warning PodCreateFailed "+strings.Repeat("e", MaxEventNote-3)+"..."; got != want {
		t.Errorf("second event = %q, want %q", got, want)
	}
}
