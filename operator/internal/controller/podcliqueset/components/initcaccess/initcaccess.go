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
// PodCliqueSet. Each kind is its own component operator.
package initcaccess

// ServiceAccounts, Roles and RoleBindings are watched (label-filtered cache)
// to recreate them when deleted. The Role grants pods and pods/status
// get/list/watch; the API server lets the operator create that Role and bind
// it only because it holds those permissions itself, so it needs neither bind
// nor escalate (pods/status is held for that reason alone).
// Secrets get no list or watch: the operator's cache leaves them out and the
// token Secret is read by name straight from the API server.
//
// +kubebuilder:rbac:groups="",resources=pods;pods/status,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;patch;delete

import (
	"context"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset/components/childsync"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// Operators returns the four component operators, in creation order.
func Operators(d childsync.Deps) []component.Operator[*grovecorev1alpha1.PodCliqueSet] {
	return []component.Operator[*grovecorev1alpha1.PodCliqueSet]{
		serviceAccount{d}, role{d}, roleBinding{d}, tokenSecret{d},
	}
}

func objectMeta(pcs *grovecorev1alpha1.PodCliqueSet, name, componentLabel string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: pcs.Namespace, Labels: childsync.Labels(pcs.Name, name, componentLabel)}
}

// apply creates or patches obj (owned by pcs) with mutate copying the owned fields.
func apply[T client.Object](ctx context.Context, d childsync.Deps, pcs *grovecorev1alpha1.PodCliqueSet, kind string, code grovecorev1alpha1.ErrorCode, desired, live T, mutate func(live T)) error {
	if err := controllerutil.SetControllerReference(pcs, desired, d.Scheme); err != nil {
		return groveerr.Wrapf(err, code, groveerr.OperationSync, "setting owner of %s %s", kind, desired.GetName())
	}
	res, err := childsync.Apply(ctx, d, desired, live, func(l T) {
		if c := metav1.GetControllerOfNoCopy(l); c != nil && c.UID != pcs.UID {
			return // someone else's object: reported by the caller, never taken over
		}
		l.SetLabels(childsync.MergeLabels(l.GetLabels(), desired.GetLabels()))
		l.SetOwnerReferences(desired.GetOwnerReferences())
		mutate(l)
	})
	report := d.NewReport(pcs, kind)
	report.Applied(desired, res, err)
	report.Emit()
	return groveerr.Wrapf(err, code, groveerr.OperationSync, "creating or patching %s %s", kind, desired.GetName())
}

type serviceAccount struct{ d childsync.Deps }

func (serviceAccount) Kind() string { return "ServiceAccount" }

func (s serviceAccount) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	name := apicommon.InitcServiceAccountName(pcs.Name)
	desired := &corev1.ServiceAccount{
		ObjectMeta:                   objectMeta(pcs, name, apicommon.LabelComponentServiceAccount),
		AutomountServiceAccountToken: ptr.To(true),
	}
	return apply(ctx, s.d, pcs, s.Kind(), "ERR_SYNC_SERVICEACCOUNT", desired, &corev1.ServiceAccount{}, func(l *corev1.ServiceAccount) {
		l.AutomountServiceAccountToken = desired.AutomountServiceAccountToken
	})
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

type role struct{ d childsync.Deps }

func (role) Kind() string { return "Role" }

func (r role) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	name := apicommon.InitcRoleName(pcs.Name)
	desired := &rbacv1.Role{
		ObjectMeta: objectMeta(pcs, name, apicommon.LabelComponentRole),
		Rules:      RoleRules(),
	}
	return apply(ctx, r.d, pcs, r.Kind(), "ERR_SYNC_ROLE", desired, &rbacv1.Role{}, func(l *rbacv1.Role) {
		l.Rules = desired.Rules
	})
}

type roleBinding struct{ d childsync.Deps }

func (roleBinding) Kind() string { return "RoleBinding" }

func (r roleBinding) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	name := apicommon.InitcRoleBindingName(pcs.Name)
	desired := &rbacv1.RoleBinding{
		ObjectMeta: objectMeta(pcs, name, apicommon.LabelComponentRoleBinding),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: apicommon.InitcRoleName(pcs.Name)},
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Name: apicommon.InitcServiceAccountName(pcs.Name), Namespace: pcs.Namespace,
		}},
	}
	return apply(ctx, r.d, pcs, r.Kind(), "ERR_SYNC_ROLEBINDING", desired, &rbacv1.RoleBinding{}, func(l *rbacv1.RoleBinding) {
		// roleRef is immutable; it never changes for a given name.
		l.Subjects = desired.Subjects
	})
}

// tokenSecret is the service-account token Secret mounted into grove-initc.
// Kubernetes' token controller fills data.token; Grove does not wait for it,
// since only pods with a startup dependency mount it and their kubelet waits.
type tokenSecret struct{ d childsync.Deps }

func (tokenSecret) Kind() string { return "Secret" }

func (t tokenSecret) Sync(ctx context.Context, _ logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) error {
	name := apicommon.InitcTokenSecretName(pcs.Name)
	meta := objectMeta(pcs, name, apicommon.LabelComponentSATokenSecret)
	meta.Annotations = map[string]string{apicommon.AnnotationServiceAccountName: apicommon.InitcServiceAccountName(pcs.Name)}
	desired := &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeServiceAccountToken}
	live := &corev1.Secret{}
	err := apply(ctx, t.d, pcs, t.Kind(), "ERR_CREATE_SECRET", desired, live, func(l *corev1.Secret) {
		if l.Annotations == nil {
			l.Annotations = map[string]string{}
		}
		l.Annotations[apicommon.AnnotationServiceAccountName] = meta.Annotations[apicommon.AnnotationServiceAccountName]
	})
	if err != nil {
		return err
	}
	if live.UID != "" && !metav1.IsControlledBy(live, pcs) {
		return groveerr.New("ERR_SECRET_CONFLICT", groveerr.OperationSync, "Secret "+name+" exists and is not controlled by PodCliqueSet "+pcs.Name)
	}
	return nil
}
