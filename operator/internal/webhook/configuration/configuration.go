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

// Package configuration holds the contract between Grove's webhook server and
// the API server: the paths the handlers are served at, the names of the
// webhook configuration objects (the chart, the local cluster and the
// certificate injector all refer to them by name) and builders for those
// objects.
package configuration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Paths the webhook server serves the handlers at.
const (
	// DefaultPodCliqueSetPath serves the PodCliqueSet defaulting webhook.
	DefaultPodCliqueSetPath = "/webhooks/default-podcliqueset"
	// ValidatePodCliqueSetPath serves the PodCliqueSet validating webhook.
	ValidatePodCliqueSetPath = "/webhooks/validate-podcliqueset"
	// ValidateClusterTopologyBindingPath serves the ClusterTopologyBinding validating webhook.
	ValidateClusterTopologyBindingPath = "/webhooks/validate-clustertopology"
	// AuthorizerPath serves the managed-resource protection webhook.
	AuthorizerPath = "/webhooks/authorizer-webhook"
)

// Names of the webhook configuration objects and of the webhooks in them.
const (
	// PodCliqueSetDefaultingConfigurationName is the MutatingWebhookConfiguration of PodCliqueSets.
	PodCliqueSetDefaultingConfigurationName = "podcliqueset-defaulting-webhook"
	// PodCliqueSetDefaultingWebhookName is the webhook in PodCliqueSetDefaultingConfigurationName.
	PodCliqueSetDefaultingWebhookName = "pcs.defaulting.webhooks.grove.io"
	// PodCliqueSetValidatingConfigurationName is the ValidatingWebhookConfiguration of PodCliqueSets.
	PodCliqueSetValidatingConfigurationName = "podcliqueset-validating-webhook"
	// PodCliqueSetValidatingWebhookName is the webhook in PodCliqueSetValidatingConfigurationName.
	PodCliqueSetValidatingWebhookName = "pcs.validating.webhooks.grove.io"
	// ClusterTopologyBindingValidatingConfigurationName is the ValidatingWebhookConfiguration of ClusterTopologyBindings.
	ClusterTopologyBindingValidatingConfigurationName = "clustertopology-validating-webhook"
	// ClusterTopologyBindingValidatingWebhookName is the webhook in ClusterTopologyBindingValidatingConfigurationName.
	ClusterTopologyBindingValidatingWebhookName = "clustertopology.validating.webhooks.grove.io"
	// AuthorizerConfigurationName is the ValidatingWebhookConfiguration of
	// the managed-resource protection webhook (only when authorizer.enabled).
	AuthorizerConfigurationName = "authorizer-webhook"
	// AuthorizerWebhookName is the webhook in AuthorizerConfigurationName.
	AuthorizerWebhookName = "authorizer.webhooks.grove.io"
)

// TimeoutSeconds is how long the API server waits for a webhook answer.
const TimeoutSeconds int32 = 10

// MutatingConfigurationNames are the MutatingWebhookConfigurations the CA bundle is injected into.
var MutatingConfigurationNames = []string{PodCliqueSetDefaultingConfigurationName}

// ValidatingConfigurationNames are the ValidatingWebhookConfigurations the
// CA bundle is injected into; the authorizer's exists only when it is enabled
// (a missing configuration is skipped).
var ValidatingConfigurationNames = []string{PodCliqueSetValidatingConfigurationName, ClusterTopologyBindingValidatingConfigurationName, AuthorizerConfigurationName}

// ClientConfigFunc says how the API server reaches the handler served at path.
type ClientConfigFunc func(path string) admissionregistrationv1.WebhookClientConfig

// ServiceClientConfig reaches the handlers through a Service, as in a cluster.
func ServiceClientConfig(namespace, name string, port int32, caBundle []byte) ClientConfigFunc {
	return func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{
			Service:  &admissionregistrationv1.ServiceReference{Namespace: namespace, Name: name, Path: ptr.To(path), Port: ptr.To(port)},
			CABundle: caBundle,
		}
	}
}

// MutatingConfigurations returns the MutatingWebhookConfigurations of Grove.
func MutatingConfigurations(cc ClientConfigFunc) []*admissionregistrationv1.MutatingWebhookConfiguration {
	return []*admissionregistrationv1.MutatingWebhookConfiguration{{
		ObjectMeta: metav1.ObjectMeta{Name: PodCliqueSetDefaultingConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    PodCliqueSetDefaultingWebhookName,
			ClientConfig:            cc(DefaultPodCliqueSetPath),
			Rules:                   rules("podcliquesets"),
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(TimeoutSeconds),
			AdmissionReviewVersions: []string{"v1"},
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
		}},
	}}
}

// ValidatingConfigurations returns the ValidatingWebhookConfigurations of Grove.
func ValidatingConfigurations(cc ClientConfigFunc) []*admissionregistrationv1.ValidatingWebhookConfiguration {
	validating := func(cfgName, hookName, path, resource string) *admissionregistrationv1.ValidatingWebhookConfiguration {
		return &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: cfgName},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    hookName,
				ClientConfig:            cc(path),
				Rules:                   rules(resource),
				FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
				MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          ptr.To(TimeoutSeconds),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}
	}
	return []*admissionregistrationv1.ValidatingWebhookConfiguration{
		validating(PodCliqueSetValidatingConfigurationName, PodCliqueSetValidatingWebhookName, ValidatePodCliqueSetPath, "podcliquesets"),
		validating(ClusterTopologyBindingValidatingConfigurationName, ClusterTopologyBindingValidatingWebhookName, ValidateClusterTopologyBindingPath, "clustertopologybindings"),
	}
}

// AuthorizerConfiguration returns the authorizer's
// ValidatingWebhookConfiguration as the chart renders it: objects labelled
// app.kubernetes.io/managed-by=grove-operator, the kinds Grove creates for a
// PodCliqueSet, main resources only (status, scale and binding
// subresources stay open to the scheduler, kubelet and HPA).
func AuthorizerConfiguration(cc ClientConfigFunc) *admissionregistrationv1.ValidatingWebhookConfiguration {
	op := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.OperationType { return ops }
	rule := func(group string, versions, resources []string, ops []admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: versions, Resources: resources}}
	}
	const (
		create = admissionregistrationv1.Create
		update = admissionregistrationv1.Update
		del    = admissionregistrationv1.Delete
	)
	v1 := []string{"v1"}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: AuthorizerConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:           AuthorizerWebhookName,
			ClientConfig:   cc(AuthorizerPath),
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{apicommon.LabelManagedByKey: apicommon.LabelManagedByValue}},
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule("", v1, []string{"secrets", "serviceaccounts", "services"}, op(update, del)),
				rule("", v1, []string{"pods"}, op(update)),
				rule("rbac.authorization.k8s.io", v1, []string{"roles", "rolebindings"}, op(update, del)),
				rule("autoscaling", []string{"v1", "v2"}, []string{"horizontalpodautoscalers"}, op(update, del)),
				rule(grovecorev1alpha1.GroupName, []string{"v1alpha1"}, []string{"podcliques", "podcliquescalinggroups"}, op(create, update, del)),
				rule(groveschedulerv1alpha1.GroupName, []string{"v1alpha1"}, []string{"podgangs"}, op(create, update, del)),
			},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(TimeoutSeconds),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

func rules(resource string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{grovecorev1alpha1.GroupName},
			APIVersions: []string{grovecorev1alpha1.SchemeGroupVersion.Version},
			Resources:   []string{resource},
		},
	}}
}
