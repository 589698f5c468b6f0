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
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConverged(t *testing.T) {
	obj := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const live = `{"apiVersion":"v1","metadata":{"labels":{"a":"1","b":"2"},"ownerReferences":[{"uid":"u1","name":"pcs"}]},
		"spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"metrics":[{"type":"Resource"}],"minReplicas":1}}`
	tests := []struct {
		name  string
		want  string
		owned string
		live  string
		ok    bool
	}{
		{"everything wanted is there, nothing owned beyond it",
			`{"apiVersion":"v1","kind":"X","metadata":{"labels":{"a":"1"}},"spec":{"minReplicas":1}}`,
			`{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:minReplicas":{}}}`, live, true},
		{"a defaulted field inside a list element is no difference",
			`{"spec":{"ports":[{"port":80}]}}`,
			`{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}}}}}`, live, true},
		{"a wanted value differs",
			`{"spec":{"minReplicas":2}}`, `{"f:spec":{"f:minReplicas":{}}}`, live, false},
		{"a wanted field is missing",
			`{"spec":{"maxReplicas":4}}`, `{}`, live, false},
		{"a list of another length",
			`{"spec":{"ports":[{"port":80},{"port":81}]}}`, `{}`, live, false},
		{"an owned field is no longer wanted",
			`{"spec":{"minReplicas":1}}`, `{"f:spec":{"f:minReplicas":{},"f:metrics":{}}}`, live, false},
		{"an owned label is no longer wanted",
			`{"metadata":{"labels":{"a":"1"}}}`, `{"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}}}`, live, false},
		{"an owned list element found by its key",
			`{"metadata":{"ownerReferences":[{"uid":"u1","name":"pcs"}]}}`,
			`{"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{".":{},"f:name":{}}}}}`, live, true},
		{"an owned list element whose key is gone",
			`{"metadata":{"ownerReferences":[{"uid":"u2","name":"pcs"}]}}`,
			`{"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{".":{}}}}}`, live, false},
		{"an owned element keyed by a number",
			`{"spec":{"ports":[{"port":80,"protocol":"TCP"}]}}`,
			`{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}}}}`, live, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owned, err := appliedFields([]metav1.ManagedFieldsEntry{
				{Manager: PodCliqueSetFieldManager, Operation: metav1.ManagedFieldsOperationApply, FieldsV1: metav1.NewFieldsV1(tt.owned)},
				{Manager: "someone-else", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:other":{}}}`)},
			}, PodCliqueSetFieldManager)
			if err != nil {
				t.Fatal(err)
			}
			if got := Converged(obj(tt.want), obj(tt.live), owned); got != tt.ok {
				t.Errorf("Converged = %v, want %v", got, tt.ok)
			}
		})
	}
}
