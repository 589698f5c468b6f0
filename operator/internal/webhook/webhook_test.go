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
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/certs"
	"github.com/grove-project/grove/operator/internal/webhook/configuration"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset/rulecases"
)

var namespaceSeq int

// newNamespace creates a namespace per spec so manifests named alike never collide.
func newNamespace(ctx context.Context, prefix string) string {
	namespaceSeq++
	name := fmt.Sprintf("%s-%d", prefix, namespaceSeq)
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

func manifest(ns string, mutate func(*grovecorev1alpha1.PodCliqueSet)) *grovecorev1alpha1.PodCliqueSet {
	pcs := rulecases.Base("inference", ns)
	if mutate != nil {
		mutate(pcs)
	}
	return pcs
}

var _ = Describe("PodCliqueSet defaulting", func() {
	It("applies every default to a manifest that writes none", func(ctx SpecContext) {
		ns := newNamespace(ctx, "defaulting")
		pcs := &grovecorev1alpha1.PodCliqueSet{
			ObjectMeta: metav1.ObjectMeta{Name: "single-node-aggregated", Namespace: ns},
			Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
				Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{
					{Name: "model-worker", Spec: grovecorev1alpha1.PodCliqueSpec{
						PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "model-worker", Image: "nginx:latest"}}}}},
					{Name: "router", Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 2,
						AutoScalingConfig: &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 4},
						PodSpec:           corev1.PodSpec{Containers: []corev1.Container{{Name: "router", Image: "nginx:latest"}}}}},
					{Name: "leader", Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 1,
						PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "leader", Image: "nginx:latest"}}}}},
				},
				PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{
					Name: "model", CliqueNames: []string{"leader"}, Replicas: ptr.To[int32](3),
					ScaleConfig: &grovecorev1alpha1.AutoScalingConfig{MaxReplicas: 5},
				}},
			}},
		}
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		got := &grovecorev1alpha1.PodCliqueSet{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pcs), got)).To(Succeed())

		t := got.Spec.Template
		Expect(got.Namespace).To(Equal(ns))
		Expect(t.TerminationDelay).To(Equal(&metav1.Duration{Duration: 4 * time.Hour}))
		Expect(t.HeadlessServiceConfig).To(Equal(&grovecorev1alpha1.HeadlessServiceConfig{PublishNotReadyAddresses: true}))
		Expect(t.StartupType).To(Equal(ptr.To(grovecorev1alpha1.CliqueStartupTypeAnyOrder)))
		Expect(t.Cliques).To(HaveLen(3))
		for _, c := range t.Cliques {
			Expect(c.Spec.RoleName).To(Equal(c.Name), "roleName of %s", c.Name)
			Expect(c.Spec.PodSpec.RestartPolicy).To(Equal(corev1.RestartPolicyAlways), "restartPolicy of %s", c.Name)
			Expect(c.Spec.PodSpec.TerminationGracePeriodSeconds).To(Equal(ptr.To[int64](30)), "terminationGracePeriodSeconds of %s", c.Name)
		}
		Expect(t.Cliques[0].Spec.Replicas).To(Equal(int32(1)), "replicas 0 becomes 1")
		Expect(t.Cliques[0].Spec.MinAvailable).To(Equal(ptr.To[int32](1)), "minAvailable follows the fixed-up replicas")
		Expect(t.Cliques[1].Spec.MinAvailable).To(Equal(ptr.To[int32](2)))
		Expect(t.Cliques[1].Spec.AutoScalingConfig.MinReplicas).To(Equal(ptr.To[int32](2)))
		g := t.PodCliqueScalingGroupConfigs[0]
		Expect(g.MinAvailable).To(Equal(ptr.To[int32](1)))
		Expect(g.ScaleConfig.MinReplicas).To(Equal(ptr.To[int32](3)))
		one := &grovecorev1alpha1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
		Expect(t.Cliques[0].Spec.RollingUpdate).To(Equal(one), "standalone cliques replace one pod at a time")
		Expect(t.Cliques[1].Spec.RollingUpdate).To(Equal(one))
		Expect(t.Cliques[2].Spec.RollingUpdate).To(BeNil(), "a group member is replaced with its group replica")
		Expect(g.RollingUpdate).To(Equal(one), "groups replace one replica at a time")
	})
})

