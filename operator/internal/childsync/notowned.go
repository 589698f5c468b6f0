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

package childsync

import (
	"context"
	"errors"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SplitNotOwned separates from err (a tree of joined and wrapped errors, as
// Parallel and groveerr build them) the ErrNotOwned it holds, and returns
// them and what is left of err. A child whose name another object holds is
// reported, not retried as a failure: the rest of the owner's work goes on.
func SplitNotOwned(err error) ([]ErrNotOwned, error) {
	if err == nil {
		return nil, nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var taken []ErrNotOwned
		var rest []error
		for _, e := range joined.Unwrap() {
			t, r := SplitNotOwned(e)
			taken = append(taken, t...)
			if r != nil {
				rest = append(rest, r)
			}
		}
		return taken, errors.Join(rest...)
	}
	// This level only: errors.As would also find an ErrNotOwned joined with
	// other errors inside a wrap, and drop those; wraps are taken apart below.
	if e, ok := err.(ErrNotOwned); ok { //nolint:errorlint // see above
		return []ErrNotOwned{e}, nil
	}
	if inner := errors.Unwrap(err); inner != nil {
		// A wrapped error is taken apart only when nothing but ErrNotOwned
		// is inside; otherwise it stays whole, with its context.
		if taken, rest := SplitNotOwned(inner); len(taken) > 0 && rest == nil {
			return taken, nil
		}
	}
	return nil, err
}

// NotOwnedAmong returns, joined, an ErrNotOwned for each of names that the
// cache shows held by an object of newObj's kind that owner does not
// control. The set-level pass reports with it, in the owner's status, the
// names that the applies of the replicas' passes left alone.
func NotOwnedAmong(ctx context.Context, d Deps, owner client.Object, newObj func() client.Object, names map[string]bool) error {
	var taken []ErrNotOwned
	for name := range names {
		obj := newObj()
		// Read only: no copy of the cached object.
		err := d.Client.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, obj, client.UnsafeDisableDeepCopy)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		var e ErrNotOwned
		if errors.As(ControlledBy(d.Scheme, obj, owner), &e) {
			taken = append(taken, e)
		}
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i].Name < taken[j].Name })
	errs := make([]error, len(taken))
	for i := range taken {
		errs[i] = taken[i]
	}
	return errors.Join(errs...)
}
