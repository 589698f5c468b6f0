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

// Package webhook registers Grove's admission webhooks on the manager's
// webhook server: PodCliqueSet defaulting and validation, ClusterTopologyBinding
// validation and, when enabled, the authorizer that protects Grove-managed
// children. Certificates are handled by the certs sub-package.
package webhook

// The PodCliqueSet validating webhook reads the ClusterTopology a constraint names.
//
// +kubebuilder:rbac:groups=grove.io,resources=clustertopologybindings,verbs=get;list;watch

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/webhook/authorizer"
	"github.com/grove-project/grove/operator/internal/webhook/clustertopologybinding"
	"github.com/grove-project/grove/operator/internal/webhook/configuration"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset"
)

// Setup registers the admission handlers on mgr's webhook server at the
// paths of the configuration package (the authorizer only when
// cfg.Authorizer.Enabled). The manager's scheme must hold the
// grove.io types; ClusterTopologyBindings are read through the manager's client.
func Setup(mgr manager.Manager, cfg *config.OperatorConfiguration, backends *backend.Registry) error {
	scheme := mgr.GetScheme()
	for _, kind := range []string{"PodCliqueSet", "ClusterTopologyBinding"} {
		if gvk := grovecorev1alpha1.SchemeGroupVersion.WithKind(kind); !scheme.Recognizes(gvk) {
			return fmt.Errorf("setting up webhooks: the manager's scheme does not know %s", gvk)
		}
	}
	if backends == nil {
		return fmt.Errorf("setting up webhooks: no scheduler backend registry")
	}
	validator := &podcliqueset.Validator{
		Backends:                backends,
		TopologyAwareScheduling: ptr.Deref(cfg.TopologyAwareScheduling.Enabled, false),
		Topologies:              mgr.GetClient(),
		MNNVLEnabled:            cfg.Network.AutoMNNVLEnabled,
	}
	server := mgr.GetWebhookServer()
	server.Register(configuration.DefaultPodCliqueSetPath, &admission.Webhook{Handler: podcliqueset.NewDefaultingHandler(scheme)})
	server.Register(configuration.ValidatePodCliqueSetPath, &admission.Webhook{Handler: podcliqueset.NewValidatingHandler(scheme, validator)})
	server.Register(configuration.ValidateClusterTopologyBindingPath, &admission.Webhook{Handler: clustertopologybinding.NewValidatingHandler(scheme, backends.Names())})
	if cfg.Authorizer.Enabled {
		user, err := authorizer.OperatorUserName(context.Background(), mgr.GetConfig())
		if err != nil {
			return fmt.Errorf("setting up the authorizer webhook: %w", err)
		}
		mgr.GetLogger().WithName("authorizer").Info("Protecting Grove-managed objects", "operatorUser", user, "exemptUsers", cfg.Authorizer.ExemptServiceAccountUserNames)
		server.Register(configuration.AuthorizerPath, &admission.Webhook{Handler: &authorizer.Handler{
			PodCliqueSets: mgr.GetClient(),
			OperatorUser:  user,
			Exempt:        sets.New(cfg.Authorizer.ExemptServiceAccountUserNames...),
		}})
	}
	return nil
}
