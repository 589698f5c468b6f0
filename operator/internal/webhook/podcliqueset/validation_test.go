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
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

func newValidator(t testing.TB, topologyAware bool) *Validator {
	t.Helper()
	cfg := &config.OperatorConfiguration{}
	config.SetDefaults(cfg)
	backends, err := backend.NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	topologies := fake.NewClientBuilder().WithScheme(scheme).WithObjects(rulecases.Topology()).Build()
	return &Validator{Backends: backends, TopologyAwareScheduling: topologyAware, Topologies: topologies}
}

func validate(t *testing.T, v *Validator, c rulecases.Case, mutate func(*grovecorev1alpha1.PodCliqueSet)) Result {
	t.Helper()
	pcs := rulecases.Base("inference", "default")
	if mutate != nil {
		mutate(pcs)
	}
	var (
		r   Result
		err error
	)
	if c.Update {
		r, err = v.ValidateUpdate(context.Background(), rulecases.Base("inference", "default"), pcs)
	} else {
		r, err = v.ValidateCreate(context.Background(), pcs)
	}
	if err != nil {
		t.Fatalf("validation failed to run: %v", err)
	}
	return r
}

// TestRules runs every rule case: the bad manifest is rejected with exactly
// the expected field path and message (or accepted with the warning), and
// the corrected twin is accepted without errors.
func TestRules(t *testing.T) {
	for _, c := range append(rulecases.Create(), rulecases.Updates()...) {
		t.Run(c.Name, func(t *testing.T) {
			v := newValidator(t, !c.TopologyDisabled)
			if c.Bad != nil {
				r := validate(t, v, c, c.Bad)
				if c.Warning != "" {
					if len(r.Errors) > 0 {
						t.Fatalf("want only a warning, got errors: %v", r.Errors)
					}
					if !containsBoth(r.Warnings, c.Path, c.Warning) {
						t.Fatalf("want a warning with %q and %q, got %q", c.Path, c.Warning, r.Warnings)
					}
				} else {
					found := false
					for _, e := range r.Errors {
						if e.Field == c.Path && strings.Contains(e.Error(), c.Message) {
							found = true
						}
					}
					if !found {
						t.Fatalf("want an error at %s containing %q, got %v", c.Path, c.Message, r.Errors)
					}
				}
			}
			if r := validate(t, v, c, c.Good); len(r.Errors) > 0 {
				t.Fatalf("corrected twin rejected: %v", r.Errors)
			}
		})
	}
}

func containsBoth(ss []string, a, b string) bool {
	for _, s := range ss {
		if strings.Contains(s, a) && strings.Contains(s, b) {
			return true
		}
	}
	return false
}

func TestTopologyDisabledRejectsEveryConstraint(t *testing.T) {
	pcs := rulecases.Base("inference", "default")
	pcs.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: rulecases.TopologyName,
		Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: ptr.To(grovecorev1alpha1.TopologyDomainZone)}}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].TopologyConstraint = pcs.Spec.Template.TopologyConstraint.DeepCopy()
	pcs.Spec.Template.Cliques[0].TopologyConstraint = pcs.Spec.Template.TopologyConstraint.DeepCopy()
	r, err := newValidator(t, false).ValidateCreate(context.Background(), pcs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"spec.template.topologyConstraint",
		"spec.template.podCliqueScalingGroups[0].topologyConstraint",
		"spec.template.cliques[0].topologyConstraint",
	}
	if len(r.Errors) != len(want) {
		t.Fatalf("want %d errors, got %v", len(want), r.Errors)
	}
	for i, e := range r.Errors {
		if e.Field != want[i] || !strings.Contains(e.Detail, TopologyDisabledMessage) {
			t.Errorf("error %d: want %s: %s, got %v", i, want[i], TopologyDisabledMessage, e)
		}
	}
}

