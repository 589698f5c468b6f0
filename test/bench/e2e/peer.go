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

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The peer: LeaderWorkerSet (sigs.k8s.io/lws), whose controller manager
// test/bench/lws/peer.sh builds from the Go module proxy and runs as a local
// process against the benchmark's cluster. Its pods are placed by the
// cluster's kube-scheduler; LWS gang-schedules nothing.
const (
	peerLWS = "lws"
	// lwsProcess is the pid file name peer.sh records the controller under.
	lwsProcess = "lws-controller-manager"
)

var lwsGVK = schema.GroupVersionKind{Group: "leaderworkerset.x-k8s.io", Version: "v1", Kind: "LeaderWorkerSet"}

// peerCommand runs peer.sh VERB (install, start or stop) for the benchmark's
// cluster, its output on stderr.
func peerCommand(o options, verb string) error {
	cmd := exec.Command(o.peerScript, verb)
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+o.clusterDir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", o.peerScript, verb, err)
	}
	return nil
}

// leaderWorkerSets builds the peer's objects: the same R groups of P pods as
// Grove's run (leader and P-1 workers from one template, the benchmark's pod
// spec), spread evenly over S LeaderWorkerSets.
func leaderWorkerSets(o options) func(ns string) ([]client.Object, error) {
	return func(ns string) ([]client.Object, error) {
		template, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.PodTemplateSpec{Spec: podSpec()})
		if err != nil {
			return nil, fmt.Errorf("converting the pod template: %w", err)
		}
		sets := make([]client.Object, o.sets)
		for i := range sets {
			lws := &unstructured.Unstructured{Object: map[string]any{
				"spec": map[string]any{
					"replicas": int64(o.replicas / o.sets),
					"leaderWorkerTemplate": map[string]any{
						"size":           int64(o.pods),
						"workerTemplate": runtime.DeepCopyJSON(template),
					},
				},
			}}
			lws.SetGroupVersionKind(lwsGVK)
			lws.SetNamespace(ns)
			lws.SetName(setName(o, i))
			sets[i] = lws
		}
		return sets, nil
	}
}

// measureLWS starts LWS's controller manager, creates and deletes the
// LeaderWorkerSets, reports their times and the processes' CPU seconds, and
// stops the controller; it returns the times and the CPU seconds of all
// processes, create to deleted.
func measureLWS(ctx context.Context, o options, cfg *rest.Config, c client.Client, raw phaseTimes) (t phaseTimes, cpu float64, err error) {
	total := o.replicas * o.pods
	if err := peerCommand(o, "start"); err != nil {
		return t, 0, err
	}
	defer func() {
		if stopErr := peerCommand(o, "stop"); stopErr != nil && err == nil {
			err = stopErr
		}
	}()
	cpuBefore := readProcesses(o.clusterDir)
	start := time.Now()
	t, err = workloadRun(ctx, cfg, c, "bench-lws-", total, false, leaderWorkerSets(o), func(t phaseTimes) {
		fmt.Printf("\nLeaderWorkerSet: all pods Running; load average %s\n\n", loadAverage())
		fmt.Println("| pods | raw loop: Running | LWS: pods exist | bound | Running | LWS / raw |")
		fmt.Println("|---|---|---|---|---|---|")
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", shapeOf(o, total),
			secs(raw.running), secs(t.exist), secs(t.bound), secs(t.running), ratio(t.running, raw.running))
		reportProcesses("LWS create to all Running", cpuBefore, readProcesses(o.clusterDir))
		reportNodeLifecycle(ctx, c, start)
	})
	if err != nil {
		return t, 0, fmt.Errorf("lws: %w", err)
	}
	cpuAfter := readProcesses(o.clusterDir)
	fmt.Printf("\nLeaderWorkerSet: all pods gone; load average %s\n\n", loadAverage())
	fmt.Printf("| pods | raw delete | LWS delete |\n|---|---|---|\n| %s | %s | %s |\n", shapeOf(o, total), secs(raw.deleted), secs(t.deleted))
	reportProcesses("LWS create to deleted", cpuBefore, cpuAfter)
	reportNodeLifecycle(ctx, c, start)
	return t, cpuTotal(cpuBefore, cpuAfter), nil
}
