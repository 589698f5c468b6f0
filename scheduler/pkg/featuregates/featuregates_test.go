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

package featuregates

import (
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	_ "k8s.io/kubernetes/pkg/features" // registers kube-scheduler's gates
)

// Apply and Restore switch a process between grove-scheduler's gate defaults
// and stock kube-scheduler's, as the in-process test harness does.
func TestApplyAndRestore(t *testing.T) {
	gate := utilfeature.DefaultMutableFeatureGate
	upstream := gate.GetAll()[NominatedNodeNameForExpectation].Default
	if !upstream {
		t.Fatalf("kube-scheduler's default for %s is off; grove-scheduler's override is moot", NominatedNodeNameForExpectation)
	}
	steps := []struct {
		name string
		set  func() error
		want bool
	}{
		{"grove-scheduler", func() error { return Apply(gate) }, false},
		{"stock kube-scheduler", func() error { return Restore(gate) }, true},
		{"grove-scheduler again", func() error { return Apply(gate) }, false},
	}
	for _, s := range steps {
		if err := s.set(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := gate.Enabled(NominatedNodeNameForExpectation); got != s.want {
			t.Errorf("%s: %s enabled = %t, want %t", s.name, NominatedNodeNameForExpectation, got, s.want)
		}
	}
}
