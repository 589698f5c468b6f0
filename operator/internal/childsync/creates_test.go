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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCreatesAwaitTheCache(t *testing.T) {
	now := time.Unix(1000, 0)
	newTracker := func() *Creates {
		c := NewCreates()
		c.now = func() time.Time { return now }
		c.tracked["*v1.Service"] = true
		return c
	}
	a := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	otherNS := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "a"}}
	untracked := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	cases := []struct {
		name  string
		steps func(c *Creates)
		obj   *corev1.Service
		want  bool
	}{
		{name: "never created", steps: func(*Creates) {}, obj: a, want: false},
		{name: "created, cache behind", steps: func(c *Creates) { c.reserve(a) }, obj: a, want: true},
		{name: "same name elsewhere", steps: func(c *Creates) { c.reserve(a) }, obj: otherNS, want: false},
		{name: "cache showed it", steps: func(c *Creates) { c.reserve(a); c.observed(a) }, obj: a, want: false},
		{name: "just before the timeout", steps: func(c *Creates) { c.reserve(a); now = now.Add(CreateTimeout - time.Second) }, obj: a, want: true},
		{name: "timed out", steps: func(c *Creates) { c.reserve(a); now = now.Add(CreateTimeout) }, obj: a, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTracker()
			tc.steps(c)
			if got := !c.reserve(tc.obj); got != tc.want {
				t.Errorf("awaiting(%s/%s) = %t, want %t", tc.obj.Namespace, tc.obj.Name, got, tc.want)
			}
		})
	}
	c := newTracker()
	c.reserve(untracked)
	if !c.reserve(untracked) {
		t.Error("a create of a kind without an informer handler is remembered; nothing would end its wait")
	}
	var none *Creates
	none.reserve(a)
	if !none.reserve(a) {
		t.Error("a nil tracker remembers creates")
	}
}
