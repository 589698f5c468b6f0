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

// Package common holds what every Grove controller shares: the status
// recorder for lastOperation and lastErrors, and requeue helpers.
package common

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// OperationStatus gives access to the lastOperation and lastErrors fields of a
// Grove object's status.
type OperationStatus interface {
	client.Object
	GetLastOperation() *grovecorev1alpha1.LastOperation
	SetLastOperation(*grovecorev1alpha1.LastOperation)
	SetLastErrors([]grovecorev1alpha1.LastError)
}

// StatusRecorder writes lastOperation and lastErrors through the status
// subresource with merge patches, so it never conflicts with other status writers.
type StatusRecorder struct {
	Client client.Client
}

// RecordStart marks an operation as Processing. It writes only when the
// recorded operation differs (type or state), so a steady-state reconcile does
// not cause a status write.
func (r StatusRecorder) RecordStart(ctx context.Context, obj OperationStatus, op grovecorev1alpha1.LastOperationType, description string) error {
	if last := obj.GetLastOperation(); last != nil && last.Type == op && last.State == grovecorev1alpha1.LastOperationStateProcessing {
		return nil
	}
	return r.record(ctx, obj, op, grovecorev1alpha1.LastOperationStateProcessing, description, nil, false)
}

// RecordCompletion marks an operation Succeeded (errs empty) or Error, and
// stores errs as lastErrors. A success clears lastErrors. Nothing is written
// when the object already records the same outcome without errors.
func (r StatusRecorder) RecordCompletion(ctx context.Context, obj OperationStatus, op grovecorev1alpha1.LastOperationType, description string, errs ...error) error {
	lastErrors := groveerr.LastErrors(errs...)
	state := grovecorev1alpha1.LastOperationStateSucceeded
	if len(lastErrors) > 0 {
		state = grovecorev1alpha1.LastOperationStateError
	}
	if last := obj.GetLastOperation(); last != nil && last.Type == op && last.State == state && state == grovecorev1alpha1.LastOperationStateSucceeded && last.Description == description {
		return nil
	}
	return r.record(ctx, obj, op, state, description, lastErrors, true)
}

func (r StatusRecorder) record(ctx context.Context, obj OperationStatus, op grovecorev1alpha1.LastOperationType, state grovecorev1alpha1.LastOperationState, description string, lastErrors []grovecorev1alpha1.LastError, setErrors bool) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("cannot copy %T", obj)
	}
	obj.SetLastOperation(&grovecorev1alpha1.LastOperation{
		Type: op, State: state, Description: description,
		LastUpdateTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	})
	if setErrors {
		obj.SetLastErrors(lastErrors)
	}
	if err := r.Client.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("recording %s %s on %s: %w", op, state, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// ApplyOperation sets lastOperation and lastErrors on obj in memory, for
// controllers that write their whole status in one patch per reconcile. It
// reports whether anything but the timestamp changed, so callers can skip
// writes in steady state.
func ApplyOperation(obj OperationStatus, op grovecorev1alpha1.LastOperationType, description string, errs ...error) bool {
	lastErrors := groveerr.LastErrors(errs...)
	state := grovecorev1alpha1.LastOperationStateSucceeded
	if len(lastErrors) > 0 {
		state = grovecorev1alpha1.LastOperationStateError
	}
	return applyOperation(obj, op, state, description, lastErrors)
}

// ApplyProcessing records in memory that an operation is under way (for
// example pods are still being created), clearing lastErrors.
func ApplyProcessing(obj OperationStatus, op grovecorev1alpha1.LastOperationType, description string) bool {
	return applyOperation(obj, op, grovecorev1alpha1.LastOperationStateProcessing, description, nil)
}

func applyOperation(obj OperationStatus, op grovecorev1alpha1.LastOperationType, state grovecorev1alpha1.LastOperationState, description string, lastErrors []grovecorev1alpha1.LastError) bool {
	last := obj.GetLastOperation()
	changed := last == nil || last.Type != op || last.State != state || last.Description != description ||
		!sameErrors(lastErrorsOf(obj), lastErrors)
	if !changed {
		return false
	}
	obj.SetLastOperation(&grovecorev1alpha1.LastOperation{
		Type: op, State: state, Description: description,
		LastUpdateTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	})
	obj.SetLastErrors(lastErrors)
	return true
}

// lastErrorsGetter is implemented by objects whose last errors can be read.
type lastErrorsGetter interface {
	GetLastErrors() []grovecorev1alpha1.LastError
}

func lastErrorsOf(obj OperationStatus) []grovecorev1alpha1.LastError {
	if g, ok := obj.(lastErrorsGetter); ok {
		return g.GetLastErrors()
	}
	return nil
}

// sameErrors compares codes and descriptions, ignoring when they were observed.
func sameErrors(a, b []grovecorev1alpha1.LastError) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Code != b[i].Code || a[i].Description != b[i].Description {
			return false
		}
	}
	return true
}