// TestKAITopologyNeedsBinding: constraints for kai-scheduler are rejected at
// the topologyName when their ClusterTopologyBinding names no KAI Topology;
// other backends do not need one.
func TestKAITopologyNeedsBinding(t *testing.T) {
	cfg := &config.OperatorConfiguration{}
	cfg.Scheduler.Profiles = []config.SchedulerProfile{{Name: config.SchedulerBackendGrove}, {Name: config.SchedulerBackendKAI}}
	config.SetDefaults(cfg)
	backends, err := backend.NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	bound := rulecases.Topology()
	bound.Name = "kai-bound"
	bound.Spec.SchedulerTopologyBindings = []grovecorev1alpha1.SchedulerTopologyBinding{{SchedulerName: config.SchedulerBackendKAI, TopologyReference: "dc"}}
	topologies := fake.NewClientBuilder().WithScheme(scheme).WithObjects(rulecases.Topology(), bound).Build()
	v := &Validator{Backends: backends, TopologyAwareScheduling: true, Topologies: topologies}
	tests := []struct {
		name, scheduler, topology, want string
	}{
		{"kai-scheduler, binding without a KAI Topology", "kai-scheduler", rulecases.TopologyName,
			`spec.template.topologyConstraint.topologyName: Invalid value: "grove-topology": ClusterTopologyBinding "grove-topology" names no KAI Topology: scheduler backend kai-scheduler needs a spec.schedulerTopologyBindings entry for it`},
		{"kai-scheduler, binding with a KAI Topology", "kai-scheduler", "kai-bound", ""},
		{"grove-scheduler needs none", "grove-scheduler", rulecases.TopologyName, ""},
		{"default backend (grove-scheduler) needs none", "", rulecases.TopologyName, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pcs := rulecases.Base("inference", "default")
			for i := range pcs.Spec.Template.Cliques {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = tc.scheduler
			}
			pcs.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: tc.topology,
				Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: ptr.To(grovecorev1alpha1.TopologyDomainZone)}}
			r, err := v.ValidateCreate(context.Background(), pcs)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Errors.ToAggregate()
			switch {
			case tc.want == "" && got != nil:
				t.Fatalf("unexpected errors: %v", got)
			case tc.want != "" && (len(r.Errors) != 1 || r.Errors[0].Error() != tc.want):
				t.Fatalf("errors %v, want exactly %q", got, tc.want)
			}
		})
	}
}

func TestStartupCycles(t *testing.T) {
	tests := []struct {
		name  string
		deps  map[string][]string
		want  []string
		paths []string
	}{
		{name: "self-contained chain has no cycle", deps: map[string][]string{"b": {"a"}, "c": {"b"}}},
		{name: "two-clique cycle", deps: map[string][]string{"a": {"b"}, "b": {"a"}},
			want: []string{"a -> b -> a"}, paths: []string{"spec.template.cliques[1].spec.startsAfter"}},
		{name: "three-clique cycle", deps: map[string][]string{"a": {"c"}, "b": {"a"}, "c": {"b"}},
			want: []string{"a -> c -> b -> a"}, paths: []string{"spec.template.cliques[1].spec.startsAfter"}},
		{name: "two separate cycles", deps: map[string][]string{"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}},
			want: []string{"a -> b -> a", "c -> d -> c"}, paths: []string{"spec.template.cliques[1].spec.startsAfter", "spec.template.cliques[3].spec.startsAfter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := rulecases.Base("inference", "default")
			pcs.Spec.Template.PodCliqueScalingGroupConfigs = nil
			pcs.Spec.Template.Cliques = nil
			for _, n := range []string{"a", "b", "c", "d"} {
				pcs.Spec.Template.Cliques = append(pcs.Spec.Template.Cliques, rulecases.Clique(n, 1, tt.deps[n]...))
			}
			r, err := newValidator(t, true).ValidateCreate(context.Background(), pcs)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) != len(tt.want) {
				t.Fatalf("want %d errors, got %v", len(tt.want), r.Errors)
			}
			for i, e := range r.Errors {
				if e.Field != tt.paths[i] || !strings.HasSuffix(e.Detail, "cycle: "+tt.want[i]) {
					t.Errorf("want %s: cycle %s, got %v", tt.paths[i], tt.want[i], e)
				}
			}
		})
	}
}
