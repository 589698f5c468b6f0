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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestValidate(t *testing.T) {
	level := func(d, k string) grovecorev1alpha1.TopologyLevel {
		return grovecorev1alpha1.TopologyLevel{Domain: grovecorev1alpha1.TopologyDomain(d), Key: k}
	}
	valid := []grovecorev1alpha1.TopologyLevel{level("zone", "topology.kubernetes.io/zone"), level("host", "kubernetes.io/hostname")}
	binding := func(scheduler, ref string) []grovecorev1alpha1.SchedulerTopologyBinding {
		return []grovecorev1alpha1.SchedulerTopologyBinding{{SchedulerName: scheduler, TopologyReference: ref}}
	}
	tests := []struct {
		name     string
		levels   []grovecorev1alpha1.TopologyLevel
		bindings []grovecorev1alpha1.SchedulerTopologyBinding
		path     string
		msg      string
		// enabled are the enabled backends; default-scheduler and grove-scheduler when nil.
		enabled []string
	}{
		{name: "valid", levels: []grovecorev1alpha1.TopologyLevel{level("zone", "topology.kubernetes.io/zone"), level("host", "kubernetes.io/hostname")}},
		{name: "no levels", levels: nil, path: "spec.levels", msg: "at least one level"},
		{name: "duplicate domain", levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("zone", "a/rack")},
			path: "spec.levels[1].domain", msg: "already used by spec.levels[0]"},
		{name: "duplicate key", levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("rack", "a/zone")},
			path: "spec.levels[1].key", msg: "already used by spec.levels[0]"},
		{name: "empty domain", levels: []grovecorev1alpha1.TopologyLevel{level("", "a/zone")}, path: "spec.levels[0].domain", msg: "Required value"},
		{name: "malformed domain", levels: []grovecorev1alpha1.TopologyLevel{level("Zone", "a/zone")}, path: "spec.levels[0].domain", msg: "must match"},
		{name: "long domain", levels: []grovecorev1alpha1.TopologyLevel{level(strings.Repeat("z", 64), "a/zone")}, path: "spec.levels[0].domain", msg: "Too long"},
		{name: "empty key", levels: []grovecorev1alpha1.TopologyLevel{level("zone", "")}, path: "spec.levels[0].key", msg: "Required value"},
		{name: "malformed key", levels: []grovecorev1alpha1.TopologyLevel{level("zone", "bad key")}, path: "spec.levels[0].key", msg: "name part must consist of"},
		{name: "binding to a backend that is not enabled", levels: valid, bindings: binding("kai-scheduler", "dc"),
			path: "spec.schedulerTopologyBindings[0].schedulerName", msg: `Unsupported value: "kai-scheduler": supported values: "default-scheduler", "grove-scheduler"`},
		{name: "binding to grove-scheduler, which has no topology object", levels: valid, bindings: binding("grove-scheduler", "dc"),
			path: "spec.schedulerTopologyBindings[0].schedulerName", msg: "keeps no topology object of its own"},
		{name: "binding to kai-scheduler, whose PodGroups name a KAI Topology", levels: valid, bindings: binding("kai-scheduler", "dc"), enabled: []string{"grove-scheduler", "kai-scheduler"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "topology"},
				Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: tt.levels, SchedulerTopologyBindings: tt.bindings}}
			enabled := tt.enabled
			if enabled == nil {
				enabled = []string{"default-scheduler", "grove-scheduler"}
			}
			errs := Validate(ct, enabled)
			if tt.path == "" {
				if len(errs) > 0 {
					t.Fatalf("valid topology rejected: %v", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != tt.path || !strings.Contains(errs[0].Error(), tt.msg) {
				t.Fatalf("want one error at %s containing %q, got %v", tt.path, tt.msg, errs)
			}
		})
	}
}
