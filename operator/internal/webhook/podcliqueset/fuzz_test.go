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
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

// FuzzValidatePodCliqueSet feeds random PodCliqueSets to the defaulter and
// the validator. Input that parses as JSON is used as a manifest; any other
// input drives a generator that favours the values rules care about (shared
// names, zero and negative counts, dangling references, cycles, unknown
// domains). Properties: nothing panics, every rejection names a field under
// metadata or spec, defaulting is idempotent, and a defaulted object never
// fails a rule the defaulter is meant to satisfy.
func FuzzValidatePodCliqueSet(f *testing.F) {
	seed := func(p *grovecorev1alpha1.PodCliqueSet) {
		b, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(rulecases.Base("inference", "default"))
	for _, c := range append(rulecases.Create(), rulecases.Updates()...) {
		for _, m := range []func(*grovecorev1alpha1.PodCliqueSet){c.Bad, c.Good} {
			if m != nil {
				p := rulecases.Base("inference", "default")
				m(p)
				seed(p)
			}
		}
	}
	f.Add([]byte{3, 1, 2, 0, 255, 7, 9, 4, 4, 1, 0, 2, 3, 5, 8, 13, 21})
	f.Add([]byte{})

	v := newValidator(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if err := json.Unmarshal(data, pcs); err != nil {
			pcs = generate(data)
		}
		old := pcs.DeepCopy()
		must := func(r Result, err error) Result {
			t.Helper()
			if err != nil {
				t.Fatalf("validation failed to run: %v", err)
			}
			return r
		}
		checkPaths(t, "create", must(v.ValidateCreate(context.Background(), pcs)))

		defaulted := pcs.DeepCopy()
		Default(defaulted)
		again := defaulted.DeepCopy()
		Default(again)
		if !equality.Semantic.DeepEqual(defaulted, again) {
			t.Fatal("Default is not idempotent")
		}
		r := must(v.ValidateCreate(context.Background(), defaulted))
		checkPaths(t, "create after defaulting", r)
		for _, e := range r.Errors {
			if e.Type == "FieldValueRequired" && (strings.HasSuffix(e.Field, ".minAvailable") || strings.HasSuffix(e.Field, ".terminationDelay")) {
				t.Fatalf("defaulted object still misses a defaulted field: %v", e)
			}
		}
		checkPaths(t, "update", must(v.ValidateUpdate(context.Background(), old, defaulted)))
	})
}

func checkPaths(t *testing.T, what string, r Result) {
	t.Helper()
	for _, e := range r.Errors {
		if e.Field == "" || !strings.HasPrefix(e.Field, "metadata") && !strings.HasPrefix(e.Field, "spec") {
			t.Fatalf("%s: rejection without a field path: %#v", what, e)
		}
	}
}

// byteStream hands out generator choices from fuzz input, then zeros.
type byteStream []byte

func (b *byteStream) next() int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v)
}

func (b *byteStream) pick(options ...string) string { return options[b.next()%len(options)] }

func (b *byteStream) int32() int32 { return int32(b.next()%7) - 2 }

func (b *byteStream) optInt32() *int32 {
	if b.next()%3 == 0 {
		return nil
	}
	v := b.int32()
	return &v
}

func (b *byteStream) domain() *grovecorev1alpha1.TopologyDomain {
	if b.next()%3 == 0 {
		return nil
	}
	d := grovecorev1alpha1.TopologyDomain(b.pick("zone", "block", "rack", "host", "numa", ""))
	return &d
}

func (b *byteStream) constraint() *grovecorev1alpha1.TopologyConstraint {
	if b.next()%2 == 0 {
		return nil
	}
	tc := &grovecorev1alpha1.TopologyConstraint{TopologyName: b.pick("", rulecases.TopologyName, "other")}
	if b.next()%5 != 0 {
		tc.Pack = &grovecorev1alpha1.TopologyPackConstraint{Required: b.domain(), Preferred: b.domain()}
	}
	return tc
}

func (b *byteStream) autoscaling() *grovecorev1alpha1.AutoScalingConfig {
	if b.next()%2 == 0 {
		return nil
	}
	return &grovecorev1alpha1.AutoScalingConfig{MinReplicas: b.optInt32(), MaxReplicas: b.int32()}
}

var fuzzNames = []string{"a", "b", "c", "frontend", "", "Bad_Name", strings.Repeat("x", 40)}

