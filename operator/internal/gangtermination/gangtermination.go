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

// Package gangtermination holds the rules of gang termination that the
// PodCliqueScalingGroup controller (one scaling-group replica) and the
// PodCliqueSet controller (a whole PodCliqueSet replica) share: which
// PodClique breaches count and since when, when termination is suspended,
// how long it waits, and how PodCliques are deleted so that a stale cache
// never deletes their replacements. docs/user-guide.md ("Gang termination")
// describes the behaviour.
package gangtermination

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/ownwrites"
	"github.com/grove-project/grove/operator/internal/webhook/podcliqueset"
)

// Breach is a PodClique whose breach counts for gang termination.
type Breach struct {
	// PodClique is the breached PodClique's name.
	PodClique string
	// Reason is the reason of its MinAvailableBreached condition.
	Reason string
	// Since is when MinAvailableBreached became True.
	Since time.Time
}

// BreachOf returns the PodClique's breach if it counts: MinAvailableBreached
// is True (not Unknown, as during a rolling update), the PodClique once had
// minAvailable pods scheduled (status.wasScheduled; a clique that never got
// capacity, or was just recreated, never triggers termination), it is not
// scaled to zero and not being deleted.
func BreachOf(pclq *grovecorev1alpha1.PodClique) (Breach, bool) {
	if pclq == nil || pclq.DeletionTimestamp != nil || pclq.Spec.Replicas == 0 || !pclq.Status.WasScheduled {
		return Breach{}, false
	}
	c := meta.FindStatusCondition(pclq.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached)
	if c == nil || c.Status != metav1.ConditionTrue {
		return Breach{}, false
	}
	return Breach{PodClique: pclq.Name, Reason: c.Reason, Since: c.LastTransitionTime.Time}, true
}

// Earliest returns the breach that started first; ok is false without breaches.
func Earliest(breaches []Breach) (b Breach, ok bool) {
	for i, x := range breaches {
		if i == 0 || x.Since.Before(b.Since) {
			b = x
		}
	}
	return b, len(breaches) > 0
}

// Suspended reports whether a rolling update of the PodCliqueSet runs: its
// deletions breach cliques on purpose, so gang termination waits for it.
func Suspended(pcs *grovecorev1alpha1.PodCliqueSet) bool {
	up := pcs.Status.UpdateProgress
	return up != nil && up.UpdateEndedAt == nil
}

// Delay is the PodCliqueSet's terminationDelay (the webhook's default when unset).
func Delay(pcs *grovecorev1alpha1.PodCliqueSet) time.Duration {
	if td := pcs.Spec.Template.TerminationDelay; td != nil {
		return td.Duration
	}
	return podcliqueset.DefaultTerminationDelay
}

// Remaining is how long a breach that started at since may still last
// before its gang is recreated; zero or less means now.
func Remaining(since time.Time, delay time.Duration, now time.Time) time.Duration {
	return since.Add(delay).Sub(now)
}

// recreatedPodClique says whether a PodClique was created by the recreation
// that started at `started`. Both times have second precision in the API,
// and the deletions happen after `started` is taken, so a replacement is
// never created in an earlier second.
func recreatedPodClique(pclq *grovecorev1alpha1.PodClique, started metav1.Time) bool {
	return !pclq.CreationTimestamp.Before(&started)
}

// Back reports whether a recreated scope is back: it is Settled, and each
// PodClique created since the termination started has had minAvailable pods
// scheduled (or is scaled to zero). expected lists the names the scope
// should have.
func Back(expected []string, byName map[string]*grovecorev1alpha1.PodClique, started metav1.Time, writes *ownwrites.Tracker) bool {
	if !Settled(expected, byName, writes) {
		return false
	}
	for _, name := range expected {
		p := byName[name]
		if recreatedPodClique(p, started) && !p.Status.WasScheduled && p.Spec.Replicas > 0 {
			return false
		}
	}
	return true
}

// Settled reports whether the scope can be judged: every PodClique it
// should have exists, none is being deleted and none is one the operator
// already deleted while the cache still shows it alive (writes). Gang
// termination waits otherwise, which also keeps it from judging, deleting
// and reporting the same breach twice.
func Settled(expected []string, byName map[string]*grovecorev1alpha1.PodClique, writes *ownwrites.Tracker) bool {
	for _, name := range expected {
		p, ok := byName[name]
		if !ok || p.DeletionTimestamp != nil || writes.Behind(p) {
			return false
		}
	}
	return true
}

// Delete deletes the PodCliques, each only if it is still the object that
// was judged (UID precondition): a replacement with the same name is never
// deleted. A PodClique already gone or replaced counts as deleted. Each is
// recorded in writes until the cache shows it deleted.
func Delete(ctx context.Context, c client.Client, writes *ownwrites.Tracker, pclqs []*grovecorev1alpha1.PodClique) error {
	for _, p := range pclqs {
		err := c.Delete(ctx, p, client.Preconditions{UID: &p.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
		writes.Deleted(p)
	}
	return nil
}
