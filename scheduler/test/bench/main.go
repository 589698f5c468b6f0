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

// Command bench measures scheduling throughput in one run, on the same fake
// nodes of one envtest kube-apiserver: (a) plain pods, stock kube-scheduler
// v1.37 (default profile, in-process) against grove-scheduler; (b) 5-pod
// gangs, grove-scheduler against stock kube-scheduler v1.37.2's own gang
// scheduling (the bin/k8s-v1.37.2/kube-scheduler binary with GenericWorkload,
// the gangs written as Workloads and PodGroups by the operator's
// default-scheduler backend), and against stock kube-scheduler scheduling the
// same pods without gang semantics. Pods, PodGangs (and Workloads) are created
// before the scheduler starts, and the clock runs from the scheduler's
// informers being synced (the binary's /readyz) to the last pod bound, so every
// scheduler is timed on scheduling alone. All use the same client QPS/burst.
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
	// maxInflight, when > 0, overloads kube-apiserver (its
	// --max-requests-inflight, and half of it for mutating requests) and runs
	// the overload case: the gangs on grove-scheduler with kube-scheduler's
	// DefaultBinder and with GroveGang's binder.
	maxInflight int
	// requestTimeout, when > 0, is kube-apiserver's --request-timeout in the
	// overload case: a request it has not answered by then fails with a
	// timeout, as on the overloaded machine where binds failed so.
	requestTimeout time.Duration
}

// The schedulers a scenario runs: stock kube-scheduler in-process (pods one
// by one), stock kube-scheduler's Workload API gang scheduling (binary) and
// grove-scheduler.
const (
	kubeScheduler         = "kube-scheduler"
	kubeSchedulerWorkload = "kube-scheduler-workload"
	groveScheduler        = "grove-scheduler"
	// groveDefaultBinder is grove-scheduler binding gang pods with
	// kube-scheduler's DefaultBinder instead of its own binder.
	groveDefaultBinder = "grove-scheduler-defaultbinder"
)

type result struct {
	scenario, scheduler string
	pods, bound         int
	elapsed             time.Duration
}

func (r result) rate() float64 { return float64(r.bound) / r.elapsed.Seconds() }

// String is the result's line, saying when not every pod was bound.
func (r result) String() string {
	s := fmt.Sprintf("%-6s %-24s %5d pods in %7s = %7.1f pods/s", r.scenario, r.scheduler, r.bound, r.elapsed.Round(time.Millisecond), r.rate())
	if r.bound < r.pods {
		s += fmt.Sprintf(" (only %d of %d bound: timed out)", r.bound, r.pods)
	}
	return s
}

func main() {
	var c config
	var qps float64
	var burst int
	flag.IntVar(&c.nodes, "nodes", 500, "fake nodes")
	flag.IntVar(&c.plainPods, "plain-pods", 5000, "pods in the plain scenario")
	flag.IntVar(&c.gangs, "gangs", 1000, "gangs in the gang scenario")
	flag.IntVar(&c.gangSize, "gang-size", 5, "pods per gang")
	flag.Float64Var(&qps, "qps", 500, "scheduler client QPS (every scheduler)")
	flag.IntVar(&burst, "burst", 1000, "scheduler client burst (every scheduler)")
	flag.StringVar(&c.cpuProfile, "cpuprofile-dir", "", "write a CPU profile of each timed in-process run into this directory")
	flag.DurationVar(&c.requestTimeout, "apiserver-request-timeout", 0, "overload case: kube-apiserver's --request-timeout")
	flag.IntVar(&c.maxInflight, "apiserver-max-inflight", 0, "overload case: kube-apiserver's --max-requests-inflight (half for mutating requests); runs only the gangs on grove-scheduler with DefaultBinder and with its own binder")
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
	var flags []string
	if c.maxInflight > 0 {
		flags = []string{"max-requests-inflight", fmt.Sprint(c.maxInflight), "max-mutating-requests-inflight", fmt.Sprint(max(c.maxInflight/2, 1))}
		if c.requestTimeout > 0 {
			flags = append(flags, "request-timeout", c.requestTimeout.String())
		}
	}
	cp, err := harness.StartWorkloadAPIControlPlane(flags...)
	for try := 1; err != nil && c.maxInflight > 0 && try < 3; try++ {
		// The overloaded server may time out installing the CRDs themselves.
		fmt.Fprintln(os.Stderr, "bench-scheduler: starting the overloaded control plane again:", err)
		cp, err = harness.StartWorkloadAPIControlPlane(flags...)
	}
	if err != nil {
		return err
	}
	defer cp.Stop()
	cfg, kubeconfig, dir := cp.Config, cp.Kubeconfig, cp.Dir
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

	r := runner{c: c, cfg: cfg, kube: kube, grove: grove, kubeconfig: kubeconfig, dir: dir}
	results := map[string]result{}
	type run struct{ scenario, scheduler string }
	runs := []run{
		{"plain", kubeScheduler}, {"plain", groveScheduler},
		{"gangs", kubeScheduler}, {"gangs", kubeSchedulerWorkload}, {"gangs", groveScheduler},
	}
	if c.maxInflight > 0 {
		// GroveGang's binder first: the pods it leaves bound add no work to
		// the second run, and nothing is deleted in between (deleting 2000
		// pods outlasted the run on the overloaded server).
		runs = []run{{"gangs", groveScheduler}, {"gangs", groveDefaultBinder}}
	}
	for i, run := range runs {
		// The last run's pods are left to the control plane's teardown.
		res, err := r.runOne(ctx, run.scenario, run.scheduler, c.maxInflight == 0 && i < len(runs)-1)
		if err != nil {
			return err
		}
		results[run.scenario+"/"+run.scheduler] = res
	}
	plain, gangs := func(s string) result { return results["plain/"+s] }, func(s string) result { return results["gangs/"+s] }
	if c.maxInflight > 0 {
		before, after := gangs(groveDefaultBinder), gangs(groveScheduler)
		fmt.Printf("\noverload %dx%d, apiserver max inflight %d, request timeout %s: grove %d/%d pods bound, %.0f pods/s; with DefaultBinder %d/%d, %.0f pods/s; ratio %.2f\n",
			c.gangs, c.gangSize, c.maxInflight, c.requestTimeout, after.bound, after.pods, after.rate(), before.bound, before.pods, before.rate(), after.rate()/before.rate())
		return nil
	}
	fmt.Println()
	fmt.Println("| Scenario | Nodes | Pods | stock kube-scheduler pods/s (no gangs) | kube-scheduler-workload pods/s | grove-scheduler pods/s | grove / workload | grove / stock | target |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	fmt.Printf("| (a) plain pods | %d | %d | %.0f | — | %.0f | — | %.2f× | ≥ 0.95× stock |\n", c.nodes, c.plainPods,
		plain(kubeScheduler).rate(), plain(groveScheduler).rate(), plain(groveScheduler).rate()/plain(kubeScheduler).rate())
	fmt.Printf("| (b) %d gangs × %d pods | %d | %d | %.0f | %.0f | %.0f | %.2f× | %.2f× | ≥ 1.0× workload |\n", c.gangs, c.gangSize, c.nodes, c.gangs*c.gangSize,
		gangs(kubeScheduler).rate(), gangs(kubeSchedulerWorkload).rate(), gangs(groveScheduler).rate(),
		gangs(groveScheduler).rate()/gangs(kubeSchedulerWorkload).rate(), gangs(groveScheduler).rate()/gangs(kubeScheduler).rate())
	fmt.Println()
	fmt.Printf("plain %d: grove %.0f pods/s, kube-scheduler %.0f pods/s, ratio %.2f\n", c.plainPods,
		plain(groveScheduler).rate(), plain(kubeScheduler).rate(), plain(groveScheduler).rate()/plain(kubeScheduler).rate())
	fmt.Printf("gangs %dx%d: grove %.0f pods/s, kube-scheduler-workload %.0f pods/s, ratio %.2f\n", c.gangs, c.gangSize,
		gangs(groveScheduler).rate(), gangs(kubeSchedulerWorkload).rate(), gangs(groveScheduler).rate()/gangs(kubeSchedulerWorkload).rate())
	return nil
}

