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
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// DumpDiagnostics writes the Grove objects, pods, Services, HPAs and events of
// namespaces, the nodes and a copy of every component log into dir, and
// prints a summary (PodCliques, PodGangs, pods with node and gates, last
// events, tails of Grove's logs) to w.
func (l *Local) DumpDiagnostics(ctx context.Context, dir string, namespaces []string, w io.Writer) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(w, "creating %s: %v\n", dir, err)
	}
	fmt.Fprintf(w, "\n===== diagnostics in %s\n", dir)
	for _, ns := range namespaces {
		l.dumpNamespace(ctx, dir, ns, w)
	}
	nodes := &corev1.NodeList{}
	if err := l.Client.List(ctx, nodes); err == nil {
		writeYAML(w, filepath.Join(dir, "nodes.yaml"), nodes)
	} else {
		fmt.Fprintf(w, "listing nodes: %v\n", err)
	}
	// Every log is copied; the summary shows the tails of Grove's own components.
	printed := map[Component]int{GroveOperator: 100, GroveScheduler: 60, KubeControllerManager: 20}
	for _, c := range []Component{GroveOperator, GroveScheduler, KubeControllerManager, KubeAPIServer, Kwok, Etcd} {
		data, err := os.ReadFile(filepath.Join(l.Dir, "logs", string(c)+".log"))
		if err != nil {
			continue
		}
		_ = os.WriteFile(filepath.Join(dir, string(c)+".log"), data, 0o644)
		if lines, ok := printed[c]; ok {
			all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			fmt.Fprintf(w, "--- last %d lines of %s.log\n%s\n", lines, c, strings.Join(all[max(0, len(all)-lines):], "\n"))
		}
	}
}

func (l *Local) dumpNamespace(ctx context.Context, dir, ns string, w io.Writer) {
	pcss := &grovecorev1alpha1.PodCliqueSetList{}
	pcsgs := &grovecorev1alpha1.PodCliqueScalingGroupList{}
	pclqs := &grovecorev1alpha1.PodCliqueList{}
	gangs := &groveschedulerv1alpha1.PodGangList{}
	pods := &corev1.PodList{}
	events := &corev1.EventList{}
	lists := map[string]client.ObjectList{
		"podcliquesets": pcss, "podcliquescalinggroups": pcsgs, "podcliques": pclqs, "podgangs": gangs, "pods": pods,
		"services": &corev1.ServiceList{}, "horizontalpodautoscalers": &autoscalingv2.HorizontalPodAutoscalerList{}, "events": events,
	}
	for kind, list := range lists {
		if err := l.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			fmt.Fprintf(w, "listing %s in %s: %v\n", kind, ns, err)
			continue
		}
		writeYAML(w, filepath.Join(dir, ns+"-"+kind+".yaml"), list)
	}
	fmt.Fprintf(w, "--- PodCliques in %s (replicas, ready/scheduled/gated, last errors)\n", ns)
	for _, q := range pclqs.Items {
		fmt.Fprintf(w, "%-50s %d %d/%d/%d %v\n", q.Name, q.Spec.Replicas, q.Status.ReadyReplicas,
			q.Status.ScheduledReplicas, q.Status.ScheduleGatedReplicas, q.Status.LastErrors)
	}
	fmt.Fprintf(w, "--- PodGangs in %s (phase, conditions)\n", ns)
	for _, pg := range gangs.Items {
		var conds []string
		for _, c := range pg.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
		}
		fmt.Fprintf(w, "%-40s %-9s %v\n", pg.Name, pg.Status.Phase, conds)
	}
	fmt.Fprintf(w, "--- pods in %s (phase, node, gates, index, deleting)\n", ns)
	for _, p := range pods.Items {
		idx, _ := podIndex(&p)
		fmt.Fprintf(w, "%-50s %-10s node=%-15s gates=%v index=%d deleting=%v\n", p.Name, p.Status.Phase, p.Spec.NodeName,
			gateNames(&p), idx, p.DeletionTimestamp != nil)
	}
	sort.Slice(events.Items, func(i, j int) bool { return EventLastSeen(events.Items[i]).Before(EventLastSeen(events.Items[j])) })
	fmt.Fprintf(w, "--- last events in %s\n", ns)
	for _, e := range events.Items[max(0, len(events.Items)-40):] {
		fmt.Fprintf(w, "%s %s/%s %s: %s\n", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
	}
}

func writeYAML(w io.Writer, path string, obj any) {
	data, err := yaml.Marshal(obj)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(w, "writing %s: %v\n", path, err)
	}
}

// DirName turns a free text (a spec or round name) into a directory name.
func DirName(s string) string {
	s = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(s, "_")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// EventLastSeen is when an event was last observed. Events written through
// events.k8s.io/v1 (grove-operator and grove-scheduler) carry eventTime and a
// series, core/v1 ones (kube-controller-manager, leader election) lastTimestamp.
func EventLastSeen(e corev1.Event) time.Time {
	t := e.LastTimestamp.Time
	if e.Series != nil && e.Series.LastObservedTime.After(t) {
		t = e.Series.LastObservedTime.Time
	}
	if e.EventTime.After(t) {
		t = e.EventTime.Time
	}
	return t
}
