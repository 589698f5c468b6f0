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

// Package volcano is the volcano backend: it hands each PodGang to the
// Volcano scheduler as one scheduling.volcano.sh/v1beta1 PodGroup named like
// the gang. minMember is the sum of the pod groups' minReplicas and
// minTaskMember holds each pod group's own minimum, keyed by the PodClique
// name that pods carry as their volcano.sh/task-spec annotation, so Volcano
// keeps Grove's per-clique minimums. Pods join the PodGroup through the
// scheduling.k8s.io/group-name annotation. The queue comes from the
// PodCliqueSet's scheduling.grove.io/volcano-queue annotation, else from the
// backend config.
package volcano

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	volcanov1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/config"
)

const (
	// GroupNameAnnotation joins a pod to its PodGroup.
	GroupNameAnnotation = volcanov1beta1.KubeGroupNameAnnotationKey
	// TaskSpecAnnotation names a pod's task, the key of minTaskMember.
	TaskSpecAnnotation = "volcano.sh/task-spec"
	// DefaultQueue is Volcano's own default queue.
	DefaultQueue = "default"
)

// The chart grants this rule only when the volcano profile is enabled.
//
// +kubebuilder:rbac:groups=scheduling.volcano.sh,resources=podgroups,verbs=get;list;watch;create;update;delete

// Backend is the volcano backend.
type Backend struct {
	queue string
}

// New returns the backend.
func New(cfg config.VolcanoConfig) *Backend {
	q := cfg.DefaultQueue
	if q == "" {
		q = DefaultQueue
	}
	return &Backend{queue: q}
}

// Name is volcano, the Volcano scheduler's schedulerName.
func (b *Backend) Name() string { return config.SchedulerBackendVolcano }

// PreparePod hands the pod to Volcano and names its PodGroup and task.
func (b *Backend) PreparePod(pod *corev1.Pod) {
	pod.Spec.SchedulerName = config.SchedulerBackendVolcano
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if gang := pod.Labels[apicommon.LabelPodGang]; gang != "" {
		pod.Annotations[GroupNameAnnotation] = gang
	}
	if pclq := pod.Labels[apicommon.LabelPodClique]; pclq != "" {
		pod.Annotations[TaskSpecAnnotation] = pclq
	}
}

// Types are the kinds the backend writes.
func (b *Backend) Types() []client.Object { return []client.Object{&volcanov1beta1.PodGroup{}} }

// ValidatePodCliqueSet rejects topology constraints (not mapped to Volcano's
// HyperNodes yet) and a queue annotation that is no valid queue name.
func (b *Backend) ValidatePodCliqueSet(pcs *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	errs := translation.ForbidTopology(pcs, "scheduler backend volcano does not map topology constraints to Volcano network topologies yet")
	if q, ok := pcs.Annotations[apicommon.AnnotationVolcanoQueue]; ok {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(q) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(apicommon.AnnotationVolcanoQueue), q, msg))
		}
	}
	return errs
}

// Sync writes the gang's PodGroup and reads Volcano's verdict from its phase
// and conditions.
func (b *Backend) Sync(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, pcs *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, error) {
	if pg.Spec.TopologyConstraint != nil || len(pg.Spec.TopologyConstraintGroupConfigs) > 0 {
		return translation.Verdict{}, translation.Mappingf("PodGang %s has topology constraints; the volcano backend maps none", pg.Name)
	}
	queue := b.queue
	if q := pcs.Annotations[apicommon.AnnotationVolcanoQueue]; q != "" {
		queue = q
	}
	minTask := make(map[string]int32, len(pg.Spec.PodGroups))
	for _, g := range pg.Spec.PodGroups {
		minTask[g.Name] = g.MinReplicas
	}
	desired := &volcanov1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: pg.Name, Namespace: pg.Namespace, Labels: translation.Labels(pg)},
		Spec: volcanov1beta1.PodGroupSpec{
			MinMember:         translation.MinimumSet(pg),
			MinTaskMember:     minTask,
			Queue:             queue,
			PriorityClassName: pg.Spec.PriorityClassName,
		},
	}
	current := &volcanov1beta1.PodGroup{}
	err := translation.Ensure(ctx, c, pg, desired, current, func(d, cur *volcanov1beta1.PodGroup) bool {
		want := cur.Spec.DeepCopy()
		want.MinMember, want.MinTaskMember, want.Queue, want.PriorityClassName = d.Spec.MinMember, d.Spec.MinTaskMember, d.Spec.Queue, d.Spec.PriorityClassName
		if equality.Semantic.DeepEqual(*want, cur.Spec) {
			return false
		}
		cur.Spec = *want
		return true
	})
	if err != nil {
		return translation.Verdict{}, err
	}
	return verdict(pg.Name, current), nil
}

func verdict(name string, g *volcanov1beta1.PodGroup) translation.Verdict {
	switch g.Status.Phase {
	case volcanov1beta1.PodGroupRunning, volcanov1beta1.PodGroupCompleted:
		return translation.Verdict{Scheduled: true, Reason: "PodGroup" + string(g.Status.Phase), Message: fmt.Sprintf("PodGroup %s is %s", name, g.Status.Phase)}
	}
	for _, c := range g.Status.Conditions {
		if c.Type == volcanov1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
			reason := c.Reason
			if reason == "" {
				reason = "Unschedulable"
			}
			return translation.Verdict{Reason: reason, Message: fmt.Sprintf("PodGroup %s: %s", name, c.Message)}
		}
	}
	if g.Status.Phase == "" {
		return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonSchedulingPending, Message: fmt.Sprintf("PodGroup %s has no phase yet", name)}
	}
	return translation.Verdict{Reason: "PodGroup" + string(g.Status.Phase), Message: fmt.Sprintf("PodGroup %s is %s", name, g.Status.Phase)}
}
