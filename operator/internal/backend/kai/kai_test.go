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

package kai

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/config"
)

func pack(required, preferred string) *groveschedulerv1alpha1.TopologyConstraint {
	p := &groveschedulerv1alpha1.TopologyPackConstraint{}
	if required != "" {
		p.Required = ptr.To(required)
	}
	if preferred != "" {
		p.Preferred = ptr.To(preferred)
	}
	return &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: p}
}

func group(name string, minReplicas int32, tc *groveschedulerv1alpha1.TopologyConstraint) groveschedulerv1alpha1.PodGroup {
	return groveschedulerv1alpha1.PodGroup{Name: name, MinReplicas: minReplicas, TopologyConstraint: tc}
}

// TestTranslate: the PodGroup spec of a gang, rendered as the JSON KAI's API
// server stores.
func TestTranslate(t *testing.T) {
	tests := []struct {
		name     string
		spec     groveschedulerv1alpha1.PodGangSpec
		topology string
		want     string
		wantErr  string
	}{
		{
			name: "flat gang: one subGroup per pod group, minMember the sum",
			spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{group("g-0-a", 2, nil), group("g-0-b", 1, nil)}},
			want: `{"minMember":3,"queue":"q","subGroups":[{"name":"g-0-a","minMember":2},{"name":"g-0-b","minMember":1}]}`,
		},
		{
			name: "priority class",
			spec: groveschedulerv1alpha1.PodGangSpec{PriorityClassName: "high", PodGroups: []groveschedulerv1alpha1.PodGroup{group("g-0-a", 1, nil)}},
			want: `{"minMember":1,"queue":"q","priorityClassName":"high","subGroups":[{"name":"g-0-a","minMember":1}]}`,
		},
		{
			name: "a pod group of minReplicas 0 has no minMember",
			spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{group("g-0-a", 1, nil), group("g-0-b", 0, nil)}},
			want: `{"minMember":1,"queue":"q","subGroups":[{"name":"g-0-a","minMember":1},{"name":"g-0-b"}]}`,
		},
		{
			name: "topology at every level, scaling-group replica as parent",
			spec: groveschedulerv1alpha1.PodGangSpec{
				TopologyConstraint: pack("topology.kubernetes.io/zone", ""),
				PodGroups: []groveschedulerv1alpha1.PodGroup{
					group("g-0-a", 1, pack("", "kubernetes.io/hostname")),
					group("g-0-sg-0-b", 2, nil), group("g-0-sg-0-c", 1, pack("example.com/rack", "kubernetes.io/hostname")),
				},
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{
					{Name: "g-0-sg-0", PodGroupNames: []string{"g-0-sg-0-b", "g-0-sg-0-c"}, TopologyConstraint: pack("example.com/block", "example.com/rack")},
				},
			},
			topology: "dc",
			want: `{"minMember":4,"queue":"q","topologyConstraint":{"topology":"dc","requiredTopologyLevel":"topology.kubernetes.io/zone"},"subGroups":[` +
				`{"name":"g-0-sg-0","topologyConstraint":{"topology":"dc","requiredTopologyLevel":"example.com/block","preferredTopologyLevel":"example.com/rack"}},` +
				`{"name":"g-0-a","minMember":1,"topologyConstraint":{"topology":"dc","preferredTopologyLevel":"kubernetes.io/hostname"}},` +
				`{"name":"g-0-sg-0-b","minMember":2,"parent":"g-0-sg-0"},` +
				`{"name":"g-0-sg-0-c","minMember":1,"parent":"g-0-sg-0","topologyConstraint":{"topology":"dc","requiredTopologyLevel":"example.com/rack","preferredTopologyLevel":"kubernetes.io/hostname"}}]}`,
		},
		{
			name: "a group config without constraint is still the parent",
			spec: groveschedulerv1alpha1.PodGangSpec{
				PodGroups:                      []groveschedulerv1alpha1.PodGroup{group("g-0-sg-0-b", 1, nil)},
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{{Name: "g-0-sg-0", PodGroupNames: []string{"g-0-sg-0-b"}}},
			},
			want: `{"minMember":1,"queue":"q","subGroups":[{"name":"g-0-sg-0"},{"name":"g-0-sg-0-b","minMember":1,"parent":"g-0-sg-0"}]}`,
		},
		{
			name: "an empty pack constraint is no constraint",
			spec: groveschedulerv1alpha1.PodGangSpec{TopologyConstraint: &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: &groveschedulerv1alpha1.TopologyPackConstraint{}},
				PodGroups: []groveschedulerv1alpha1.PodGroup{group("g-0-a", 1, nil)}},
			want: `{"minMember":1,"queue":"q","subGroups":[{"name":"g-0-a","minMember":1}]}`,
		},
		{
			name: "pod group in two topology groups",
			spec: groveschedulerv1alpha1.PodGangSpec{
				PodGroups: []groveschedulerv1alpha1.PodGroup{group("g-0-b", 1, nil)},
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{
					{Name: "x", PodGroupNames: []string{"g-0-b"}}, {Name: "y", PodGroupNames: []string{"g-0-b"}},
				},
			},
			wantErr: "PodGang g-0: pod group g-0-b is in topology groups x and y; a KAI subGroup has one parent",
		},
		{
			name: "topology group named like a pod group",
			spec: groveschedulerv1alpha1.PodGangSpec{
				PodGroups:                      []groveschedulerv1alpha1.PodGroup{group("g-0-b", 1, nil)},
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{{Name: "g-0-b", PodGroupNames: []string{"g-0-b"}}},
			},
			wantErr: "PodGang g-0: topology group g-0-b has the name of a pod group; KAI subGroup names must be unique",
		},
		{
			name: "topology group naming an unknown pod group",
			spec: groveschedulerv1alpha1.PodGangSpec{
				PodGroups:                      []groveschedulerv1alpha1.PodGroup{group("g-0-b", 1, nil)},
				TopologyConstraintGroupConfigs: []groveschedulerv1alpha1.TopologyConstraintGroupConfig{{Name: "x", PodGroupNames: []string{"g-0-c"}}},
			},
			wantErr: "PodGang g-0: topology group x names pod group g-0-c, which the gang does not have",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg := &groveschedulerv1alpha1.PodGang{ObjectMeta: metav1.ObjectMeta{Name: "g-0"}, Spec: tc.spec}
			spec, err := Translate(pg, "q", tc.topology)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("spec\n got %s\nwant %s", got, tc.want)
			}
			if want := HasTopology(pg); want != (tc.topology != "") {
				t.Errorf("HasTopology %v, want %v", want, tc.topology != "")
			}
		})
	}
}

