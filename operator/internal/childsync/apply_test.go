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
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

func TestStampedHashFollowsTheContent(t *testing.T) {
	svc := func(selector string) *corev1ac.ServiceApplyConfiguration {
		return corev1ac.Service("demo-0", "ns").WithLabels(map[string]string{"a": "1"}).
			WithSpec(corev1ac.ServiceSpec().WithSelector(map[string]string{"app": selector}))
	}
	one, h1, err := stamped(svc("x"))
	if err != nil {
		t.Fatal(err)
	}
	_, again, _ := stamped(svc("x"))
	_, other, _ := stamped(svc("y"))
	if h1 != again || h1 == other || len(h1) != 32 {
		t.Errorf("hashes: %q, again %q, other content %q", h1, again, other)
	}
	if got := one.GetAnnotations()[AppliedHashAnnotation]; got != h1 {
		t.Errorf("annotation = %q, want %q", got, h1)
	}
}

func TestMetadataHeld(t *testing.T) {
	want, _, err := stamped(corev1ac.Service("demo-0", "ns").WithLabels(map[string]string{"a": "1"}).WithAnnotations(map[string]string{"b": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	hash := want.GetAnnotations()[AppliedHashAnnotation]
	for _, tc := range []struct {
		name        string
		labels, ann map[string]string
		held        bool
	}{
		{"every value held, others' extra keys", map[string]string{"a": "1", "x": "y"}, map[string]string{"b": "2", AppliedHashAnnotation: hash, "z": "w"}, true},
		{"a label removed by another writer", map[string]string{"x": "y"}, map[string]string{"b": "2", AppliedHashAnnotation: hash}, false},
		{"an annotation changed by another writer", map[string]string{"a": "1"}, map[string]string{"b": "3", AppliedHashAnnotation: hash}, false},
	} {
		live := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels, Annotations: tc.ann}}
		if got := metadataHeld(want, live); got != tc.held {
			t.Errorf("%s: metadataHeld = %t, want %t", tc.name, got, tc.held)
		}
	}
}

func TestOwnsReplicas(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: sub, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	for _, tc := range []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		owns    bool
	}{
		{"set by the creating apply", []metav1.ManagedFieldsEntry{entry(PodCliqueSetFieldManager, metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:replicas":{},"f:podSpec":{}}}`)}, true},
		{"taken by kubectl scale", []metav1.ManagedFieldsEntry{
			entry(PodCliqueSetFieldManager, metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:podSpec":{}}}`),
			entry("kubectl", metav1.ManagedFieldsOperationUpdate, "scale", `{"f:spec":{"f:replicas":{}}}`),
		}, false},
		{"another manager's apply", []metav1.ManagedFieldsEntry{entry(ReplicasFieldManager, metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:replicas":{}}}`)}, false},
	} {
		live := &corev1.Service{ObjectMeta: metav1.ObjectMeta{ManagedFields: tc.entries}}
		if got := ownsReplicas(live, PodCliqueSetFieldManager); got != tc.owns {
			t.Errorf("%s: ownsReplicas = %t, want %t", tc.name, got, tc.owns)
		}
	}
}
