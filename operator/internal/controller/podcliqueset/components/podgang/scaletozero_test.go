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

package podgang

import (
	"reflect"
	"testing"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// TestExpectedGangsScaledToZero: a PodClique or scaling group at zero
// replicas leaves its PodGang, the rest of the gang stays; back above zero
// its groups return.
func TestExpectedGangsScaledToZero(t *testing.T) {
	tests := []struct {
		name      string
		livePCLQ  map[string]int32
		livePCSG  map[string]int32
		wantGangs []string
	}{
		{
			name:     "a standalone clique at zero leaves the base gang",
			livePCLQ: map[string]int32{"demo-0-fe": 0},
			wantGangs: []string{
				"demo-0=demo-0-mn-0-ldr,demo-0-mn-0-wkr",
				"demo-0-mn-0=demo-0-mn-1-ldr,demo-0-mn-1-wkr base demo-0",
			},
		},
		{
			name:      "a scaling group at zero leaves the base gang and has no scaled gangs",
			livePCSG:  map[string]int32{"demo-0-mn": 0},
			wantGangs: []string{"demo-0=demo-0-fe"},
		},
		{
			name:      "everything at zero leaves an empty base gang",
			livePCLQ:  map[string]int32{"demo-0-fe": 0},
			livePCSG:  map[string]int32{"demo-0-mn": 0},
			wantGangs: []string{"demo-0="},
		},
		{
			name:     "back from zero, the groups rejoin",
			livePCLQ: map[string]int32{"demo-0-fe": 1},
			livePCSG: map[string]int32{"demo-0-mn": 2},
			wantGangs: []string{
				"demo-0=demo-0-fe,demo-0-mn-0-ldr,demo-0-mn-0-wkr",
				"demo-0-mn-0=demo-0-mn-1-ldr,demo-0-mn-1-wkr base demo-0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &state{pclqs: map[string]*grovecorev1alpha1.PodClique{}, pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{}}
			for name, r := range tt.livePCLQ {
				p := &grovecorev1alpha1.PodClique{}
				p.Name, p.Spec.Replicas = name, r
				st.pclqs[name] = p
			}
			for name, r := range tt.livePCSG {
				g := &grovecorev1alpha1.PodCliqueScalingGroup{}
				g.Name, g.Spec.Replicas = name, r
				st.pcsgs[name] = g
			}
			if got := render(expectedGangs(testPCS(1, 2, 1), st, 0, 1)); !reflect.DeepEqual(got, tt.wantGangs) {
				t.Errorf("gangs\n got %q\nwant %q", got, tt.wantGangs)
			}
		})
	}
}
