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

package cluster

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Invariant names one property Grove keeps for a PodCliqueSet.
type Invariant string

// The invariants a quiet cluster must show.
const (
	// Structure: exactly the PodCliques, scaling groups, PodGangs, headless
	// Services, HPAs and grove-initc access objects the spec asks for.
	Structure Invariant = "structure"
	// PodCount: every PodClique has exactly spec.replicas live pods, each
	// controlled by it.
	PodCount Invariant = "pod-count"
	// PodIndex: the pod indices of a PodClique are unique and exactly 0..n-1.
	PodIndex Invariant = "pod-index"
	// Hostname: every pod's hostname is <podclique>-<index>, unique, in the
	// headless Service of its PodCliqueSet replica.
	Hostname Invariant = "hostname"
	// GangAllOrNothing: in every PodGang either every pod group has at least
	// minReplicas pods bound, or no pod is bound.
	GangAllOrNothing Invariant = "gang-all-or-nothing"
	// GangReferences: every PodGang has one group per member PodClique that
	// references exactly the live pods labelled with the PodGang.
	GangReferences Invariant = "gang-references"
	// Running: every pod is bound, Running and ungated; none is terminating.
	Running Invariant = "running"
	// Updated: every pod runs its PodClique's current template (pod-template
	// hash, and the expected image); the update is reported complete.
	Updated Invariant = "updated"
	// Status: status is current (observedGeneration), lastErrors is empty
	// and the counts and conditions say everything is scheduled and available.
	Status Invariant = "status"
	// Orphans: nothing part of a deleted PodCliqueSet is left.
	Orphans Invariant = "orphans"
	// Recovered: every component is healthy again and none but the killed
	// one was restarted or crashed.
	Recovered Invariant = "components-recover"
	// IndexHandedOutOnce: no two pods of a PodClique ever held the same pod
	// index at the same time (checked over every pod seen during a round).
	IndexHandedOutOnce Invariant = "index-handed-out-once"
)

// Violation is one broken invariant.
type Violation struct {
	Invariant Invariant
	// Object is kind/name of the object the violation is about.
	Object string
	Detail string
}

func (v Violation) String() string {
	return fmt.Sprintf("[%s] %s: %s", v.Invariant, v.Object, v.Detail)
}

// Violations collects violations in the order found.
type Violations []Violation

func (vs *Violations) add(inv Invariant, object, format string, args ...any) {
	*vs = append(*vs, Violation{Invariant: inv, Object: object, Detail: fmt.Sprintf(format, args...)})
}

// String lists the violations one per line.
func (vs Violations) String() string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.String()
	}
	return strings.Join(lines, "\n")
}

