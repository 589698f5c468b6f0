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

// Package initcaccess manages what grove-initc needs to read pods: one
// ServiceAccount, Role, RoleBinding and service-account token Secret per
// PodCliqueSet whose startup order needs grove-initc
// (startuporder.NeedsInitContainer). A set that does not gets none, and the
// ones it controls are deleted. Each kind is its own component operator.
package initcaccess

// ServiceAccounts, Roles and RoleBindings are watched (label-filtered cache)
// to recreate them when deleted. The Role grants pods and pods/status
// get/list/watch; the API server lets the operator create that Role and bind
// it only because it holds those permissions itself, so it needs neither bind
// nor escalate (pods/status is held for that reason alone).
// Secrets may only be created: the operator neither reads nor changes any
// (see tokenSecret).
//
// +kubebuilder:rbac:groups="",resources=pods;pods/status,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/startuporder"
)

// Operators returns the four component operators in two steps: the
// ServiceAccount, Role and token Secret, then the RoleBinding. The API
// server lets the operator bind the Role only once it can resolve the Role
// (the operator holds no bind permission), so the binding must not race its
// creation.
func Operators(d childsync.Deps) (objects, bindings []component.Operator[component.SetWork]) {
	return []component.Operator[component.SetWork]{serviceAccount{d}, role{d}, tokenSecret{d}},
		[]component.Operator[component.SetWork]{roleBinding{d}}
}

// apply applies desired (its owner reference to pcs is added here) and
// reports what it did.
func apply[T client.Object](ctx context.Context, d childsync.Deps, pcs *grovecorev1alpha1.PodCliqueSet, kind string, code grovecorev1alpha1.ErrorCode, desired childsync.ApplyConfiguration, live T) error {
	res, err := childsync.Apply(ctx, d, pcs, childsync.Child{
		Key: client.ObjectKey{Namespace: ptr.Deref(desired.GetNamespace(), ""), Name: ptr.Deref(desired.GetName(), "")}, Live: live,
		Build: func() (childsync.ApplyConfiguration, error) { return desired, nil },
	})
	report := d.NewReport(pcs, kind)
	report.Applied(live, res, err)
	report.Emit()
	return groveerr.Wrapf(err, code, groveerr.OperationSync, "applying %s %s", kind, live.GetName())
}

// removeUnneeded deletes the object of name, of obj's kind, when pcs controls
// it and it is not being deleted: a set without startup dependencies needs
// none (an older Grove created them for every set). An object of that name
// the set does not control is left alone and not reported, since the set
// does not need the name. The UID precondition keeps a delete from reaching
// an object created under the same name after the read.
func removeUnneeded(ctx context.Context, d childsync.Deps, pcs *grovecorev1alpha1.PodCliqueSet, kind string, code grovecorev1alpha1.ErrorCode, name string, obj client.Object) error {
	err := d.Client.Get(ctx, client.ObjectKey{Namespace: pcs.Namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return groveerr.Wrapf(err, code, groveerr.OperationDelete, "reading %s %s", kind, name)
	}
	if obj.GetDeletionTimestamp() != nil || !metav1.IsControlledBy(obj, pcs) {
		return nil
	}
	err = client.IgnoreNotFound(d.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}))
	report := d.NewReport(pcs, kind)
	report.Deleted(obj, err)
	report.Emit()
	return groveerr.Wrapf(err, code, groveerr.OperationDelete, "deleting %s %s", kind, name)
}

type serviceAccount struct{ d childsync.Deps }

func (serviceAccount) Kind() string { return "ServiceAccount" }

func (s serviceAccount) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	if !w.IsSetLevel() {
		return nil // one per set: kept by the set-level pass
	}
	pcs := w.PCS
	name := apicommon.InitcServiceAccountName(pcs.Name)
	if !startuporder.NeedsInitContainer(pcs) {
		// Kubernetes' token controller deletes the token Secret of a
		// deleted ServiceAccount (tokenSecret never deletes Secrets).
		return removeUnneeded(ctx, s.d, pcs, s.Kind(), "ERR_DELETE_SERVICEACCOUNT", name, &corev1.ServiceAccount{})
	}
	owner, err := childsync.ControllerReference(s.d.Scheme, pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_SYNC_SERVICEACCOUNT", groveerr.OperationSync, "setting owner of ServiceAccount "+name)
	}
	desired := corev1ac.ServiceAccount(name, pcs.Namespace).
		WithLabels(childsync.Labels(pcs.Name, name, apicommon.LabelComponentServiceAccount)).
		WithOwnerReferences(owner).
		WithAutomountServiceAccountToken(true)
	return apply(ctx, s.d, pcs, s.Kind(), "ERR_SYNC_SERVICEACCOUNT", desired, &corev1.ServiceAccount{})
}

// RoleRules are the rules of the grove-initc Role: grove-initc reads the
// pods of its PodGang to wait for the cliques it starts after.
func RoleRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{
		APIGroups: []string{""},
		Resources: []string{"pods", "pods/status"},
		Verbs:     []string{"get", "list", "watch"},
	}}
}

// ruleApplyConfigurations converts rules into apply configurations.
func ruleApplyConfigurations(rules []rbacv1.PolicyRule) []*rbacv1ac.PolicyRuleApplyConfiguration {
	out := make([]*rbacv1ac.PolicyRuleApplyConfiguration, 0, len(rules))
	for _, r := range rules {
		out = append(out, rbacv1ac.PolicyRule().WithAPIGroups(r.APIGroups...).WithResources(r.Resources...).WithVerbs(r.Verbs...))
	}
	return out
}