// expectRejected asserts err is the rejection c describes.
func expectRejected(err error, c rulecases.Case, webhookName string) {
	Expect(err).To(HaveOccurred(), "bad manifest accepted")
	if c.SchemaFirst {
		path := c.Path
		if c.SchemaPath != "" {
			path = c.SchemaPath
		}
		Expect(err.Error()).To(ContainSubstring(path))
		return
	}
	Expect(err.Error()).To(And(
		ContainSubstring(fmt.Sprintf("admission webhook %q denied the request", webhookName)),
		ContainSubstring(c.Path+":"),
		ContainSubstring(c.Message),
	))
}

func expectWarned(c rulecases.Case) {
	Expect(warnings.all()).To(ContainElement(And(ContainSubstring(c.Path), ContainSubstring(c.Warning))))
}

var _ = Describe("PodCliqueSet validation on create", func() {
	for _, c := range rulecases.Create() {
		if c.Unreachable || c.TopologyDisabled {
			continue
		}
		It(c.Name, func(ctx SpecContext) {
			ns := newNamespace(ctx, "create")
			warnings.reset()
			err := k8sClient.Create(ctx, manifest(ns, c.Bad))
			if c.Warning != "" {
				Expect(err).NotTo(HaveOccurred())
				expectWarned(c)
				return
			}
			expectRejected(err, c, configuration.PodCliqueSetValidatingWebhookName)
			Expect(k8sClient.Create(ctx, manifest(ns, c.Good))).To(Succeed(), "corrected twin rejected")
		})
	}
})

var _ = Describe("PodCliqueSet validation on update", func() {
	for _, c := range rulecases.Updates() {
		It(c.Name, func(ctx SpecContext) {
			ns := newNamespace(ctx, "update")
			stored := manifest(ns, nil)
			Expect(k8sClient.Create(ctx, stored)).To(Succeed())
			if c.Bad != nil {
				bad := stored.DeepCopy()
				c.Bad(bad)
				expectRejected(k8sClient.Update(ctx, bad), c, configuration.PodCliqueSetValidatingWebhookName)
			}
			good := stored.DeepCopy()
			c.Good(good)
			Expect(k8sClient.Update(ctx, good)).To(Succeed(), "mutable change rejected")
			got := &grovecorev1alpha1.PodCliqueSet{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(good), got)).To(Succeed())
			Expect(got.Spec).To(Equal(good.Spec))
		})
	}
})

