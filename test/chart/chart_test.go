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

package chart

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pinnedHelm is bin/helm-<HELM_VERSION>/helm, built by hack/helm.sh (make control-plane, which make test runs first).
func pinnedHelm(t *testing.T, root string) string {
	t.Helper()
	versions, err := os.ReadFile(filepath.Join(root, "hack", "versions.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^HELM_VERSION=(\S+)$`).FindSubmatch(versions)
	if m == nil {
		t.Fatal("hack/versions.sh sets no HELM_VERSION")
	}
	helm := filepath.Join(root, "bin", "helm-"+string(m[1]), "helm")
	if _, err := os.Stat(helm); err != nil {
		t.Fatalf("pinned helm missing (make control-plane builds it): %v", err)
	}
	return helm
}

// kubeVersion is the Kubernetes version the chart is rendered for
// (K8S_VERSION in hack/versions.sh): helm template otherwise assumes its own
// client library's version, which Chart.yaml's kubeVersion refuses.
func kubeVersion(t *testing.T, root string) string {
	t.Helper()
	versions, err := os.ReadFile(filepath.Join(root, "hack", "versions.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^K8S_VERSION=(\S+)$`).FindSubmatch(versions)
	if m == nil {
		t.Fatal("hack/versions.sh sets no K8S_VERSION")
	}
	return string(m[1])
}

// helmTemplate runs helm template on the chart with set (see render) and
// returns what helm printed and its error.
func helmTemplate(t *testing.T, root, namespace string, set ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	args := []string{"template", "grove", filepath.Join(root, "charts", "grove"), "--namespace", namespace, "--kube-version", kubeVersion(t, root)}
	for _, s := range set {
		switch {
		// "json:" values are JSON (--set-json), for lists of objects.
		case strings.HasPrefix(s, "json:"):
			args = append(args, "--set-json", strings.TrimPrefix(s, "json:"))
		// "flag:" passes a helm flag as it is, e.g. flag:--kube-version=v1.36.0.
		case strings.HasPrefix(s, "flag:"):
			args = append(args, strings.TrimPrefix(s, "flag:"))
		default:
			args = append(args, "--set", s)
		}
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(pinnedHelm(t, root), args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}

func render(t *testing.T, root, namespace string, set ...string) []Object {
	t.Helper()
	stdout, stderr, err := helmTemplate(t, root, namespace, set...)
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", set, err, stderr)
	}
	objs, err := Parse(stdout)
	if err != nil {
		t.Fatalf("parsing rendered chart: %v", err)
	}
	return objs
}

var (
	markersOnce sync.Once
	markers     markerSet
	markersErr  error
)

// markerSet is what controller-gen makes of the operator's +kubebuilder:rbac
// markers: the ClusterRole and Role of every package but the scheduler
// backends', and each backend package's ClusterRole rules by profile.
type markerSet struct {
	cluster, namespaced []rbacv1.PolicyRule
	backends            map[string][]rbacv1.PolicyRule
	// mnnvl are the rules of operator/internal/mnnvl (MNNVL_RBAC_PKG in
	// hack/generate.sh), added with operator.config.network.autoMNNVLEnabled.
	mnnvl []rbacv1.PolicyRule
}

// backendProfiles reads BACKEND_RBAC from hack/generate.sh: each backend
// package under operator/internal/backend and the profile whose chart rules
// its markers become.
func backendProfiles(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "hack", "generate.sh"))
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^BACKEND_RBAC="([^"]+)"$`).FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("hack/generate.sh sets no BACKEND_RBAC")
	}
	out := map[string]string{}
	for _, e := range strings.Fields(string(m[1])) {
		pkg, profile, ok := strings.Cut(e, ":")
		if !ok {
			return nil, fmt.Errorf("BACKEND_RBAC entry %q is not package:profile", e)
		}
		out[pkg] = profile
	}
	return out, nil
}

