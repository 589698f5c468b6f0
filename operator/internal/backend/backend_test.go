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

package backend

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

func allBackends(t *testing.T) *Registry {
	t.Helper()
	return allBackendsWith(t, `{"gangScheduling":true}`)
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(config.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Translators()) != 0 {
		t.Errorf("default configuration: translators %v, want none (default-scheduler without gangScheduling)", r.Translators())
	}
	tests := []struct {
		schedulerName, want, wantErr string
	}{
		{"", "grove-scheduler", ""},
		{"grove-scheduler", "grove-scheduler", ""},
		{"default-scheduler", "default-scheduler", ""},
		{"volcano", "", `scheduler "volcano" is not an enabled scheduler backend (enabled: [default-scheduler grove-scheduler])`},
	}
	for _, tc := range tests {
		b, err := r.ForSchedulerName(tc.schedulerName)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.schedulerName, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.schedulerName, err)
		}
		pod := &corev1.Pod{}
		b.PreparePod(pod)
		if pod.Spec.SchedulerName != tc.want {
			t.Errorf("%q: schedulerName %q, want %q", tc.schedulerName, pod.Spec.SchedulerName, tc.want)
		}
		if pod.Spec.SchedulingGroup != nil {
			t.Errorf("%q: schedulingGroup set without gangScheduling", tc.schedulerName)
		}
	}
}

// TestPreparePod: how each backend hands a pod to its scheduler and joins it
// to its gang.
func TestPreparePod(t *testing.T) {
	r := allBackends(t)
	if got := len(r.Translators()); got != 4 {
		t.Fatalf("translators: %d, want default-scheduler, scheduler-plugins-scheduler, volcano and kai-scheduler", got)
	}
	tests := []struct {
		backend string
		want    func(*corev1.Pod) string
		expect  string
	}{
		{"default-scheduler", func(p *corev1.Pod) string {
			return p.Spec.SchedulerName + " " + ptr.Deref(ptr.Deref(p.Spec.SchedulingGroup, corev1.PodSchedulingGroup{}).PodGroupName, "-")
		}, "default-scheduler simple1-0-pca"},
		{"scheduler-plugins-scheduler", func(p *corev1.Pod) string {
			return p.Spec.SchedulerName + " " + p.Labels["scheduling.x-k8s.io/pod-group"]
		}, "scheduler-plugins-scheduler simple1-0"},
		{"volcano", func(p *corev1.Pod) string {
			return p.Spec.SchedulerName + " " + p.Annotations["scheduling.k8s.io/group-name"] + " " + p.Annotations["volcano.sh/task-spec"]
		}, "volcano simple1-0 simple1-0-pca"},
		{"kai-scheduler", func(p *corev1.Pod) string {
			return p.Spec.SchedulerName + " " + p.Annotations["pod-group-name"] + " " + p.Labels["kai.scheduler/subgroup-name"]
		}, "kai-scheduler simple1-0 simple1-0-pca"},
		{"grove-scheduler", func(p *corev1.Pod) string { return p.Spec.SchedulerName }, "grove-scheduler"},
	}
	for _, tc := range tests {
		b, _ := r.Get(tc.backend)
		pod := &corev1.Pod{}
		pod.Labels = map[string]string{apicommon.LabelPodClique: "simple1-0-pca", apicommon.LabelPodGang: "simple1-0"}
		b.PreparePod(pod)
		if got := tc.want(pod); got != tc.expect {
			t.Errorf("%s: %q, want %q", tc.backend, got, tc.expect)
		}
	}
}

func pcsWith(mutate func(*grovecorev1alpha1.PodCliqueSet)) *grovecorev1alpha1.PodCliqueSet {
	clique := func(name string) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: name, Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 1}}
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	pcs.Spec.Template.Cliques = []grovecorev1alpha1.PodCliqueTemplateSpec{clique("a"), clique("b"), clique("c")}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "sg", CliqueNames: []string{"b", "c"}, MinAvailable: ptr.To[int32](1)}}
	if mutate != nil {
		mutate(pcs)
	}
	return pcs
}

func required(domain string) *grovecorev1alpha1.TopologyConstraint {
	d := grovecorev1alpha1.TopologyDomain(domain)
	return &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: &d}}
}

func preferred(domain string) *grovecorev1alpha1.TopologyConstraint {
	d := grovecorev1alpha1.TopologyDomain(domain)
	return &grovecorev1alpha1.TopologyConstraint{Pack: &grovecorev1alpha1.TopologyPackConstraint{Preferred: &d}}
}

