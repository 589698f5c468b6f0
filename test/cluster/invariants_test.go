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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

const testNS = "ns"

func objMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: testNS, Generation: 1, UID: types.UID("uid-" + name),
		Labels: map[string]string{apicommon.LabelPartOfKey: "fx", apicommon.LabelPodCliqueSetReplicaIndex: "0"}}
}

func conds(kv ...any) []metav1.Condition {
	var out []metav1.Condition
	for i := 0; i < len(kv); i += 2 {
		out = append(out, metav1.Condition{Type: kv[i].(string), Status: kv[i+1].(metav1.ConditionStatus), Reason: "R"})
	}
	return out
}

// testHash is the pod-template hash of every PodClique and pod of the fixture.
const testHash = "h1"

func clique(name string, replicas int32) grovecorev1alpha1.PodClique {
	m := objMeta(name)
	m.Labels[apicommon.LabelPodTemplateHash] = testHash
	return grovecorev1alpha1.PodClique{
		ObjectMeta: m,
		Spec:       grovecorev1alpha1.PodCliqueSpec{Replicas: replicas, PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}}},
		Status: grovecorev1alpha1.PodCliqueStatus{ObservedGeneration: ptr.To[int64](1), Replicas: replicas, ReadyReplicas: replicas, ScheduledReplicas: replicas, UpdatedReplicas: replicas,
			Conditions: conds(grovecorev1alpha1.ConditionTypePodCliqueScheduled, metav1.ConditionTrue, grovecorev1alpha1.ConditionTypeMinAvailableBreached, metav1.ConditionFalse)},
	}
}

