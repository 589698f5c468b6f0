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

// Package childsync holds what the PodCliqueSet and PodCliqueScalingGroup
// controllers do the same way for their children: apply a child server-side
// when it is missing or differs from what is wanted (Apply), without sending
// a create again while the cache does not show it, delete children no longer wanted
// (DeleteExcept), run independent writes in parallel, and emit one event per
// outcome and kind.
package childsync

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/ownwrites"
)

// Result says what Apply did.
type Result int

// Outcomes of Apply.
const (
	Unchanged Result = iota
	Created
	Patched
)

// DeleteIgnoringNotFound deletes obj; an object that is already gone is no error.
func DeleteIgnoringNotFound(ctx context.Context, c client.Client, obj client.Object) error {
	return client.IgnoreNotFound(c.Delete(ctx, obj))
}

// Parallel runs fn for every index in [0, n) with at most limit at a time
// and joins the errors. The client's rate limiter, not this limit, bounds
// the request rate; parallelism only hides request latency.
func Parallel(n, limit int, fn func(i int) error) error {
	if n == 0 {
		return nil
	}
	if limit <= 0 {
		limit = 1
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, limit)
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := fn(i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// DefaultParallelism is how many writes a component keeps in flight.
const DefaultParallelism = 32

// Deps are what a component operator needs from the manager.
type Deps struct {
	// Client reads from the cache and writes to the API server.
	Client client.Client
	// Scheme resolves owner references.
	Scheme *runtime.Scheme
	// Recorder emits events on the PodCliqueSet.
	Recorder events.EventRecorder
	// Writes records the children created that the cache has not shown
	// yet; nil records none.
	Writes *ownwrites.Tracker
	// FieldManager names the controller in the managedFields of the
	// children it applies server-side.
	FieldManager string
}

// Labels returns the labels of a PodCliqueSet child: the default labels, its
// name (with ':' made label-safe) and its component.
func Labels(pcsName, objectName, component string) map[string]string {
	l := apicommon.DefaultLabels(pcsName)
	l[apicommon.LabelAppNameKey] = strings.ReplaceAll(objectName, ":", "-")
	l[apicommon.LabelComponentKey] = component
	return l
}

// ReadChildren are the options of a read-only list, from the cache, of a
// PodCliqueSet's children: through the index by set name, with the set's
// labels (and the component's, unless component is ""), without copies of
// the cached objects, which the caller must therefore not change.
func ReadChildren(pcs metav1.Object, component string) []client.ListOption {
	sel := client.MatchingLabels(apicommon.DefaultLabels(pcs.GetName()))
	if component != "" {
		sel = Selector(pcs.GetName(), component)
	}
	return []client.ListOption{client.InNamespace(pcs.GetNamespace()), index.InSet(pcs.GetName()), sel, client.UnsafeDisableDeepCopy}
}

// Selector selects a PodCliqueSet's children of one component.
func Selector(pcsName, component string) client.MatchingLabels {
	l := apicommon.DefaultLabels(pcsName)
	l[apicommon.LabelComponentKey] = component
	return l
}

// IndexAtLeast reports whether obj's integer label key is >= least. Objects
// without a valid index are treated as stray and reported as at least least,
// so they are cleaned up with the removed indices.
func IndexAtLeast(obj metav1.Object, key string, least int32) bool {
	v, err := strconv.Atoi(obj.GetLabels()[key])
	if err != nil {
		return true
	}
	return int32(v) >= least
}

// MergeLabels returns live with every owned label set; labels others added stay.
func MergeLabels(live, owned map[string]string) map[string]string {
	if live == nil {
		live = make(map[string]string, len(owned))
	}
	for k, v := range owned {
		live[k] = v
	}
	return live
}