var _ = Describe("ClusterTopologyBinding validation", func() {
	level := func(d, k string) grovecorev1alpha1.TopologyLevel {
		return grovecorev1alpha1.TopologyLevel{Domain: grovecorev1alpha1.TopologyDomain(d), Key: k}
	}
	It("rejects duplicate domains and accepts the corrected twin", func(ctx SpecContext) {
		bad := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "dup-domain"},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("zone", "a/rack")}}}
		Expect(k8sClient.Create(ctx, bad)).To(MatchError(And(ContainSubstring("spec.levels"), ContainSubstring("domains must be unique"))))
		bad.Spec.Levels[1].Domain = "rack"
		Expect(k8sClient.Create(ctx, bad)).To(Succeed())
	})
	It("rejects duplicate keys and accepts the corrected twin", func(ctx SpecContext) {
		bad := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "dup-key"},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone"), level("rack", "a/zone")}}}
		Expect(k8sClient.Create(ctx, bad)).To(MatchError(And(ContainSubstring("spec.levels"), ContainSubstring("keys must be unique"))))
		bad.Spec.Levels[1].Key = "a/rack"
		Expect(k8sClient.Create(ctx, bad)).To(Succeed())
	})
	It("rejects a scheduler topology binding for a backend without a topology object, naming the field", func(ctx SpecContext) {
		bad := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "bound"},
			Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{
				Levels:                    []grovecorev1alpha1.TopologyLevel{level("zone", "a/zone")},
				SchedulerTopologyBindings: []grovecorev1alpha1.SchedulerTopologyBinding{{SchedulerName: "kai-scheduler", TopologyReference: "dc"}},
			}}
		Expect(k8sClient.Create(ctx, bad)).To(MatchError(And(ContainSubstring("spec.schedulerTopologyBindings[0].schedulerName"),
			ContainSubstring(`Unsupported value: "kai-scheduler"`))))
		bad.Spec.SchedulerTopologyBindings = []grovecorev1alpha1.SchedulerTopologyBinding{
			{SchedulerName: "grove-scheduler", TopologyReference: "a"}, {SchedulerName: "grove-scheduler", TopologyReference: "b"}}
		Expect(k8sClient.Create(ctx, bad)).To(MatchError(And(ContainSubstring("spec.schedulerTopologyBindings[1]"), ContainSubstring("Duplicate value"))))
		bad.Spec.SchedulerTopologyBindings = nil
		Expect(k8sClient.Create(ctx, bad)).To(Succeed())
	})
	It("rejects a PodCliqueSet whose gang the backend's scheduler cannot hold, naming the field", func(ctx SpecContext) {
		ns := newNamespace(ctx, "backend")
		tooMany := manifest(ns, func(p *grovecorev1alpha1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs = nil
			base := p.Spec.Template.Cliques[0]
			p.Spec.Template.Cliques = nil
			for i := range 9 {
				c := *base.DeepCopy()
				c.Name, c.Spec.RoleName, c.Spec.StartsAfter = fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i), nil
				c.Spec.PodSpec.SchedulerName = "default-scheduler"
				p.Spec.Template.Cliques = append(p.Spec.Template.Cliques, c)
			}
		})
		Expect(k8sClient.Create(ctx, tooMany)).To(MatchError(ContainSubstring(
			"spec.template.cliques: Invalid value: 9: a replica's base gang has 9 pod groups (standalone cliques plus minAvailable replicas of each scaling group's cliques); the Workload API of scheduler backend default-scheduler allows at most 8")))
		tooMany.Spec.Template.Cliques = tooMany.Spec.Template.Cliques[:8]
		Expect(k8sClient.Create(ctx, tooMany)).To(Succeed(), "8 pod groups fit a Workload")
	})
	It("rejects a topology without levels", func(ctx SpecContext) {
		bad := &grovecorev1alpha1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "no-levels"}, Spec: grovecorev1alpha1.ClusterTopologyBindingSpec{Levels: []grovecorev1alpha1.TopologyLevel{}}}
		Expect(k8sClient.Create(ctx, bad)).To(MatchError(ContainSubstring("spec.levels")))
	})
	It("registers the three webhooks with the contract settings", func(ctx SpecContext) {
		check := func(name string, failure *admissionregistrationv1.FailurePolicyType, side *admissionregistrationv1.SideEffectClass,
			match *admissionregistrationv1.MatchPolicyType, timeout *int32) {
			Expect(*failure).To(Equal(admissionregistrationv1.Fail), name)
			Expect(*side).To(Equal(admissionregistrationv1.SideEffectClassNone), name)
			Expect(*match).To(Equal(admissionregistrationv1.Exact), name)
			Expect(*timeout).To(Equal(int32(10)), name)
		}
		var m admissionregistrationv1.MutatingWebhookConfiguration
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: configuration.PodCliqueSetDefaultingConfigurationName}, &m)).To(Succeed())
		Expect(m.Webhooks).To(HaveLen(1))
		Expect(m.Webhooks[0].Name).To(Equal(configuration.PodCliqueSetDefaultingWebhookName))
		check(m.Name, m.Webhooks[0].FailurePolicy, m.Webhooks[0].SideEffects, m.Webhooks[0].MatchPolicy, m.Webhooks[0].TimeoutSeconds)
		for name, hook := range map[string]string{
			configuration.PodCliqueSetValidatingConfigurationName:           configuration.PodCliqueSetValidatingWebhookName,
			configuration.ClusterTopologyBindingValidatingConfigurationName: configuration.ClusterTopologyBindingValidatingWebhookName,
		} {
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &v)).To(Succeed())
			Expect(v.Webhooks).To(HaveLen(1))
			Expect(v.Webhooks[0].Name).To(Equal(hook))
			check(v.Name, v.Webhooks[0].FailurePolicy, v.Webhooks[0].SideEffects, v.Webhooks[0].MatchPolicy, v.Webhooks[0].TimeoutSeconds)
		}
	})
})

