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

// Package podgang manages the PodGangs of a PodCliqueSet, the contract with
// the gang scheduler. Per replica i there is a base PodGang <pcs>-<i> with
// every standalone clique and the scaling-group replicas below minAvailable,
// and a scaled PodGang <pcsg>-<j-minAvailable> for every scaling-group
// replica j at or above minAvailable; a scaled PodGang names its replica's
// base PodGang in spec.basePodGang, with the PodCliqueSet-level topology
// constraint, so the scheduler can keep the replica in one domain. Each pod group stands for one
// PodClique; this component writes the groups (name, minReplicas, topology)
// but not their pod references, which each PodClique's controller writes
// for its own group as its pods come and go. A PodClique or scaling group
// scaled to zero has no groups, so the rest of its gang keeps running and new
// pods still schedule; scaled up again, its groups come back. The operator
// writes only the Initialized condition (and the phase while it is empty);
// the scheduler owns the rest of the status.
package podgang

// PodGangs are created, patched (pod references, scheduling gates) and deleted;
// their status carries the Initialized condition.
//
// +kubebuilder:rbac:groups=scheduler.grove.io,resources=podgangs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=scheduler.grove.io,resources=podgangs/status,verbs=patch
// +kubebuilder:rbac:groups=grove.io,resources=clustertopologybindings,verbs=get;list;watch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	groveschedulerac "github.com/grove-project/grove/api/client/applyconfiguration/scheduler/v1alpha1"
	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/component"
	"github.com/grove-project/grove/operator/internal/desired"
	"github.com/grove-project/grove/operator/internal/groveerr"
	"github.com/grove-project/grove/operator/internal/hash"
	"github.com/grove-project/grove/operator/internal/metrics"
	"github.com/grove-project/grove/operator/internal/podganginit"
	"github.com/grove-project/grove/operator/internal/topology"
)

const kind = "PodGang"

type operator struct {
	d          childsync.Deps
	backends   *backend.Registry
	tasEnabled bool
}

// New returns the PodGang component operator. tasEnabled says whether
// topology constraints are translated into the PodGangs.
func New(d childsync.Deps, backends *backend.Registry, tasEnabled bool) component.Operator[component.SetWork] {
	return operator{d: d, backends: backends, tasEnabled: tasEnabled}
}

func (operator) Kind() string { return kind }

// member is one pod group of a PodGang being built.
type member struct {
	pclqName string
	tmpl     *grovecorev1alpha1.PodCliqueTemplateSpec
}

// gang is a PodGang being built.
type gang struct {
	name         string
	replica      int32
	members      []member
	constraint   *grovecorev1alpha1.TopologyConstraint
	groupConfigs []groupConfig
	// base is set on a scaled gang: the base PodGang of its replica, with
	// which it shares the PodCliqueSet-level constraint.
	base *baseRef
}

type baseRef struct {
	name       string
	constraint *grovecorev1alpha1.TopologyConstraint
}

type groupConfig struct {
	name       string
	pclqs      []string
	constraint *grovecorev1alpha1.TopologyConstraint
}

// state is what one sync reads from the cache.
type state struct {
	pclqs    map[string]*grovecorev1alpha1.PodClique
	pcsgs    map[string]*grovecorev1alpha1.PodCliqueScalingGroup
	topology topology.Resolution
	// generation is the set's generation hash, the revision the PodCliques
	// created now are labelled with.
	generation string
}