// generate builds a PodCliqueSet from fuzz input.
func generate(data []byte) *grovecorev1alpha1.PodCliqueSet {
	b := byteStream(data)
	pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Name: b.pick("inference", "", "1x", strings.Repeat("p", 30)), Namespace: "default"}}
	spec := &pcs.Spec
	spec.Replicas = b.int32()
	tmpl := &spec.Template
	if b.next()%2 == 0 {
		st := grovecorev1alpha1.CliqueStartupType(b.pick(string(grovecorev1alpha1.CliqueStartupTypeExplicit), string(grovecorev1alpha1.CliqueStartupTypeInOrder), "bogus"))
		tmpl.StartupType = &st
	}
	if b.next()%4 != 0 {
		tmpl.TerminationDelay = &metav1.Duration{Duration: time.Duration(b.int32()) * time.Minute}
	}
	tmpl.TopologyConstraint = b.constraint()
	for range b.next() % 5 {
		c := grovecorev1alpha1.PodCliqueTemplateSpec{Name: b.pick(fuzzNames...), TopologyConstraint: b.constraint()}
		c.Spec.RoleName = b.pick("", "r", "a")
		c.Spec.Replicas = b.int32()
		c.Spec.MinAvailable = b.optInt32()
		c.Spec.AutoScalingConfig = b.autoscaling()
		for range b.next() % 3 {
			c.Spec.StartsAfter = append(c.Spec.StartsAfter, b.pick(fuzzNames...))
		}
		c.Spec.PodSpec.SchedulerName = b.pick("", "", "default-scheduler", "volcano")
		c.Spec.PodSpec.RestartPolicy = corev1.RestartPolicy(b.pick("", "Always", "Never"))
		if b.next()%4 == 0 {
			c.Spec.PodSpec.NodeName = "n"
		}
		ctr := corev1.Container{Name: "main"}
		for range b.next() % 3 {
			ctr.Env = append(ctr.Env, corev1.EnvVar{Name: b.pick("A", "A", "1x", "")})
		}
		c.Spec.PodSpec.Containers = []corev1.Container{ctr}
		c.Spec.RollingUpdate = b.rollingUpdate()
		c.Labels, c.Annotations = b.metadataMap(), b.metadataMap()
		tmpl.Cliques = append(tmpl.Cliques, c)
	}
	for range b.next() % 3 {
		g := grovecorev1alpha1.PodCliqueScalingGroupConfig{Name: b.pick("g", "g", "", "G"), Replicas: b.optInt32(), MinAvailable: b.optInt32(),
			ScaleConfig: b.autoscaling(), TopologyConstraint: b.constraint(), RollingUpdate: b.rollingUpdate()}
		for range b.next() % 3 {
			g.CliqueNames = append(g.CliqueNames, b.pick(fuzzNames...))
		}
		tmpl.PodCliqueScalingGroupConfigs = append(tmpl.PodCliqueScalingGroupConfigs, g)
	}
	if b.next()%3 != 0 {
		spec.UpdateStrategy = &grovecorev1alpha1.PodCliqueSetUpdateStrategy{
			Type: grovecorev1alpha1.UpdateStrategyType(b.pick(string(grovecorev1alpha1.RollingRecreateStrategyType), string(grovecorev1alpha1.OnDeleteStrategyType), "", "Coherent", "bogus")),
		}
	}
	pcs.Annotations = b.metadataMap()
	return pcs
}

// rollingUpdate picks maxUnavailable and progressDeadline among valid,
// boundary and malformed values (the CRD's own checks are not run here, so
// the webhook must stand on its own).
func (b *byteStream) rollingUpdate() *grovecorev1alpha1.RollingUpdateConfig {
	if b.next()%2 == 0 {
		return nil
	}
	ru := &grovecorev1alpha1.RollingUpdateConfig{}
	switch b.next() % 9 {
	case 0:
	case 1:
		ru.MaxUnavailable = ptr.To(intstr.FromInt32(b.int32()))
	case 2:
		ru.MaxUnavailable = ptr.To(intstr.FromInt32(math.MaxInt32))
	default:
		ru.MaxUnavailable = ptr.To(intstr.FromString(b.pick("25%", "0%", "100%", "101%", "-5%", "%", "abc", "", "1.5%")))
	}
	if b.next()%2 == 0 {
		ru.ProgressDeadline = &metav1.Duration{Duration: time.Duration(b.int32()) * time.Minute}
	}
	return ru
}

// metadataMap is a label or annotation map with keys and values around the
// limits of Kubernetes' metadata validation.
func (b *byteStream) metadataMap() map[string]string {
	n := b.next() % 4
	if n == 0 {
		return nil
	}
	m := map[string]string{}
	for range n {
		key := b.pick("app", "grove.io/topology-name", "grove.io/disable-managed-resource-protection", "bad key", "a/b/c", "/x",
			strings.Repeat("k", 63), strings.Repeat("k", 64), "ünïcode", "example.com/"+strings.Repeat("k", 63))
		m[key] = b.pick("", "v", strings.Repeat("v", 63), strings.Repeat("v", 64), "ünïcode", "bad value!", "true")
	}
	return m
}
