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

// Command bench measures scheduling throughput of stock kube-scheduler v1.37
// (default profile, no Grove plugins) and grove-scheduler in one run, on the
// same fake nodes of one envtest kube-apiserver: (a) plain pods and (b) 5-pod
// gangs. Pods (and PodGangs) are created before the scheduler starts, and the
// clock runs from the scheduler's informers being synced to the last pod
// bound, so both schedulers are timed on scheduling alone. Both use the same
// client QPS/burst so the comparison isolates the plugin's cost.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/test/harness"
)

type config struct {
	nodes, plainPods, gangs, gangSize int
	qps                               float32
	burst                             int32
	// cpuProfile, when set, is the directory that gets a CPU profile of
	// every timed run (<scenario>-<scheduler>.pprof).
	cpuProfile string
}

type result struct {
	scenario, scheduler string
	pods                int
	elapsed             time.Duration
}

func (r result) rate() float64 { return float64(r.pods) / r.elapsed.Seconds() }

func main() {
	var c config
	var qps float64
	var burst int
	flag.IntVar(&c.nodes, "nodes", 500, "fake nodes")
	flag.IntVar(&c.plainPods, "plain-pods", 5000, "pods in the plain scenario")
	flag.IntVar(&c.gangs, "gangs", 1000, "gangs in the gang scenario")
	flag.IntVar(&c.gangSize, "gang-size", 5, "pods per gang")
	flag.Float64Var(&qps, "qps", 500, "scheduler client QPS (both schedulers)")
	flag.IntVar(&burst, "burst", 1000, "scheduler client burst (both schedulers)")
	flag.StringVar(&c.cpuProfile, "cpuprofile-dir", "", "write a CPU profile of each timed run into this directory")
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("v", "0")
	flag.Parse()
	c.qps, c.burst = float32(qps), int32(burst)
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scheduler:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	env, cfg, err := harness.StartControlPlane()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(cfg)
	grove := groveclient.NewForConfigOrDie(cfg)

	start := time.Now()
	if _, err := harness.CreateNodes(ctx, kube, harness.NodeSpec{
		Prefix: "bench", Count: c.nodes,
		Capacity: harness.Resources("cpu", "32", "memory", "128Gi", "pods", "110"),
	}); err != nil {
		return err
	}
	fmt.Printf("created %d nodes in %s\n", c.nodes, time.Since(start).Round(time.Millisecond))

	var results []result
	for _, scenario := range []string{"plain", "gangs"} {
		for _, grovePlugins := range []bool{false, true} {
			r, err := runOne(ctx, cfg, kube, grove, c, scenario, grovePlugins)
			if err != nil {
				return err
			}
			fmt.Printf("%-6s %-16s %5d pods in %7s = %7.1f pods/s\n", r.scenario, r.scheduler, r.pods, r.elapsed.Round(time.Millisecond), r.rate())
			results = append(results, r)
		}
	}
	fmt.Println()
	fmt.Printf("| Scenario | Nodes | Pods | stock kube-scheduler pods/s | grove-scheduler pods/s | ratio | target |\n|---|---|---|---|---|---|---|\n")
	targets := map[string]string{"plain": "≥ 0.9×", "gangs": "≥ 0.7×"}
	names := map[string]string{"plain": "(a) plain pods", "gangs": fmt.Sprintf("(b) %d gangs × %d pods", c.gangs, c.gangSize)}
	for i := 0; i+1 < len(results); i += 2 {
		stock, g := results[i], results[i+1]
		fmt.Printf("| %s | %d | %d | %.0f | %.0f | %.2f× | %s |\n", names[stock.scenario], c.nodes, stock.pods, stock.rate(), g.rate(), g.rate()/stock.rate(), targets[stock.scenario])
	}
	return nil
}

// runOne creates the scenario's pods in a fresh namespace, starts one
// scheduler, times it until every pod is bound, then stops it and frees the nodes.
func runOne(ctx context.Context, cfg *rest.Config, kube kubernetes.Interface, grove groveclient.Interface, c config, scenario string, grovePlugins bool) (result, error) {
	schedulerName := "default-scheduler"
	if grovePlugins {
		schedulerName = "grove-scheduler"
	}
	ns := fmt.Sprintf("%s-%s", scenario, schedulerName)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return result{}, err
	}
	var pods []*corev1.Pod
	var gangs []*groveschedulerv1alpha1.PodGang
	if scenario == "plain" {
		for i := 0; i < c.plainPods; i++ {
			pods = append(pods, harness.NewPod(harness.PodSpec{Namespace: ns, Name: fmt.Sprintf("pod-%d", i), SchedulerName: schedulerName,
				Requests: harness.Resources("cpu", "100m", "memory", "128Mi")}))
		}
	} else {
		for g := 0; g < c.gangs; g++ {
			pg, gangPods := harness.Gang(ns, fmt.Sprintf("gang-%d", g), schedulerName, c.gangSize, harness.Resources("cpu", "100m", "memory", "128Mi"))
			gangs = append(gangs, pg)
			pods = append(pods, gangPods...)
		}
	}
	createStart := time.Now()
	if err := harness.CreateAll(ctx, kube, grove, gangs, pods); err != nil {
		return result{}, err
	}
	fmt.Printf("created %d pods and %d PodGangs in %s\n", len(pods), len(gangs), time.Since(createStart).Round(time.Millisecond))

	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	bindings, err := harness.WatchBindings(watchCtx, kube, ns, len(pods))
	if err != nil {
		return result{}, err
	}

	schedCtx, stopScheduler := context.WithCancel(ctx)
	if err := harness.RunScheduler(schedCtx, cfg, harness.Options{Grove: grovePlugins, QPS: c.qps, Burst: c.burst}); err != nil {
		stopScheduler()
		return result{}, err
	}
	stopProfile, err := startProfile(c.cpuProfile, scenario+"-"+schedulerName)
	if err != nil {
		stopScheduler()
		return result{}, err
	}
	begin := time.Now()
	select {
	case <-bindings.Done():
	case <-time.After(5 * time.Minute):
		stopProfile()
		stopScheduler()
		return result{}, fmt.Errorf("%s/%s: only %d of %d pods bound after 5 minutes", scenario, schedulerName, bindings.Count(), len(pods))
	}
	elapsed := time.Since(begin)
	stopProfile()
	stopScheduler()

	if err := harness.DeletePods(ctx, kube, ns); err != nil {
		return result{}, err
	}
	return result{scenario: scenario, scheduler: map[bool]string{false: "kube-scheduler", true: "grove-scheduler"}[grovePlugins], pods: len(pods), elapsed: elapsed}, nil
}

// startProfile starts a CPU profile into dir/name.pprof and returns its stop
// function; with no dir it does nothing.
func startProfile(dir, name string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return nil, fmt.Errorf("creating CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("starting CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
