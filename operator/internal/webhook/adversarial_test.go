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

package webhook_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

// adversarial is hostile or extreme input: it is either rejected with a
// message naming the field (path and message non-empty), or stored as sent
// (served without harm: the webhooks answer in time and the object reads
// back).
type adversarial struct {
	mutate        func(*grovecorev1alpha1.PodCliqueSet)
	path, message string
}

func rejected(path, message string, mutate func(*grovecorev1alpha1.PodCliqueSet)) adversarial {
	return adversarial{mutate: mutate, path: path, message: message}
}

func served(mutate func(*grovecorev1alpha1.PodCliqueSet)) adversarial {
	return adversarial{mutate: mutate}
}

// padEnv adds env vars to every clique until the manifest is about size bytes.
func padEnv(pcs *grovecorev1alpha1.PodCliqueSet, size int) {
	b, err := json.Marshal(pcs)
	Expect(err).NotTo(HaveOccurred())
	const chunk = 16 << 10
	for i := 0; len(b) < size; i++ {
		c := &pcs.Spec.Template.Cliques[i%len(pcs.Spec.Template.Cliques)].Spec.PodSpec.Containers[0]
		c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("PAD_%d", i), Value: strings.Repeat("x", chunk)})
		b, err = json.Marshal(pcs)
		Expect(err).NotTo(HaveOccurred())
	}
}