// controllerGenRBAC runs controller-gen's rbac generator over packages of
// operator/ and parses its output.
func controllerGenRBAC(root, paths string) ([]Object, error) {
	out, err := os.MkdirTemp("", "grove-rbac-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(out) }()
	cmd := exec.Command(filepath.Join(root, "bin", "tools", "controller-gen"),
		"rbac:roleName=grove-operator", "paths="+paths, "output:rbac:dir="+out)
	cmd.Dir = filepath.Join(root, "operator")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("controller-gen %s: %w\n%s", paths, err, b)
	}
	b, err := os.ReadFile(filepath.Join(out, "role.yaml"))
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

func loadMarkers(root string) (markerSet, error) {
	profiles, err := backendProfiles(root)
	if err != nil {
		return markerSet{}, err
	}
	list := exec.Command("go", "list", "./...")
	list.Dir = filepath.Join(root, "operator")
	pkgsOut, err := list.Output()
	if err != nil {
		return markerSet{}, fmt.Errorf("go list ./... in operator: %w", err)
	}
	var core []string
	for _, pkg := range strings.Fields(string(pkgsOut)) {
		dir, name := filepath.Split(pkg)
		if _, backend := profiles[name]; backend && strings.HasSuffix(dir, "/internal/backend/") {
			continue
		}
		if strings.HasSuffix(pkg, "/internal/mnnvl") {
			continue
		}
		core = append(core, pkg)
	}
	objs, err := controllerGenRBAC(root, "{"+strings.Join(core, ",")+"}")
	if err != nil {
		return markerSet{}, err
	}
	set := markerSet{backends: map[string][]rbacv1.PolicyRule{}}
	for _, o := range objs {
		switch o.Kind {
		case "ClusterRole":
			set.cluster = o.Rules
		case "Role":
			set.namespaced = o.Rules
		}
	}
	mnnvlObjs, err := controllerGenRBAC(root, "./internal/mnnvl")
	if err != nil {
		return markerSet{}, err
	}
	for _, o := range mnnvlObjs {
		if o.Kind == "ClusterRole" {
			set.mnnvl = o.Rules
		}
	}
	for pkg, profile := range profiles {
		objs, err := controllerGenRBAC(root, "./internal/backend/"+pkg)
		if err != nil {
			return markerSet{}, err
		}
		for _, o := range objs {
			if o.Kind == "ClusterRole" {
				set.backends[profile] = o.Rules
			}
		}
		if len(set.backends[profile]) == 0 {
			return markerSet{}, fmt.Errorf("backend package %s has no ClusterRole markers", pkg)
		}
	}
	return set, nil
}

// markerRules returns what the operator's markers produce (see markerSet),
// computed afresh so the checks hold even when charts/grove/files is stale.
func markerRules(t *testing.T, root string) markerSet {
	t.Helper()
	markersOnce.Do(func() { markers, markersErr = loadMarkers(root) })
	if markersErr != nil {
		t.Fatalf("controller-gen rbac (make generate builds bin/tools/controller-gen): %v", markersErr)
	}
	if len(markers.cluster) == 0 || len(markers.namespaced) == 0 {
		t.Fatalf("controller-gen produced no ClusterRole or no Role from the operator's markers: %+v", markers)
	}
	return markers
}

type renderCase struct {
	name, namespace, operatorSA string
	set                         []string
}

var renderCases = []renderCase{
	{name: "default values", namespace: "grove-system", operatorSA: "grove-operator"},
	{name: "manual certificates, own service account, other namespace", namespace: "ai-infra", operatorSA: "grove-ctrl",
		set: []string{"webhooks.certProvisionMode=manual", "webhooks.caBundle=Zm9v", "operator.serviceAccountName=grove-ctrl"}},
	{name: "local cluster: webhook URL, no leader election, PriorityClass", namespace: "grove-system", operatorSA: "grove-operator",
		set: []string{"webhooks.url=https://127.0.0.1:9443", "operator.replicas=0", "operator.config.leaderElection.enabled=false",
			"scheduler.leaderElect=false", "priorityClass.enabled=true", "metrics.serviceMonitor.enabled=true"}},
}

// TestRenderedObjects checks the value-gated objects: ServiceMonitors and
// the PriorityClass.
func TestRenderedObjects(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		name            string
		set             []string
		serviceMonitors int
		priorityClasses int
	}{
		{name: "default values"},
		{name: "ServiceMonitors and PriorityClass", set: []string{"metrics.serviceMonitor.enabled=true", "priorityClass.enabled=true"},
			serviceMonitors: 2, priorityClasses: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, "grove-system", tc.set...)
			count := map[string]int{}
			for _, o := range objs {
				count[o.Kind]++
			}
			if count["ServiceMonitor"] != tc.serviceMonitors || count["PriorityClass"] != tc.priorityClasses {
				t.Errorf("rendered %d ServiceMonitors and %d PriorityClasses, want %d and %d",
					count["ServiceMonitor"], count["PriorityClass"], tc.serviceMonitors, tc.priorityClasses)
			}
			for _, name := range []string{"grove-operator", "grove-scheduler"} {
				if _, ok := Find(objs, "ServiceMonitor", "grove-system", name); ok != (tc.serviceMonitors > 0) {
					t.Errorf("ServiceMonitor grove-system/%s rendered = %v, want %v", name, ok, tc.serviceMonitors > 0)
				}
			}
		})
	}
}

