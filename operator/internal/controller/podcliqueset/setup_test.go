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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func TestPodGangChangedQueuesTheReplica(t *testing.T) {
	gang := func(rv string, generation int64, initialized metav1.ConditionStatus, phase groveschedulerv1alpha1.PodGangPhase) *groveschedulerv1alpha1.PodGang {
		pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv, Generation: generation}}
		pg.Status.Phase = phase
		if initialized != "" {
			pg.Status.Conditions = []metav1.Condition{{Type: groveschedulerv1alpha1.PodGangConditionTypeInitialized, Status: initialized}}
		}
		return pg
	}
	for _, tc := range []struct {
		name     string
		old, cur *groveschedulerv1alpha1.PodGang
		setLevel bool
		replica  bool
	}{
		{"its pass writes Initialized=False", gang("1", 1, "", ""), gang("2", 1, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangPhasePending), true, false},
		{"a PodClique writes references", gang("2", 1, metav1.ConditionFalse, ""), gang("3", 2, metav1.ConditionFalse, ""), false, true},
		{"grove-scheduler writes the status before Initialized is True", gang("3", 2, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangPhasePending),
			gang("4", 2, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangPhaseStarting), true, true},
		{"grove-scheduler writes the status once Initialized is True", gang("5", 2, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangPhaseStarting),
			gang("6", 2, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangPhaseRunning), true, false},
		{"a resync", gang("6", 2, metav1.ConditionFalse, ""), gang("6", 2, metav1.ConditionFalse, ""), false, false},
	} {
		setLevel, replica := podGangChanged(tc.old, tc.cur)
		if setLevel != tc.setLevel || replica != tc.replica {
			t.Errorf("%s: podGangChanged = set-level %t, replica %t; want %t, %t", tc.name, setLevel, replica, tc.setLevel, tc.replica)
		}
	}
}