// Invariants returns the distinct invariants violated, sorted.
func (vs Violations) Invariants() []Invariant {
	set := map[Invariant]bool{}
	for _, v := range vs {
		set[v.Invariant] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Expectations says what CheckSettled expects beyond the invariants.
type Expectations struct {
	// Image, when set, is the image the first container of every PodClique's
	// pod template, and of every pod, must have (the PodCliqueSet's template).
	Image string
}

// expected is the layout the PodCliqueSet's spec asks for.
type expected struct {
	podCliques, scalingGroups, services, hpas map[string]bool
	// gangs maps each PodGang to the names of its member PodCliques.
	gangs map[string]map[string]bool
}

// expectedLayout derives the object names from the PodCliqueSet's spec; a
// scaling group's replicas come from the live PodCliqueScalingGroup when it
// exists (it may have been scaled on its own).
func expectedLayout(s *Snapshot) expected {
	pcs := s.PCS
	e := expected{podCliques: map[string]bool{}, scalingGroups: map[string]bool{}, services: map[string]bool{},
		hpas: map[string]bool{}, gangs: map[string]map[string]bool{}}
	liveGroupReplicas := map[string]int32{}
	for _, g := range s.ScalingGroups {
		liveGroupReplicas[g.Name] = g.Spec.Replicas
	}
	inGroup := map[string]bool{}
	for _, cfg := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, cn := range cfg.CliqueNames {
			inGroup[cn] = true
		}
	}
	for i := int32(0); i < pcs.Spec.Replicas; i++ {
		base := apicommon.BasePodGangName(pcs.Name, i)
		e.gangs[base] = map[string]bool{}
		e.services[apicommon.HeadlessServiceName(pcs.Name, i)] = true
		for _, c := range pcs.Spec.Template.Cliques {
			if inGroup[c.Name] {
				continue
			}
			name := apicommon.PodCliqueName(pcs.Name, i, c.Name)
			e.podCliques[name] = true
			e.gangs[base][name] = true
			if c.Spec.AutoScalingConfig != nil {
				e.hpas[apicommon.HorizontalPodAutoscalerName(name)] = true
			}
		}
		for _, cfg := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
			pcsgName := apicommon.PodCliqueScalingGroupName(pcs.Name, i, cfg.Name)
			e.scalingGroups[pcsgName] = true
			if cfg.ScaleConfig != nil {
				e.hpas[apicommon.HorizontalPodAutoscalerName(pcsgName)] = true
			}
			replicas, minAvailable := int32(1), int32(1)
			if cfg.Replicas != nil {
				replicas = *cfg.Replicas
			}
			if live, ok := liveGroupReplicas[pcsgName]; ok {
				replicas = live
			}
			if cfg.MinAvailable != nil {
				minAvailable = *cfg.MinAvailable
			}
			for j := int32(0); j < max(replicas, minAvailable); j++ {
				gang := base
				if j >= minAvailable {
					gang = apicommon.ScaledPodGangName(pcsgName, j, minAvailable)
				}
				if e.gangs[gang] == nil {
					e.gangs[gang] = map[string]bool{}
				}
				for _, cn := range cfg.CliqueNames {
					name := apicommon.ScalingGroupPodCliqueName(pcsgName, j, cn)
					e.podCliques[name] = true
					e.gangs[gang][name] = true
				}
			}
		}
	}
	return e
}