// TestVerdict: what KAI's PodGroup status says of the gang.
func TestVerdict(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	tests := []struct {
		name      string
		minMember int32
		status    podGroupStatus
		want      string
	}{
		{"no status", 3, podGroupStatus{}, "false/SchedulingPending/KAI has not placed PodGroup g-0 yet"},
		{"phase only", 3, podGroupStatus{Phase: "Pending"}, "false/SchedulingPending/PodGroup g-0 is Pending"},
		{"running below minMember", 3, podGroupStatus{Running: 2}, "false/SchedulingPending/KAI has not placed PodGroup g-0 yet"},
		{"running and succeeded reach minMember", 3, podGroupStatus{Running: 2, Succeeded: 1},
			"true/PodGroupRunning/PodGroup g-0 has 3 of minMember 3 pods running or succeeded"},
		{"running wins over an old unschedulable condition", 1, podGroupStatus{Running: 1, SchedulingConditions: []schedulingCondition{{Type: "UnschedulableOnNodePool", Reason: "Unschedulable"}}},
			"true/PodGroupRunning/PodGroup g-0 has 1 of minMember 1 pods running or succeeded"},
		{"unschedulable with reasons", 3, podGroupStatus{SchedulingConditions: []schedulingCondition{{
			Type: "UnschedulableOnNodePool", NodePool: "default", Status: "True", LastTransitionTime: t0,
			Reasons: []explanation{{Reason: "OverLimit", Message: "queue q is over its limit"}, {Reason: "Unschedulable", Message: "0/4 nodes"}},
		}}}, "false/OverLimit/PodGroup g-0 is unschedulable on node pool default: OverLimit: queue q is over its limit; Unschedulable: 0/4 nodes"},
		{"deprecated reason and message", 3, podGroupStatus{SchedulingConditions: []schedulingCondition{{
			Type: "UnschedulableOnNodePool", Reason: "Unschedulable", Message: "not enough GPUs",
		}}}, "false/Unschedulable/PodGroup g-0 is unschedulable: not enough GPUs"},
		{"the latest condition speaks", 3, podGroupStatus{SchedulingConditions: []schedulingCondition{
			{Type: "UnschedulableOnNodePool", Reason: "Late", Message: "b", LastTransitionTime: t1},
			{Type: "UnschedulableOnNodePool", Reason: "Early", Message: "a", LastTransitionTime: t0},
		}}, "false/Late/PodGroup g-0 is unschedulable: b"},
		{"a False condition and other types are ignored", 3, podGroupStatus{SchedulingConditions: []schedulingCondition{
			{Type: "UnschedulableOnNodePool", Status: "False", Reason: "Old"}, {Type: "Other", Reason: "X"},
		}}, "false/SchedulingPending/KAI has not placed PodGroup g-0 yet"},
		{"no reason at all", 3, podGroupStatus{SchedulingConditions: []schedulingCondition{{Type: "UnschedulableOnNodePool"}}},
			"false/Unschedulable/PodGroup g-0 is unschedulable: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := verdict("g-0", tc.minMember, tc.status)
			got := map[bool]string{true: "true", false: "false"}[v.Scheduled] + "/" + v.Reason + "/" + v.Message
			if got != tc.want {
				t.Errorf("verdict %q, want %q", got, tc.want)
			}
		})
	}
}