// TestRenderedRBAC renders the chart with each set of values and checks
// every Role and ClusterRole in it.
func TestRenderedRBAC(t *testing.T) {
	root := repoRoot(t)
	m := markerRules(t, root)
	wantCluster, wantNamespaced := m.cluster, m.namespaced
	for _, tc := range renderCases {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, tc.namespace, tc.set...)
			roles := 0
			for _, o := range objs {
				if o.Kind != "Role" && o.Kind != "ClusterRole" {
					continue
				}
				roles++
				if w := Wildcards(o.Rules); len(w) > 0 {
					t.Errorf("%s %s has wildcards: %v", o.Kind, o.Metadata.Name, w)
				}
				if o.Kind == "ClusterRole" {
					if r := SecretReads(o.Rules); len(r) > 0 {
						t.Errorf("ClusterRole %s reads Secrets cluster-wide: %v", o.Metadata.Name, r)
					}
				}
			}
			if roles != 5 {
				t.Errorf("rendered %d Roles and ClusterRoles, want 5 (operator's ClusterRole and Role, scheduler's ClusterRole and Role, grove-metrics-reader)", roles)
			}

			cr, ok := Find(objs, "ClusterRole", "", "grove:system:grove-operator")
			if !ok {
				t.Fatal("no ClusterRole grove:system:grove-operator")
			}
			if extra, missing := Diff(Expand(cr.Rules), Expand(wantCluster)); len(extra)+len(missing) > 0 {
				t.Errorf("operator ClusterRole differs from its markers (run make generate): not from markers %v, missing %v", extra, missing)
			}
			role, ok := Find(objs, "Role", tc.namespace, "grove:system:grove-operator")
			if !ok {
				t.Fatalf("no Role grove:system:grove-operator in %s", tc.namespace)
			}
			if extra, missing := Diff(Expand(role.Rules), Expand(wantNamespaced)); len(extra)+len(missing) > 0 {
				t.Errorf("operator Role differs from its markers (run make generate): not from markers %v, missing %v", extra, missing)
			}
			wantBound := []string{"ClusterRole//grove:system:grove-operator", "Role/" + tc.namespace + "/grove:system:grove-operator"}
			if got := BoundRoles(objs, tc.namespace, tc.operatorSA); strings.Join(got, ",") != strings.Join(wantBound, ",") {
				t.Errorf("roles bound to ServiceAccount %s/%s = %v, want %v", tc.namespace, tc.operatorSA, got, wantBound)
			}

			// grove-scheduler: system:kube-scheduler and system:volume-scheduler
			// plus what the GroveGang plugin's informers and writes need.
			wantScheduler := []string{
				"ClusterRole//grove-scheduler", "ClusterRole//system:kube-scheduler", "ClusterRole//system:volume-scheduler",
				"Role/" + tc.namespace + "/grove-scheduler-leader-election", "Role/kube-system/extension-apiserver-authentication-reader",
			}
			if got := BoundRoles(objs, tc.namespace, "grove-scheduler"); strings.Join(got, ",") != strings.Join(wantScheduler, ",") {
				t.Errorf("roles bound to grove-scheduler = %v, want %v", got, wantScheduler)
			}
			sched, ok := Find(objs, "ClusterRole", "", "grove-scheduler")
			if !ok {
				t.Fatal("no ClusterRole grove-scheduler")
			}
			pluginNeeds := []Permission{
				{Group: "scheduler.grove.io", Resource: "podgangs", Verb: "get"},
				{Group: "scheduler.grove.io", Resource: "podgangs", Verb: "list"},
				{Group: "scheduler.grove.io", Resource: "podgangs", Verb: "watch"},
				{Group: "scheduler.grove.io", Resource: "podgangs/status", Verb: "update"},
				{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "list"},
				{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "watch"},
				{Group: "", Resource: "pods", Verb: "delete"},
				{Group: "events.k8s.io", Resource: "events", Verb: "create"},
			}
			if _, missing := Diff(Expand(sched.Rules), pluginNeeds); len(missing) > 0 {
				t.Errorf("ClusterRole grove-scheduler lacks what the GroveGang plugin needs: %v", missing)
			}
		})
	}
}

