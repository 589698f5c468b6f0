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

// Package kai is the kai-scheduler backend: it hands each PodGang to the KAI
// scheduler as one scheduling.run.ai/v2alpha2 PodGroup named like the gang.
// Every pod group becomes a subGroup named like its PodClique whose minMember
// is the pod group's minReplicas; every topology constraint group config of
// the gang (a scaling-group replica inside a base gang) becomes a parent
// subGroup of the pod groups it names. The PodGroup's minMember is the sum of
// the minReplicas. Topology constraints keep their node label keys as KAI's
// requiredTopologyLevel and preferredTopologyLevel, in the KAI Topology the
// gang's ClusterTopologyBinding names for kai-scheduler; a key that Topology
// has no level for is a mapping error. The queue comes from the
// PodCliqueSet's kai.scheduler/queue label or annotation, else from the
// backend config. Pods join the PodGroup through KAI's pod-group-name
// annotation and their subGroup through the kai.scheduler/subgroup-name label.
//
// The PodGroup is written as unstructured content shaped by the small types
// below: KAI's API package does not build against the operator's
// controller-runtime, and its module requires a Kubernetes line of its own.
package kai

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/config"
)

const (
	// PodGroupAnnotation joins a pod to its PodGroup.
	PodGroupAnnotation = "pod-group-name"
	// SubGroupLabel joins a pod to its subGroup.
	SubGroupLabel = "kai.scheduler/subgroup-name"
	// DefaultQueue is the leaf queue KAI's quickstart creates.
	DefaultQueue = "default-queue"
	// conditionUnschedulableOnNodePool is the scheduling condition KAI sets on
	// a PodGroup it could not place.
	conditionUnschedulableOnNodePool = "UnschedulableOnNodePool"
)

// PodGroupGVK is the kind the backend writes.
var PodGroupGVK = schema.GroupVersionKind{Group: "scheduling.run.ai", Version: "v2alpha2", Kind: "PodGroup"}

// TopologyGVK is KAI's cluster topology, which PodGroups name and whose
// levels are node label keys.
var TopologyGVK = schema.GroupVersionKind{Group: "kai.scheduler", Version: "v1alpha1", Kind: "Topology"}

// ownedSpecFields are the spec fields Grove writes; KAI's own defaults of the
// others are left alone.
var ownedSpecFields = []string{"minMember", "queue", "priorityClassName", "topologyConstraint", "subGroups"}

// PodGroupSpec is the part of a KAI PodGroup's spec Grove writes, in the JSON
// form of KAI's CRD.
type PodGroupSpec struct {
	MinMember          int32               `json:"minMember,omitempty"`
	Queue              string              `json:"queue,omitempty"`
	PriorityClassName  string              `json:"priorityClassName,omitempty"`
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	SubGroups          []SubGroup          `json:"subGroups,omitempty"`
}

