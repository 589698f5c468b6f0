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

// Package coscheduling is the scheduler-plugins-scheduler backend: it hands
// each PodGang to a kube-scheduler built with the scheduler-plugins
// Coscheduling plugin as one scheduling.x-k8s.io/v1alpha1 PodGroup named like
// the gang, whose minMember is the sum of the pod groups' minReplicas. Pods
// join it through the scheduling.x-k8s.io/pod-group label.
//
// The PodGroup is flat: the plugin holds the gang until minMember of its pods
// are placed, whichever cliques they belong to, so a clique above its
// minReplicas can stand in for another one's pods. With replicas equal to
// minReplicas (the usual inference gang) that is exactly Grove's gang.
//
// The object is written as unstructured content: the scheduler-plugins module
// is built for one Kubernetes line and would pin the operator to it.
package coscheduling

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/config"
)

// PodGroupLabel joins a pod to its PodGroup.
const PodGroupLabel = "scheduling.x-k8s.io/pod-group"

// PodGroupGVK is the kind the backend writes.
var PodGroupGVK = schema.GroupVersionKind{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Kind: "PodGroup"}

// Phases of the PodGroup status the scheduler-plugins controller writes.
const (
	phaseRunning  = "Running"
	phaseFinished = "Finished"
	phaseFailed   = "Failed"
)

// The chart grants this rule only when the scheduler-plugins-scheduler
// profile is enabled.
//
// +kubebuilder:rbac:groups=scheduling.x-k8s.io,resources=podgroups,verbs=get;list;watch;create;update;delete

// Backend is the scheduler-plugins-scheduler backend.
type Backend struct {
	cfg config.SchedulerPluginsConfig
}

// New returns the backend.
func New(cfg config.SchedulerPluginsConfig) *Backend { return &Backend{cfg: cfg} }

// Name is scheduler-plugins-scheduler, the schedulerName of the
// scheduler-plugins install.
func (b *Backend) Name() string { return config.SchedulerBackendSchedulerPlugins }

// PreparePod hands the pod to the scheduler and labels it with its gang.
func (b *Backend) PreparePod(pod *corev1.Pod) {
	pod.Spec.SchedulerName = config.SchedulerBackendSchedulerPlugins
	if gang := pod.Labels[apicommon.LabelPodGang]; gang != "" {
		pod.Labels[PodGroupLabel] = gang
	}
}

// Types are the kinds the backend writes.
func (b *Backend) Types() []client.Object { return []client.Object{newPodGroup()} }

func newPodGroup() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(PodGroupGVK)
	return u
}

// ValidatePodCliqueSet rejects topology constraints: Coscheduling packs nothing.
func (b *Backend) ValidatePodCliqueSet(pcs *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	return translation.ForbidTopology(pcs, "scheduler backend scheduler-plugins-scheduler (Coscheduling) places no topology constraints")
}

// Sync writes the gang's PodGroup and reads the phase the scheduler-plugins
// controller reports on it.
func (b *Backend) Sync(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, _ *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, error) {
	if pg.Spec.TopologyConstraint != nil || len(pg.Spec.TopologyConstraintGroupConfigs) > 0 {
		return translation.Verdict{}, translation.Mappingf("PodGang %s has topology constraints; Coscheduling places none", pg.Name)
	}
	spec := map[string]any{"minMember": int64(translation.MinimumSet(pg))}
	if b.cfg.ScheduleTimeoutSeconds != nil {
		spec["scheduleTimeoutSeconds"] = int64(*b.cfg.ScheduleTimeoutSeconds)
	}
	desired := newPodGroup()
	desired.SetName(pg.Name)
	desired.SetNamespace(pg.Namespace)
	desired.SetLabels(translation.Labels(pg))
	desired.Object["spec"] = spec
	current := newPodGroup()
	err := translation.Ensure(ctx, c, pg, desired, current, func(d, cur *unstructured.Unstructured) bool {
		if equality.Semantic.DeepEqual(d.Object["spec"], cur.Object["spec"]) {
			return false
		}
		cur.Object["spec"] = d.Object["spec"]
		return true
	})
	if err != nil {
		return translation.Verdict{}, err
	}
	phase, _, _ := unstructured.NestedString(current.Object, "status", "phase")
	switch phase {
	case phaseRunning, phaseFinished:
		return translation.Verdict{Scheduled: true, Reason: "PodGroup" + phase, Message: fmt.Sprintf("PodGroup %s is %s", pg.Name, phase)}, nil
	case phaseFailed:
		return translation.Verdict{Reason: "PodGroupFailed", Message: fmt.Sprintf("PodGroup %s is Failed", pg.Name)}, nil
	case "":
		return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonSchedulingPending, Message: fmt.Sprintf("PodGroup %s has no phase yet", pg.Name)}, nil
	}
	return translation.Verdict{Reason: "PodGroup" + phase, Message: fmt.Sprintf("PodGroup %s is %s", pg.Name, phase)}, nil
}
