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

package clustertopologybinding

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestNodesLabelledCondition(t *testing.T) {
	levels := []grovecorev1alpha1.TopologyLevel{{Domain: "zone", Key: "z"}, {Domain: "rack", Key: "r"}, {Domain: "host", Key: "h"}}
	tests := []struct {
		name    string
		nodes   []map[string]string
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{name: "every level labelled", nodes: []map[string]string{{"z": "a", "r": "1", "h": "n1"}, {"z": "a", "r": "2", "h": "n2"}, {"z": "b", "r": "3", "h": "n3"}},
			status: metav1.ConditionTrue, reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			message: "zone (z): 3 nodes, 2 domains; rack (r): 3 nodes, 3 domains; host (h): 3 nodes, 3 domains"},
		{name: "a level on some nodes only still counts as labelled", nodes: []map[string]string{{"z": "a", "r": "1", "h": "n1"}, {"h": "n2"}},
			status: metav1.ConditionTrue, reason: grovecorev1alpha1.ConditionReasonAllLevelsLabelled,
			message: "zone (z): 1 nodes, 1 domains; rack (r): 1 nodes, 1 domains; host (h): 2 nodes, 2 domains"},
		{name: "levels on no node", nodes: []map[string]string{{"h": "n1"}, nil},
			status: metav1.ConditionFalse, reason: grovecorev1alpha1.ConditionReasonLevelsNotLabelled,
			message: "no node carries the label key of level zone, rack; zone (z): 0 nodes, 0 domains; rack (r): 0 nodes, 0 domains; host (h): 1 nodes, 1 domains"},
		{name: "no nodes at all", nodes: nil,
			status: metav1.ConditionFalse, reason: grovecorev1alpha1.ConditionReasonLevelsNotLabelled,
			message: "no node carries the label key of level zone, rack, host; zone (z): 0 nodes, 0 domains; rack (r): 0 nodes, 0 domains; host (h): 0 nodes, 0 domains"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NodesLabelledCondition(levels, tt.nodes)
			if c.Type != grovecorev1alpha1.ConditionTypeNodesLabelled || c.Status != tt.status || c.Reason != tt.reason || c.Message != tt.message {
				t.Fatalf("got %s=%s/%s %q, want %s/%s %q", c.Type, c.Status, c.Reason, c.Message, tt.status, tt.reason, tt.message)
			}
		})
	}
}
