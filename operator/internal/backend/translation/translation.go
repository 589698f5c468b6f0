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

// Package translation holds what the scheduler backends that translate
// PodGangs into their own scheduler's objects share: the verdict they read
// back, the error for a gang they cannot express, and the create-or-update of
// an object owned by its PodGang.
package translation

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Verdict is what a backend's scheduler says of a gang, read from the
// backend's own objects.
type Verdict struct {
	// Scheduled is true once the scheduler placed the gang's minimum set.
	Scheduled bool
	// Reason is a CamelCase reason for the PodGang's Scheduled condition.
	Reason string
	// Message says why, in the scheduler's words where it gave any.
	Message string
}

// MappingError is a gang the backend's API cannot express. Retrying does not
// help: the PodGang reports it until its PodCliqueSet changes.
type MappingError struct{ Message string }

func (e *MappingError) Error() string { return e.Message }

// Mappingf returns a MappingError.
func Mappingf(format string, args ...any) error {
	return &MappingError{Message: fmt.Sprintf(format, args...)}
}

// Ensure makes the cluster's copy of desired match it: created when missing,
// updated when mutate reports a difference. desired gets the PodGang as its
// controller owner, so the garbage collector deletes it with the gang. mutate
// copies what Grove owns from desired into current and reports whether it
// changed anything; fields the backend's scheduler writes are left alone.
func Ensure[T client.Object](ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, desired, current T, mutate func(desired, current T) bool) error {
	if err := controllerutil.SetControllerReference(pg, desired, c.Scheme()); err != nil {
		return fmt.Errorf("setting PodGang %s as owner of %s: %w", pg.Name, desired.GetName(), err)
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(desired), current)
	if apierrors.IsNotFound(err) {
		if err := c.Create(ctx, desired); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s: %w", desired.GetName(), err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting %s: %w", desired.GetName(), err)
	}
	if !metav1.IsControlledBy(current, pg) {
		return Mappingf("%s %s exists and is not owned by PodGang %s", kindOf(current), current.GetName(), pg.Name)
	}
	changed := mutate(desired, current)
	if !equality.Semantic.DeepEqual(desired.GetLabels(), current.GetLabels()) {
		current.SetLabels(desired.GetLabels())
		changed = true
	}
	if !changed {
		return nil
	}
	if err := c.Update(ctx, current); err != nil {
		return fmt.Errorf("updating %s: %w", current.GetName(), err)
	}
	return nil
}

func kindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	return "object"
}

// MinimumSet is the number of pods a gang needs placed: the sum of its pod
// groups' minReplicas.
func MinimumSet(pg *groveschedulerv1alpha1.PodGang) int32 {
	var n int32
	for _, g := range pg.Spec.PodGroups {
		n += g.MinReplicas
	}
	return n
}

// Labels are the labels of an object a backend writes for a gang.
func Labels(pg *groveschedulerv1alpha1.PodGang) map[string]string {
	labels := apicommon.DefaultLabels(pg.Labels[apicommon.LabelPartOfKey])
	labels[apicommon.LabelPodGang] = pg.Name
	return labels
}

// ForbidTopology names every topology constraint of the PodCliqueSet, for a
// backend whose scheduler packs nothing.
func ForbidTopology(pcs *grovecorev1alpha1.PodCliqueSet, why string) field.ErrorList {
	var errs field.ErrorList
	tp := field.NewPath("spec", "template")
	if pcs.Spec.Template.TopologyConstraint != nil {
		errs = append(errs, field.Forbidden(tp.Child("topologyConstraint"), why))
	}
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		if pcs.Spec.Template.PodCliqueScalingGroupConfigs[i].TopologyConstraint != nil {
			errs = append(errs, field.Forbidden(tp.Child("podCliqueScalingGroups").Index(i).Child("topologyConstraint"), why))
		}
	}
	for i := range pcs.Spec.Template.Cliques {
		if pcs.Spec.Template.Cliques[i].TopologyConstraint != nil {
			errs = append(errs, field.Forbidden(tp.Child("cliques").Index(i).Child("topologyConstraint"), why))
		}
	}
	return errs
}