func secretKey() types.NamespacedName {
	return types.NamespacedName{Namespace: operatorNamespace, Name: operator.Server.Webhooks.SecretName}
}

// servedCertificate is the certificate the webhook server presents now.
func servedCertificate() (*x509.Certificate, error) {
	wio := testEnv.WebhookInstallOptions
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp",
		net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the presented certificate
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// injectedBundles returns the caBundle of every webhook of Grove's configurations.
func injectedBundles(ctx context.Context) [][]byte {
	var out [][]byte
	for _, name := range configuration.MutatingConfigurationNames {
		var cfg admissionregistrationv1.MutatingWebhookConfiguration
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &cfg)).To(Succeed())
		for _, w := range cfg.Webhooks {
			out = append(out, w.ClientConfig.CABundle)
		}
	}
	for _, name := range configuration.ValidatingConfigurationNames {
		var cfg admissionregistrationv1.ValidatingWebhookConfiguration
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, &cfg)).To(Succeed())
		for _, w := range cfg.Webhooks {
			out = append(out, w.ClientConfig.CABundle)
		}
	}
	return out
}

func getSecret(ctx context.Context) *corev1.Secret {
	s := &corev1.Secret{}
	Expect(k8sClient.Get(ctx, secretKey(), s)).To(Succeed())
	return s
}

// createThroughWebhooks creates a PodCliqueSet, which needs both PodCliqueSet webhooks to answer.
func createThroughWebhooks(ctx context.Context, ns string) error {
	pcs := manifest(ns, nil)
	pcs.Name = ""
	pcs.GenerateName = "rot-"
	return k8sClient.Create(ctx, pcs)
}

