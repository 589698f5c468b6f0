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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/grove-project/grove/operator/internal/controller/common"
)

func svc(name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func items(n int, err error) []reported {
	out := make([]reported, n)
	for i := range out {
		out[i] = reported{child: svc(fmt.Sprintf("pcs-%03d", i)), err: err}
	}
	return out
}

func TestNote(t *testing.T) {
	boom := errors.New("forbidden")
	long := reported{child: svc(strings.Repeat("x", 2000))}
	cases := []struct {
		name    string
		outcome outcome
		items   []reported
		want    string
		prefix  string
		suffix  string
	}{
		{name: "one created", outcome: created, items: items(1, nil), want: "Created Service pcs-000"},
		{name: "three created", outcome: created, items: items(3, nil), want: "Created 3 Services: pcs-000, pcs-001, pcs-002"},
		{name: "two deleted", outcome: deleted, items: items(2, nil), want: "Deleted 2 Services: pcs-000, pcs-001"},
		{name: "one failed", outcome: applyFailed, items: items(1, boom), want: "Error creating or updating Service pcs-000: forbidden"},
		{name: "one not owned", outcome: notOwned, items: items(1, ErrNotOwned{Kind: "Service", Name: "pcs-000"}), want: "Not controlled by this owner, left untouched: Service pcs-000 (no controller)"},
		{name: "two not owned", outcome: notOwned, items: []reported{
			{child: svc("pcs-0"), err: ErrNotOwned{Kind: "Service", Name: "pcs-0", Controller: &metav1.OwnerReference{Kind: "Deployment", Name: "web"}}},
			{child: svc("pcs-1"), err: ErrNotOwned{Kind: "Service", Name: "pcs-1"}},
		}, want: "Not controlled by this owner, left untouched: 2 Services: pcs-0 (controlled by Deployment web), pcs-1 (no controller)"},
		{name: "two failed deletes", outcome: deleteFailed, items: items(2, boom), want: "Error deleting 2 Services: pcs-000: forbidden; pcs-001: forbidden"},
		// 22 bytes of header, 7 for the first name, 9 per further one and 13 for
		// " and 390 more": 110 names fit in 1023 bytes.
		{name: "500 created are cut", outcome: created, items: items(500, nil), prefix: "Created 500 Services: pcs-000, pcs-001, ", suffix: "pcs-109 and 390 more"},
		{name: "an entry longer than a note", outcome: created, items: []reported{long, long}, prefix: "Created 2 Services: xxx", suffix: "x..."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := note(tc.outcome, "Service", tc.items)
			if len(got) > common.MaxEventNote {
				t.Fatalf("note is %d bytes, longer than %d", len(got), common.MaxEventNote)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("note = %q, want %q", got, tc.want)
			}
			if !strings.HasPrefix(got, tc.prefix) || !strings.HasSuffix(got, tc.suffix) {
				t.Errorf("note = %q, want prefix %q and suffix %q", got, tc.prefix, tc.suffix)
			}
		})
	}
}

type recorded struct {
	related      runtime.Object
	reason, note string
}

type fakeRecorder struct{ got []recorded }

func (f *fakeRecorder) Eventf(_, related runtime.Object, _, reason, _, note string, args ...any) {
	f.got = append(f.got, recorded{related: related, reason: reason, note: fmt.Sprintf(note, args...)})
}

var _ events.EventRecorder = &fakeRecorder{}

// A sync's outcomes become one event each; a lone child is the related object.
func TestReportEmitsOneEventPerOutcome(t *testing.T) {
	rec := &fakeRecorder{}
	r := Deps{Recorder: rec}.NewReport(svc("owner"), "Service")
	r.Applied(svc("b"), Created, nil)
	r.Applied(svc("a"), Created, nil)
	r.Applied(svc("c"), Patched, nil)
	r.Applied(svc("d"), Unchanged, nil)
	r.Deleted(svc("e"), nil)
	r.Emit()
	if len(rec.got) != 2 {
		t.Fatalf("got %d events %+v, want 2", len(rec.got), rec.got)
	}
	if e := rec.got[0]; e.reason != "ServiceCreateSuccessful" || e.note != "Created 2 Services: a, b" || e.related != nil {
		t.Errorf("first event = %+v, want ServiceCreateSuccessful naming a and b with no related object", e)
	}
	if e := rec.got[1]; e.reason != "ServiceDeleteSuccessful" || e.note != "Deleted Service e" || e.related == nil {
		t.Errorf("second event = %+v, want ServiceDeleteSuccessful for e with e as related object", e)
	}
	r.Emit()
	if len(rec.got) != 2 {
		t.Errorf("a second Emit posted %d more events, want none", len(rec.got)-2)
	}
}
