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
	"bytes"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestMovedManagedFields: the create's fields move to the Apply entry, but the
// shared ones stay where they are.
func TestMovedManagedFields(t *testing.T) {
	podReferences := func(p fieldpath.Path) bool {
		return len(p) == 4 && p[3].FieldName != nil && *p[3].FieldName == "podReferences"
	}
	const gang = `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:podgroups":{"k:{\"name\":\"g\"}":{".":{},"f:minReplicas":{},"f:name":{},"f:podReferences":{}}}}}`
	tests := []struct {
		name        string
		shared      func(fieldpath.Path) bool
		created     string
		apply       string
		wantMoved   bool
		wantCreated string // what the Update entry keeps; "" = entry gone
		wantApply   string
	}{
		{
			name:        "spec.replicas stays with the create",
			created:     `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:replicas":{},"f:roleName":{}}}`,
			wantMoved:   true,
			wantCreated: `{"f:spec":{"f:replicas":{}}}`,
			wantApply:   `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:roleName":{}}}`,
		},
		{
			name:      "merged into an existing Apply entry",
			created:   `{"f:metadata":{"f:labels":{"f:team":{}}}}`,
			apply:     `{"f:spec":{"f:roleName":{}}}`,
			wantMoved: true,
			wantApply: `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:roleName":{}}}`,
		},
		{
			name:        "a PodGang's pod references stay with their writer; the groups move",
			shared:      podReferences,
			created:     gang,
			wantMoved:   true,
			wantCreated: `{"f:spec":{"f:podgroups":{"k:{\"name\":\"g\"}":{"f:podReferences":{}}}}}`,
			wantApply:   `{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:podgroups":{"k:{\"name\":\"g\"}":{".":{},"f:minReplicas":{},"f:name":{}}}}}`,
		},
		{
			name:        "only shared fields: nothing to move",
			created:     `{"f:spec":{"f:replicas":{}}}`,
			wantMoved:   false,
			wantCreated: `{"f:spec":{"f:replicas":{}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shared := Shared[client.Object]{Shared: tc.shared}.shared()
			entries := []metav1.ManagedFieldsEntry{{Manager: CreateFieldManager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(tc.created)}}
			if tc.apply != "" {
				entries = append(entries, metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(tc.apply)})
			}
			out, moved, err := movedManagedFields(entries, "m", shared)
			if err != nil {
				t.Fatal(err)
			}
			if moved != tc.wantMoved {
				t.Fatalf("moved = %t, want %t", moved, tc.wantMoved)
			}
			got := map[metav1.ManagedFieldsOperationType]string{}
			for _, e := range out {
				got[e.Operation] = e.FieldsV1.String()
			}
			for op, want := range map[metav1.ManagedFieldsOperationType]string{metav1.ManagedFieldsOperationUpdate: tc.wantCreated, metav1.ManagedFieldsOperationApply: tc.wantApply} {
				if !sameFields(t, got[op], want) {
					t.Errorf("%s entry = %s, want %s", op, got[op], want)
				}
			}
		})
	}
}

func sameFields(t *testing.T, a, b string) bool {
	t.Helper()
	if a == "" || b == "" {
		return a == b
	}
	sa, sb := &fieldpath.Set{}, &fieldpath.Set{}
	if err := sa.FromJSON(bytes.NewReader([]byte(a))); err != nil {
		t.Fatal(err)
	}
	if err := sb.FromJSON(bytes.NewReader([]byte(b))); err != nil {
		t.Fatal(err)
	}
	return sa.Equals(sb)
}