var _ = Describe("Webhook certificates in auto mode", Ordered, func() {
	It("stores the CA and serving certificate in a TLS Secret, serves it and injects the CA", func(ctx SpecContext) {
		s := getSecret(ctx)
		Expect(s.Type).To(Equal(corev1.SecretTypeTLS))
		Expect(s.Labels).To(HaveKeyWithValue(apicommon.LabelManagedByKey, apicommon.LabelManagedByValue))
		Expect(s.Data).To(HaveKey(certs.SecretKeyTLSCert))
		Expect(s.Data).To(HaveKey(certs.SecretKeyTLSKey))
		Expect(s.Data).To(HaveKey(certs.SecretKeyCACert))

		chain, err := certs.ParseCertificates(s.Data[certs.SecretKeyTLSCert])
		Expect(err).NotTo(HaveOccurred())
		Expect(chain[0].DNSNames).To(ConsistOf("grove-operator", "grove-operator.grove-system",
			"grove-operator.grove-system.svc", "grove-operator.grove-system.svc.cluster.local"))
		Expect(chain[0].IPAddresses).To(HaveLen(1))
		Expect(chain[0].IPAddresses[0].String()).To(Equal(testEnv.WebhookInstallOptions.LocalServingHost))
		ca, err := certs.ParseCertificates(s.Data[certs.SecretKeyCACert])
		Expect(err).NotTo(HaveOccurred())
		Expect(ca[0].Subject.CommonName).To(Equal(certs.CACommonName))

		Expect(injectedBundles(ctx)).To(HaveLen(4), "three webhooks and the authorizer")
		for _, b := range injectedBundles(ctx) {
			Expect(b).To(Equal(s.Data[certs.SecretKeyCACert]))
		}
		Eventually(func() ([]byte, error) {
			c, err := servedCertificate()
			if err != nil {
				return nil, err
			}
			return c.Raw, nil
		}, 20*time.Second, 100*time.Millisecond).Should(Equal(chain[0].Raw))
		Expect(readyCheck()).To(Succeed())
	})

	It("replaces a near-expiry serving certificate while the webhooks keep answering", func(ctx SpecContext) {
		ns := newNamespace(ctx, "rotation")
		s := getSecret(ctx)
		oldServed, err := servedCertificate()
		Expect(err).NotTo(HaveOccurred())
		caBundle := s.Data[certs.SecretKeyCACert]
		dns, ips := certs.SubjectAltNames(operator.Server.Webhooks.ServiceName, operatorNamespace, operator.Server.Webhooks.ExtraSANs)
		nearExpiry, err := certs.NewServingCert(certs.KeyPair{CertPEM: caBundle, KeyPEM: s.Data[certs.SecretKeyCAKey]}, dns, ips, time.Now(), 10*time.Minute)
		Expect(err).NotTo(HaveOccurred())
		s.Data[certs.SecretKeyTLSCert], s.Data[certs.SecretKeyTLSKey] = nearExpiry.CertPEM, nearExpiry.KeyPEM
		Expect(k8sClient.Update(ctx, s)).To(Succeed())

		// Every call during the rotation must be answered: the CA does not
		// change, so the old and the new certificate are both trusted.
		calls := 0
		deadline := time.Now().Add(30 * time.Second)
		var served *x509.Certificate
		for {
			Expect(createThroughWebhooks(ctx, ns)).To(Succeed(), "webhook call %d during rotation", calls)
			calls++
			served, err = servedCertificate()
			Expect(err).NotTo(HaveOccurred())
			if !served.Equal(oldServed) {
				break
			}
			Expect(time.Now().Before(deadline)).To(BeTrue(), "the new certificate was not served within 30s")
		}
		GinkgoWriter.Printf("webhook calls answered during serving-certificate rotation: %d\n", calls)
		Expect(served.NotAfter).To(BeTemporally(">", time.Now().Add(300*24*time.Hour)), "renewed for the full lifetime")
		renewed := getSecret(ctx)
		Expect(renewed.Data[certs.SecretKeyTLSCert]).NotTo(Equal(nearExpiry.CertPEM))
		Expect(renewed.Data[certs.SecretKeyCACert]).To(Equal(caBundle), "the CA is kept")
		for _, b := range injectedBundles(ctx) {
			Expect(b).To(Equal(caBundle))
		}
		Expect(createThroughWebhooks(ctx, ns)).To(Succeed())
	})

	It("replaces an expired CA, re-injects the bundle and answers through the API server again", func(ctx SpecContext) {
		ns := newNamespace(ctx, "rotation")
		s := getSecret(ctx)
		long := time.Now().Add(-2 * 365 * 24 * time.Hour)
		expiredCA, err := certs.NewCA(long, 365*24*time.Hour)
		Expect(err).NotTo(HaveOccurred())
		dns, ips := certs.SubjectAltNames(operator.Server.Webhooks.ServiceName, operatorNamespace, operator.Server.Webhooks.ExtraSANs)
		expiredCert, err := certs.NewServingCert(expiredCA, dns, ips, long, 365*24*time.Hour)
		Expect(err).NotTo(HaveOccurred())
		s.Data = map[string][]byte{
			certs.SecretKeyCACert: expiredCA.CertPEM, certs.SecretKeyCAKey: expiredCA.KeyPEM,
			certs.SecretKeyTLSCert: expiredCert.CertPEM, certs.SecretKeyTLSKey: expiredCert.KeyPEM,
		}
		Expect(k8sClient.Update(ctx, s)).To(Succeed())

		var bundle []byte
		Eventually(func(g Gomega) {
			cur := getSecret(ctx)
			g.Expect(cur.Data[certs.SecretKeyCACert]).NotTo(Equal(expiredCA.CertPEM))
			bundle = cur.Data[certs.SecretKeyCACert]
		}, 20*time.Second, 100*time.Millisecond).Should(Succeed())
		newCAs, err := certs.ParseCertificates(bundle)
		Expect(err).NotTo(HaveOccurred())
		Expect(newCAs).To(HaveLen(1), "the expired CA is not kept in the bundle")
		Expect(newCAs[0].NotAfter).To(BeTemporally(">", time.Now().Add(9*365*24*time.Hour)))
		Eventually(func() [][]byte { return injectedBundles(ctx) }, 20*time.Second, 100*time.Millisecond).Should(HaveEach(Equal(bundle)))

		pool := x509.NewCertPool()
		pool.AddCert(newCAs[0])
		Eventually(func() error {
			c, err := servedCertificate()
			if err != nil {
				return err
			}
			_, err = c.Verify(x509.VerifyOptions{Roots: pool})
			return err
		}, 30*time.Second, 100*time.Millisecond).Should(Succeed(), "the server presents a certificate of the new CA")
		Eventually(func() error { return createThroughWebhooks(ctx, ns) }, 30*time.Second, 200*time.Millisecond).Should(Succeed())
	})
})
