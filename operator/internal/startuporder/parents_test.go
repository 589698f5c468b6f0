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

package startuporder

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

type cliqueDef struct {
	name         string
	replicas     int32
	minAvailable *int32
	startsAfter  []string
}

type groupDef struct {
	name         string
	cliques      []string
	replicas     int32
	minAvailable *int32
}

func newPCS(name string, startup *grovecorev1alpha1.CliqueStartupType, cliques []cliqueDef, groups []groupDef) *grovecorev1alpha1.PodCliqueSet {
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{StartupType: startup},
		},
	}
	for _, c := range cliques {
		pcs.Spec.Template.Cliques = append(pcs.Spec.Template.Cliques, grovecorev1alpha1.PodCliqueTemplateSpec{
			Name: c.name,
			Spec: grovecorev1alpha1.PodCliqueSpec{
				RoleName:     c.name,
				Replicas:     c.replicas,
				MinAvailable: c.minAvailable,
				StartsAfter:  c.startsAfter,
			},
		})
	}
	for _, g := range groups {
		pcs.Spec.Template.PodCliqueScalingGroupConfigs = append(pcs.Spec.Template.PodCliqueScalingGroupConfigs,
			grovecorev1alpha1.PodCliqueScalingGroupConfig{
				Name:         g.name,
				CliqueNames:  g.cliques,
				Replicas:     ptr.To(g.replicas),
				MinAvailable: g.minAvailable,
			})
	}
	return pcs
}

var (
	anyOrder = ptr.To(grovecorev1alpha1.CliqueStartupTypeAnyOrder)
	inOrder  = ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder)
	explicit = ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit)
)

// fullReplicas is the shape of reference workloads WL1, WL3 and WL5: every
// minAvailable equals replicas, so both scaling-group replicas are in the base PodGang.
func fullReplicas(name string, startup *grovecorev1alpha1.CliqueStartupType, startsAfter map[string][]string) *grovecorev1alpha1.PodCliqueSet {
	return newPCS(name, startup,
		[]cliqueDef{
			{name: "pc-a", replicas: 2, minAvailable: ptr.To[int32](2), startsAfter: startsAfter["pc-a"]},
			{name: "pc-b", replicas: 1, minAvailable: ptr.To[int32](1), startsAfter: startsAfter["pc-b"]},
			{name: "pc-c", replicas: 3, minAvailable: ptr.To[int32](3), startsAfter: startsAfter["pc-c"]},
		},
		[]groupDef{{name: "sg-x", cliques: []string{"pc-b", "pc-c"}, replicas: 2, minAvailable: ptr.To[int32](2)}})
}

// minReplicas is the shape of WL2, WL4 and WL6: every minAvailable is 1, so
// scaling-group replica 1 is a scaled PodGang of its own.
func minReplicas(name string, startup *grovecorev1alpha1.CliqueStartupType, startsAfter map[string][]string) *grovecorev1alpha1.PodCliqueSet {
	return newPCS(name, startup,
		[]cliqueDef{
			{name: "pc-a", replicas: 2, minAvailable: ptr.To[int32](1), startsAfter: startsAfter["pc-a"]},
			{name: "pc-b", replicas: 1, minAvailable: ptr.To[int32](1), startsAfter: startsAfter["pc-b"]},
			{name: "pc-c", replicas: 3, minAvailable: ptr.To[int32](1), startsAfter: startsAfter["pc-c"]},
		},
		[]groupDef{{name: "sg-x", cliques: []string{"pc-b", "pc-c"}, replicas: 2, minAvailable: ptr.To[int32](1)}})
}

// podClique identifies one PodClique of a PodCliqueSet by template clique and indices.
type podClique struct {
	pcsIndex  int32
	clique    string
	pcsgIndex int32
}