// TestMNNVLRBAC: the operator's ClusterRole may touch ComputeDomains only
// with operator.config.network.autoMNNVLEnabled, and then exactly as the
// markers of operator/internal/mnnvl say.
func TestMNNVLRBAC(t *testing.T) {
	root := repoRoot(t)
	m := markerRules(t, root)
	var wantMNNVL []Permission
	for _, v := range []string{"create", "delete", "get", "list", "patch", "watch"} {
		wantMNNVL = append(wantMNNVL, Permission{Group: "resource.nvidia.com", Resource: "computedomains", Verb: v})
	}
	for _, tc := range []struct {
		name    string
		set     []string
		enabled bool
	}{
		{name: "default values"},
		{name: "disabled", set: []string{"operator.config.network.autoMNNVLEnabled=false"}},
		{name: "enabled", set: []string{"operator.config.network.autoMNNVLEnabled=true"}, enabled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr, ok := Find(render(t, root, "grove-system", tc.set...), "ClusterRole", "", "grove:system:grove-operator")
			if !ok {
				t.Fatal("no ClusterRole grove:system:grove-operator")
			}
			got := Expand(cr.Rules)
			want := append([]rbacv1.PolicyRule{}, m.cluster...)
			var wantNVIDIA []Permission
			if tc.enabled {
				want = append(want, m.mnnvl...)
				wantNVIDIA = wantMNNVL
			}
			if extra, missing := Diff(got, Expand(want)); len(extra)+len(missing) > 0 {
				t.Errorf("operator ClusterRole differs from its markers (run make generate): not from markers %v, missing %v", extra, missing)
			}
			var nvidia []Permission
			for _, p := range got {
				if p.Group == "resource.nvidia.com" {
					nvidia = append(nvidia, p)
				}
			}
			if extra, missing := Diff(nvidia, wantNVIDIA); len(extra)+len(missing) > 0 {
				t.Errorf("resource.nvidia.com permissions not needed %v, missing %v", extra, missing)
			}
		})
	}
}

