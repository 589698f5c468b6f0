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

package clustertopologybinding

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/response"
)

// ValidatingHandler is the validating admission handler for ClusterTopologyBindings.
type ValidatingHandler struct {
	decoder         admission.Decoder
	enabledBackends []string
}

// NewValidatingHandler returns a ValidatingHandler decoding with scheme, which
// must know the grove.io types; enabledBackends are the scheduler backends
// the operator runs with.
func NewValidatingHandler(scheme *runtime.Scheme, enabledBackends []string) *ValidatingHandler {
	return &ValidatingHandler{decoder: admission.NewDecoder(scheme), enabledBackends: enabledBackends}
}

// Handle validates a CREATE or UPDATE; it allows every other operation.
func (h *ValidatingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	ct := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := h.decoder.Decode(req, ct); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if ct.DeletionTimestamp != nil {
		return admission.Allowed("")
	}
	if errs := Validate(ct, h.enabledBackends); len(errs) > 0 {
		logf.FromContext(ctx).V(1).Info("Rejected ClusterTopologyBinding", "clusterTopologyBinding", ct.Name, "errors", errs.ToAggregate().Error())
		return response.Invalid(grovecorev1alpha1.SchemeGroupVersion.WithKind("ClusterTopologyBinding").GroupKind(), ct.Name, errs)
	}
	return admission.Allowed("")
}
