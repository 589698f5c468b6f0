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

// Package featuregates holds the kube-scheduler feature gates whose default
// grove-scheduler changes, and why.
package featuregates

import (
	"fmt"

	"k8s.io/component-base/featuregate"
)

// NominatedNodeNameForExpectation is the kube-scheduler gate (beta, on by
// default since 1.35) that patches status.nominatedNodeName on every pod that
// waits at Permit before its binding cycle may go on.
const NominatedNodeNameForExpectation featuregate.Feature = "NominatedNodeNameForExpectation"

// Defaults are grove-scheduler's own defaults; a --feature-gates flag still
// overrides each of them.
//
// NominatedNodeNameForExpectation is off because every gang pod but the last
// of its minimum set waits at Permit: the gate costs one pod status PATCH per
// waiting pod and the update event it causes, which halved gang throughput in
// make bench-scheduler. The wait lasts until the rest of the gang is reserved,
// usually a few scheduling cycles, so a cluster autoscaler loses little by not
// seeing those pods as nominated.
var Defaults = map[featuregate.Feature]bool{
	NominatedNodeNameForExpectation: false,
}

// Apply sets Defaults on gate. Call it before the command line is parsed so
// --feature-gates can still override each default.
func Apply(gate featuregate.MutableFeatureGate) error {
	return gate.SetFromMap(asStrings(Defaults))
}

// Restore sets every gate named in Defaults back to gate's own default, for
// a process that runs stock kube-scheduler after grove-scheduler.
func Restore(gate featuregate.MutableFeatureGate) error {
	known := gate.GetAll()
	upstream := map[featuregate.Feature]bool{}
	for f := range Defaults {
		spec, ok := known[f]
		if !ok {
			return fmt.Errorf("feature gate %s is not registered", f)
		}
		upstream[f] = spec.Default
	}
	return gate.SetFromMap(asStrings(upstream))
}

func asStrings(m map[featuregate.Feature]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for f, on := range m {
		out[string(f)] = on
	}
	return out
}