// Sync deletes, in the set-level pass, the PodGangs no longer expected,
// counts those that wait for their pods and reports the wanted names
// others' objects hold; otherwise it creates or applies the PodGangs of the
// work's replicas, then sets their Initialized condition.
func (o operator) Sync(ctx context.Context, _ logr.Logger, w component.SetWork) error {
	pcs := w.PCS
	// A backend that is not enabled fails every replica's pass: the
	// set-level pass reports it in the status too.
	schedulerName, err := o.schedulerName(pcs)
	if err != nil {
		return err
	}
	st, err := o.read(ctx, pcs, w.Replica)
	if err != nil {
		return err
	}
	if w.IsSetLevel() {
		gangs := expectedGangs(pcs, st, 0, pcs.Spec.Replicas)
		keep := make(map[string]bool, len(gangs))
		for _, g := range gangs {
			keep[g.name] = true
		}
		if err := o.deleteExcept(ctx, pcs, keep); err != nil {
			return err
		}
		if err := o.countPending(ctx, pcs); err != nil {
			return err
		}
		return childsync.NotOwnedAmong(ctx, o.d, pcs, func() client.Object { return &groveschedulerv1alpha1.PodGang{} }, keep)
	}
	hashes, err := hash.Of(pcs)
	if err != nil {
		return groveerr.Wrap(err, "ERR_CREATE_OR_PATCH_PODGANG", groveerr.OperationSync, "hashing the clique templates")
	}
	st.generation = hashes.Generation
	var gangs []*gang
	for _, i := range w.Replicas() {
		gangs = append(gangs, expectedGangs(pcs, st, i, i+1)...)
	}
	report := o.d.NewReport(pcs, kind)
	defer report.Emit()
	return childsync.Parallel(len(gangs), childsync.DefaultParallelism, func(i int) error {
		return o.syncGang(ctx, pcs, st, gangs[i], schedulerName, report)
	})
}

// countPending sets the number of the set's PodGangs that wait for their
// pods (Initialized not True).
func (o operator) countPending(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet) error {
	list := &groveschedulerv1alpha1.PodGangList{}
	// Read only: listed without copies of the cached objects.
	if err := o.d.Client.List(ctx, list, childsync.ReadChildren(pcs, apicommon.LabelComponentPodGang)...); err != nil {
		return groveerr.Wrap(err, "ERR_LIST_PODGANGS", groveerr.OperationSync, "listing PodGangs")
	}
	pending := 0
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp == nil && !podganginit.IsTrue(&list.Items[i]) {
			pending++
		}
	}
	metrics.PodGangsPending.WithLabelValues(pcs.Namespace, pcs.Name).Set(float64(pending))
	return nil
}

