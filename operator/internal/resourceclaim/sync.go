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

package resourceclaim

import (
	"context"
	"fmt"
	"maps"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaimtemplates,verbs=get

const kind = "ResourceClaim"

// Error codes of claim syncs.
const (
	ErrTemplateNotFound grovecorev1alpha1.ErrorCode = "ERR_RESOURCE_CLAIM_TEMPLATE_NOT_FOUND"
	ErrSyncClaim        grovecorev1alpha1.ErrorCode = "ERR_SYNC_RESOURCE_CLAIM"
	ErrDeleteClaim      grovecorev1alpha1.ErrorCode = "ERR_DELETE_RESOURCE_CLAIM"
)

// Syncer creates and deletes the claims of one owner.
type Syncer struct {
	// D writes the claims and reports them on the owner.
	D childsync.Deps
	// Templates reads from the API server: external ResourceClaimTemplates,
	// in any namespace (read only when a claim is created, so the operator
	// keeps no cache of them), and a claim whose create found it existing.
	Templates client.Reader
}

// Owner is the object that owns a set of claims.
type Owner struct {
	// Object is the PodCliqueSet, PodCliqueScalingGroup or PodClique.
	Object client.Object
	// PCS is the PodCliqueSet the owner belongs to: its resourceClaimTemplates
	// resolve the entries, its namespace holds the claims.
	PCS *grovecorev1alpha1.PodCliqueSet
	// Labels are added to every claim besides Grove's defaults and the
	// claim template's own labels (e.g. grove.io/podclique).
	Labels map[string]string
	// IndexLabel is the label that carries a PerReplica claim's index.
	IndexLabel string
}

// Sync makes sure every wanted claim exists and, when prune is set, deletes
// the owner's claims that are not wanted (the PerReplica claims of indices
// removed by a scale-in). A claim is created once and never changed: a
// ResourceClaim's spec is immutable, and the entries it is made from are too.
func (s Syncer) Sync(ctx context.Context, o Owner, wanted []Claim, prune bool) error {
	report := s.D.NewReport(o.Object, kind)
	defer report.Emit()
	templates := map[string]*resourcev1.ResourceClaimTemplateSpec{}
	var errs []error
	for _, c := range wanted {
		if err := s.ensure(ctx, o, c, templates, report); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	if !prune {
		return nil
	}
	keep := make(map[string]bool, len(wanted))
	for _, c := range wanted {
		keep[c.Name] = true
	}
	return s.deleteExcept(ctx, o, keep, report)
}

func (s Syncer) ensure(ctx context.Context, o Owner, c Claim, templates map[string]*resourcev1.ResourceClaimTemplateSpec, report *childsync.Report) error {
	key := client.ObjectKey{Namespace: o.PCS.Namespace, Name: c.Name}
	live := &resourcev1.ResourceClaim{}
	err := s.D.Client.Get(ctx, key, live, client.UnsafeDisableDeepCopy)
	if err == nil {
		return s.controlled(live, o, report)
	}
	if !apierrors.IsNotFound(err) {
		return groveerr.Wrapf(err, ErrSyncClaim, groveerr.OperationSync, "reading ResourceClaim %s", c.Name)
	}
	tmplKey := c.Entry.Namespace + "/" + c.Entry.Name
	tmpl, ok := templates[tmplKey]
	if !ok {
		if tmpl, err = s.template(ctx, o.PCS, c.Entry); err != nil {
			return err
		}
		templates[tmplKey] = tmpl
	}
	claim, err := s.build(o, c, tmpl)
	if err != nil {
		return groveerr.Wrapf(err, ErrSyncClaim, groveerr.OperationSync, "building ResourceClaim %s", c.Name)
	}
	err = s.D.Client.Create(ctx, claim)
	if apierrors.IsAlreadyExists(err) {
		// Made by an earlier pass the cache has not shown yet, or an object
		// the cache does not hold (it holds only claims labelled as Grove's):
		// whose it is, the API server says.
		if err := s.Templates.Get(ctx, key, live); err != nil {
			return groveerr.Wrapf(client.IgnoreNotFound(err), ErrSyncClaim, groveerr.OperationSync, "reading ResourceClaim %s", c.Name)
		}
		return s.controlled(live, o, report)
	}
	report.Applied(claim, childsync.Created, err)
	return groveerr.Wrapf(err, ErrSyncClaim, groveerr.OperationSync, "creating ResourceClaim %s", c.Name)
}

// controlled reports a claim of the wanted name that another object controls:
// Grove never takes over a claim it did not make for this owner (a claim of a
// deleted owner of the same name waits for the garbage collector).
func (s Syncer) controlled(live *resourcev1.ResourceClaim, o Owner, report *childsync.Report) error {
	err := childsync.ControlledBy(s.D.Scheme, live, o.Object)
	if err == nil {
		return nil
	}
	// Reported as every other child kind's taken name: a ChildNameTaken
	// event here, the ChildNameConflict condition from the returned error.
	report.Applied(live, childsync.Unchanged, err)
	return groveerr.Wrap(err, ErrSyncClaim, groveerr.OperationSync, "ResourceClaim "+live.Name)
}

// template resolves an entry: the PodCliqueSet's resourceClaimTemplates entry
// of that name when the entry names no namespace, otherwise the
// ResourceClaimTemplate object in the entry's namespace or the PodCliqueSet's.
func (s Syncer) template(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, e grovecorev1alpha1.ResourceSharingSpec) (*resourcev1.ResourceClaimTemplateSpec, error) {
	if e.Namespace == "" {
		for i := range pcs.Spec.Template.ResourceClaimTemplates {
			if t := &pcs.Spec.Template.ResourceClaimTemplates[i]; t.Name == e.Name {
				return &t.TemplateSpec, nil
			}
		}
	}
	ns := e.Namespace
	if ns == "" {
		ns = pcs.Namespace
	}
	rct := &resourcev1.ResourceClaimTemplate{}
	if err := s.Templates.Get(ctx, client.ObjectKey{Namespace: ns, Name: e.Name}, rct); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, groveerr.New(ErrTemplateNotFound, groveerr.OperationSync,
				fmt.Sprintf("resourceSharing names %q: no resourceClaimTemplates entry and no ResourceClaimTemplate %s/%s", e.Name, ns, e.Name))
		}
		return nil, groveerr.Wrapf(err, ErrSyncClaim, groveerr.OperationSync, "reading ResourceClaimTemplate %s/%s", ns, e.Name)
	}
	return &rct.Spec, nil
}