func pod(pclq string, index int, gang string) corev1.Pod {
	m := objMeta(fmt.Sprintf("%s-p%d", pclq, index))
	m.Labels[apicommon.LabelPodClique] = pclq
	m.Labels[apicommon.LabelPodGang] = gang
	m.Labels[apicommon.LabelPodCliquePodIndex] = fmt.Sprint(index)
	m.Labels[apicommon.LabelPodTemplateHash] = testHash
	m.OwnerReferences = []metav1.OwnerReference{{Kind: "PodClique", Name: pclq, UID: types.UID("uid-" + pclq), Controller: ptr.To(true)}}
	return corev1.Pod{ObjectMeta: m,
		Spec: corev1.PodSpec{Hostname: apicommon.PodHostname(pclq, index), Subdomain: "fx-0", NodeName: "fake-node-001",
			Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func group(pclq string, minReplicas int32, pods ...string) groveschedulerv1alpha1.PodGroup {
	g := groveschedulerv1alpha1.PodGroup{Name: pclq, MinReplicas: minReplicas}
	for _, p := range pods {
		g.PodReferences = append(g.PodReferences, groveschedulerv1alpha1.NamespacedName{Namespace: testNS, Name: p})
	}
	return g
}

func gang(name string, groups ...groveschedulerv1alpha1.PodGroup) groveschedulerv1alpha1.PodGang {
	return groveschedulerv1alpha1.PodGang{ObjectMeta: objMeta(name), Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: groups},
		Status: groveschedulerv1alpha1.PodGangStatus{Phase: groveschedulerv1alpha1.PodGangPhaseRunning, Conditions: conds(
			groveschedulerv1alpha1.PodGangConditionTypeInitialized, metav1.ConditionTrue, groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionTrue,
			groveschedulerv1alpha1.PodGangConditionTypeReady, metav1.ConditionTrue)}}
}

// settled is PodCliqueSet fx with one replica, quiet: standalone clique w (2
// pods) in base PodGang fx-0, and scaling group sg (2 replicas, minAvailable
// 1) of clique x (1 pod): fx-0-sg-0-x in fx-0, fx-0-sg-1-x in scaled PodGang fx-0-sg-0.
func settled() *Snapshot {
	pcs := &grovecorev1alpha1.PodCliqueSet{ObjectMeta: objMeta("fx"), Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: 1,
		Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			StartupType:                  ptr.To(grovecorev1alpha1.CliqueStartupTypeInOrder),
			Cliques:                      []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "w", Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 2}}, {Name: "x", Spec: grovecorev1alpha1.PodCliqueSpec{Replicas: 1}}},
			PodCliqueScalingGroupConfigs: []grovecorev1alpha1.PodCliqueScalingGroupConfig{{Name: "sg", CliqueNames: []string{"x"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1)}},
		}},
		Status: grovecorev1alpha1.PodCliqueSetStatus{ObservedGeneration: ptr.To[int64](1), Replicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1,
			Conditions:      conds(grovecorev1alpha1.ConditionTypeUpdateInProgress, metav1.ConditionFalse),
			PodGangStatuses: []grovecorev1alpha1.PodGangStatus{{Name: "fx-0", Phase: groveschedulerv1alpha1.PodGangPhaseRunning}, {Name: "fx-0-sg-0", Phase: groveschedulerv1alpha1.PodGangPhaseRunning}}}}
	return &Snapshot{Namespace: testNS, Name: "fx", PCS: pcs,
		ScalingGroups: []grovecorev1alpha1.PodCliqueScalingGroup{{ObjectMeta: objMeta("fx-0-sg"),
			Spec: grovecorev1alpha1.PodCliqueScalingGroupSpec{Replicas: 2, MinAvailable: ptr.To[int32](1), CliqueNames: []string{"x"}},
			Status: grovecorev1alpha1.PodCliqueScalingGroupStatus{ObservedGeneration: ptr.To[int64](1), AvailableReplicas: 2, UpdatedReplicas: 2,
				Conditions: conds(grovecorev1alpha1.ConditionTypeMinAvailableBreached, metav1.ConditionFalse)}}},
		PodCliques: []grovecorev1alpha1.PodClique{clique("fx-0-w", 2), clique("fx-0-sg-0-x", 1), clique("fx-0-sg-1-x", 1)},
		PodGangs: []groveschedulerv1alpha1.PodGang{
			gang("fx-0", group("fx-0-w", 2, "fx-0-w-p0", "fx-0-w-p1"), group("fx-0-sg-0-x", 1, "fx-0-sg-0-x-p0")),
			gang("fx-0-sg-0", group("fx-0-sg-1-x", 1, "fx-0-sg-1-x-p0")),
		},
		Pods:            []corev1.Pod{pod("fx-0-w", 0, "fx-0"), pod("fx-0-w", 1, "fx-0"), pod("fx-0-sg-0-x", 0, "fx-0"), pod("fx-0-sg-1-x", 0, "fx-0-sg-0")},
		Services:        []corev1.Service{{ObjectMeta: objMeta("fx-0")}},
		ServiceAccounts: []corev1.ServiceAccount{{ObjectMeta: objMeta("fx")}},
		Roles:           []rbacv1.Role{{ObjectMeta: objMeta("grove.io:pcs:fx")}},
		RoleBindings:    []rbacv1.RoleBinding{{ObjectMeta: objMeta("grove.io:pcs:fx")}},
		Secrets:         []corev1.Secret{{ObjectMeta: objMeta("fx-ic-sat")}},
	}
}

func findPod(s *Snapshot, name string) *corev1.Pod {
	for i := range s.Pods {
		if s.Pods[i].Name == name {
			return &s.Pods[i]
		}
	}
	panic("no pod " + name)
}