// SubGroup is one subGroup of a KAI PodGroup.
type SubGroup struct {
	Name               string              `json:"name"`
	MinMember          int32               `json:"minMember,omitempty"`
	Parent             *string             `json:"parent,omitempty"`
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// TopologyConstraint places pods within one domain of a KAI Topology; its
// levels are node label keys.
type TopologyConstraint struct {
	Topology               string `json:"topology,omitempty"`
	RequiredTopologyLevel  string `json:"requiredTopologyLevel,omitempty"`
	PreferredTopologyLevel string `json:"preferredTopologyLevel,omitempty"`
}

// podGroupStatus is what the backend reads of a KAI PodGroup's status.
type podGroupStatus struct {
	Phase                string                `json:"phase,omitempty"`
	Running              int32                 `json:"running,omitempty"`
	Succeeded            int32                 `json:"succeeded,omitempty"`
	SchedulingConditions []schedulingCondition `json:"schedulingConditions,omitempty"`
}

type schedulingCondition struct {
	Type               string        `json:"type,omitempty"`
	NodePool           string        `json:"nodePool,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	Message            string        `json:"message,omitempty"`
	Reasons            []explanation `json:"reasons,omitempty"`
	LastTransitionTime metav1.Time   `json:"lastTransitionTime,omitempty"`
	Status             string        `json:"status,omitempty"`
}

type explanation struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// The chart grants this rule only when the kai-scheduler profile is enabled.
//
// +kubebuilder:rbac:groups=scheduling.run.ai,resources=podgroups,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=kai.scheduler,resources=topologies,verbs=get

// Backend is the kai-scheduler backend.
type Backend struct {
	queue string
}

// New returns the backend.
func New(cfg config.KAIConfig) *Backend {
	q := cfg.DefaultQueue
	if q == "" {
		q = DefaultQueue
	}
	return &Backend{queue: q}
}

// Name is kai-scheduler, the KAI scheduler's schedulerName.
func (b *Backend) Name() string { return config.SchedulerBackendKAI }

// PreparePod hands the pod to KAI and names its PodGroup and subGroup.
func (b *Backend) PreparePod(pod *corev1.Pod) {
	pod.Spec.SchedulerName = config.SchedulerBackendKAI
	if gang := pod.Labels[apicommon.LabelPodGang]; gang != "" {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[PodGroupAnnotation] = gang
	}
	if pclq := pod.Labels[apicommon.LabelPodClique]; pclq != "" {
		pod.Labels[SubGroupLabel] = pclq
	}
}

// Types are the kinds the backend writes.
func (b *Backend) Types() []client.Object { return []client.Object{newPodGroup()} }

func newPodGroup() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(PodGroupGVK)
	return u
}

// ValidatePodCliqueSet rejects a queue label or annotation that is no KAI
// queue name. Every topology constraint Grove has maps to KAI: the set's to
// the PodGroup, a scaling group's to the parent subGroup of its replica, a
// clique's to its subGroup.
func (b *Backend) ValidatePodCliqueSet(pcs *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	var errs field.ErrorList
	for _, src := range []struct {
		values map[string]string
		path   *field.Path
	}{
		{pcs.Labels, field.NewPath("metadata", "labels")},
		{pcs.Annotations, field.NewPath("metadata", "annotations")},
	} {
		q, ok := src.values[apicommon.KAIQueue]
		if !ok {
			continue
		}
		for _, msg := range utilvalidation.IsDNS1123Subdomain(q) {
			errs = append(errs, field.Invalid(src.path.Key(apicommon.KAIQueue), q, msg))
		}
	}
	return errs
}

// Queue is the KAI queue of the PodCliqueSet's gangs: its kai.scheduler/queue
// label, else that annotation, else the backend's default.
func (b *Backend) Queue(pcs *grovecorev1alpha1.PodCliqueSet) string {
	if q := pcs.Labels[apicommon.KAIQueue]; q != "" {
		return q
	}
	if q := pcs.Annotations[apicommon.KAIQueue]; q != "" {
		return q
	}
	return b.queue
}

// Sync writes the gang's PodGroup and reads KAI's verdict from its status.
func (b *Backend) Sync(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, pcs *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, error) {
	topology, levels := "", []string(nil)
	if HasTopology(pg) {
		var err error
		if topology, levels, err = kaiTopology(ctx, c, pg); err != nil {
			return translation.Verdict{}, err
		}
	}
	spec, err := Translate(pg, b.Queue(pcs), topology)
	if err != nil {
		return translation.Verdict{}, err
	}
	if missing := MissingLevels(spec, levels); len(missing) > 0 {
		return translation.Verdict{}, translation.Mappingf("KAI Topology %s has no level %s (its levels: %s)",
			topology, strings.Join(missing, ", "), strings.Join(levels, ", "))
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	if err != nil {
		return translation.Verdict{}, fmt.Errorf("converting the PodGroup spec of PodGang %s: %w", pg.Name, err)
	}
	desired := newPodGroup()
	desired.SetName(pg.Name)
	desired.SetNamespace(pg.Namespace)
	desired.SetLabels(translation.Labels(pg))
	desired.Object["spec"] = content
	current := newPodGroup()
	err = translation.Ensure(ctx, c, pg, desired, current, func(d, cur *unstructured.Unstructured) bool {
		want, _, _ := unstructured.NestedMap(d.Object, "spec")
		have, _, _ := unstructured.NestedMap(cur.Object, "spec")
		if have == nil {
			have = map[string]any{}
		}
		changed := false
		for _, k := range ownedSpecFields {
			w, inWant := want[k]
			h, inHave := have[k]
			if inWant == inHave && equality.Semantic.DeepEqual(w, h) {
				continue
			}
			changed = true
			if inWant {
				have[k] = w
			} else {
				delete(have, k)
			}
		}
		if changed {
			cur.Object["spec"] = have
		}
		return changed
	})
	if err != nil {
		return translation.Verdict{}, err
	}
	status := podGroupStatus{}
	if raw, ok, _ := unstructured.NestedMap(current.Object, "status"); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
			return translation.Verdict{}, fmt.Errorf("reading the status of PodGroup %s: %w", pg.Name, err)
		}
	}
	return verdict(pg.Name, spec.MinMember, status), nil
}

// HasTopology reports whether the gang has any topology constraint.
func HasTopology(pg *groveschedulerv1alpha1.PodGang) bool {
	if constraint(pg.Spec.TopologyConstraint, "") != nil {
		return true
	}
	for _, g := range pg.Spec.PodGroups {
		if constraint(g.TopologyConstraint, "") != nil {
			return true
		}
	}
	for _, gc := range pg.Spec.TopologyConstraintGroupConfigs {
		if constraint(gc.TopologyConstraint, "") != nil {
			return true
		}
	}
	return false
}

// kaiTopology is the name of the KAI Topology the gang's
// ClusterTopologyBinding names for kai-scheduler, and that Topology's levels
// (node label keys, broadest first).
func kaiTopology(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang) (string, []string, error) {
	name := pg.Annotations[apicommon.AnnotationTopologyName]
	if name == "" {
		return "", nil, translation.Mappingf("PodGang %s has topology constraints but no %s annotation naming its ClusterTopologyBinding", pg.Name, apicommon.AnnotationTopologyName)
	}
	ctb := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, ctb); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil, translation.Mappingf("ClusterTopologyBinding %s of PodGang %s does not exist", name, pg.Name)
		}
		return "", nil, fmt.Errorf("getting ClusterTopologyBinding %s: %w", name, err)
	}
	ref := ""
	for _, sb := range ctb.Spec.SchedulerTopologyBindings {
		if sb.SchedulerName == config.SchedulerBackendKAI {
			ref = sb.TopologyReference
		}
	}
	if ref == "" {
		return "", nil, translation.Mappingf("ClusterTopologyBinding %s names no KAI Topology: set spec.schedulerTopologyBindings[] {schedulerName: %s, topologyReference: <KAI Topology name>}",
			name, config.SchedulerBackendKAI)
	}
	topo := &unstructured.Unstructured{}
	topo.SetGroupVersionKind(TopologyGVK)
	if err := c.Get(ctx, client.ObjectKey{Name: ref}, topo); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			return "", nil, translation.Mappingf("KAI Topology %s, named by ClusterTopologyBinding %s, does not exist", ref, name)
		case meta.IsNoMatchError(err):
			return "", nil, translation.Mappingf("the cluster serves no KAI Topology (%s), which ClusterTopologyBinding %s names", TopologyGVK.GroupVersion(), name)
		}
		return "", nil, fmt.Errorf("getting KAI Topology %s: %w", ref, err)
	}
	raw, _, _ := unstructured.NestedSlice(topo.Object, "spec", "levels")
	levels := make([]string, 0, len(raw))
	for _, l := range raw {
		if m, ok := l.(map[string]any); ok {
			if key, ok := m["nodeLabel"].(string); ok {
				levels = append(levels, key)
			}
		}
	}
	return ref, levels, nil
}

// MissingLevels lists the node label keys the spec's constraints use that
// are not levels of its KAI Topology, sorted.
func MissingLevels(spec PodGroupSpec, levels []string) []string {
	constraints := []*TopologyConstraint{spec.TopologyConstraint}
	for i := range spec.SubGroups {
		constraints = append(constraints, spec.SubGroups[i].TopologyConstraint)
	}
	missing := map[string]bool{}
	for _, tc := range constraints {
		if tc == nil {
			continue
		}
		for _, key := range []string{tc.RequiredTopologyLevel, tc.PreferredTopologyLevel} {
			if key != "" && !slices.Contains(levels, key) {
				missing[key] = true
			}
		}
	}
	out := make([]string, 0, len(missing))
	for key := range missing {
		out = append(out, key)
	}
	slices.Sort(out)
	return out
}

// Translate is the spec of the gang's KAI PodGroup: one subGroup per pod
// group, under a parent subGroup per topology constraint group config.
// topology names the KAI Topology every constraint refers to.
func Translate(pg *groveschedulerv1alpha1.PodGang, queue, topology string) (PodGroupSpec, error) {
	spec := PodGroupSpec{
		MinMember:          translation.MinimumSet(pg),
		Queue:              queue,
		PriorityClassName:  pg.Spec.PriorityClassName,
		TopologyConstraint: constraint(pg.Spec.TopologyConstraint, topology),
	}
	groups := make(map[string]bool, len(pg.Spec.PodGroups))
	for _, g := range pg.Spec.PodGroups {
		groups[g.Name] = true
	}
	parent := map[string]string{}
	for _, gc := range pg.Spec.TopologyConstraintGroupConfigs {
		if groups[gc.Name] {
			return PodGroupSpec{}, translation.Mappingf("PodGang %s: topology group %s has the name of a pod group; KAI subGroup names must be unique", pg.Name, gc.Name)
		}
		for _, name := range gc.PodGroupNames {
			if !groups[name] {
				return PodGroupSpec{}, translation.Mappingf("PodGang %s: topology group %s names pod group %s, which the gang does not have", pg.Name, gc.Name, name)
			}
			if other, ok := parent[name]; ok {
				return PodGroupSpec{}, translation.Mappingf("PodGang %s: pod group %s is in topology groups %s and %s; a KAI subGroup has one parent", pg.Name, name, other, gc.Name)
			}
			parent[name] = gc.Name
		}
		spec.SubGroups = append(spec.SubGroups, SubGroup{Name: gc.Name, TopologyConstraint: constraint(gc.TopologyConstraint, topology)})
	}
	for _, g := range pg.Spec.PodGroups {
		sg := SubGroup{Name: g.Name, MinMember: g.MinReplicas, TopologyConstraint: constraint(g.TopologyConstraint, topology)}
		if p, ok := parent[g.Name]; ok {
			sg.Parent = ptr.To(p)
		}
		spec.SubGroups = append(spec.SubGroups, sg)
	}
	return spec, nil
}

// constraint maps a PodGang constraint (node label keys) to KAI's, or nil
// when it packs nothing.
func constraint(tc *groveschedulerv1alpha1.TopologyConstraint, topology string) *TopologyConstraint {
	if tc == nil || tc.PackConstraint == nil {
		return nil
	}
	out := &TopologyConstraint{
		Topology:               topology,
		RequiredTopologyLevel:  ptr.Deref(tc.PackConstraint.Required, ""),
		PreferredTopologyLevel: ptr.Deref(tc.PackConstraint.Preferred, ""),
	}
	if out.RequiredTopologyLevel == "" && out.PreferredTopologyLevel == "" {
		return nil
	}
	return out
}

// verdict: the gang is scheduled once minMember of its pods run; until then
// KAI's latest UnschedulableOnNodePool condition says why it is not.
func verdict(name string, minMember int32, st podGroupStatus) translation.Verdict {
	if minMember > 0 && st.Running+st.Succeeded >= minMember {
		return translation.Verdict{Scheduled: true, Reason: "PodGroupRunning",
			Message: fmt.Sprintf("PodGroup %s has %d of minMember %d pods running or succeeded", name, st.Running+st.Succeeded, minMember)}
	}
	var latest *schedulingCondition
	for i := range st.SchedulingConditions {
		c := &st.SchedulingConditions[i]
		if c.Type != conditionUnschedulableOnNodePool || c.Status == string(corev1.ConditionFalse) {
			continue
		}
		if latest == nil || !c.LastTransitionTime.Before(&latest.LastTransitionTime) {
			latest = c
		}
	}
	if latest != nil {
		reason, msgs := latest.Reason, []string{}
		for _, r := range latest.Reasons {
			if reason == "" {
				reason = r.Reason
			}
			msgs = append(msgs, strings.TrimSpace(r.Reason+": "+r.Message))
		}
		if len(msgs) == 0 && latest.Message != "" {
			msgs = append(msgs, latest.Message)
		}
		if reason == "" {
			reason = "Unschedulable"
		}
		where := ""
		if latest.NodePool != "" {
			where = " on node pool " + latest.NodePool
		}
		return translation.Verdict{Reason: reason, Message: fmt.Sprintf("PodGroup %s is unschedulable%s: %s", name, where, strings.Join(msgs, "; "))}
	}
	if st.Phase != "" {
		return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonSchedulingPending, Message: fmt.Sprintf("PodGroup %s is %s", name, st.Phase)}
	}
	return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonSchedulingPending, Message: fmt.Sprintf("KAI has not placed PodGroup %s yet", name)}
}