type runner struct {
	c               config
	cfg             *rest.Config
	kube            kubernetes.Interface
	grove           groveclient.Interface
	kubeconfig, dir string
}

// runOne creates the scenario's pods in a fresh namespace, starts one
// scheduler, times it until every pod is bound (or 5 minutes pass), prints
// the result, then stops it and, with cleanup, frees the nodes.
func (r runner) runOne(ctx context.Context, scenario, scheduler string, cleanup bool) (result, error) {
	c := r.c
	ns := fmt.Sprintf("%s-%s", scenario, scheduler)
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return result{}, err
	}
	schedulerName := "default-scheduler"
	grove := scheduler == groveScheduler || scheduler == groveDefaultBinder
	if grove {
		schedulerName = groveScheduler
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
	if scheduler == kubeSchedulerWorkload {
		harness.JoinPodGroups(pods)
	}
	createStart := time.Now()
	if err := harness.CreateAll(ctx, r.kube, r.grove, gangs, pods); err != nil {
		return result{}, err
	}
	fmt.Printf("created %d pods and %d PodGangs in %s\n", len(pods), len(gangs), time.Since(createStart).Round(time.Millisecond))
	if scheduler == kubeSchedulerWorkload {
		out, err := harness.TranslateGangs(ctx, r.kubeconfig, ns, false)
		if err != nil {
			return result{}, err
		}
		fmt.Println(out)
	}

	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	bindings, err := harness.WatchBindings(watchCtx, r.kube, ns, len(pods))
	if err != nil {
		return result{}, err
	}

	schedCtx, stopScheduler := context.WithCancel(ctx)
	defer stopScheduler()
	stop := stopScheduler
	if scheduler == kubeSchedulerWorkload {
		ks, err := harness.StartKubeScheduler(schedCtx, r.kubeconfig, r.dir, c.qps, c.burst)
		if err != nil {
			return result{}, err
		}
		stop = ks.Stop
	} else if err := harness.RunScheduler(schedCtx, r.cfg, harness.Options{Grove: grove, DefaultBinder: scheduler == groveDefaultBinder, QPS: c.qps, Burst: c.burst}); err != nil {
		return result{}, err
	}
	stopProfile, err := startProfile(c.cpuProfile, scenario+"-"+scheduler, scheduler != kubeSchedulerWorkload)
	if err != nil {
		stop()
		return result{}, err
	}
	begin := time.Now()
	select {
	case <-bindings.Done():
	case <-time.After(5 * time.Minute):
	}
	res := result{scenario: scenario, scheduler: scheduler, pods: len(pods), bound: bindings.Count(), elapsed: time.Since(begin)}
	fmt.Println(res)
	stopProfile()
	stop()

	if !cleanup {
		return res, nil
	}
	if err := harness.DeletePods(ctx, r.kube, ns); err != nil {
		return result{}, err
	}
	return res, nil
}

// startProfile starts a CPU profile into dir/name.pprof and returns its stop
// function; with no dir, or for a scheduler in another process, it does
// nothing.
func startProfile(dir, name string, inProcess bool) (func(), error) {
	if dir == "" || !inProcess {
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