var _ = Describe("Adversarial PodCliqueSets through the API server", func() {
	It("refuses kubectl scale pcs to more replicas than the schema allows", func(ctx SpecContext) {
		ns := newNamespace(ctx, "adv-scale")
		pcs := manifest(ns, nil)
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":1000000}}`))
		scale := &autoscalingv1.Scale{}
		err := k8sClient.SubResource("scale").Patch(ctx, pcs, patch, &client.SubResourcePatchOptions{SubResourceBody: scale})
		Expect(err).To(MatchError(And(ContainSubstring("spec.replicas"), ContainSubstring("less than or equal to 150000"))))
	})

	DescribeTable("are rejected naming the field or stored as sent",
		func(ctx SpecContext, a adversarial) {
			ns := newNamespace(ctx, "adv")
			pcs := manifest(ns, a.mutate)
			start := time.Now()
			err := k8sClient.Create(ctx, pcs)
			Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second), "admission answered within the webhook timeout")
			if a.path == "" {
				Expect(err).NotTo(HaveOccurred())
				stored := &grovecorev1alpha1.PodCliqueSet{}
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), stored)).To(Succeed())
				Expect(stored.Spec.Template.Cliques).To(HaveLen(len(pcs.Spec.Template.Cliques)))
				return
			}
			Expect(err).To(HaveOccurred(), "accepted")
			Expect(err.Error()).To(And(ContainSubstring(a.path), ContainSubstring(a.message)))
		},
		// Names: DNS subdomains of at most 253 characters, and the
		// combined-length rule (PodCliqueSet + scaling group + clique ≤ 45)
		// that keeps pod hostnames within 63.
		Entry("a PodCliqueSet name at the combined limit (34 + model + worker = 45)", served(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Name = strings.Repeat("n", 34)
		})),
		Entry("a PodCliqueSet name one past the combined limit", rejected("spec.template.podCliqueScalingGroups[0].cliqueNames[1]", "more than 45 characters", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Name = strings.Repeat("n", 35)
		})),
		Entry("a PodCliqueSet name of 254 characters", rejected("metadata.name", "must be no more than 253 characters", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Name = strings.Repeat("n", 254)
		})),
		Entry("a clique name of 64 characters", rejected("spec.template.cliques[0].name", "", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Name = strings.Repeat("c", 64)
		})),
		// Unicode: names are ASCII DNS labels; values may be any UTF-8.
		Entry("a unicode PodCliqueSet name", rejected("metadata.name", "RFC 1123", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Name = "démo"
		})),
		Entry("a unicode clique name", rejected("spec.template.cliques[0].name", "should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Name = "frøntend"
			p.Spec.Template.Cliques[1].Spec.StartsAfter = []string{"frøntend"}
		})),
		Entry("a unicode clique label value", rejected("spec.template.cliques[0].labels", "", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Labels = map[string]string{"team": "ïnference"}
		})),
		Entry("unicode in annotations, env values and the role name's description", served(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Annotations = map[string]string{"example.com/owner": "名前 🚀"}
			p.Spec.Template.Cliques[0].Annotations = map[string]string{"example.com/note": "ünïcode ✓"}
			p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Env[0].Value = "モデル"
		})),
		// Huge replica counts: the CRD schema caps each count (so does it
		// for the scale subresource), the webhook the pods they add up to.
		Entry("spec.replicas of 2^31-1", rejected("spec.replicas", "in body should be less than or equal to 150000", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Replicas = math.MaxInt32
		})),
		Entry("a clique of 2^31-1 replicas", rejected("spec.template.cliques[0].spec.replicas", "in body should be less than or equal to 150000", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.Replicas = math.MaxInt32
			p.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](1)
		})),
		Entry("a scaling group of 2^31-1 replicas", rejected("spec.template.podCliqueScalingGroups[0].replicas", "in body should be less than or equal to 150000", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].Replicas = ptr.To[int32](math.MaxInt32)
		})),
		Entry("an autoscaler up to 2^31-1 replicas", rejected("spec.template.cliques[0].spec.autoScalingConfig.maxReplicas", "must be at most 150000 pods in one PodCliqueSet", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.AutoScalingConfig = &grovecorev1alpha1.AutoScalingConfig{MinReplicas: ptr.To[int32](2), MaxReplicas: math.MaxInt32}
		})),
		Entry("10,000 replicas of 16 pods", rejected("spec.replicas", "10000 replicas of 16 pods each (autoscaling maxima included) are 160000 pods; must be at most 150000", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Replicas = 10_000 // frontend 2 + 2 model replicas × (leader 1 + worker 3) = 10 … with worker 6: 2 + 2 × 7 = 16
			p.Spec.Template.Cliques[2].Spec.Replicas = 6
			p.Spec.Template.Cliques[2].Spec.MinAvailable = ptr.To[int32](6)
		})),
		Entry("9,375 replicas of 16 pods: exactly 150,000", served(func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Replicas = 9_375
			p.Spec.Template.Cliques[2].Spec.Replicas = 6
			p.Spec.Template.Cliques[2].Spec.MinAvailable = ptr.To[int32](6)
		})),
		// startsAfter cycles.
		Entry("a clique that starts after itself", rejected("spec.template.cliques[0].spec.startsAfter[0]", "", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.StartsAfter = []string{"frontend"}
		})),
		Entry("a three-clique startsAfter cycle", rejected("startsAfter", "startsAfter forms a cycle: ", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.StartsAfter = []string{"worker"}
		})),
		Entry("startsAfter naming a clique that does not exist", rejected("spec.template.cliques[0].spec.startsAfter[0]", "", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.StartsAfter = []string{"ghost"}
		})),
		// Topology that does not exist.
		Entry("a topology domain the ClusterTopologyBinding does not have", rejected("spec.template.topologyConstraint", "numa", func(p *grovecorev1alpha1.PodCliqueSet) {
			numa := grovecorev1alpha1.TopologyDomain("numa")
			p.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: rulecases.TopologyName, Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: &numa}}
		})),
		Entry("a ClusterTopologyBinding that does not exist", rejected("spec.template.topologyConstraint.topologyName", "ghost-topology", func(p *grovecorev1alpha1.PodCliqueSet) {
			zone := grovecorev1alpha1.TopologyDomainZone
			p.Spec.Template.TopologyConstraint = &grovecorev1alpha1.TopologyConstraint{TopologyName: "ghost-topology", Pack: &grovecorev1alpha1.TopologyPackConstraint{Required: &zone}}
		})),
		// Size: a 1.5 MB manifest (64 KB short of etcd's default request limit).
		Entry("a PodCliqueSet of 1.5 MB", served(func(p *grovecorev1alpha1.PodCliqueSet) {
			padEnv(p, 1_500_000)
		})),
		Entry("annotations beyond the 256 KiB total", rejected("metadata.annotations", "Too long: may not be more than 262144 bytes", func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Annotations = map[string]string{"example.com/blob": strings.Repeat("a", 300_000)}
		})),
	)
})
