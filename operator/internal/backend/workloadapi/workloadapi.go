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

// Package workloadapi is the default-scheduler backend with gang scheduling:
// it hands each PodGang to stock kube-scheduler through the Kubernetes
// Workload API (scheduling.k8s.io/v1beta1, Kubernetes 1.37; apiversion.go is
// the one place naming the version). The objects are compiled by the
// upstream helper k8s.io/component-helpers' workloadbuilder. A PodGang
// becomes a Workload of the same name with one PodGroupTemplate per pod
// group, and one PodGroup per pod group named like its PodClique, whose
// gang.minCount is the pod group's minReplicas. Pods join their PodGroup
// through spec.schedulingGroup.podGroupName.
//
// kube-scheduler gang-schedules each PodGroup on its own: a PodGang of
// several pod groups is all-or-nothing per pod group, not across them (the
// Workload API expresses a gang of groups only with CompositePodGroups,
// v1alpha3 in 1.37). docs/scheduler-backends.md says so.
package workloadapi

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
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/config"
)

// ConditionPodGroupInitiallyScheduled is the PodGroup condition
// kube-scheduler sets once the group's minCount is placed.
const ConditionPodGroupInitiallyScheduled = "PodGroupInitiallyScheduled"

// The chart grants this rule only when the default-scheduler profile sets
// gangScheduling (hack/generate.sh, charts/grove/templates/operator-rbac.yaml).
//
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=workloads;podgroups,verbs=get;list;watch;create;update;delete

// Backend is the default-scheduler backend with gang scheduling.
type Backend struct {
	cfg config.DefaultSchedulerConfig
}

// New returns the backend.
func New(cfg config.DefaultSchedulerConfig) *Backend { return &Backend{cfg: cfg} }

// Name is default-scheduler, the schedulerName of stock kube-scheduler.
func (b *Backend) Name() string { return config.SchedulerBackendDefault }

// PreparePod hands the pod to kube-scheduler and joins it to the PodGroup of
// its PodClique.
func (b *Backend) PreparePod(pod *corev1.Pod) {
	pod.Spec.SchedulerName = config.SchedulerBackendDefault
	if pclq := pod.Labels[apicommon.LabelPodClique]; pclq != "" {
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(pclq)}
	}
}

// Types are the kinds the backend writes.
func (b *Backend) Types() []client.Object {
	return []client.Object{&workload{}, &podGroup{}}
}

// ValidatePodCliqueSet rejects what the Workload API cannot express: a gang of
// more than MaxPodGroupTemplates pod groups, preferred packing (the API has
// required topology only), required packing above a single pod group (each
// PodGroup is packed on its own), and any topology when the cluster's
// TopologyAwareWorkloadScheduling is not enabled in the backend config.
func (b *Backend) ValidatePodCliqueSet(pcs *grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	var errs field.ErrorList
	tmpl := &pcs.Spec.Template
	tp := field.NewPath("spec", "template")
	inGroup := map[string]bool{}
	base := 0
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		sg := &tmpl.PodCliqueScalingGroupConfigs[i]
		for _, c := range sg.CliqueNames {
			inGroup[c] = true
		}
		minAvailable := int(ptr.Deref(sg.MinAvailable, 1))
		base += minAvailable * len(sg.CliqueNames)
		if len(sg.CliqueNames) > MaxPodGroupTemplates {
			errs = append(errs, field.TooMany(tp.Child("podCliqueScalingGroups").Index(i).Child("cliqueNames"), len(sg.CliqueNames), MaxPodGroupTemplates))
		}
		errs = append(errs, b.validateTopology(sg.TopologyConstraint, len(sg.CliqueNames) > 1, tp.Child("podCliqueScalingGroups").Index(i).Child("topologyConstraint"))...)
	}
	for i := range tmpl.Cliques {
		if !inGroup[tmpl.Cliques[i].Name] {
			base++
		}
		errs = append(errs, b.validateTopology(tmpl.Cliques[i].TopologyConstraint, false, tp.Child("cliques").Index(i).Child("topologyConstraint"))...)
	}
	if base > MaxPodGroupTemplates {
		errs = append(errs, field.Invalid(tp.Child("cliques"), base, fmt.Sprintf(
			"a replica's base gang has %d pod groups (standalone cliques plus minAvailable replicas of each scaling group's cliques); the Workload API of scheduler backend default-scheduler allows at most %d",
			base, MaxPodGroupTemplates)))
	}
	errs = append(errs, b.validateTopology(tmpl.TopologyConstraint, base > 1, tp.Child("topologyConstraint"))...)
	return append(errs, oneRequiredDomain(tmpl, tp)...)
}

