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

package update

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func TestMaxUnavailable(t *testing.T) {
	budget := func(v intstr.IntOrString) *grovecorev1alpha1.RollingUpdateConfig {
		return &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: &v}
	}
	tests := []struct {
		name     string
		cfg      *grovecorev1alpha1.RollingUpdateConfig
		replicas int32
		want     int32
	}{
		{name: "unset: one at a time", cfg: nil, replicas: 10, want: 1},
		{name: "unset maxUnavailable", cfg: &grovecorev1alpha1.RollingUpdateConfig{}, replicas: 10, want: 1},
		{name: "a count", cfg: budget(intstr.FromInt32(3)), replicas: 10, want: 3},
		{name: "a count larger than replicas", cfg: budget(intstr.FromInt32(30)), replicas: 10, want: 30},
		{name: "a percentage rounds down", cfg: budget(intstr.FromString("25%")), replicas: 10, want: 2},
		{name: "a percentage below one pod is one", cfg: budget(intstr.FromString("10%")), replicas: 4, want: 1},
		{name: "100%", cfg: budget(intstr.FromString("100%")), replicas: 4, want: 4},
		{name: "zero that bypassed validation is one", cfg: budget(intstr.FromInt32(0)), replicas: 4, want: 1},
		{name: "garbage that bypassed validation is one", cfg: budget(intstr.FromString("half")), replicas: 4, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MaxUnavailable(tt.cfg, tt.replicas); got != tt.want {
				t.Errorf("MaxUnavailable() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDeadline(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		deadline     time.Duration
		now          time.Time
		wantExceeded bool
		wantAfter    time.Duration
	}{
		{name: "no deadline", deadline: 0, now: start.Add(time.Hour)},
		{name: "within the deadline: reconcile when it passes", deadline: time.Minute, now: start.Add(20 * time.Second), wantAfter: 40 * time.Second},
		{name: "exactly at the deadline", deadline: time.Minute, now: start.Add(time.Minute), wantExceeded: true},
		{name: "past the deadline", deadline: time.Minute, now: start.Add(2 * time.Minute), wantExceeded: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exceeded, after := Deadline(start, tt.deadline, tt.now)
			if exceeded != tt.wantExceeded || after != tt.wantAfter {
				t.Errorf("Deadline() = (%v, %s), want (%v, %s)", exceeded, after, tt.wantExceeded, tt.wantAfter)
			}
		})
	}
}

func TestReplicaUpdating(t *testing.T) {
	now := metav1.Now()
	record := func(hash string, ended bool, replicas ...int32) *grovecorev1alpha1.PodCliqueSetUpdateProgress {
		p := &grovecorev1alpha1.PodCliqueSetUpdateProgress{UpdateStartedAt: now, PodCliqueSetGenerationHash: hash}
		if ended {
			p.UpdateEndedAt = &now
		}
		for _, r := range replicas {
			p.CurrentlyUpdating = append(p.CurrentlyUpdating, grovecorev1alpha1.PodCliqueSetReplicaUpdateProgress{ReplicaIndex: r, UpdateStartedAt: now})
		}
		return p
	}
	tests := []struct {
		name     string
		strategy grovecorev1alpha1.UpdateStrategyType
		progress *grovecorev1alpha1.PodCliqueSetUpdateProgress
		replica  int32
		want     bool
	}{
		{name: "no update", replica: 0},
		{name: "the replica being rolled", progress: record("h2", false, 1), replica: 1, want: true},
		{name: "another replica waits its turn", progress: record("h2", false, 1), replica: 0},
		{name: "a record for an older template", progress: record("h1", false, 1), replica: 1},
		{name: "an ended record", progress: record("h2", true, 1), replica: 1},
		{name: "OnDelete never rolls", strategy: grovecorev1alpha1.OnDeleteStrategyType, progress: record("h2", false, 1), replica: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{}
			if tt.strategy != "" {
				pcs.Spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: tt.strategy}
			}
			pcs.Status.UpdateProgress = tt.progress
			if got := ReplicaUpdating(pcs, tt.replica, "h2"); got != tt.want {
				t.Errorf("ReplicaUpdating() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPodCliqueConverged(t *testing.T) {
	pclq := func(label string, generation, observed int64, current *string) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		p.Labels = map[string]string{apicommon.LabelPodTemplateHash: label}
		p.Generation = generation
		p.Status.ObservedGeneration = ptr.To(observed)
		p.Status.CurrentPodTemplateHash = current
		return p
	}
	tests := []struct {
		name string
		p    *grovecorev1alpha1.PodClique
		want bool
	}{
		{name: "spec and pods on the template", p: pclq("new", 2, 2, ptr.To("new")), want: true},
		{name: "spec not patched yet", p: pclq("old", 2, 2, ptr.To("old"))},
		{name: "pods of several templates", p: pclq("new", 2, 2, nil)},
		{name: "status from before the spec change", p: pclq("new", 3, 2, ptr.To("new"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PodCliqueConverged(tt.p, "new"); got != tt.want {
				t.Errorf("PodCliqueConverged() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPodCliqueOutdated(t *testing.T) {
	pclq := func(label string, generation int64, observed *int64, replicas, updated int32) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		p.Labels = map[string]string{apicommon.LabelPodTemplateHash: label}
		p.Generation = generation
		p.Status.ObservedGeneration = observed
		p.Status.Replicas, p.Status.UpdatedReplicas = replicas, updated
		return p
	}
	tests := []struct {
		name string
		p    *grovecorev1alpha1.PodClique
		want bool
	}{
		{name: "spec of an older template", p: pclq("old", 1, ptr.To[int64](1), 2, 2), want: true},
		{name: "new spec, pods of an older template (patched in place)", p: pclq("new", 2, ptr.To[int64](2), 2, 1), want: true},
		{name: "new spec, every pod new", p: pclq("new", 2, ptr.To[int64](2), 2, 2)},
		{name: "just created: no status yet", p: pclq("new", 1, nil, 0, 0)},
		{name: "just patched: status of the previous spec", p: pclq("new", 3, ptr.To[int64](2), 2, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PodCliqueOutdated(tt.p, "new"); got != tt.want {
				t.Errorf("PodCliqueOutdated() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRevision(t *testing.T) {
	pclq := func(templateHash, genHash, image string) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		p.Labels = map[string]string{apicommon.LabelPodTemplateHash: templateHash}
		if genHash != "" {
			p.Labels[apicommon.LabelPodCliqueSetGenerationHash] = genHash
		}
		p.Annotations = map[string]string{"team": image, apicommon.AnnotationTemplateReplicas: "2"}
		p.Spec.PodSpec.Containers = []corev1.Container{{Name: "c", Image: image}}
		return p
	}
	tests := []struct {
		name                             string
		live                             *grovecorev1alpha1.PodClique
		pin                              bool
		wantTemplate, wantGen, wantImage string
	}{
		{name: "same template keeps the revision it was set at", live: pclq("t1", "g1", "img:1"), wantTemplate: "t1", wantGen: "g1", wantImage: "img:1"},
		{name: "same template without a revision (older Grove) gets the current one", live: pclq("t1", "", "img:1"), wantTemplate: "t1", wantGen: "g2", wantImage: "img:1"},
		{name: "a new template, not pinned: applied with the new revision", live: pclq("t0", "g1", "img:0"), wantTemplate: "t1", wantGen: "g2", wantImage: "img:1"},
		{name: "a new template, pinned: the old template and revision stay", live: pclq("t0", "g1", "img:0"), pin: true, wantTemplate: "t0", wantGen: "g1", wantImage: "img:0"},
		{name: "pinned without a revision: none is claimed", live: pclq("t0", "", "img:0"), pin: true, wantTemplate: "t0", wantGen: "", wantImage: "img:0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := pclq("t1", "g2", "img:1")
			got := Revision(tt.live, want, tt.pin)
			if got.Labels[apicommon.LabelPodTemplateHash] != tt.wantTemplate || got.Labels[apicommon.LabelPodCliqueSetGenerationHash] != tt.wantGen ||
				got.Spec.PodSpec.Containers[0].Image != tt.wantImage || got.Annotations["team"] != tt.wantImage {
				t.Errorf("Revision() = template %q, revision %q, image %q, annotation %q; want %q, %q, %q", got.Labels[apicommon.LabelPodTemplateHash],
					got.Labels[apicommon.LabelPodCliqueSetGenerationHash], got.Spec.PodSpec.Containers[0].Image, got.Annotations["team"], tt.wantTemplate, tt.wantGen, tt.wantImage)
			}
			if want.Labels[apicommon.LabelPodCliqueSetGenerationHash] != "g2" {
				t.Errorf("Revision changed its argument")
			}
		})
	}
}

func TestCreationHeld(t *testing.T) {
	pclq := func(name, templateHash string, deleting bool) *grovecorev1alpha1.PodClique {
		p := &grovecorev1alpha1.PodClique{}
		p.Name = name
		p.Labels = map[string]string{apicommon.LabelPodTemplateHash: templateHash, apicommon.LabelPodCliqueTemplateName: "fe"}
		if deleting {
			p.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return p
	}
	hashes := map[string]string{"fe": "t1"}
	tests := []struct {
		name     string
		strategy grovecorev1alpha1.UpdateStrategyType
		pclqs    []*grovecorev1alpha1.PodClique
		want     string
	}{
		{name: "nothing there: create", strategy: grovecorev1alpha1.CoherentStrategyType, want: ""},
		{name: "current PodCliques: create", strategy: grovecorev1alpha1.CoherentStrategyType, pclqs: []*grovecorev1alpha1.PodClique{pclq("a", "t1", false)}, want: ""},
		{name: "one being deleted: wait", strategy: grovecorev1alpha1.CoherentStrategyType, pclqs: []*grovecorev1alpha1.PodClique{pclq("a", "t1", false), pclq("b", "t0", true)},
			want: "PodClique b of the replica's previous revision is still being deleted"},
		{name: "one of an older template: wait for the turn", strategy: grovecorev1alpha1.CoherentStrategyType, pclqs: []*grovecorev1alpha1.PodClique{pclq("a", "t0", false)},
			want: "PodClique a runs an older template; the replica's Coherent update replaces it with its gang"},
		{name: "several: the first by name, whatever the list order", strategy: grovecorev1alpha1.CoherentStrategyType,
			pclqs: []*grovecorev1alpha1.PodClique{pclq("c", "t0", true), pclq("b", "t0", false), pclq("a", "t1", false)},
			want:  "PodClique b runs an older template; the replica's Coherent update replaces it with its gang"},
		{name: "RollingRecreate never holds", strategy: grovecorev1alpha1.RollingRecreateStrategyType, pclqs: []*grovecorev1alpha1.PodClique{pclq("a", "t0", true)}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := &grovecorev1alpha1.PodCliqueSet{Spec: grovecorev1alpha1.PodCliqueSetSpec{UpdateStrategy: &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: tt.strategy}}}
			if got := CreationHeld(pcs, tt.pclqs, hashes); got != tt.want {
				t.Errorf("CreationHeld() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReplicaBudget(t *testing.T) {
	pcs := func(s *grovecorev1alpha1.PodCliqueSetUpdateStrategy) *grovecorev1alpha1.PodCliqueSet {
		return &grovecorev1alpha1.PodCliqueSet{Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 8, UpdateStrategy: s}}
	}
	tests := []struct {
		name         string
		pcs          *grovecorev1alpha1.PodCliqueSet
		wantMax      int32
		wantDeadline time.Duration
	}{
		{name: "unset strategy: one replica, no deadline", pcs: pcs(nil), wantMax: 1},
		{name: "Coherent defaults", pcs: pcs(&grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: grovecorev1alpha1.CoherentStrategyType}), wantMax: 1},
		{name: "Coherent 25% of 8 and a deadline", pcs: pcs(&grovecorev1alpha1.PodCliqueSetUpdateStrategy{
			Type: grovecorev1alpha1.CoherentStrategyType, MaxUnavailable: ptr.To(intstr.FromString("25%")), ProgressDeadline: &metav1.Duration{Duration: time.Minute},
		}), wantMax: 2, wantDeadline: time.Minute},
		{name: "RollingRecreate ignores a budget that bypassed validation", pcs: pcs(&grovecorev1alpha1.PodCliqueSetUpdateStrategy{
			Type: grovecorev1alpha1.RollingRecreateStrategyType, MaxUnavailable: ptr.To(intstr.FromInt32(4)),
		}), wantMax: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m, d := ReplicaBudget(tt.pcs); m != tt.wantMax || d != tt.wantDeadline {
				t.Errorf("ReplicaBudget() = %d, %s; want %d, %s", m, d, tt.wantMax, tt.wantDeadline)
			}
		})
	}
}
