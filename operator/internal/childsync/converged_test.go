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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestConvergedChildrenHoldOnlyForTheSameVersionAndWant(t *testing.T) {
	child := func(uid types.UID, rv string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: uid, ResourceVersion: rv}}
	}
	want := []byte(`{"metadata":{"labels":{"a":"1"}}}`)
	tests := []struct {
		name   string
		record bool
		forget bool
		live   *corev1.Service
		want   []byte
		holds  bool
	}{
		{name: "never recorded", live: child("u1", "10"), want: want},
		{name: "recorded at this version and want", record: true, live: child("u1", "10"), want: want, holds: true},
		{name: "the child changed since", record: true, live: child("u1", "11"), want: want},
		{name: "the controller wants something else", record: true, live: child("u1", "10"), want: []byte(`{"metadata":{"labels":{"a":"2"}}}`)},
		{name: "another child at the same version", record: true, live: child("u2", "10"), want: want},
		{name: "the child was deleted", record: true, forget: true, live: child("u1", "10"), want: want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConvergedChildren()
			if tt.record {
				c.record(child("u1", "10"), want)
			}
			if tt.forget {
				c.forget("u1")
			}
			if got := c.holds(tt.live, tt.want); got != tt.holds {
				t.Errorf("holds() = %v, want %v", got, tt.holds)
			}
		})
	}
}

func TestNilConvergedChildrenRemembersNothing(t *testing.T) {
	var c *ConvergedChildren
	live := &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: "u1", ResourceVersion: "1"}}
	c.record(live, []byte("{}"))
	c.forget("u1")
	if c.holds(live, []byte("{}")) {
		t.Error("a nil memory holds a child")
	}
}

func TestConvergedChildrenIgnoreObjectsWithoutUID(t *testing.T) {
	c := NewConvergedChildren()
	c.record(&corev1.Service{}, []byte("{}"))
	if n := c.len(); n != 0 {
		t.Errorf("remembered %d children without a UID", n)
	}
}