// TestQueue: the PodCliqueSet's label, else its annotation, else the default.
func TestQueue(t *testing.T) {
	tests := []struct {
		name                string
		cfg                 config.KAIConfig
		labels, annotations map[string]string
		want                string
	}{
		{"KAI's default queue", config.KAIConfig{}, nil, nil, "default-queue"},
		{"config default", config.KAIConfig{DefaultQueue: "inference"}, nil, nil, "inference"},
		{"annotation", config.KAIConfig{DefaultQueue: "inference"}, nil, map[string]string{"kai.scheduler/queue": "team-b"}, "team-b"},
		{"label wins", config.KAIConfig{}, map[string]string{"kai.scheduler/queue": "team-a"}, map[string]string{"kai.scheduler/queue": "team-b"}, "team-a"},
	}
	for _, tc := range tests {
		pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels, Annotations: tc.annotations}}
		if got := New(tc.cfg).Queue(pcs); got != tc.want {
			t.Errorf("%s: queue %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMissingLevels: the constraint keys a KAI Topology has no level for.
func TestMissingLevels(t *testing.T) {
	spec := PodGroupSpec{
		TopologyConstraint: &TopologyConstraint{Topology: "dc", RequiredTopologyLevel: "topology.kubernetes.io/zone"},
		SubGroups: []SubGroup{
			{Name: "p", TopologyConstraint: &TopologyConstraint{Topology: "dc", RequiredTopologyLevel: "example.com/rack", PreferredTopologyLevel: "kubernetes.io/hostname"}},
			{Name: "a", MinMember: 1},
			{Name: "b", MinMember: 1, TopologyConstraint: &TopologyConstraint{Topology: "dc", PreferredTopologyLevel: "example.com/rack"}},
		},
	}
	tests := []struct {
		name   string
		levels []string
		want   string
	}{
		{"every level", []string{"topology.kubernetes.io/zone", "example.com/rack", "kubernetes.io/hostname"}, ""},
		{"no rack, listed once", []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"}, "example.com/rack"},
		{"no levels", nil, "example.com/rack,kubernetes.io/hostname,topology.kubernetes.io/zone"},
	}
	for _, tc := range tests {
		if got := strings.Join(MissingLevels(spec, tc.levels), ","); got != tc.want {
			t.Errorf("%s: missing %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := MissingLevels(PodGroupSpec{SubGroups: []SubGroup{{Name: "a"}}}, nil); len(got) != 0 {
		t.Errorf("no constraints: missing %v, want none", got)
	}
}