// compareNames reports the names missing from have and the unexpected ones
// (including those being deleted, which a quiet cluster no longer has).
func compareNames(vs *Violations, kind string, want map[string]bool, have []metav1.Object) {
	seen := map[string]bool{}
	for _, o := range have {
		seen[o.GetName()] = true
		switch {
		case !want[o.GetName()]:
			vs.add(Structure, kind+"/"+o.GetName(), "exists but the PodCliqueSet's spec does not ask for it")
		case o.GetDeletionTimestamp() != nil:
			vs.add(Structure, kind+"/"+o.GetName(), "still being deleted")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if !seen[name] {
			vs.add(Structure, kind+"/"+name, "missing")
		}
	}
}

func objects[T any, PT interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

// ordersStartup reports whether some clique of tmpl waits for another, so
// that the set gets grove-initc's ServiceAccount, Role, RoleBinding and token
// Secret (docs/security.md): in order with two or more cliques, or explicit
// with a startsAfter naming another clique of the set.
func ordersStartup(tmpl *grovecorev1alpha1.PodCliqueSetTemplateSpec) bool {
	switch ptr.Deref(tmpl.StartupType, grovecorev1alpha1.CliqueStartupTypeAnyOrder) {
	case grovecorev1alpha1.CliqueStartupTypeInOrder:
		return len(tmpl.Cliques) > 1
	case grovecorev1alpha1.CliqueStartupTypeExplicit:
		known := map[string]bool{}
		for _, c := range tmpl.Cliques {
			known[c.Name] = true
		}
		for _, c := range tmpl.Cliques {
			for _, parent := range c.Spec.StartsAfter {
				if parent != c.Name && known[parent] {
					return true
				}
			}
		}
	}
	return false
}

// CheckSettled checks every invariant of an existing PodCliqueSet whose
// cluster has gone quiet. It returns nil when all hold.
func CheckSettled(s *Snapshot, exp Expectations) Violations {
	var vs Violations
	if s.PCS == nil {
		vs.add(Structure, "PodCliqueSet/"+s.Name, "missing")
		return vs
	}
	if s.PCS.DeletionTimestamp != nil {
		vs.add(Structure, "PodCliqueSet/"+s.Name, "being deleted")
	}
	e := expectedLayout(s)
	compareNames(&vs, "PodClique", e.podCliques, objects(s.PodCliques))
	compareNames(&vs, "PodCliqueScalingGroup", e.scalingGroups, objects(s.ScalingGroups))
	compareNames(&vs, "PodGang", boolSet(slices.Collect(maps.Keys(e.gangs))), objects(s.PodGangs))
	compareNames(&vs, "Service", e.services, objects(s.Services))
	compareNames(&vs, "HorizontalPodAutoscaler", e.hpas, objects(s.HPAs))
	initc := func(name string) map[string]bool {
		if !ordersStartup(&s.PCS.Spec.Template) {
			return boolSet(nil)
		}
		return boolSet([]string{name})
	}
	compareNames(&vs, "ServiceAccount", initc(apicommon.InitcServiceAccountName(s.Name)), objects(s.ServiceAccounts))
	compareNames(&vs, "Role", initc(apicommon.InitcRoleName(s.Name)), objects(s.Roles))
	compareNames(&vs, "RoleBinding", initc(apicommon.InitcRoleBindingName(s.Name)), objects(s.RoleBindings))
	compareNames(&vs, "Secret", initc(apicommon.InitcTokenSecretName(s.Name)), objects(s.Secrets))

	checkPods(&vs, s, exp)
	checkGangs(&vs, s, e)
	checkStatus(&vs, s, exp)
	return vs
}

// CheckGone checks that a deleted PodCliqueSet left nothing behind.
func CheckGone(s *Snapshot) Violations {
	var vs Violations
	if s.PCS != nil {
		vs.add(Orphans, "PodCliqueSet/"+s.Name, "still exists (finalizers %v, deletionTimestamp %v)", s.PCS.Finalizers, s.PCS.DeletionTimestamp)
	}
	left := func(kind string, objs []metav1.Object) {
		for _, o := range objs {
			vs.add(Orphans, kind+"/"+o.GetName(), "left after the PodCliqueSet was deleted")
		}
	}
	left("PodCliqueScalingGroup", objects(s.ScalingGroups))
	left("PodClique", objects(s.PodCliques))
	left("PodGang", objects(s.PodGangs))
	left("Pod", objects(s.Pods))
	left("Service", objects(s.Services))
	left("HorizontalPodAutoscaler", objects(s.HPAs))
	left("ServiceAccount", objects(s.ServiceAccounts))
	left("Role", objects(s.Roles))
	left("RoleBinding", objects(s.RoleBindings))
	left("Secret", objects(s.Secrets))
	return vs
}

func boolSet(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// podIndex parses a pod's grove.io/podclique-pod-index label.
func podIndex(p *corev1.Pod) (int, bool) {
	i, err := strconv.Atoi(p.Labels[apicommon.LabelPodCliquePodIndex])
	return i, err == nil && i >= 0
}

// checkPods checks counts, indices, hostnames, templates and that every pod runs.
func checkPods(vs *Violations, s *Snapshot, exp Expectations) {
	byClique := map[string][]*corev1.Pod{}
	for _, p := range s.LivePods() {
		byClique[p.Labels[apicommon.LabelPodClique]] = append(byClique[p.Labels[apicommon.LabelPodClique]], p)
	}
	known := map[string]bool{}
	for i := range s.PodCliques {
		q := &s.PodCliques[i]
		known[q.Name] = true
		obj := "PodClique/" + q.Name
		pods := byClique[q.Name]
		if int32(len(pods)) != q.Spec.Replicas {
			vs.add(PodCount, obj, "%d live pods, spec.replicas %d", len(pods), q.Spec.Replicas)
		}
		holders := map[int][]string{}
		hostnames := map[string][]string{}
		subdomain := ""
		if ri, err := strconv.Atoi(q.Labels[apicommon.LabelPodCliqueSetReplicaIndex]); err == nil {
			subdomain = apicommon.HeadlessServiceName(s.Name, int32(ri))
		}
		for _, p := range pods {
			if c := metav1.GetControllerOf(p); c == nil || c.UID != q.UID {
				vs.add(PodCount, "Pod/"+p.Name, "labelled with PodClique %s but not controlled by it", q.Name)
			}
			idx, ok := podIndex(p)
			if !ok {
				vs.add(PodIndex, "Pod/"+p.Name, "label %s is %q, not a pod index", apicommon.LabelPodCliquePodIndex, p.Labels[apicommon.LabelPodCliquePodIndex])
				continue
			}
			holders[idx] = append(holders[idx], p.Name)
			hostnames[p.Spec.Hostname] = append(hostnames[p.Spec.Hostname], p.Name)
			if want := apicommon.PodHostname(q.Name, idx); p.Spec.Hostname != want {
				vs.add(Hostname, "Pod/"+p.Name, "hostname %q, want %q (pod index %d)", p.Spec.Hostname, want, idx)
			}
			if subdomain != "" && p.Spec.Subdomain != subdomain {
				vs.add(Hostname, "Pod/"+p.Name, "subdomain %q, want the headless Service %q", p.Spec.Subdomain, subdomain)
			}
			if want := q.Labels[apicommon.LabelPodTemplateHash]; p.Labels[apicommon.LabelPodTemplateHash] != want {
				vs.add(Updated, "Pod/"+p.Name, "pod-template hash %q, its PodClique's is %q", p.Labels[apicommon.LabelPodTemplateHash], want)
			}
			if exp.Image != "" && (len(p.Spec.Containers) == 0 || p.Spec.Containers[0].Image != exp.Image) {
				vs.add(Updated, "Pod/"+p.Name, "image %v, want %s", containerImages(p.Spec.Containers), exp.Image)
			}
		}
		for _, idx := range slices.Sorted(maps.Keys(holders)) {
			if names := holders[idx]; len(names) > 1 {
				sort.Strings(names)
				vs.add(PodIndex, obj, "pod index %d held by %d pods: %s", idx, len(names), strings.Join(names, ", "))
			}
		}
		for _, h := range slices.Sorted(maps.Keys(hostnames)) {
			if names := hostnames[h]; len(names) > 1 {
				sort.Strings(names)
				vs.add(Hostname, obj, "hostname %q used by %d pods: %s", h, len(names), strings.Join(names, ", "))
			}
		}
		var missing []string
		for i := 0; i < int(q.Spec.Replicas); i++ {
			if len(holders[i]) == 0 {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		var beyond []string
		for idx := range holders {
			if idx >= int(q.Spec.Replicas) {
				beyond = append(beyond, strconv.Itoa(idx))
			}
		}
		sort.Slice(beyond, func(a, b int) bool { x, _ := strconv.Atoi(beyond[a]); y, _ := strconv.Atoi(beyond[b]); return x < y })
		if len(missing) > 0 || len(beyond) > 0 {
			vs.add(PodIndex, obj, "indices not exactly 0..%d: missing [%s], beyond [%s]", q.Spec.Replicas-1,
				strings.Join(missing, " "), strings.Join(beyond, " "))
		}
	}
	for _, clique := range slices.Sorted(maps.Keys(byClique)) {
		if !known[clique] {
			for _, p := range byClique[clique] {
				vs.add(Structure, "Pod/"+p.Name, "belongs to PodClique %q, which does not exist", clique)
			}
		}
	}
	for i := range s.Pods {
		p := &s.Pods[i]
		obj := "Pod/" + p.Name
		switch {
		case p.DeletionTimestamp != nil:
			vs.add(Running, obj, "still terminating (deletionTimestamp %s)", p.DeletionTimestamp.UTC().Format("15:04:05"))
		case len(p.Spec.SchedulingGates) > 0:
			vs.add(Running, obj, "still has scheduling gates %v", gateNames(p))
		case p.Spec.NodeName == "":
			vs.add(Running, obj, "not bound to a node")
		case p.Status.Phase != corev1.PodRunning:
			vs.add(Running, obj, "phase %s on node %s", p.Status.Phase, p.Spec.NodeName)
		}
	}
}

func gateNames(p *corev1.Pod) []string {
	out := make([]string, len(p.Spec.SchedulingGates))
	for i, g := range p.Spec.SchedulingGates {
		out[i] = g.Name
	}
	return out
}

// checkGangs checks that each PodGang references exactly its live pods,
// group by group, and is bound all or nothing.
func checkGangs(vs *Violations, s *Snapshot, e expected) {
	live := s.LivePods()
	// gang -> clique -> pod names labelled with them
	labelled := map[string]map[string]map[string]bool{}
	bound := map[string]bool{}
	for _, p := range live {
		g, q := p.Labels[apicommon.LabelPodGang], p.Labels[apicommon.LabelPodClique]
		if labelled[g] == nil {
			labelled[g] = map[string]map[string]bool{}
		}
		if labelled[g][q] == nil {
			labelled[g][q] = map[string]bool{}
		}
		labelled[g][q][p.Name] = true
		if p.Spec.NodeName != "" {
			bound[p.Name] = true
		}
	}
	existing := map[string]bool{}
	for i := range s.PodGangs {
		pg := &s.PodGangs[i]
		existing[pg.Name] = true
		obj := "PodGang/" + pg.Name
		groups := map[string]bool{}
		var partial []string
		anyBound, allMin := false, true
		for _, grp := range pg.Spec.PodGroups {
			if groups[grp.Name] {
				vs.add(GangReferences, obj, "pod group %s appears twice", grp.Name)
			}
			groups[grp.Name] = true
			refs := map[string]bool{}
			nBound := int32(0)
			for _, r := range grp.PodReferences {
				if r.Namespace != s.Namespace {
					vs.add(GangReferences, obj, "group %s references pod %s/%s in another namespace", grp.Name, r.Namespace, r.Name)
					continue
				}
				if refs[r.Name] {
					vs.add(GangReferences, obj, "group %s references pod %s twice", grp.Name, r.Name)
				}
				refs[r.Name] = true
				if bound[r.Name] {
					nBound++
				}
			}
			want := labelled[pg.Name][grp.Name]
			for _, name := range slices.Sorted(maps.Keys(refs)) {
				if !want[name] {
					vs.add(GangReferences, obj, "group %s references pod %s, which is not a live pod of PodClique %s labelled with this PodGang", grp.Name, name, grp.Name)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(want)) {
				if !refs[name] {
					vs.add(GangReferences, obj, "group %s does not reference its pod %s", grp.Name, name)
				}
			}
			if nBound > 0 {
				anyBound = true
			}
			if nBound < grp.MinReplicas {
				allMin = false
			}
			partial = append(partial, fmt.Sprintf("%s %d/%d", grp.Name, nBound, grp.MinReplicas))
		}
		if anyBound && !allMin {
			vs.add(GangAllOrNothing, obj, "partly bound (group bound/minReplicas: %s)", strings.Join(partial, ", "))
		}
		if members, ok := e.gangs[pg.Name]; ok && !maps.Equal(members, groups) {
			vs.add(GangReferences, obj, "pod groups [%s], want one per member PodClique [%s]",
				strings.Join(slices.Sorted(maps.Keys(groups)), " "), strings.Join(slices.Sorted(maps.Keys(members)), " "))
		}
		for _, q := range slices.Sorted(maps.Keys(labelled[pg.Name])) {
			if !groups[q] {
				vs.add(GangReferences, obj, "pods of PodClique %s are labelled with this PodGang but it has no group for them", q)
			}
		}
	}
	for _, g := range slices.Sorted(maps.Keys(labelled)) {
		if !existing[g] {
			for _, q := range slices.Sorted(maps.Keys(labelled[g])) {
				vs.add(GangReferences, "PodClique/"+q, "%d live pods are labelled with PodGang %q, which does not exist", len(labelled[g][q]), g)
			}
		}
	}
}

func conditionIs(conds []metav1.Condition, t string, want metav1.ConditionStatus) (bool, string) {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return false, fmt.Sprintf("condition %s missing, want %s", t, want)
	}
	if c.Status != want {
		return false, fmt.Sprintf("condition %s=%s (%s: %s), want %s", t, c.Status, c.Reason, c.Message, want)
	}
	return true, ""
}

func lastErrors(errs []grovecorev1alpha1.LastError) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = fmt.Sprintf("%s: %s", e.Code, e.Description)
	}
	return strings.Join(parts, "; ")
}

func generationCurrent(observed *int64, generation int64) bool {
	return observed != nil && *observed == generation
}

// maxPodGangStatuses is how many PodGangs a PodCliqueSet's
// status.podGangStatuses shows: all of them up to 100, otherwise 100, those
// not Running first (the field's API documentation and CRD MaxItems).
const maxPodGangStatuses = 100

// checkPodGangStatuses checks the PodCliqueSet's mirror of its PodGangs'
// phases once settled: every entry names a PodGang of the set and is
// Running, and it holds every PodGang when there are at most
// maxPodGangStatuses of them, otherwise exactly that many (as the not
// Running ones come first, a full list of Running entries says all are).
func checkPodGangStatuses(vs *Violations, s *Snapshot, obj string) {
	shown := s.PCS.Status.PodGangStatuses
	gangs := make(map[string]bool, len(s.PodGangs))
	for i := range s.PodGangs {
		gangs[s.PodGangs[i].Name] = true
	}
	listed := make(map[string]bool, len(shown))
	for _, g := range shown {
		listed[g.Name] = true
		switch {
		case !gangs[g.Name]:
			vs.add(Status, obj, "status.podGangStatuses shows PodGang %s, which does not exist", g.Name)
		case g.Phase != groveschedulerv1alpha1.PodGangPhaseRunning:
			vs.add(Status, obj, "status.podGangStatuses does not show PodGang %s Running", g.Name)
		}
	}
	if len(s.PodGangs) > maxPodGangStatuses {
		if len(shown) != maxPodGangStatuses {
			vs.add(Status, obj, "status.podGangStatuses shows %d PodGangs, want %d of %d", len(shown), maxPodGangStatuses, len(s.PodGangs))
		}
		return
	}
	for i := range s.PodGangs {
		if !listed[s.PodGangs[i].Name] {
			vs.add(Status, obj, "status.podGangStatuses does not show PodGang %s Running", s.PodGangs[i].Name)
		}
	}
}

// checkStatus checks that every status is current, error-free and reports
// the PodCliqueSet fully scheduled and available.
func checkStatus(vs *Violations, s *Snapshot, exp Expectations) {
	pcs := s.PCS
	obj := "PodCliqueSet/" + pcs.Name
	if !generationCurrent(pcs.Status.ObservedGeneration, pcs.Generation) {
		vs.add(Status, obj, "observedGeneration %v, generation %d", deref(pcs.Status.ObservedGeneration), pcs.Generation)
	}
	if len(pcs.Status.LastErrors) > 0 {
		vs.add(Status, obj, "lastErrors: %s", lastErrors(pcs.Status.LastErrors))
	}
	if pcs.Status.Replicas != pcs.Spec.Replicas || pcs.Status.AvailableReplicas != pcs.Spec.Replicas {
		vs.add(Status, obj, "status replicas %d, available %d; spec.replicas %d", pcs.Status.Replicas, pcs.Status.AvailableReplicas, pcs.Spec.Replicas)
	}
	if pcs.Status.UpdatedReplicas != pcs.Spec.Replicas {
		vs.add(Updated, obj, "status updated %d, spec.replicas %d", pcs.Status.UpdatedReplicas, pcs.Spec.Replicas)
	}
	if ok, msg := conditionIs(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeUpdateInProgress, metav1.ConditionFalse); !ok {
		vs.add(Updated, obj, "%s", msg)
	}
	checkPodGangStatuses(vs, s, obj)
	for i := range s.PodCliques {
		q := &s.PodCliques[i]
		obj := "PodClique/" + q.Name
		if !generationCurrent(q.Status.ObservedGeneration, q.Generation) {
			vs.add(Status, obj, "observedGeneration %v, generation %d", deref(q.Status.ObservedGeneration), q.Generation)
		}
		if len(q.Status.LastErrors) > 0 {
			vs.add(Status, obj, "lastErrors: %s", lastErrors(q.Status.LastErrors))
		}
		st := q.Status
		if st.Replicas != q.Spec.Replicas || st.ReadyReplicas != q.Spec.Replicas || st.ScheduledReplicas != q.Spec.Replicas || st.ScheduleGatedReplicas != 0 {
			vs.add(Status, obj, "status replicas %d, ready %d, scheduled %d, gated %d; spec.replicas %d",
				st.Replicas, st.ReadyReplicas, st.ScheduledReplicas, st.ScheduleGatedReplicas, q.Spec.Replicas)
		}
		if ok, msg := conditionIs(st.Conditions, grovecorev1alpha1.ConditionTypePodCliqueScheduled, metav1.ConditionTrue); !ok {
			vs.add(Status, obj, "%s", msg)
		}
		if ok, msg := conditionIs(st.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached, metav1.ConditionFalse); !ok {
			vs.add(Status, obj, "%s", msg)
		}
		if st.UpdatedReplicas != q.Spec.Replicas {
			vs.add(Updated, obj, "status updated %d, spec.replicas %d", st.UpdatedReplicas, q.Spec.Replicas)
		}
		updateNotInProgress(vs, obj, st.Conditions)
		if exp.Image != "" {
			if cs := q.Spec.PodSpec.Containers; len(cs) == 0 || cs[0].Image != exp.Image {
				vs.add(Status, obj, "pod template image %v, want %s (the PodCliqueSet's template)", containerImages(cs), exp.Image)
			}
		}
	}
	for i := range s.ScalingGroups {
		g := &s.ScalingGroups[i]
		obj := "PodCliqueScalingGroup/" + g.Name
		if !generationCurrent(g.Status.ObservedGeneration, g.Generation) {
			vs.add(Status, obj, "observedGeneration %v, generation %d", deref(g.Status.ObservedGeneration), g.Generation)
		}
		if len(g.Status.LastErrors) > 0 {
			vs.add(Status, obj, "lastErrors: %s", lastErrors(g.Status.LastErrors))
		}
		if g.Status.AvailableReplicas != g.Spec.Replicas {
			vs.add(Status, obj, "status available %d, spec.replicas %d", g.Status.AvailableReplicas, g.Spec.Replicas)
		}
		if ok, msg := conditionIs(g.Status.Conditions, grovecorev1alpha1.ConditionTypeMinAvailableBreached, metav1.ConditionFalse); !ok {
			vs.add(Status, obj, "%s", msg)
		}
		if g.Status.UpdatedReplicas != g.Spec.Replicas {
			vs.add(Updated, obj, "status updated %d, spec.replicas %d", g.Status.UpdatedReplicas, g.Spec.Replicas)
		}
		updateNotInProgress(vs, obj, g.Status.Conditions)
	}
	for i := range s.PodGangs {
		pg := &s.PodGangs[i]
		obj := "PodGang/" + pg.Name
		if pg.Status.Phase != groveschedulerv1alpha1.PodGangPhaseRunning {
			vs.add(Status, obj, "phase %q, want Running", pg.Status.Phase)
		}
		for _, t := range []string{groveschedulerv1alpha1.PodGangConditionTypeInitialized, groveschedulerv1alpha1.PodGangConditionTypeScheduled, groveschedulerv1alpha1.PodGangConditionTypeReady} {
			if ok, msg := conditionIs(pg.Status.Conditions, t, metav1.ConditionTrue); !ok {
				vs.add(Status, obj, "%s", msg)
			}
		}
	}
}

// updateNotInProgress checks a child's UpdateInProgress condition is False
// when it has one (a child gets it with its first update).
func updateNotInProgress(vs *Violations, obj string, conds []metav1.Condition) {
	if c := meta.FindStatusCondition(conds, grovecorev1alpha1.ConditionTypeUpdateInProgress); c != nil && c.Status != metav1.ConditionFalse {
		vs.add(Updated, obj, "condition UpdateInProgress=%s (%s: %s), want False", c.Status, c.Reason, c.Message)
	}
}

func containerImages(cs []corev1.Container) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Image
	}
	return out
}

func deref(p *int64) any {
	if p == nil {
		return "unset"
	}
	return *p
}