func (s Syncer) build(o Owner, c Claim, tmpl *resourcev1.ResourceClaimTemplateSpec) (*resourcev1.ResourceClaim, error) {
	gvk, err := apiutil.GVKForObject(o.Object, s.D.Scheme)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, o.Labels)
	maps.Copy(labels, childsync.Labels(o.PCS.Name, c.Name, apicommon.LabelComponentResourceClaim))
	if c.Index >= 0 && o.IndexLabel != "" {
		labels[o.IndexLabel] = fmt.Sprint(c.Index)
	}
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:            c.Name,
			Namespace:       o.PCS.Namespace,
			Labels:          labels,
			Annotations:     maps.Clone(tmpl.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(o.Object, gvk)},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}, nil
}

// deleteExcept deletes the owner's claims whose names are not in keep.
func (s Syncer) deleteExcept(ctx context.Context, o Owner, keep map[string]bool, report *childsync.Report) error {
	sel := childsync.Selector(o.PCS.Name, apicommon.LabelComponentResourceClaim)
	maps.Copy(sel, o.Labels)
	list := &resourcev1.ResourceClaimList{}
	if err := s.D.Client.List(ctx, list, client.InNamespace(o.PCS.Namespace), sel, client.UnsafeDisableDeepCopy); err != nil {
		return groveerr.Wrap(err, ErrSyncClaim, groveerr.OperationSync, "listing ResourceClaims")
	}
	var errs []error
	for i := range list.Items {
		rc := &list.Items[i]
		if keep[rc.Name] || rc.DeletionTimestamp != nil || !metav1.IsControlledBy(rc, o.Object) {
			continue
		}
		// A precondition on the UID: a claim recreated under this name since
		// the cache was filled is not the one to delete.
		err := client.IgnoreNotFound(s.D.Client.Delete(ctx, rc, client.Preconditions{UID: &rc.UID}))
		report.Deleted(rc, err)
		if err != nil {
			errs = append(errs, groveerr.Wrapf(err, ErrDeleteClaim, groveerr.OperationDelete, "deleting ResourceClaim %s", rc.Name))
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