// TestValidatePodCliqueSet: what each backend's scheduler cannot honour is
// named by field.
func TestValidatePodCliqueSet(t *testing.T) {
	withTopology := allBackendsWith(t, `{"gangScheduling":true,"topologyAwareScheduling":true}`)
	withoutTopology := allBackends(t)
	many := func(n int) func(*grovecorev1alpha1.PodCliqueSet) {
		return func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs = nil
			p.Spec.Template.Cliques = nil
			for i := range n {
				p.Spec.Template.Cliques = append(p.Spec.Template.Cliques, grovecorev1alpha1.PodCliqueTemplateSpec{Name: string(rune('a' + i))})
			}
		}
	}
	tests := []struct {
		name    string
		r       *Registry
		backend string
		pcs     *grovecorev1alpha1.PodCliqueSet
		want    string
	}{
		{"workload API: 3 pod groups", withoutTopology, "default-scheduler", pcsWith(nil), ""},
		{"workload API: 8 pod groups", withoutTopology, "default-scheduler", pcsWith(many(8)), ""},
		{"workload API: 9 pod groups", withoutTopology, "default-scheduler", pcsWith(many(9)),
			"spec.template.cliques: Invalid value: 9: a replica's base gang has 9 pod groups (standalone cliques plus minAvailable replicas of each scaling group's cliques); the Workload API of scheduler backend default-scheduler allows at most 8"},
		{"workload API: scaling group minAvailable counts", withoutTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable = ptr.To[int32](4)
		}), "a replica's base gang has 9 pod groups"},
		{"workload API: topology off", withoutTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].TopologyConstraint = required("rack")
		}),
			"spec.template.cliques[0].topologyConstraint: Forbidden: scheduler backend default-scheduler places no topology constraints unless its config sets topologyAwareScheduling"},
		{"workload API: clique required", withTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].TopologyConstraint = required("rack")
		}), ""},
		{"workload API: preferred", withTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[1].TopologyConstraint = preferred("rack")
		}),
			"spec.template.cliques[1].topologyConstraint.pack.preferred: Forbidden: the Workload API of scheduler backend default-scheduler has no preferred placement; use required"},
		{"workload API: required across groups", withTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.TopologyConstraint = required("zone") }),
			"spec.template.topologyConstraint.pack.required: Forbidden: the Workload API of scheduler backend default-scheduler packs each pod group (clique) on its own"},
		{"workload API: scaling group of 2 cliques", withTopology, "default-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].TopologyConstraint = required("rack")
		}), "spec.template.podCliqueScalingGroups[0].topologyConstraint.pack.required: Forbidden"},
		{"coscheduling: topology", withoutTopology, "scheduler-plugins-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.TopologyConstraint = required("zone") }),
			"spec.template.topologyConstraint: Forbidden: scheduler backend scheduler-plugins-scheduler (Coscheduling) places no topology constraints"},
		{"coscheduling: none", withoutTopology, "scheduler-plugins-scheduler", pcsWith(nil), ""},
		{"volcano: topology", withoutTopology, "volcano", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[2].TopologyConstraint = required("host")
		}),
			"spec.template.cliques[2].topologyConstraint: Forbidden: scheduler backend volcano does not map topology constraints"},
		{"volcano: bad queue", withoutTopology, "volcano", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Annotations = map[string]string{"scheduling.grove.io/volcano-queue": "Team_A"}
		}), `metadata.annotations[scheduling.grove.io/volcano-queue]: Invalid value: "Team_A": a lowercase RFC 1123 subdomain`},
		{"volcano: queue", withoutTopology, "volcano", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Annotations = map[string]string{"scheduling.grove.io/volcano-queue": "team-a"}
		}), ""},
		{"kai-scheduler: topology at every level", withoutTopology, "kai-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = required("zone")
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].TopologyConstraint = required("rack")
			p.Spec.Template.Cliques[0].TopologyConstraint = preferred("host")
		}), ""},
		{"kai-scheduler: queue label and annotation", withoutTopology, "kai-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Labels = map[string]string{"kai.scheduler/queue": "team-a"}
			p.Annotations = map[string]string{"kai.scheduler/queue": "team-b"}
		}), ""},
		{"kai-scheduler: bad queue label", withoutTopology, "kai-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Labels = map[string]string{"kai.scheduler/queue": "Team_A"}
		}), `metadata.labels[kai.scheduler/queue]: Invalid value: "Team_A": a lowercase RFC 1123 subdomain`},
		{"kai-scheduler: bad queue annotation", withoutTopology, "kai-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Annotations = map[string]string{"kai.scheduler/queue": "team a"}
		}), `metadata.annotations[kai.scheduler/queue]: Invalid value: "team a": a lowercase RFC 1123 subdomain`},
		{"grove-scheduler: anything", withoutTopology, "grove-scheduler", pcsWith(func(p *grovecorev1alpha1.PodCliqueSet) { p.Spec.Template.TopologyConstraint = preferred("zone") }), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := tc.r.Get(tc.backend)
			errs := b.ValidatePodCliqueSet(tc.pcs)
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected errors: %v", errs.ToAggregate())
				}
				return
			}
			if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Fatalf("errors %v, want one containing %q", errs.ToAggregate(), tc.want)
			}
		})
	}
}

func allBackendsWith(t *testing.T, defaultSchedulerConfig string) *Registry {
	t.Helper()
	cfg := config.Default()
	cfg.Scheduler.Profiles = []config.SchedulerProfile{
		{Name: config.SchedulerBackendGrove},
		{Name: config.SchedulerBackendDefault, Config: &runtime.RawExtension{Raw: []byte(defaultSchedulerConfig)}},
		{Name: config.SchedulerBackendSchedulerPlugins},
		{Name: config.SchedulerBackendVolcano},
		{Name: config.SchedulerBackendKAI},
	}
	r, err := NewRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
