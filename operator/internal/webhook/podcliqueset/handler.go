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
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/webhook/response"
)

// DefaultingHandler is the mutating admission handler that applies Default.
type DefaultingHandler struct {
	decoder admission.Decoder
}

// NewDefaultingHandler returns a DefaultingHandler decoding with scheme, which
// must know the grove.io types.
func NewDefaultingHandler(scheme *runtime.Scheme) *DefaultingHandler {
	return &DefaultingHandler{decoder: admission.NewDecoder(scheme)}
}

// Handle defaults the PodCliqueSet of a CREATE or UPDATE and answers with the JSON patch.
func (h *DefaultingHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := h.decoder.Decode(req, pcs); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	// A client may leave the namespace to the request URL; only fall back to
	// "default" when the request names none either.
	if pcs.Namespace == "" {
		pcs.Namespace = req.Namespace
	}
	Default(pcs)
	defaulted, err := json.Marshal(pcs)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, defaulted)
}

// ValidatingHandler is the validating admission handler for PodCliqueSets.
type ValidatingHandler struct {
	decoder   admission.Decoder
	validator *Validator
}

// NewValidatingHandler returns a ValidatingHandler applying validator's rules.
func NewValidatingHandler(scheme *runtime.Scheme, validator *Validator) *ValidatingHandler {
	return &ValidatingHandler{decoder: admission.NewDecoder(scheme), validator: validator}
}

// Handle validates a CREATE or UPDATE; it allows every other operation.
func (h *ValidatingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	logger := logf.FromContext(ctx).WithValues("podCliqueSet", req.Namespace+"/"+req.Name, "operation", req.Operation)
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	var (
		result Result
		err    error
	)
	switch req.Operation {
	case admissionv1.Create:
		if err := h.decoder.Decode(req, pcs); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		result, err = h.validator.ValidateCreate(ctx, pcs)
	case admissionv1.Update:
		if err := h.decoder.Decode(req, pcs); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		// Removing finalizers from an object being deleted must never be
		// blocked by rules its spec may have come to violate.
		if pcs.DeletionTimestamp != nil {
			return admission.Allowed("")
		}
		old := &grovecorev1alpha1.PodCliqueSet{}
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		result, err = h.validator.ValidateUpdate(ctx, old, pcs)
	default:
		return admission.Allowed("")
	}
	if err != nil {
		logger.Error(err, "Validation could not complete")
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if len(result.Errors) > 0 {
		logger.V(1).Info("Rejected PodCliqueSet", "errors", result.Errors.ToAggregate().Error())
		return response.Invalid(grovecorev1alpha1.SchemeGroupVersion.WithKind("PodCliqueSet").GroupKind(), pcs.Name, result.Errors).WithWarnings(result.Warnings...)
	}
	return admission.Allowed("").WithWarnings(result.Warnings...)
}