func TestParentsInitContainerArgs(t *testing.T) {
	tests := []struct {
		name string
		pcs  *grovecorev1alpha1.PodCliqueSet
		// want maps every PodClique of the PodCliqueSet to its grove-initc args.
		want map[podClique][]string
	}{
		{
			name: "WL1 any order: no PodClique waits",
			pcs:  fullReplicas("workload1", anyOrder, nil),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil, {0, "pc-b", 0}: nil, {0, "pc-b", 1}: nil, {0, "pc-c", 0}: nil, {0, "pc-c", 1}: nil,
			},
		},
		{
			name: "WL2 any order with min replicas: no PodClique waits",
			pcs:  minReplicas("workload2", anyOrder, nil),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil, {0, "pc-b", 0}: nil, {0, "pc-b", 1}: nil, {0, "pc-c", 0}: nil, {0, "pc-c", 1}: nil,
			},
		},
		{
			name: "unset startup type behaves as any order",
			pcs:  fullReplicas("unset", nil, map[string][]string{"pc-b": {"pc-a"}}),
			want: map[podClique][]string{{0, "pc-b", 0}: nil, {0, "pc-c", 1}: nil},
		},
		{
			name: "WL3 in order, full replicas: pc-a then both base replicas of pc-b then pc-c",
			pcs:  fullReplicas("workload3", inOrder, nil),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil,
				{0, "pc-b", 0}: {"--podcliques=workload3-0-pc-a:2"},
				{0, "pc-b", 1}: {"--podcliques=workload3-0-pc-a:2"},
				{0, "pc-c", 0}: {"--podcliques=workload3-0-sg-x-0-pc-b:1", "--podcliques=workload3-0-sg-x-1-pc-b:1"},
				{0, "pc-c", 1}: {"--podcliques=workload3-0-sg-x-0-pc-b:1", "--podcliques=workload3-0-sg-x-1-pc-b:1"},
			},
		},
		{
			name: "WL4 in order, min replicas: the scaled replica orders pc-b before pc-c on its own",
			pcs:  minReplicas("workload4", inOrder, nil),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil,
				{0, "pc-b", 0}: {"--podcliques=workload4-0-pc-a:1"},
				{0, "pc-b", 1}: nil,
				{0, "pc-c", 0}: {"--podcliques=workload4-0-sg-x-0-pc-b:1"},
				{0, "pc-c", 1}: {"--podcliques=workload4-0-sg-x-1-pc-b:1"},
			},
		},
		{
			name: "WL5 explicit, full replicas: pc-a then pc-c then pc-b",
			pcs:  fullReplicas("workload5", explicit, map[string][]string{"pc-c": {"pc-a"}, "pc-b": {"pc-c"}}),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil,
				{0, "pc-c", 0}: {"--podcliques=workload5-0-pc-a:2"},
				{0, "pc-c", 1}: {"--podcliques=workload5-0-pc-a:2"},
				{0, "pc-b", 0}: {"--podcliques=workload5-0-sg-x-0-pc-c:3", "--podcliques=workload5-0-sg-x-1-pc-c:3"},
				{0, "pc-b", 1}: {"--podcliques=workload5-0-sg-x-0-pc-c:3", "--podcliques=workload5-0-sg-x-1-pc-c:3"},
			},
		},
		{
			name: "WL6 explicit, min replicas: base replica after pc-a, scaled replica only within its group",
			pcs:  minReplicas("workload6", explicit, map[string][]string{"pc-b": {"pc-a"}, "pc-c": {"pc-b"}}),
			want: map[podClique][]string{
				{0, "pc-a", 0}: nil,
				{0, "pc-b", 0}: {"--podcliques=workload6-0-pc-a:1"},
				{0, "pc-b", 1}: nil,
				{0, "pc-c", 0}: {"--podcliques=workload6-0-sg-x-0-pc-b:1"},
				{0, "pc-c", 1}: {"--podcliques=workload6-0-sg-x-1-pc-b:1"},
			},
		},
		{
			name: "WL3 in PodCliqueSet replica 1 names the replica's own PodCliques",
			pcs:  fullReplicas("workload3", inOrder, nil),
			want: map[podClique][]string{
				{1, "pc-b", 1}: {"--podcliques=workload3-1-pc-a:2"},
				{1, "pc-c", 0}: {"--podcliques=workload3-1-sg-x-0-pc-b:1", "--podcliques=workload3-1-sg-x-1-pc-b:1"},
			},
		},
		{
			name: "seed agentic pipeline: router waits for vision, reasoning and code-gen of its group replica",
			pcs: newPCS("agentic-pipeline", explicit,
				[]cliqueDef{
					{name: "vision", replicas: 1},
					{name: "reasoning", replicas: 1},
					{name: "code-gen", replicas: 1},
					{name: "router", replicas: 1, startsAfter: []string{"vision", "reasoning", "code-gen"}},
				},
				[]groupDef{{name: "ai-pipeline", cliques: []string{"vision", "reasoning", "code-gen", "router"}, replicas: 2, minAvailable: ptr.To[int32](1)}}),
			want: map[podClique][]string{
				{0, "vision", 0}:    nil,
				{0, "reasoning", 0}: nil,
				{0, "code-gen", 0}:  nil,
				{0, "router", 0}: {
					"--podcliques=agentic-pipeline-0-ai-pipeline-0-vision:1",
					"--podcliques=agentic-pipeline-0-ai-pipeline-0-reasoning:1",
					"--podcliques=agentic-pipeline-0-ai-pipeline-0-code-gen:1",
				},
				{0, "router", 1}: {
					"--podcliques=agentic-pipeline-0-ai-pipeline-1-vision:1",
					"--podcliques=agentic-pipeline-0-ai-pipeline-1-reasoning:1",
					"--podcliques=agentic-pipeline-0-ai-pipeline-1-code-gen:1",
				},
			},
		},
		{
			name: "seed MPI leader/worker: the leader waits for all 8 workers of its group replica",
			pcs: newPCS("mpi-inference", explicit,
				[]cliqueDef{
					{name: "worker", replicas: 8},
					{name: "leader", replicas: 1, startsAfter: []string{"worker"}},
				},
				[]groupDef{{name: "mpi-job", cliques: []string{"worker", "leader"}, replicas: 1, minAvailable: ptr.To[int32](1)}}),
			want: map[podClique][]string{
				{0, "worker", 0}: nil,
				{0, "leader", 0}: {"--podcliques=mpi-inference-0-mpi-job-0-worker:8"},
			},
		},
		{
			name: "MPI leader/worker without a scaling group, workers with a lower minAvailable",
			pcs: newPCS("mpi", explicit,
				[]cliqueDef{
					{name: "worker", replicas: 4, minAvailable: ptr.To[int32](3)},
					{name: "worker-b", replicas: 2},
					{name: "leader", replicas: 1, startsAfter: []string{"worker", "worker-b"}},
				}, nil),
			want: map[podClique][]string{
				{0, "worker", 0}:   nil,
				{0, "worker-b", 0}: nil,
				{0, "leader", 0}:   {"--podcliques=mpi-0-worker:3", "--podcliques=mpi-0-worker-b:2"},
			},
		},
		{
			name: "reference walkthrough: each group replica's workers wait for their own leader",
			pcs: newPCS("demo", explicit,
				[]cliqueDef{
					{name: "fe", replicas: 2},
					{name: "ldr", replicas: 1},
					{name: "wkr", replicas: 3, minAvailable: ptr.To[int32](2), startsAfter: []string{"ldr"}},
				},
				[]groupDef{{name: "mn", cliques: []string{"ldr", "wkr"}, replicas: 2, minAvailable: ptr.To[int32](1)}}),
			want: map[podClique][]string{
				{0, "fe", 0}:  nil,
				{0, "ldr", 1}: nil,
				{0, "wkr", 0}: {"--podcliques=demo-0-mn-0-ldr:1"},
				{0, "wkr", 1}: {"--podcliques=demo-0-mn-1-ldr:1"},
			},
		},
		{
			name: "a standalone clique after a group clique waits for the group's base replicas only",
			pcs: newPCS("router", inOrder,
				[]cliqueDef{
					{name: "backend", replicas: 2, minAvailable: ptr.To[int32](1)},
					{name: "frontend", replicas: 1},
				},
				[]groupDef{{name: "be", cliques: []string{"backend"}, replicas: 4, minAvailable: ptr.To[int32](2)}}),
			want: map[podClique][]string{
				{0, "backend", 3}:  nil,
				{0, "frontend", 0}: {"--podcliques=router-0-be-0-backend:1", "--podcliques=router-0-be-1-backend:1"},
				// The standalone clique ignores the scaling-group index it is given.
				{0, "frontend", 7}: {"--podcliques=router-0-be-0-backend:1", "--podcliques=router-0-be-1-backend:1"},
			},
		},
		{
			name: "unset minAvailable falls back to replicas, unset group minAvailable to 1",
			pcs: newPCS("defaults", inOrder,
				[]cliqueDef{
					{name: "a", replicas: 3},
					{name: "b", replicas: 1},
					{name: "c", replicas: 1},
				},
				[]groupDef{{name: "g", cliques: []string{"b", "c"}, replicas: 2}}),
			want: map[podClique][]string{
				{0, "b", 0}: {"--podcliques=defaults-0-a:3"},
				{0, "b", 1}: nil,
				{0, "c", 0}: {"--podcliques=defaults-0-g-0-b:1"},
				{0, "c", 1}: {"--podcliques=defaults-0-g-1-b:1"},
			},
		},
		{
			name: "duplicate startsAfter entries yield one argument",
			pcs: newPCS("dup", explicit,
				[]cliqueDef{{name: "a", replicas: 2}, {name: "b", replicas: 1, startsAfter: []string{"a", "a"}}}, nil),
			want: map[podClique][]string{{0, "b", 0}: {"--podcliques=dup-0-a:2"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for pclq, want := range tc.want {
				parents, err := Parents(tc.pcs, pclq.pcsIndex, pclq.clique, pclq.pcsgIndex)
				if err != nil {
					t.Fatalf("Parents(%+v): unexpected error: %v", pclq, err)
				}
				got := InitContainerArgs(parents)
				if len(want) == 0 {
					if len(parents) != 0 {
						t.Errorf("Parents(%+v) = %v, want none", pclq, parents)
					}
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("args for %+v:\n got  %q\n want %q", pclq, got, want)
				}
			}
		})
	}
}