// read reads the set's PodCliques and scaling groups (of one replica unless
// replica is component.SetLevel or AllReplicas) and the topology translation.
func (o operator) read(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, replica int32) (*state, error) {
	st := &state{
		pclqs: map[string]*grovecorev1alpha1.PodClique{},
		pcsgs: map[string]*grovecorev1alpha1.PodCliqueScalingGroup{},
	}
	children := childsync.ReadChildren(pcs, "")
	if replica >= 0 {
		sel := apicommon.DefaultLabels(pcs.Name)
		sel[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(replica)
		children = append(children, client.MatchingLabels(sel))
	}
	pclqs := &grovecorev1alpha1.PodCliqueList{}
	// Read only: listed without copies of the cached objects.
	if err := o.d.Client.List(ctx, pclqs, children...); err != nil {
		return nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUE", groveerr.OperationSync, "listing PodCliques")
	}
	for i := range pclqs.Items {
		st.pclqs[pclqs.Items[i].Name] = &pclqs.Items[i]
	}
	pcsgs := &grovecorev1alpha1.PodCliqueScalingGroupList{}
	if err := o.d.Client.List(ctx, pcsgs, children...); err != nil {
		return nil, groveerr.Wrap(err, "ERR_LIST_PODCLIQUESCALINGGROUP", groveerr.OperationSync, "listing PodCliqueScalingGroups")
	}
	for i := range pcsgs.Items {
		st.pcsgs[pcsgs.Items[i].Name] = &pcsgs.Items[i]
	}
	t, err := topology.Resolve(ctx, o.d.Client, pcs, o.tasEnabled)
	if err != nil {
		return nil, err
	}
	st.topology = t
	return st, nil
}

// expectedGangs lists the PodGangs replicas [first, end) of the PodCliqueSet
// should have, in replica order.
func expectedGangs(pcs *grovecorev1alpha1.PodCliqueSet, st *state, first, end int32) []*gang {
	tmpl := &pcs.Spec.Template
	var out []*gang
	for i := first; i < end; i++ {
		base := &gang{name: apicommon.BasePodGangName(pcs.Name, i), replica: i, constraint: tmpl.TopologyConstraint}
		for _, c := range desired.StandaloneCliques(pcs) {
			name := apicommon.PodCliqueName(pcs.Name, i, c.Name)
			if scaledToZero(st, name) {
				continue
			}
			base.members = append(base.members, member{pclqName: name, tmpl: c})
		}
		var scaled []*gang
		for k := range tmpl.PodCliqueScalingGroupConfigs {
			cfg := &tmpl.PodCliqueScalingGroupConfigs[k]
			pcsgName := apicommon.PodCliqueScalingGroupName(pcs.Name, i, cfg.Name)
			minAvailable := desired.ScalingGroupMinAvailable(cfg)
			replicas := desired.ScalingGroupReplicas(cfg)
			if live, ok := st.pcsgs[pcsgName]; ok {
				replicas = live.Spec.Replicas
			}
			if replicas == 0 {
				// A scaling group scaled to zero leaves the gang.
				continue
			}
			for j := int32(0); j < max(minAvailable, replicas); j++ {
				var members []member
				var names []string
				for _, cn := range cfg.CliqueNames {
					if c := desired.CliqueTemplate(pcs, cn); c != nil {
						n := apicommon.ScalingGroupPodCliqueName(pcsgName, j, cn)
						members = append(members, member{pclqName: n, tmpl: c})
						names = append(names, n)
					}
				}
				if j < minAvailable {
					base.members = append(base.members, members...)
					if cfg.TopologyConstraint != nil {
						base.groupConfigs = append(base.groupConfigs, groupConfig{
							name: apicommon.TopologyConstraintGroupConfigName(pcsgName, j), pclqs: names, constraint: cfg.TopologyConstraint,
						})
					}
					continue
				}
				constraint := cfg.TopologyConstraint
				if constraint == nil {
					constraint = tmpl.TopologyConstraint
				}
				scaled = append(scaled, &gang{
					name: apicommon.ScaledPodGangName(pcsgName, j, minAvailable), replica: i, members: members, constraint: constraint,
					base: &baseRef{name: base.name, constraint: tmpl.TopologyConstraint},
				})
			}
		}
		out = append(out, base)
		out = append(out, scaled...)
	}
	return out
}

// syncGang creates or applies one PodGang and writes its Initialized
// condition.
func (o operator) syncGang(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, st *state, g *gang, schedulerName string, report *childsync.Report) error {
	name := client.ObjectKey{Namespace: pcs.Namespace, Name: g.name}
	if err := o.dropGroups(ctx, name, g); err != nil {
		return groveerr.Wrapf(err, "ERR_CREATE_OR_PATCH_PODGANG", groveerr.OperationSync, "removing groups from PodGang %s", g.name)
	}
	live := &groveschedulerv1alpha1.PodGang{}
	res, err := childsync.Apply(ctx, o.d, pcs, childsync.Child{Key: name, Live: live,
		Build: func() (childsync.ApplyConfiguration, error) {
			want, err := o.build(pcs, st, g, schedulerName)
			if err != nil {
				return nil, err
			}
			return applyConfiguration(want)
		}})
	report.Applied(live, res, err)
	if err != nil {
		return groveerr.Wrapf(err, "ERR_CREATE_OR_PATCH_PODGANG", groveerr.OperationSync, "creating or applying PodGang %s", g.name)
	}
	if live.UID == "" {
		// Created concurrently and not in the cache yet; its watch event brings the next sync.
		return nil
	}
	return o.syncInitialized(ctx, live, allPodsReferenced(st, live))
}

// applyConfiguration is the apply configuration of want without the groups'
// pod references.
func applyConfiguration(want *groveschedulerv1alpha1.PodGang) (*groveschedulerac.PodGangApplyConfiguration, error) {
	raw, err := json.Marshal(want)
	if err != nil {
		return nil, err
	}
	ac := &groveschedulerac.PodGangApplyConfiguration{}
	if err := json.Unmarshal(raw, ac); err != nil {
		return nil, fmt.Errorf("building the apply configuration of PodGang %s: %w", want.Name, err)
	}
	ac.WithKind(kind).WithAPIVersion(groveschedulerv1alpha1.SchemeGroupVersion.String())
	ac.Status = nil
	if ac.Spec != nil {
		for i := range ac.Spec.PodGroups {
			ac.Spec.PodGroups[i].PodReferences = nil
		}
	}
	return ac, nil
}

// dropGroups removes from the live PodGang the groups the gang no longer has
// (a PodClique or scaling group scaled to zero): each group is one member
// PodClique. An apply cannot: the pod references another writer owns would
// keep a group, without the minReplicas the schema requires. Each removal is
// pinned to the group's name, so a list that changed meanwhile fails the
// patch and the sync retries.
func (o operator) dropGroups(ctx context.Context, key client.ObjectKey, g *gang) error {
	live := &groveschedulerv1alpha1.PodGang{}
	if err := o.d.Client.Get(ctx, key, live, client.UnsafeDisableDeepCopy); err != nil { // read only
		return client.IgnoreNotFound(err)
	}
	member := func(name string) bool {
		return slices.ContainsFunc(g.members, func(m member) bool { return m.pclqName == name })
	}
	var ops []map[string]any
	for i := len(live.Spec.PodGroups) - 1; i >= 0; i-- {
		if name := live.Spec.PodGroups[i].Name; !member(name) {
			path := fmt.Sprintf("/spec/podgroups/%d", i)
			ops = append(ops, map[string]any{"op": "test", "path": path + "/name", "value": name}, map[string]any{"op": "remove", "path": path})
		}
	}
	if len(ops) == 0 {
		return nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	return client.IgnoreNotFound(o.d.Client.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)))
}