// scaledTo grows scaling group sg of the settled fixture to n replicas: each
// replica k >= 1 is clique fx-0-sg-k-x with one pod in scaled PodGang
// fx-0-sg-(k-1). status.podGangStatuses lists the first shown PodGangs by
// name, as the operator does once all are Running.
func scaledTo(s *Snapshot, n int32, shown int) {
	s.PCS.Spec.Template.PodCliqueScalingGroupConfigs[0].Replicas = ptr.To(n)
	sg := &s.ScalingGroups[0]
	sg.Spec.Replicas, sg.Status.AvailableReplicas, sg.Status.UpdatedReplicas = n, n, n
	for k := int32(2); k < n; k++ {
		pclq, pg := fmt.Sprintf("fx-0-sg-%d-x", k), fmt.Sprintf("fx-0-sg-%d", k-1)
		s.PodCliques = append(s.PodCliques, clique(pclq, 1))
		s.Pods = append(s.Pods, pod(pclq, 0, pg))
		s.PodGangs = append(s.PodGangs, gang(pg, group(pclq, 1, pclq+"-p0")))
	}
	s.PCS.Status.PodGangStatuses = nil
	for i := range s.PodGangs {
		s.PCS.Status.PodGangStatuses = append(s.PCS.Status.PodGangStatuses,
			grovecorev1alpha1.PodGangStatus{Name: s.PodGangs[i].Name, Phase: groveschedulerv1alpha1.PodGangPhaseRunning})
	}
	slices.SortFunc(s.PCS.Status.PodGangStatuses, func(a, b grovecorev1alpha1.PodGangStatus) int { return strings.Compare(a.Name, b.Name) })
	s.PCS.Status.PodGangStatuses = s.PCS.Status.PodGangStatuses[:shown]
}