type role struct{ d childsync.Deps }

func (role) Kind() string { return "Role" }

func (r role) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	if !w.IsSetLevel() {
		return nil // one per set: kept by the set-level pass
	}
	pcs := w.PCS
	name := apicommon.InitcRoleName(pcs.Name)
	if !startuporder.NeedsInitContainer(pcs) {
		return removeUnneeded(ctx, r.d, pcs, r.Kind(), "ERR_DELETE_ROLE", name, &rbacv1.Role{})
	}
	owner, err := childsync.ControllerReference(r.d.Scheme, pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_SYNC_ROLE", groveerr.OperationSync, "setting owner of Role "+name)
	}
	desired := rbacv1ac.Role(name, pcs.Namespace).
		WithLabels(childsync.Labels(pcs.Name, name, apicommon.LabelComponentRole)).
		WithOwnerReferences(owner).
		WithRules(ruleApplyConfigurations(RoleRules())...)
	return apply(ctx, r.d, pcs, r.Kind(), "ERR_SYNC_ROLE", desired, &rbacv1.Role{})
}

type roleBinding struct{ d childsync.Deps }

func (roleBinding) Kind() string { return "RoleBinding" }

func (r roleBinding) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	if !w.IsSetLevel() {
		return nil // one per set: kept by the set-level pass
	}
	pcs := w.PCS
	name := apicommon.InitcRoleBindingName(pcs.Name)
	if !startuporder.NeedsInitContainer(pcs) {
		return removeUnneeded(ctx, r.d, pcs, r.Kind(), "ERR_DELETE_ROLEBINDING", name, &rbacv1.RoleBinding{})
	}
	// A Role or ServiceAccount of the names the binding would name that the
	// set does not control is not bound: the binding would grant a user's
	// ServiceAccount the Role, or the set's the user's Role. Their
	// components report them.
	for name, obj := range map[string]client.Object{apicommon.InitcRoleName(pcs.Name): &rbacv1.Role{}, apicommon.InitcServiceAccountName(pcs.Name): &corev1.ServiceAccount{}} {
		err := r.d.Client.Get(ctx, client.ObjectKey{Namespace: pcs.Namespace, Name: name}, obj, client.UnsafeDisableDeepCopy) // read only
		if err == nil && childsync.ControlledBy(r.d.Scheme, obj, pcs) != nil {
			return nil
		}
		if client.IgnoreNotFound(err) != nil {
			return groveerr.Wrapf(err, "ERR_SYNC_ROLEBINDING", groveerr.OperationSync, "reading %s", name)
		}
	}
	owner, err := childsync.ControllerReference(r.d.Scheme, pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_SYNC_ROLEBINDING", groveerr.OperationSync, "setting owner of RoleBinding "+name)
	}
	// roleRef is immutable; it never changes for a given name.
	desired := rbacv1ac.RoleBinding(name, pcs.Namespace).
		WithLabels(childsync.Labels(pcs.Name, name, apicommon.LabelComponentRoleBinding)).
		WithOwnerReferences(owner).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(apicommon.InitcRoleName(pcs.Name))).
		WithSubjects(rbacv1ac.Subject().
			WithKind(rbacv1.ServiceAccountKind).WithName(apicommon.InitcServiceAccountName(pcs.Name)).WithNamespace(pcs.Namespace))
	return apply(ctx, r.d, pcs, r.Kind(), "ERR_SYNC_ROLEBINDING", desired, &rbacv1.RoleBinding{})
}

// tokenSecret is the service-account token Secret mounted into grove-initc.
// Kubernetes' token controller fills data.token; Grove does not wait for it,
// since only pods with a startup dependency mount it and their kubelet waits.
//
// The operator may only create Secrets: it never reads, changes or deletes
// one (garbage collection removes it with the PodCliqueSet, and Kubernetes'
// token controller when the ServiceAccount it names is deleted because the
// set no longer needs grove-initc). Every sync
// sends the create, and AlreadyExists means the Secret is there, so one
// deleted by hand comes back at the next sync. A user's Secret of that name
// is therefore never taken over either; without read access, the operator
// cannot tell it apart from its own, and does not report it.
type tokenSecret struct{ d childsync.Deps }

func (tokenSecret) Kind() string { return "Secret" }

func (t tokenSecret) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	if !w.IsSetLevel() {
		return nil // one per set: kept by the set-level pass
	}
	pcs := w.PCS
	if !startuporder.NeedsInitContainer(pcs) {
		return nil
	}
	name := apicommon.InitcTokenSecretName(pcs.Name)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: pcs.Namespace,
			Labels:      childsync.Labels(pcs.Name, name, apicommon.LabelComponentSATokenSecret),
			Annotations: map[string]string{apicommon.AnnotationServiceAccountName: apicommon.InitcServiceAccountName(pcs.Name)},
		},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if err := controllerutil.SetControllerReference(pcs, secret, t.d.Scheme); err != nil {
		return groveerr.Wrap(err, "ERR_CREATE_SECRET", groveerr.OperationSync, "setting owner of Secret "+name)
	}
	err := t.d.Client.Create(ctx, secret, client.FieldOwner(childsync.CreateFieldManager))
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	report := t.d.NewReport(pcs, t.Kind())
	report.Applied(secret, childsync.Created, err)
	report.Emit()
	return groveerr.Wrapf(err, "ERR_CREATE_SECRET", groveerr.OperationSync, "creating Secret %s", name)
}