// allPodsReferenced reports whether every PodClique of the gang exists and
// its group references at least spec.replicas pods. pg was just created or
// patched from the gang, so its groups are the gang's PodCliques.
func allPodsReferenced(st *state, pg *groveschedulerv1alpha1.PodGang) bool {
	return podganginit.Complete(pg, func(name string) (int32, bool) {
		pclq, ok := st.pclqs[name]
		if !ok || pclq.DeletionTimestamp != nil {
			return 0, false
		}
		return pclq.Spec.Replicas, true
	})
}

// syncInitialized writes the Initialized condition when it is missing or
// changes. PodCliques write their references and grove-scheduler its status
// into the same object, so a conflict is expected: the cached PodGang is
// older than the stored one. The write is then left to the pass that the
// newer PodGang's update queues for its replica, instead of being retried on
// a cache that may not have caught up yet.
func (o operator) syncInitialized(ctx context.Context, pg *groveschedulerv1alpha1.PodGang, complete bool) error {
	if _, err := podganginit.Write(ctx, o.d.Client, pg, complete); err != nil && !apierrors.IsConflict(err) {
		return groveerr.Wrapf(err, "ERR_UPDATE_PODGANG_STATUS", groveerr.OperationSync, "setting Initialized on PodGang %s", pg.Name)
	}
	return nil
}