func TestCheckSettled(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name   string
		mutate func(s *Snapshot)
		exp    Expectations
		want   []string
	}{
		{name: "a quiet PodCliqueSet with a scaled PodGang holds every invariant", mutate: func(*Snapshot) {}},
		{
			name: "a set without startup order holding grove-initc's access objects",
			mutate: func(s *Snapshot) {
				s.PCS.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeAnyOrder)
			},
			want: []string{
				"[structure] ServiceAccount/fx: exists but the PodCliqueSet's spec does not ask for it",
				"[structure] Role/grove.io:pcs:fx: exists but the PodCliqueSet's spec does not ask for it",
				"[structure] RoleBinding/grove.io:pcs:fx: exists but the PodCliqueSet's spec does not ask for it",
				"[structure] Secret/fx-ic-sat: exists but the PodCliqueSet's spec does not ask for it",
			},
		},
		{
			name: "a set without startup order and without grove-initc's access objects",
			mutate: func(s *Snapshot) {
				s.PCS.Spec.Template.StartupType = nil
				s.ServiceAccounts, s.Roles, s.RoleBindings, s.Secrets = nil, nil, nil, nil
			},
		},
		{
			name: "an explicit startup order with a startsAfter keeps the access objects",
			mutate: func(s *Snapshot) {
				s.PCS.Spec.Template.StartupType = ptr.To(grovecorev1alpha1.CliqueStartupTypeExplicit)
				s.PCS.Spec.Template.Cliques[1].Spec.StartsAfter = []string{"w"}
			},
		},
		{
			name: "two pods with pod index 0 and hostname fx-0-w-0, index 1 missing",
			mutate: func(s *Snapshot) {
				p := findPod(s, "fx-0-w-p1")
				p.Labels[apicommon.LabelPodCliquePodIndex] = "0"
				p.Spec.Hostname = "fx-0-w-0"
			},
			want: []string{
				"[pod-index] PodClique/fx-0-w: pod index 0 held by 2 pods: fx-0-w-p0, fx-0-w-p1",
				"[hostname] PodClique/fx-0-w: hostname \"fx-0-w-0\" used by 2 pods: fx-0-w-p0, fx-0-w-p1",
				"[pod-index] PodClique/fx-0-w: indices not exactly 0..1: missing [1], beyond []",
			},
		},
		{
			name: "a third pod with index 2 beyond spec.replicas",
			mutate: func(s *Snapshot) {
				s.Pods = append(s.Pods, pod("fx-0-w", 2, "fx-0"))
				s.PodGangs[0].Spec.PodGroups[0].PodReferences = append(s.PodGangs[0].Spec.PodGroups[0].PodReferences,
					groveschedulerv1alpha1.NamespacedName{Namespace: testNS, Name: "fx-0-w-p2"})
			},
			want: []string{
				"[pod-count] PodClique/fx-0-w: 3 live pods, spec.replicas 2",
				"[pod-index] PodClique/fx-0-w: indices not exactly 0..1: missing [], beyond [2]",
			},
		},
		{
			name:   "a hostname that does not match the pod index",
			mutate: func(s *Snapshot) { findPod(s, "fx-0-w-p1").Spec.Hostname = "fx-0-w-7" },
			want:   []string{"[hostname] Pod/fx-0-w-p1: hostname \"fx-0-w-7\", want \"fx-0-w-1\" (pod index 1)"},
		},
		{
			name: "a gang with one of the two minimum pods of a group bound is partly bound",
			mutate: func(s *Snapshot) {
				p := findPod(s, "fx-0-w-p1")
				p.Spec.NodeName, p.Status.Phase = "", corev1.PodPending
			},
			want: []string{
				"[running] Pod/fx-0-w-p1: not bound to a node",
				"[gang-all-or-nothing] PodGang/fx-0: partly bound (group bound/minReplicas: fx-0-w 1/2, fx-0-sg-0-x 1/1)",
			},
		},
		{
			name: "a gang with no pod bound is not partly bound",
			mutate: func(s *Snapshot) {
				p := findPod(s, "fx-0-sg-1-x-p0")
				p.Spec.NodeName, p.Status.Phase = "", corev1.PodPending
				p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: apicommon.PodGangSchedulingGate}}
			},
			want: []string{"[running] Pod/fx-0-sg-1-x-p0: still has scheduling gates [grove.io/podgang-pending-creation]"},
		},
		{
			name: "a PodGang that references a deleted pod and misses its replacement",
			mutate: func(s *Snapshot) {
				findPod(s, "fx-0-w-p1").Name = "fx-0-w-new"
			},
			want: []string{
				"[gang-references] PodGang/fx-0: group fx-0-w references pod fx-0-w-p1, which is not a live pod of PodClique fx-0-w labelled with this PodGang",
				"[gang-references] PodGang/fx-0: group fx-0-w does not reference its pod fx-0-w-new",
				// Only referenced pods count for the gang: the reference to the gone pod leaves fx-0-w short.
				"[gang-all-or-nothing] PodGang/fx-0: partly bound (group bound/minReplicas: fx-0-w 1/2, fx-0-sg-0-x 1/1)",
			},
		},
		{
			name: "pods labelled with a PodGang that does not exist",
			mutate: func(s *Snapshot) {
				s.PodGangs = s.PodGangs[:1]
				s.PCS.Status.PodGangStatuses = s.PCS.Status.PodGangStatuses[:1]
			},
			want: []string{
				"[structure] PodGang/fx-0-sg-0: missing",
				"[gang-references] PodClique/fx-0-sg-1-x: 1 live pods are labelled with PodGang \"fx-0-sg-0\", which does not exist",
			},
		},
		{
			name: "a PodClique and Service of a removed replica left after scale-in",
			mutate: func(s *Snapshot) {
				s.PodCliques = append(s.PodCliques, clique("fx-1-w", 0))
				s.Services = append(s.Services, corev1.Service{ObjectMeta: objMeta("fx-1")})
			},
			want: []string{
				"[structure] PodClique/fx-1-w: exists but the PodCliqueSet's spec does not ask for it",
				"[structure] Service/fx-1: exists but the PodCliqueSet's spec does not ask for it",
			},
		},
		{
			name: "a terminating pod and an unbound-and-deleted PodClique",
			mutate: func(s *Snapshot) {
				s.PodCliques[2].DeletionTimestamp = &now
				old := pod("fx-0-w", 1, "fx-0")
				old.Name, old.UID, old.DeletionTimestamp = "fx-0-w-old", "uid-old", &now
				s.Pods = append(s.Pods, old)
			},
			want: []string{
				"[structure] PodClique/fx-0-sg-1-x: still being deleted",
				fmt.Sprintf("[running] Pod/fx-0-w-old: still terminating (deletionTimestamp %s)", now.UTC().Format("15:04:05")),
			},
		},
		{
			name: "lastErrors and a stale observedGeneration",
			mutate: func(s *Snapshot) {
				s.PCS.Generation = 2
				s.PodCliques[0].Status.LastErrors = []grovecorev1alpha1.LastError{{Code: "ERR_CREATE_POD", Description: "creating pods: connection refused"}}
			},
			want: []string{
				"[status] PodCliqueSet/fx: observedGeneration 1, generation 2",
				"[status] PodClique/fx-0-w: lastErrors: ERR_CREATE_POD: creating pods: connection refused",
			},
		},
		{
			name: "a PodGang the scheduler has not reported Running",
			mutate: func(s *Snapshot) {
				s.PodGangs[1].Status = groveschedulerv1alpha1.PodGangStatus{Phase: groveschedulerv1alpha1.PodGangPhasePending}
				s.PCS.Status.PodGangStatuses[1].Phase = groveschedulerv1alpha1.PodGangPhasePending
			},
			want: []string{
				"[status] PodCliqueSet/fx: status.podGangStatuses does not show PodGang fx-0-sg-0 Running",
				"[status] PodGang/fx-0-sg-0: phase \"Pending\", want Running",
				"[status] PodGang/fx-0-sg-0: condition Initialized missing, want True",
				"[status] PodGang/fx-0-sg-0: condition Scheduled missing, want True",
				"[status] PodGang/fx-0-sg-0: condition Ready missing, want True",
			},
		},
		{
			name:   "101 PodGangs, all Running, of which status.podGangStatuses shows its limit of 100",
			mutate: func(s *Snapshot) { scaledTo(s, 101, 100) },
		},
		{
			name:   "100 PodGangs, all Running, of which status.podGangStatuses misses one",
			mutate: func(s *Snapshot) { scaledTo(s, 100, 99) },
			want:   []string{"[status] PodCliqueSet/fx: status.podGangStatuses does not show PodGang fx-0-sg-98 Running"},
		},
		{
			name:   "101 PodGangs of which status.podGangStatuses shows 99",
			mutate: func(s *Snapshot) { scaledTo(s, 101, 99) },
			want:   []string{"[status] PodCliqueSet/fx: status.podGangStatuses shows 99 PodGangs, want 100 of 101"},
		},
		{
			name: "status.podGangStatuses shows a PodGang that does not exist",
			mutate: func(s *Snapshot) {
				s.PCS.Status.PodGangStatuses = append(s.PCS.Status.PodGangStatuses,
					grovecorev1alpha1.PodGangStatus{Name: "fx-0-sg-7", Phase: groveschedulerv1alpha1.PodGangPhaseRunning})
			},
			want: []string{"[status] PodCliqueSet/fx: status.podGangStatuses shows PodGang fx-0-sg-7, which does not exist"},
		},
		{
			name: "a rollout that left a pod on the old template and is still reported in progress",
			mutate: func(s *Snapshot) {
				findPod(s, "fx-0-w-p1").Labels[apicommon.LabelPodTemplateHash] = "h0"
				s.PodCliques[0].Status.UpdatedReplicas = 1
				s.PCS.Status.UpdatedReplicas = 0
				s.PCS.Status.Conditions = []metav1.Condition{{Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionTrue,
					Reason: grovecorev1alpha1.ConditionReasonRollingUpdate, Message: "updating replica 0"}}
				s.PodCliques[0].Status.Conditions = append(s.PodCliques[0].Status.Conditions, metav1.Condition{
					Type: grovecorev1alpha1.ConditionTypeUpdateInProgress, Status: metav1.ConditionTrue, Reason: grovecorev1alpha1.ConditionReasonRollingUpdate})
			},
			want: []string{
				"[updated] Pod/fx-0-w-p1: pod-template hash \"h0\", its PodClique's is \"h1\"",
				"[updated] PodCliqueSet/fx: status updated 0, spec.replicas 1",
				"[updated] PodCliqueSet/fx: condition UpdateInProgress=True (RollingUpdate: updating replica 0), want False",
				"[updated] PodClique/fx-0-w: status updated 1, spec.replicas 2",
				"[updated] PodClique/fx-0-w: condition UpdateInProgress=True (RollingUpdate: ), want False",
			},
		},
		{
			name:   "an update of the template image reaching neither the PodCliques nor the pods",
			mutate: func(*Snapshot) {},
			exp:    Expectations{Image: "busybox:1.37"},
			want: []string{
				"[updated] Pod/fx-0-w-p0: image [busybox:1.36], want busybox:1.37",
				"[updated] Pod/fx-0-w-p1: image [busybox:1.36], want busybox:1.37",
				"[updated] Pod/fx-0-sg-0-x-p0: image [busybox:1.36], want busybox:1.37",
				"[updated] Pod/fx-0-sg-1-x-p0: image [busybox:1.36], want busybox:1.37",
				"[status] PodClique/fx-0-w: pod template image [busybox:1.36], want busybox:1.37 (the PodCliqueSet's template)",
				"[status] PodClique/fx-0-sg-0-x: pod template image [busybox:1.36], want busybox:1.37 (the PodCliqueSet's template)",
				"[status] PodClique/fx-0-sg-1-x: pod template image [busybox:1.36], want busybox:1.37 (the PodCliqueSet's template)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settled()
			tt.mutate(s)
			got := CheckSettled(s, tt.exp)
			var lines []string
			for _, v := range got {
				lines = append(lines, v.String())
			}
			if !slices.Equal(lines, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCheckGone(t *testing.T) {
	tests := []struct {
		name string
		snap *Snapshot
		want []string
	}{
		{name: "nothing left", snap: &Snapshot{Namespace: testNS, Name: "fx"}},
		{
			name: "a Service, an HPA and the PodCliqueSet held by its finalizer left",
			snap: func() *Snapshot {
				s := &Snapshot{Namespace: testNS, Name: "fx", Services: settled().Services}
				s.PCS = &grovecorev1alpha1.PodCliqueSet{ObjectMeta: objMeta("fx")}
				s.PCS.Finalizers = []string{apicommon.FinalizerPodCliqueSet}
				s.HPAs = append(s.HPAs, settled().HPAs...)
				return s
			}(),
			want: []string{
				"[orphans] PodCliqueSet/fx: still exists (finalizers [grove.io/podcliqueset.grove.io], deletionTimestamp <nil>)",
				"[orphans] Service/fx-0: left after the PodCliqueSet was deleted",
			},
		},
		{
			name: "pods and a PodGang left",
			snap: &Snapshot{Namespace: testNS, Name: "fx", PodGangs: settled().PodGangs[1:], Pods: settled().Pods[:1]},
			want: []string{
				"[orphans] PodGang/fx-0-sg-0: left after the PodCliqueSet was deleted",
				"[orphans] Pod/fx-0-w-p0: left after the PodCliqueSet was deleted",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			for _, v := range CheckGone(tt.snap) {
				lines = append(lines, v.String())
			}
			if !slices.Equal(lines, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestOverlaps(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse("15:04:05.000", s)
		if err != nil {
			panic(err)
		}
		return tm
	}
	tests := []struct {
		name string
		pods []*podLife
		live []string
		want []string
	}{
		{
			name: "a create whose response was lost: both pods live at the end",
			pods: []*podLife{{name: "a", clique: "q", index: 0, created: at("10:00:01.200")}, {name: "b", clique: "q", index: 0, created: at("10:00:19.100")}},
			live: []string{"a", "b"},
			want: []string{"[index-handed-out-once] PodClique/q: pod index 0 held at the same time by a (created 10:00:01, still live) and b (created 10:00:19, still live)"},
		},
		{
			name: "a duplicate repaired before the cluster went quiet",
			pods: []*podLife{
				{name: "a", clique: "q", index: 1, created: at("10:00:01.000")},
				{name: "b", clique: "q", index: 1, created: at("10:00:19.000"), deleteRequested: at("10:00:21.500")},
			},
			live: []string{"a"},
			want: []string{"[index-handed-out-once] PodClique/q: pod index 1 held at the same time by a (created 10:00:01, still live) and b (created 10:00:19, deleted 10:00:21)"},
		},
		{
			name: "a replacement created after its predecessor's deletion was requested",
			pods: []*podLife{
				{name: "a", clique: "q", index: 0, created: at("10:00:01.000"), deleteRequested: at("10:00:05.000")},
				{name: "b", clique: "q", index: 0, created: at("10:00:06.000")},
			},
			live: []string{"b"},
		},
		{
			name: "a replacement in the same second as the deletion cannot be ordered",
			pods: []*podLife{
				{name: "a", clique: "q", index: 0, created: at("10:00:01.000"), deleteRequested: at("10:00:05.100")},
				{name: "b", clique: "q", index: 0, created: at("10:00:05.900")},
			},
			live: []string{"b"},
		},
		{
			name: "a pod gone without its deletion time being seen is skipped",
			pods: []*podLife{{name: "a", clique: "q", index: 0, created: at("10:00:01.000")}, {name: "b", clique: "q", index: 0, created: at("10:00:09.000")}},
			live: []string{"b"},
		},
		{
			name: "the same index in two PodCliques is fine",
			pods: []*podLife{{name: "a", clique: "q", index: 0, created: at("10:00:01.000")}, {name: "b", clique: "r", index: 0, created: at("10:00:01.000")}},
			live: []string{"a", "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := map[types.UID]*podLife{}
			live := map[types.UID]bool{}
			for _, p := range tt.pods {
				pods[types.UID(p.name)] = p
			}
			for _, n := range tt.live {
				live[types.UID(n)] = true
			}
			var lines []string
			for _, v := range overlaps(pods, live) {
				lines = append(lines, v.String())
			}
			if !slices.Equal(lines, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRecordDeleteRequest: a pod's hold on its index ends at the earliest
// moment its deletion may have been requested, whichever versions of it the
// watch saw. The replacement of round 15 of a 20-round fault run (created at
// 21:22:00, after its predecessor's delete at 21:22:00.86) was reported as an
// overlap because kwok's final delete (grace 0, at 21:22:01) had moved the
// predecessor's deletionTimestamp past it.
func TestRecordDeleteRequest(t *testing.T) {
	request := time.Date(2026, 11, 23, 21, 22, 0, 860_000_000, time.UTC)
	pod := func(deletionTimestamp time.Time, grace int64) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			UID: "old", Name: "fx-1-w-mrgqj", Labels: map[string]string{apicommon.LabelPodClique: "fx-1-w", apicommon.LabelPodCliquePodIndex: "1"},
			DeletionTimestamp: &metav1.Time{Time: deletionTimestamp}, DeletionGracePeriodSeconds: ptr.To(grace),
		}}
		p.Spec.Hostname = "fx-1-w-1"
		p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
		return p
	}
	tests := []struct {
		name string
		seen []*corev1.Pod
		want time.Time
	}{
		// kwok's final delete came 1.5 s after the request: the first version tells the request time.
		{"the terminating version, then a late final one", []*corev1.Pod{pod(request.Add(time.Second), 1), pod(request.Add(1500*time.Millisecond), 0)}, request},
		// As in the round: the final delete 0.7 s after the request, the only version seen.
		{"only the final version: the pod's whole grace period is taken off", []*corev1.Pod{pod(request.Add(700*time.Millisecond), 0)}, request.Add(-300 * time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &PodWatch{pods: map[types.UID]*podLife{}}
			for _, p := range tt.seen {
				w.record(p)
			}
			l := w.pods["old"]
			if l == nil || !l.deleteRequested.Equal(tt.want) {
				t.Fatalf("deleteRequested = %v, want %v", l, tt.want)
			}
			replacement := &podLife{name: "fx-1-w-qhhqx", clique: "fx-1-w", index: 1, created: time.Date(2026, 11, 23, 21, 22, 0, 900_000_000, time.UTC)}
			if vs := overlaps(map[types.UID]*podLife{"old": l, "new": replacement}, map[types.UID]bool{"new": true}); len(vs) > 0 {
				t.Errorf("overlaps: %v", vs)
			}
		})
	}
}
