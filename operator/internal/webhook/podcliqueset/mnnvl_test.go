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

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

func TestMNNVLGroupAnnotations(t *testing.T) {
	const key = apicommon.AnnotationMNNVLGroup
	setPCS := func(v string) func(*grovecorev1alpha1.PodCliqueSet) {
		return func(p *grovecorev1alpha1.PodCliqueSet) { p.Annotations = map[string]string{key: v} }
	}
	setGroup := func(v string) func(*grovecorev1alpha1.PodCliqueSet) {
		return func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].Annotations = map[string]string{key: v}
		}
	}
	setClique := func(v string) func(*grovecorev1alpha1.PodCliqueSet) {
		return func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[2].Annotations = map[string]string{key: v}
		}
	}
	pcsPath := "metadata.annotations[grove.io/mnnvl-group]"
	groupPath := "spec.template.podCliqueScalingGroups[0].annotations[grove.io/mnnvl-group]"
	cliquePath := "spec.template.cliques[2].annotations[grove.io/mnnvl-group]"
	cases := []struct {
		name    string
		enabled bool
		old     func(*grovecorev1alpha1.PodCliqueSet) // set: an update from this
		mutate  func(*grovecorev1alpha1.PodCliqueSet)
		path    string // "" accepted
		message string
	}{
		{name: "group with MNNVL enabled", enabled: true, mutate: setPCS("nvl72")},
		{name: "none with MNNVL disabled", mutate: setClique("none")},
		{name: "group with MNNVL disabled", mutate: setPCS("nvl72"), path: pcsPath, message: MNNVLDisabledMessage},
		{name: "scaling-group group with MNNVL disabled", mutate: setGroup("a"), path: groupPath, message: MNNVLDisabledMessage},
		{name: "not a DNS-1123 label", enabled: true, mutate: setClique("NVL_72"), path: cliquePath, message: `a lowercase RFC 1123 label must consist of`},
		{name: "changed on update", enabled: true, old: setGroup("a"), mutate: setGroup("b"), path: groupPath, message: ImmutableMessage},
		{name: "added on update", enabled: true, old: func(*grovecorev1alpha1.PodCliqueSet) {}, mutate: setPCS("a"), path: pcsPath, message: ImmutableMessage},
		{name: "removed on update", enabled: true, old: setClique("none"), mutate: func(*grovecorev1alpha1.PodCliqueSet) {}, path: cliquePath, message: ImmutableMessage},
		{name: "kept on update", enabled: true, old: setClique("a"), mutate: setClique("a")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newValidator(t, true)
			v.MNNVLEnabled = c.enabled
			pcs := rulecases.Base("inference", "default")
			c.mutate(pcs)
			var (
				r   Result
				err error
			)
			if c.old != nil {
				old := rulecases.Base("inference", "default")
				c.old(old)
				r, err = v.ValidateUpdate(context.Background(), old, pcs)
			} else {
				r, err = v.ValidateCreate(context.Background(), pcs)
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.path == "" {
				if len(r.Errors) > 0 {
					t.Fatalf("want accepted, got %v", r.Errors)
				}
				return
			}
			if len(r.Errors) != 1 || r.Errors[0].Field != c.path || !strings.Contains(r.Errors[0].Error(), c.message) {
				t.Fatalf("want one error at %s containing %q, got %v", c.path, c.message, r.Errors)
			}
		})
	}
}