func (o operator) build(pcs *grovecorev1alpha1.PodCliqueSet, st *state, g *gang, schedulerName string) (*groveschedulerv1alpha1.PodGang, error) {
	labels := map[string]string{}
	for k, v := range pcs.Labels {
		if !strings.HasPrefix(k, "grove.io/") {
			labels[k] = v
		}
	}
	labels = childsync.MergeLabels(labels, childsync.Labels(pcs.Name, g.name, apicommon.LabelComponentPodGang))
	labels[apicommon.LabelSchedulerName] = schedulerName
	labels[apicommon.LabelPodCliqueSetReplicaIndex] = desired.ReplicaIndexLabel(g.replica)
	if rev := revision(st, g); rev != "" {
		labels[apicommon.LabelPodCliqueSetGenerationHash] = rev
	}
	annotations := map[string]string{}
	for k, v := range pcs.Annotations {
		if !strings.HasPrefix(k, "grove.io/") && k != "kubectl.kubernetes.io/last-applied-configuration" {
			annotations[k] = v
		}
	}
	spec := groveschedulerv1alpha1.PodGangSpec{
		PodGroups:         make([]groveschedulerv1alpha1.PodGroup, 0, len(g.members)),
		PriorityClassName: pcs.Spec.Template.PriorityClassName,
	}
	translated := false
	tr := func(tc *grovecorev1alpha1.TopologyConstraint) *groveschedulerv1alpha1.TopologyConstraint {
		out := st.topology.Translate(tc)
		if out != nil {
			translated = true
		}
		return out
	}
	spec.TopologyConstraint = tr(g.constraint)
	for _, m := range g.members {
		// References start empty: the group's PodClique writes them.
		spec.PodGroups = append(spec.PodGroups, groveschedulerv1alpha1.PodGroup{
			Name: m.pclqName, PodReferences: []groveschedulerv1alpha1.NamespacedName{},
			MinReplicas:        desired.CliqueMinAvailable(&m.tmpl.Spec),
			TopologyConstraint: tr(m.tmpl.TopologyConstraint),
		})
	}
	for _, gc := range g.groupConfigs {
		if c := tr(gc.constraint); c != nil {
			spec.TopologyConstraintGroupConfigs = append(spec.TopologyConstraintGroupConfigs, groveschedulerv1alpha1.TopologyConstraintGroupConfig{
				Name: gc.name, PodGroupNames: gc.pclqs, TopologyConstraint: c,
			})
		}
	}
	if g.base != nil {
		spec.BasePodGang = &groveschedulerv1alpha1.BasePodGangReference{Name: g.base.name, TopologyConstraint: tr(g.base.constraint)}
	}
	if translated {
		annotations[apicommon.AnnotationTopologyName] = st.topology.BindingName()
	}
	pg := &groveschedulerv1alpha1.PodGang{
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: pcs.Namespace, Labels: labels, Annotations: annotations},
		Spec:       spec,
	}
	if err := controllerutil.SetControllerReference(pcs, pg, o.d.Scheme); err != nil {
		return nil, groveerr.Wrap(err, "ERR_CREATE_OR_PATCH_PODGANG", groveerr.OperationSync, "setting owner of PodGang "+g.name)
	}
	return pg, nil
}

// revision is the PodCliqueSet generation hash the gang's PodCliques share
// (update.Revision): empty while they disagree, which a RollingRecreate
// update allows and a Coherent one never does. While none of them exists
// (a new replica, whose PodCliques the same pass creates and the cache does
// not show yet; a gang Coherent replaces) it is the set's: the PodCliques
// are created with it. Without that a new PodGang was applied a second time,
// to add the label, once the cache showed its PodCliques: 279 applies more
// in a 500-gang make bench-e2e run.
func revision(st *state, g *gang) string {
	rev, alive := "", false
	for _, m := range g.members {
		p, ok := st.pclqs[m.pclqName]
		if !ok || p.DeletionTimestamp != nil {
			continue
		}
		alive = true
		h := p.Labels[apicommon.LabelPodCliqueSetGenerationHash]
		if h == "" || (rev != "" && h != rev) {
			return ""
		}
		rev = h
	}
	if !alive {
		return st.generation
	}
	return rev
}

// schedulerName is the backend handling the PodCliqueSet's pods: the one
// named by the first clique's podSpec.schedulerName (all cliques must agree).
func (o operator) schedulerName(pcs *grovecorev1alpha1.PodCliqueSet) (string, error) {
	name := ""
	if len(pcs.Spec.Template.Cliques) > 0 {
		name = pcs.Spec.Template.Cliques[0].Spec.PodSpec.SchedulerName
	}
	b, err := o.backends.ForSchedulerName(name)
	if err != nil {
		return "", groveerr.Wrap(err, "ERR_SCHEDULER_BACKEND", groveerr.OperationSync, "resolving the scheduler backend")
	}
	return b.Name(), nil
}

func (o operator) deleteExcept(ctx context.Context, pcs *grovecorev1alpha1.PodCliqueSet, keep map[string]bool) error {
	return childsync.DeleteExcept(ctx, o.d, pcs, childsync.Excess{
		List: &groveschedulerv1alpha1.PodGangList{}, Set: pcs.Name, Selector: childsync.Selector(pcs.Name, apicommon.LabelComponentPodGang), Kind: kind, ListCode: "ERR_LIST_PODGANGS", DeleteCode: "ERR_DELETE_PODGANG",
	}, keep)
}
