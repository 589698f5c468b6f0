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

// Package groveerr is the operator's error type: a stable code, the operation
// that failed and the cause, so reconcile errors can be surfaced in
// status.lastErrors and matched in tests.
package groveerr

import (
	"errors"
	"fmt"
	"time"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// Operations a GroveError can come from.
const (
	OperationSync   = "Sync"
	OperationDelete = "Delete"
)

// GroveError is an error with a code and the operation it came from.
type GroveError struct {
	// Code identifies the kind of error, e.g. ERR_CREATE_POD.
	Code grovecorev1alpha1.ErrorCode
	// Operation is the operation that failed.
	Operation string
	// Message says what was being done.
	Message string
	// Cause is the underlying error.
	Cause error
	// ObservedAt is when the error happened.
	ObservedAt time.Time
}

func (e *GroveError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("[Operation: %s, Code: %s] %s", e.Operation, e.Code, e.Message)
	}
	return fmt.Sprintf("[Operation: %s, Code: %s] %s: %v", e.Operation, e.Code, e.Message, e.Cause)
}

// Unwrap returns the cause.
func (e *GroveError) Unwrap() error { return e.Cause }

// New returns a GroveError without a cause.
func New(code grovecorev1alpha1.ErrorCode, operation, message string) *GroveError {
	return &GroveError{Code: code, Operation: operation, Message: message, ObservedAt: time.Now()}
}

// Wrap returns a GroveError wrapping cause, or nil when cause is nil.
func Wrap(cause error, code grovecorev1alpha1.ErrorCode, operation, message string) error {
	if cause == nil {
		return nil
	}
	return &GroveError{Code: code, Operation: operation, Message: message, Cause: cause, ObservedAt: time.Now()}
}

// Wrapf is Wrap with a formatted message.
func Wrapf(cause error, code grovecorev1alpha1.ErrorCode, operation, format string, args ...any) error {
	return Wrap(cause, code, operation, fmt.Sprintf(format, args...))
}

// HasCode reports whether err or an error it wraps is a GroveError with code.
func HasCode(err error, code grovecorev1alpha1.ErrorCode) bool {
	var ge *GroveError
	for err != nil {
		if errors.As(err, &ge) {
			if ge.Code == code {
				return true
			}
			err = ge.Cause
			continue
		}
		return false
	}
	return false
}

// LastErrors turns errors into status lastErrors entries. Errors that are not
// GroveErrors get the code ERR_UNKNOWN, so nothing a reconcile hit is hidden.
func LastErrors(errs ...error) []grovecorev1alpha1.LastError {
	var out []grovecorev1alpha1.LastError
	for _, err := range errs {
		if err == nil {
			continue
		}
		le := grovecorev1alpha1.LastError{Code: "ERR_UNKNOWN", Description: err.Error()}
		var ge *GroveError
		if errors.As(err, &ge) {
			le.Code = ge.Code
			le.ObservedAt.Time = ge.ObservedAt
		}
		if le.ObservedAt.IsZero() {
			le.ObservedAt.Time = time.Now()
		}
		le.ObservedAt.Time = le.ObservedAt.Truncate(time.Second)
		out = append(out, le)
	}
	return out
}
