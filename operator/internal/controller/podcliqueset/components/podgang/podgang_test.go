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
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

func testPCS(replicas int32, sgReplicas, sgMin int32) *grovecorev1alpha1.PodCliqueSet {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	pcs.Name = "demo"
	pcs.Spec.Replicas = replicas
	for _, c := range []string{"fe", "ldr", "wkr"} {
		pcs.Spec.Template.Cliques = append(pcs.Spec.Template.Cliques, grovecorev1alpha1.PodCliqueTemplateSpec{
			Name: c, Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 2},
		})
	}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs = []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
		Name: "mn", CliqueNames: []string{"ldr", "wkr"}, Replicas: ptr.To(sgReplicas), MinAvailable: ptr.To(sgMin),
	}}
	return pcs
}

func render(gangs []*gang) []string {
	var out []string
	for _, g := range gangs {
		var members []string
		for _, m := range g.members {
			members = append(members, m.pclqName)
		}
		line := g.name + "=" + strings.Join(members, ",")
		if g.base != nil {
			line += " base " + g.base.name
		}
		out = append(out, line)
	}
	return out
}

func TestExpectedGangs(t *testing.T) {
	tests := []struct {
		name      string
		pcs       *grovecorev1alpha1.PodCliqueSet
		livePCSG  map[string]int32
		wantGangs []string
	}{
		{
			name: "base gang holds standalone cliques and scaling-group replicas below minAvailable",
			pcs:  testPCS(1, 2, 1),
			wantGangs: []string{
				"demo-0=demo-0-fe,demo-0-mn-0-ldr,demo-0-mn-0-wkr",
				"demo-0-mn-0=demo-0-mn-1-ldr,demo-0-mn-1-wkr base demo-0",
			},
		},
		{
			name:     "the live scaling-group replicas decide the scaled gangs",
			pcs:      testPCS(1, 2, 1),
			livePCSG: map[string]int32{"demo-0-mn": 3},
			wantGangs: []string{
				"demo-0=demo-0-fe,demo-0-mn-0-ldr,demo-0-mn-0-wkr",
				"demo-0-mn-0=demo-0-mn-1-ldr,demo-0-mn-1-wkr base demo-0",
				"demo-0-mn-1=demo-0-mn-2-ldr,demo-0-mn-2-wkr base demo-0",
			},
		},
		{
			name: "minAvailable equal to replicas: everything in the base gang, per PodCliqueSet replica",
			pcs:  testPCS(2, 2, 2),
			wantGangs: []string{
				"demo-0=demo-0-fe,demo-0-mn-0-ldr,demo-0-mn-0-wkr,demo-0-mn-1-ldr,demo-0-mn-1-wkr",
				"demo-1=demo-1-fe,demo-1-mn-0-ldr,demo-1-mn-0-wkr,demo-1-mn-1-ldr,demo-1-mn-1-wkr",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &state{pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{}}
			for name, r := range tt.livePCSG {
				g := &grovecorev1alpha1.PodCliqueScalingGroup{}
				g.Name, g.Spec.Replicas = name, r
				st.pcsgs[name] = g
			}
			if got := render(expectedGangs(tt.pcs, st, 0, tt.pcs.Spec.Replicas)); !reflect.DeepEqual(got, tt.wantGangs) {
				t.Errorf("gangs\n got %q\nwant %q", got, tt.wantGangs)
			}
		})
	}
}

// TestApplyConfigurationLeavesReferencesToPodCliques: the PodCliqueSet
// controller's apply carries every group but none of its references.
func TestApplyConfigurationLeavesReferencesToPodCliques(t *testing.T) {
	want := &groveschedulerv1alpha1.PodGang{Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{
		{Name: "demo-0-fe", MinReplicas: 2, PodReferences: []groveschedulerv1alpha1.NamespacedName{{Namespace: "ns", Name: "demo-0-fe-abc"}}},
	}}}
	want.Name = "demo-0"
	ac, err := applyConfiguration(want)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); strings.Contains(got, "podReferences") || !strings.Contains(got, `"podgroups":[{"name":"demo-0-fe","minReplicas":2}]`) {
		t.Errorf("apply configuration = %s", got)
	}
}

func TestRevision(t *testing.T) {
	now := metav1.Now()
	pclq := func(name, gen string, deleting bool) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		p.Name = name
		if gen != "" {
			p.Labels = map[string]string{apicommon.LabelPodCliqueSetGenerationHash: gen}
		}
		if deleting {
			p.DeletionTimestamp = &now
		}
		return p
	}
	g := &gang{name: "demo-0", members: []member{{pclqName: "demo-0-fe"}, {pclqName: "demo-0-be"}}}
	for _, tt := range []struct {
		name  string
		pclqs []*grovecorev1alpha1.PodClique
		want  string
	}{
		// The PodCliques the same pass creates carry the set's generation:
		// the PodGang is created with their revision, not applied again
		// once the cache shows them.
		{"no PodClique in the cache yet", nil, "gen-2"},
		{"every PodClique being deleted (a gang Coherent replaces)", []*grovecorev1alpha1.PodClique{pclq("demo-0-fe", "gen-1", true), pclq("demo-0-be", "gen-1", true)}, "gen-2"},
		{"all of one revision", []*grovecorev1alpha1.PodClique{pclq("demo-0-fe", "gen-1", false), pclq("demo-0-be", "gen-1", false)}, "gen-1"},
		{"one exists, the other not yet", []*grovecorev1alpha1.PodClique{pclq("demo-0-fe", "gen-1", false)}, "gen-1"},
		{"revisions disagree (RollingRecreate mid-update)", []*grovecorev1alpha1.PodClique{pclq("demo-0-fe", "gen-1", false), pclq("demo-0-be", "gen-2", false)}, ""},
		{"a PodClique without the label", []*grovecorev1alpha1.PodClique{pclq("demo-0-fe", "", false), pclq("demo-0-be", "gen-1", false)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &state{pclqs: map[string]*grovecorev1alpha1.PodClique{}, generation: "gen-2"}
			for _, p := range tt.pclqs {
				st.pclqs[p.Name] = p
			}
			if got := revision(st, g); got != tt.want {
				t.Errorf("revision = %q, want %q", got, tt.want)
			}
		})
	}
}