// TestBackendRBACPerProfile: the operator's ClusterRole holds the rules for a
// scheduler backend's objects only when the values enable its profile, and
// then exactly the verbs the backend uses on exactly its resources.
func TestBackendRBACPerProfile(t *testing.T) {
	root := repoRoot(t)
	m := markerRules(t, root)
	verbs := []string{"create", "delete", "get", "list", "update", "watch"}
	needs := func(group string, resources ...string) []Permission {
		var out []Permission
		for _, r := range resources {
			for _, v := range verbs {
				out = append(out, Permission{Group: group, Resource: r, Verb: v})
			}
		}
		return out
	}
	// What each backend writes and watches: its scheduler's objects, in a
	// group the rest of the operator never touches.
	backends := []struct {
		profile string
		groups  []string
		needs   []Permission
	}{
		{"default-scheduler", []string{"scheduling.k8s.io"}, needs("scheduling.k8s.io", "podgroups", "workloads")},
		{"scheduler-plugins-scheduler", []string{"scheduling.x-k8s.io"}, needs("scheduling.x-k8s.io", "podgroups")},
		{"volcano", []string{"scheduling.volcano.sh"}, needs("scheduling.volcano.sh", "podgroups")},
		// KAI's PodGroups, and reading the KAI Topology they name.
		{"kai-scheduler", []string{"scheduling.run.ai", "kai.scheduler"},
			append(needs("scheduling.run.ai", "podgroups"), Permission{Group: "kai.scheduler", Resource: "topologies", Verb: "get"})},
	}
	if len(m.backends) != len(backends) {
		t.Fatalf("hack/generate.sh BACKEND_RBAC has profiles %v; this test knows %d backends", m.backends, len(backends))
	}
	profiles := func(entries ...string) string {
		return `json:operator.config.scheduler.profiles=[{"name":"grove-scheduler"}` + strings.Join(append([]string{""}, entries...), ",") + `]`
	}
	const gang = `{"name":"default-scheduler","config":{"gangScheduling":true}}`
	for _, tc := range []struct {
		name    string
		set     []string
		enabled []string
	}{
		{name: "default values (grove-scheduler, default-scheduler without gangScheduling)"},
		{name: "no profiles", set: []string{"json:operator.config.scheduler.profiles=[]", "operator.config.scheduler.defaultProfileName=default-scheduler"}},
		{name: "default-scheduler without gangScheduling", set: []string{profiles(`{"name":"default-scheduler","config":{"gangScheduling":false}}`)}},
		{name: "default-scheduler with gangScheduling", set: []string{profiles(gang)}, enabled: []string{"default-scheduler"}},
		{name: "scheduler-plugins-scheduler", set: []string{profiles(`{"name":"scheduler-plugins-scheduler","config":{"scheduleTimeoutSeconds":60}}`)}, enabled: []string{"scheduler-plugins-scheduler"}},
		{name: "volcano", set: []string{profiles(`{"name":"volcano"}`)}, enabled: []string{"volcano"}},
		{name: "kai-scheduler", set: []string{profiles(`{"name":"kai-scheduler","config":{"defaultQueue":"inference"}}`)}, enabled: []string{"kai-scheduler"}},
		{name: "every backend", set: []string{profiles(gang, `{"name":"scheduler-plugins-scheduler"}`, `{"name":"volcano"}`, `{"name":"kai-scheduler"}`)},
			enabled: []string{"default-scheduler", "scheduler-plugins-scheduler", "volcano", "kai-scheduler"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, root, "grove-system", tc.set...)
			cr, ok := Find(objs, "ClusterRole", "", "grove:system:grove-operator")
			if !ok {
				t.Fatal("no ClusterRole grove:system:grove-operator")
			}
			got := Expand(cr.Rules)
			want := append([]rbacv1.PolicyRule{}, m.cluster...)
			for _, p := range tc.enabled {
				want = append(want, m.backends[p]...)
			}
			if extra, missing := Diff(got, Expand(want)); len(extra)+len(missing) > 0 {
				t.Errorf("operator ClusterRole differs from its markers for profiles %v (run make generate): not from markers %v, missing %v", tc.enabled, extra, missing)
			}
			for _, b := range backends {
				var inGroup []Permission
				for _, p := range got {
					if slices.Contains(b.groups, p.Group) {
						inGroup = append(inGroup, p)
					}
				}
				want := []Permission(nil)
				if slices.Contains(tc.enabled, b.profile) {
					want = b.needs
				}
				if extra, missing := Diff(inGroup, want); len(extra)+len(missing) > 0 {
					t.Errorf("%s (profile %s enabled: %v): permissions in groups %v not needed %v, missing %v",
						b.profile, b.profile, slices.Contains(tc.enabled, b.profile), b.groups, extra, missing)
				}
			}
		})
	}
}

// TestChecksCatchBadRules shows each check fails on the rules it exists for.
func TestChecksCatchBadRules(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rules         []rbacv1.PolicyRule
		wildcards     int
		secretReads   int
		notFromMarker []string
	}{
		{name: "wildcard verb", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"*"}}},
			wildcards: 1, notFromMarker: []string{"* pods"}},
		{name: "wildcard group and resource", rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get"}}},
			wildcards: 2, notFromMarker: []string{"get *.*"}},
		{name: "cluster-wide secret get, list and watch", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "get", "list", "watch"}}},
			secretReads: 3, notFromMarker: []string{"get secrets", "list secrets", "watch secrets"}},
		{name: "a permission no marker produces", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"delete"}}},
			notFromMarker: []string{"delete nodes"}},
		{name: "what the markers produce", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}, {APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			markers := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}, {APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}}}
			if got := Wildcards(tc.rules); len(got) != tc.wildcards {
				t.Errorf("Wildcards = %v, want %d", got, tc.wildcards)
			}
			if got := SecretReads(tc.rules); len(got) != tc.secretReads {
				t.Errorf("SecretReads = %v, want %d", got, tc.secretReads)
			}
			extra, _ := Diff(Expand(tc.rules), Expand(markers))
			var got []string
			for _, p := range extra {
				got = append(got, p.String())
			}
			if strings.Join(got, ",") != strings.Join(tc.notFromMarker, ",") {
				t.Errorf("permissions not from markers = %v, want %v", got, tc.notFromMarker)
			}
		})
	}
}
