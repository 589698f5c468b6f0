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

// Package authorizer is the managed-resource protection webhook
// (operator configuration authorizer.enabled): the children grove-operator
// makes for a PodCliqueSet — PodCliques, PodCliqueScalingGroups, PodGangs,
// pods, Services, HPAs, ServiceAccounts, Roles, RoleBindings and Secrets
// labelled app.kubernetes.io/managed-by=grove-operator — may be changed only
// by the operator itself and the exempt users (the garbage collector, the HPA
// controller, kube-controller-manager). Anyone else is denied with a message
// that says how to make the change properly: through the PodCliqueSet, or
// with the PodCliqueSet's grove.io/disable-managed-resource-protection
// annotation. The API server sends only those kinds and operations (the
// configuration package's AuthorizerConfiguration, the chart's
// authorizer-webhook); subresources such as status and scale are never sent.
package authorizer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Handler decides one admission request.
type Handler struct {
	// PodCliqueSets reads the owning PodCliqueSet (the manager's cached client).
	PodCliqueSets client.Reader
	// OperatorUser is the user name grove-operator authenticates as.
	OperatorUser string
	// Exempt are further user names whose changes are always admitted.
	Exempt sets.Set[string]
}

var _ admission.Handler = &Handler{}

// Handle admits the operator, exempt users, changes to objects that are not
// Grove's, and changes under a PodCliqueSet that opted out; it denies the rest.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Connect {
		return admission.Allowed("")
	}
	user := req.UserInfo.Username
	if user == h.OperatorUser || h.Exempt.Has(user) {
		return admission.Allowed("")
	}
	// Pods are deleted by evictions, preemption and users scaling in
	// directly; the operator replaces them, so a delete never harms the set.
	if req.Operation == admissionv1.Delete && req.Kind.Kind == "Pod" && req.Kind.Group == "" {
		return admission.Allowed("")
	}
	// The object as it is now decides whether it is Grove's: the old one for
	// updates and deletes (a user who adds or removes the label of a Grove
	// object is still changing Grove's object), the new one for creates.
	raw := req.OldObject.Raw
	if req.Operation == admissionv1.Create {
		raw = req.Object.Raw
	}
	var obj metav1.PartialObjectMetadata
	if err := json.Unmarshal(raw, &obj); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the %s's metadata: %w", req.Kind.Kind, err))
	}
	if obj.Labels[apicommon.LabelManagedByKey] != apicommon.LabelManagedByValue {
		return admission.Allowed("")
	}
	pcsName := obj.Labels[apicommon.LabelPartOfKey]
	what := fmt.Sprintf("%s %q", req.Resource.Resource, req.Name)
	if pcsName == "" {
		return admission.Allowed("").WithWarnings(fmt.Sprintf("%s is labelled %s=%s but names no PodCliqueSet in %s; not protected", what, apicommon.LabelManagedByKey, apicommon.LabelManagedByValue, apicommon.LabelPartOfKey))
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{}
	if err := h.PodCliqueSets.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: pcsName}, pcs); err != nil {
		if apierrors.IsNotFound(err) {
			return admission.Allowed("").WithWarnings(fmt.Sprintf("%s belongs to PodCliqueSet %q, which does not exist; not protected", what, pcsName))
		}
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("reading PodCliqueSet %s/%s: %w", req.Namespace, pcsName, err))
	}
	if pcs.Annotations[apicommon.AnnotationDisableManagedResourceProtection] == "true" {
		return admission.Allowed("")
	}
	return admission.Denied(DeniedMessage(what, req.Namespace, pcsName))
}

// DeniedMessage says why a change to a managed object was refused and how
// to make it: through the PodCliqueSet, or after opting the set out.
func DeniedMessage(what, namespace, pcs string) string {
	return fmt.Sprintf("%s is managed by grove-operator for PodCliqueSet %q and only the operator may change it: "+
		"change the PodCliqueSet instead (kubectl edit podcliqueset %s -n %s), "+
		"or, to change its children directly, annotate it first (kubectl annotate podcliqueset %s -n %s %s=true)",
		what, pcs, pcs, namespace, pcs, namespace, apicommon.AnnotationDisableManagedResourceProtection)
}