func TestParentsReturnsNamesAndCounts(t *testing.T) {
	pcs := fullReplicas("wl", explicit, map[string][]string{"pc-c": {"pc-a"}})
	got, err := Parents(pcs, 0, "pc-c", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Parent{{Name: "wl-0-pc-a", MinAvailable: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestParentsErrors(t *testing.T) {
	unknownType := grovecorev1alpha1.CliqueStartupType("CliqueStartupTypeRandom")
	tests := []struct {
		name      string
		pcs       *grovecorev1alpha1.PodCliqueSet
		clique    string
		pcsgIndex int32
		wantErr   string
	}{
		{
			name:    "nil PodCliqueSet",
			clique:  "a",
			wantErr: `clique "a": PodCliqueSet is nil`,
		},
		{
			name:    "unknown clique",
			pcs:     fullReplicas("wl", inOrder, nil),
			clique:  "pc-z",
			wantErr: `unknown clique "pc-z"`,
		},
		{
			name:    "unknown clique even with any order",
			pcs:     fullReplicas("wl", anyOrder, nil),
			clique:  "pc-z",
			wantErr: `unknown clique "pc-z"`,
		},
		{
			name:    "startsAfter names an unknown clique",
			pcs:     fullReplicas("wl", explicit, map[string][]string{"pc-b": {"pc-a", "pc-q"}}),
			clique:  "pc-b",
			wantErr: `clique "pc-b" starts after unknown clique "pc-q"`,
		},
		{
			name:    "startsAfter names the clique itself",
			pcs:     fullReplicas("wl", explicit, map[string][]string{"pc-a": {"pc-a"}}),
			clique:  "pc-a",
			wantErr: `clique "pc-a" starts after itself`,
		},
		{
			name:    "unknown startup type",
			pcs:     fullReplicas("wl", &unknownType, nil),
			clique:  "pc-b",
			wantErr: `unknown clique startup type "CliqueStartupTypeRandom"`,
		},
		{
			name:      "negative scaling-group replica index for a group member",
			pcs:       fullReplicas("wl", inOrder, nil),
			clique:    "pc-c",
			pcsgIndex: -1,
			wantErr:   `clique "pc-c" belongs to scaling group "sg-x" but the scaling-group replica index is -1`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parents, err := Parents(tc.pcs, 0, tc.clique, tc.pcsgIndex)
			if err == nil {
				t.Fatalf("expected error containing %q, got parents %v", tc.wantErr, parents)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestNeedsInitContainer(t *testing.T) {
	single := func(startup *grovecorev1alpha1.CliqueStartupType) *grovecorev1alpha1.PodCliqueSet {
		return newPCS("one", startup, []cliqueDef{{name: "only", replicas: 1}}, nil)
	}
	tests := []struct {
		name string
		pcs  *grovecorev1alpha1.PodCliqueSet
		want bool
	}{
		{"startup type unset", fullReplicas("wl", nil, nil), false},
		{"AnyOrder", fullReplicas("wl", anyOrder, nil), false},
		{"AnyOrder ignores startsAfter", fullReplicas("wl", anyOrder, map[string][]string{"pc-c": {"pc-a"}}), false},
		{"InOrder with one clique", single(inOrder), false},
		{"InOrder with several cliques", fullReplicas("wl", inOrder, nil), true},
		{"Explicit without startsAfter", fullReplicas("wl", explicit, nil), false},
		{"Explicit with a startsAfter", minReplicas("wl", explicit, map[string][]string{"pc-c": {"pc-a"}}), true},
		{"Explicit naming only an unknown clique", fullReplicas("wl", explicit, map[string][]string{"pc-c": {"nope"}}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsInitContainer(tt.pcs); got != tt.want {
				t.Fatalf("NeedsInitContainer() = %v, want %v", got, tt.want)
			}
		})
	}
}