// oneRequiredDomain rejects a clique packed by more than one required
// domain: its own and that of its scaling group, or of the PodCliqueSet; a
// PodGroup takes one required key.
func oneRequiredDomain(tmpl *grovecorev1alpha1.PodCliqueSetTemplateSpec, tp *field.Path) field.ErrorList {
	required := func(tc *grovecorev1alpha1.TopologyConstraint) string {
		if tc == nil || tc.Pack == nil {
			return ""
		}
		return string(ptr.Deref(tc.Pack.Required, ""))
	}
	groupOf := map[string]string{}
	for _, sg := range tmpl.PodCliqueScalingGroupConfigs {
		for _, c := range sg.CliqueNames {
			groupOf[c] = required(sg.TopologyConstraint)
		}
	}
	var errs field.ErrorList
	for i := range tmpl.Cliques {
		var domains []string
		for _, d := range []string{required(tmpl.TopologyConstraint), groupOf[tmpl.Cliques[i].Name], required(tmpl.Cliques[i].TopologyConstraint)} {
			if d != "" && !slices.Contains(domains, d) {
				domains = append(domains, d)
			}
		}
		if len(domains) > 1 {
			errs = append(errs, field.Forbidden(tp.Child("cliques").Index(i).Child("topologyConstraint", "pack", "required"), fmt.Sprintf(
				"clique %s is packed by %d required domains (%s); the Workload API of scheduler backend default-scheduler packs a PodGroup by one key",
				tmpl.Cliques[i].Name, len(domains), strings.Join(domains, ", "))))
		}
	}
	return errs
}

func (b *Backend) validateTopology(tc *grovecorev1alpha1.TopologyConstraint, spansGroups bool, path *field.Path) field.ErrorList {
	if tc == nil || tc.Pack == nil {
		return nil
	}
	switch {
	case !b.cfg.TopologyAwareScheduling:
		return field.ErrorList{field.Forbidden(path, "scheduler backend default-scheduler places no topology constraints unless its config sets topologyAwareScheduling (Kubernetes feature gate TopologyAwareWorkloadScheduling)")}
	case tc.Pack.Preferred != nil:
		return field.ErrorList{field.Forbidden(path.Child("pack", "preferred"), "the Workload API of scheduler backend default-scheduler has no preferred placement; use required")}
	case spansGroups:
		return field.ErrorList{field.Forbidden(path.Child("pack", "required"), "the Workload API of scheduler backend default-scheduler packs each pod group (clique) on its own; set the constraint on the cliques")}
	}
	return nil
}

// Sync writes the gang's Workload and PodGroups and reads kube-scheduler's
// verdict from the PodGroups' PodGroupInitiallyScheduled conditions.
func (b *Backend) Sync(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, _ *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, error) {
	desired, desiredGroups, err := b.build(ctx, pg)
	if err != nil {
		return translation.Verdict{}, err
	}
	if err := b.ensureWorkload(ctx, c, pg, desired); err != nil {
		return translation.Verdict{}, err
	}
	groups := make([]*podGroup, 0, len(desiredGroups))
	for _, d := range desiredGroups {
		g, err := b.ensurePodGroup(ctx, c, pg, d)
		if err != nil {
			return translation.Verdict{}, err
		}
		groups = append(groups, g)
	}
	if err := b.deleteStalePodGroups(ctx, c, pg, desired.Spec.PodGroupTemplates); err != nil {
		return translation.Verdict{}, err
	}
	return verdict(groups), nil
}

// build compiles the gang's Workload and one PodGroup per pod group with
// the upstream workloadbuilder: each pod group is a leaf item compiled into
// its PodGroupTemplate (the builder makes a lone leaf the Workload's only
// template, while a root with children would become a composite template,
// which 1.37 serves only as v1alpha3), and the Workload holds them all.
func (b *Backend) build(ctx context.Context, pg *groveschedulerv1alpha1.PodGang) (*workload, []*podGroup, error) {
	root, err := b.gangTree(pg)
	if err != nil {
		return nil, nil, err
	}
	if len(root.Children) == 0 {
		return nil, nil, translation.Mappingf("PodGang %s has no pod groups", pg.Name)
	}
	opts := workloadbuilder.BuildOptions{
		Name:            pg.Name,
		Namespace:       pg.Namespace,
		Owner:           metav1.NewControllerRef(pg, groveschedulerv1alpha1.SchemeGroupVersion.WithKind("PodGang")),
		AllowedPolicies: []workloadbuilder.SchedulingPolicyOption{workloadbuilder.BasicPolicy, workloadbuilder.GangPolicy},
	}
	var w *workload
	groups := make([]*podGroup, 0, len(root.Children))
	for _, leaf := range root.Children {
		builder := newBuilder(leaf, opts)
		if errs := builder.Validate(ctx, workloadbuilder.ValidationInput{}); len(errs) > 0 {
			return nil, nil, translation.Mappingf("pod group %s: %s", leaf.Name, describe(errs))
		}
		one, err := builder.BuildWorkload()
		if err != nil {
			return nil, nil, translation.Mappingf("pod group %s: %v", leaf.Name, err)
		}
		g, err := builder.NewPodGroup(leaf.Name, leaf.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("materializing PodGroup %s: %w", leaf.Name, err)
		}
		g.Labels = translation.Labels(pg)
		groups = append(groups, g)
		if w == nil {
			w = one
			continue
		}
		w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, one.Spec.PodGroupTemplates...)
	}
	w.Labels = translation.Labels(pg)
	return w, groups, nil
}

// ensureWorkload creates the Workload or updates its templates. The set of
// template names is fixed once a Workload exists, so a gang whose pod groups
// changed gets a new Workload (its PodGroups, which reference templates by
// name, are recreated with it).
func (b *Backend) ensureWorkload(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, desired *workload) error {
	current := &workload{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(desired), current); err == nil && !sameTemplateNames(current.Spec.PodGroupTemplates, desired.Spec.PodGroupTemplates) {
		if err := c.Delete(ctx, current, client.Preconditions{UID: &current.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Workload %s whose pod groups changed: %w", current.Name, err)
		}
		if err := b.deleteStalePodGroups(ctx, c, pg, nil); err != nil {
			return err
		}
		return fmt.Errorf("workload %s had other pod groups; recreating it", current.Name)
	} else if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("getting Workload %s: %w", desired.Name, err)
	}
	return translation.Ensure(ctx, c, pg, desired, &workload{}, func(d, cur *workload) bool {
		if equality.Semantic.DeepEqual(d.Spec.PodGroupTemplates, cur.Spec.PodGroupTemplates) {
			return false
		}
		cur.Spec.PodGroupTemplates = d.Spec.PodGroupTemplates
		return true
	})
}

func sameTemplateNames(a, b []podGroupTemplate) bool {
	names := func(ts []podGroupTemplate) []string {
		out := make([]string, len(ts))
		for i := range ts {
			out[i] = ts[i].Name
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(names(a), names(b))
}

// ensurePodGroup creates the pod group's PodGroup or updates its minCount
// (the only field of it the API lets change: scaling a clique's
// minAvailable lands there).
func (b *Backend) ensurePodGroup(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, desired *podGroup) (*podGroup, error) {
	current := &podGroup{}
	err := translation.Ensure(ctx, c, pg, desired, current, func(d, cur *podGroup) bool {
		if equality.Semantic.DeepEqual(d.Spec.SchedulingPolicy, cur.Spec.SchedulingPolicy) {
			return false
		}
		cur.Spec.SchedulingPolicy = d.Spec.SchedulingPolicy
		return true
	})
	if err != nil {
		return nil, err
	}
	if current.Name == "" {
		// Just created: kube-scheduler has said nothing yet.
		return desired, nil
	}
	return current, nil
}

// deleteStalePodGroups deletes the gang's PodGroups no template names
// (all of them when templates is nil).
func (b *Backend) deleteStalePodGroups(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, templates []podGroupTemplate) error {
	list := &podGroupList{}
	if err := c.List(ctx, list, client.InNamespace(pg.Namespace), client.MatchingLabels{apicommon.LabelPodGang: pg.Name}); err != nil {
		return fmt.Errorf("listing PodGroups of PodGang %s: %w", pg.Name, err)
	}
	for i := range list.Items {
		g := &list.Items[i]
		if slices.ContainsFunc(templates, func(t podGroupTemplate) bool { return t.Name == g.Name }) || !metav1.IsControlledBy(g, pg) {
			continue
		}
		if err := c.Delete(ctx, g); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting PodGroup %s: %w", g.Name, err)
		}
	}
	return nil
}

// verdict: the gang is scheduled once every PodGroup is; otherwise the first
// group kube-scheduler found unschedulable says why.
func verdict(groups []*podGroup) translation.Verdict {
	waiting := []string{}
	for _, g := range groups {
		cond := meta.FindStatusCondition(g.Status.Conditions, ConditionPodGroupInitiallyScheduled)
		switch {
		case cond != nil && cond.Status == metav1.ConditionTrue:
			continue
		case cond != nil && cond.Status == metav1.ConditionFalse:
			return translation.Verdict{Reason: cond.Reason, Message: fmt.Sprintf("PodGroup %s: %s", g.Name, cond.Message)}
		default:
			waiting = append(waiting, g.Name)
		}
	}
	if len(waiting) > 0 {
		slices.Sort(waiting)
		return translation.Verdict{Reason: groveschedulerv1alpha1.PodGangReasonSchedulingPending, Message: "kube-scheduler has not placed PodGroups " + strings.Join(waiting, ", ")}
	}
	return translation.Verdict{Scheduled: true, Reason: "PodGroupsScheduled", Message: fmt.Sprintf("kube-scheduler placed all %d PodGroups", len(groups))}
}
