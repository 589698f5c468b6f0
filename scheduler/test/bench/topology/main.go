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

// Command topology measures topology-aware placement on the Node objects of
// one envtest kube-apiserver, labelled with blocks, racks and hosts:
// (a) one large gang with a required block, timed from the moment the
// scheduler starts with the PodGang complete and every pod created to the
// last pod bound; (b) many small gangs without a constraint, with a required
// rack and with a preferred rack, with pods/s and the share of gangs whose
// pods all landed in one rack. Each scenario runs grove-scheduler and stock
// kube-scheduler v1.37.2's own gang scheduling (the binary, with
// GenericWorkload and TopologyAwareWorkloadScheduling; the gangs written as
// Workloads and PodGroups by the operator's default-scheduler backend) in
// the same run, with the same client QPS/burst. The Workload API has no
// preferred placement, so the preferred scenario runs grove-scheduler only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/test/harness"
)

const (
	blockKey = "example.com/block"
	rackKey  = "example.com/rack"
)

type config struct {
	nodes, hostsPerRack, racksPerBlock int
	bigGang                            int
	gangs, gangSize                    int
}

// scenario is one timed run: gangs of size pods each, requesting cpu, packed by pack.
type scenario struct {
	// name labels the table row, summary the summary line.
	name, summary string
	gangs, size   int
	cpu           string
	pack          *groveschedulerv1alpha1.TopologyPackConstraint
}

// outcome is what a run measured.
type outcome struct {
	elapsed     time.Duration
	pods, bound int
	// inOneRack and inOneBlock count the gangs whose pods share a rack (block).
	inOneRack, inOneBlock int
}

func (o outcome) rate() float64 { return float64(o.bound) / o.elapsed.Seconds() }

// timing is how long the run took, saying when not every pod was bound.
func (o outcome) timing() string {
	if o.bound < o.pods {
		return fmt.Sprintf("%d of %d pods bound after %s (timed out)", o.bound, o.pods, o.elapsed.Round(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", o.elapsed.Seconds())
}

func (o outcome) String() string {
	return fmt.Sprintf("%s, %.0f pods/s, %d gangs in one rack, %d in one block", o.timing(), o.rate(), o.inOneRack, o.inOneBlock)
}

func main() {
	var c config
	flag.IntVar(&c.nodes, "nodes", 1000, "fake nodes")
	flag.IntVar(&c.hostsPerRack, "hosts-per-rack", 25, "nodes per rack")
	flag.IntVar(&c.racksPerBlock, "racks-per-block", 10, "racks per block")
	flag.IntVar(&c.bigGang, "big-gang", 512, "pods of the large gang (a); 0 skips it")
	flag.IntVar(&c.gangs, "gangs", 1000, "small gangs of (b); 0 skips them")
	flag.IntVar(&c.gangSize, "gang-size", 8, "pods per small gang")
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("v", "0")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-topology:", err)
		os.Exit(1)
	}
}

// The schedulers a scenario runs.
const (
	groveScheduler        = "grove-scheduler"
	kubeSchedulerWorkload = "kube-scheduler-workload"
)

func run(c config) error {
	cp, err := harness.StartWorkloadAPIControlPlane()
	if err != nil {
		return err
	}
	defer cp.Stop()
	cfg, kubeconfig, dir := cp.Config, cp.Kubeconfig, cp.Dir
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(cfg)
	grove := groveclient.NewForConfigOrDie(cfg)

	rackOf := func(i int) int { return i / c.hostsPerRack }
	blockOf := func(i int) int { return rackOf(i) / c.racksPerBlock }
	start := time.Now()
	if _, err := harness.CreateNodes(ctx, kube, harness.NodeSpec{
		Prefix: "bench", Count: c.nodes,
		Capacity: harness.Resources("cpu", "32", "memory", "128Gi", "pods", "110"),
		Labels: func(i int) map[string]string {
			return map[string]string{rackKey: fmt.Sprintf("rack-%d", rackOf(i)), blockKey: fmt.Sprintf("block-%d", blockOf(i))}
		},
	}); err != nil {
		return err
	}
	fmt.Printf("created %d nodes (%d hosts per rack, %d racks per block) in %s\n", c.nodes, c.hostsPerRack, c.racksPerBlock, time.Since(start).Round(time.Millisecond))
	nodeIndex := func(node string) int {
		i, _ := strconv.Atoi(strings.TrimPrefix(node, "bench-"))
		return i
	}
	place := func(nodes []string) (oneRack, oneBlock bool) {
		racks, blocks := map[int]bool{}, map[int]bool{}
		for _, n := range nodes {
			racks[rackOf(nodeIndex(n))] = true
			blocks[blockOf(nodeIndex(n))] = true
		}
		return len(racks) == 1, len(blocks) == 1
	}

	var runs []scenario
	if c.bigGang > 0 {
		// 10 of 32 CPUs: three pods per host, so the gang needs 171 hosts
		// for 512 pods, more than a rack and less than a block.
		runs = append(runs, scenario{name: fmt.Sprintf("(a) 1 gang × %d pods, required block", c.bigGang), summary: fmt.Sprintf("required block 1x%d", c.bigGang),
			gangs: 1, size: c.bigGang, cpu: "10", pack: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(blockKey)}})
	}
	if c.gangs > 0 {
		label, summary := fmt.Sprintf("(b) %d gangs × %d pods", c.gangs, c.gangSize), fmt.Sprintf("%dx%d", c.gangs, c.gangSize)
		runs = append(runs,
			scenario{name: label + ", no constraint", summary: "no constraint " + summary, gangs: c.gangs, size: c.gangSize, cpu: "100m"},
			scenario{name: label + ", required rack", summary: "required rack " + summary, gangs: c.gangs, size: c.gangSize, cpu: "100m",
				pack: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey)}},
			scenario{name: label + ", preferred rack", summary: "preferred rack " + summary, gangs: c.gangs, size: c.gangSize, cpu: "100m",
				pack: &groveschedulerv1alpha1.TopologyPackConstraint{Preferred: ptr.To(rackKey)}},
		)
	}
	r := runner{cfg: cfg, kube: kube, grove: grove, kubeconfig: kubeconfig, dir: dir, place: place}
	var table, summaries []string
	for i, s := range runs {
		outcomes := map[string]outcome{}
		for _, scheduler := range []string{groveScheduler, kubeSchedulerWorkload} {
			if scheduler == kubeSchedulerWorkload && s.pack != nil && s.pack.Preferred != nil {
				table = append(table, fmt.Sprintf("| %s | %s | %d | — | — | not expressible: the Workload API has required placement only | — | — |", s.name, scheduler, c.nodes))
				continue
			}
			o, err := r.runOne(ctx, s, scheduler, fmt.Sprintf("run-%d-%s", i, scheduler))
			if err != nil {
				return err
			}
			outcomes[scheduler] = o
			fmt.Printf("%s, %s: %s\n", s.name, scheduler, o)
			table = append(table, fmt.Sprintf("| %s | %s | %d | %d | %s | %.0f | %d of %d | %d of %d |", s.name, scheduler, c.nodes, o.bound, o.elapsed.Round(time.Millisecond),
				o.rate(), o.inOneRack, s.gangs, o.inOneBlock, s.gangs))
		}
		summaries = append(summaries, summaryLine(s, outcomes))
	}
	fmt.Println()
	fmt.Println("| Scenario | Scheduler | Nodes | Pods bound | all bound after | pods/s | gangs in one rack | gangs in one block |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	fmt.Println(strings.Join(table, "\n"))
	fmt.Println()
	fmt.Println(strings.Join(summaries, "\n"))
	return nil
}

// summaryLine compares grove-scheduler with kube-scheduler-workload on one
// scenario: time for the single large gang, pods/s for the many small ones;
// the ratio is grove-scheduler's throughput over kube-scheduler-workload's.
func summaryLine(s scenario, outcomes map[string]outcome) string {
	g, gok := outcomes[groveScheduler]
	w, wok := outcomes[kubeSchedulerWorkload]
	switch {
	case !wok:
		return fmt.Sprintf("%s: grove %.0f pods/s, kube-scheduler-workload cannot express it (the Workload API has required placement only)", s.summary, g.rate())
	case !gok:
		return s.summary + ": grove did not run"
	case s.gangs == 1:
		return fmt.Sprintf("%s: grove %s, kube-scheduler-workload %s, ratio %.2f", s.summary, g.timing(), w.timing(), g.rate()/w.rate())
	}
	return fmt.Sprintf("%s: grove %.0f pods/s, kube-scheduler-workload %.0f pods/s, ratio %.2f", s.summary, g.rate(), w.rate(), g.rate()/w.rate())
}

type runner struct {
	cfg             *rest.Config
	kube            kubernetes.Interface
	grove           groveclient.Interface
	kubeconfig, dir string
	place           func(nodes []string) (oneRack, oneBlock bool)
}

// runOne creates the scenario's PodGangs and pods in namespace ns, starts
// the scheduler, times it until every pod is bound (or 5 minutes pass),
// checks where each gang went, then stops the scheduler and deletes the pods.
func (r runner) runOne(ctx context.Context, s scenario, scheduler, ns string) (outcome, error) {
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return outcome{}, err
	}
	var pods []*corev1.Pod
	var gangs []*groveschedulerv1alpha1.PodGang
	for g := 0; g < s.gangs; g++ {
		pg, gangPods := harness.Gang(ns, fmt.Sprintf("gang-%d", g), groveScheduler, s.size, harness.Resources("cpu", s.cpu, "memory", "128Mi"))
		if s.pack != nil {
			pg.Spec.TopologyConstraint = &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: s.pack}
		}
		gangs = append(gangs, pg)
		pods = append(pods, gangPods...)
	}
	if scheduler == kubeSchedulerWorkload {
		harness.JoinPodGroups(pods)
	}
	if err := harness.CreateAll(ctx, r.kube, r.grove, gangs, pods); err != nil {
		return outcome{}, err
	}
	if scheduler == kubeSchedulerWorkload {
		out, err := harness.TranslateGangs(ctx, r.kubeconfig, ns, true)
		if err != nil {
			return outcome{}, err
		}
		fmt.Println(out)
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	bindings, err := harness.WatchBindings(watchCtx, r.kube, ns, len(pods))
	if err != nil {
		return outcome{}, err
	}

	schedCtx, stopScheduler := context.WithCancel(ctx)
	defer stopScheduler()
	stop := stopScheduler
	if scheduler == kubeSchedulerWorkload {
		ks, err := harness.StartKubeScheduler(schedCtx, r.kubeconfig, r.dir, 500, 1000)
		if err != nil {
			return outcome{}, err
		}
		stop = ks.Stop
	} else if err := harness.RunScheduler(schedCtx, r.cfg, harness.Options{Grove: true, QPS: 500, Burst: 1000}); err != nil {
		return outcome{}, err
	}
	begin := time.Now()
	select {
	case <-bindings.Done():
	case <-time.After(5 * time.Minute):
	}
	o := outcome{elapsed: time.Since(begin), pods: len(pods), bound: bindings.Count()}
	stop()

	complete := 0
	for _, pg := range gangs {
		var nodes []string
		for _, ref := range pg.Spec.PodGroups[0].PodReferences {
			if n := bindings.NodeOf(ref.Name); n != "" {
				nodes = append(nodes, n)
			}
		}
		if len(nodes) < len(pg.Spec.PodGroups[0].PodReferences) {
			continue
		}
		complete++
		rack, block := r.place(nodes)
		if rack {
			o.inOneRack++
		}
		if block {
			o.inOneBlock++
		}
	}
	if s.pack != nil && s.pack.Required != nil {
		want := o.inOneRack
		if *s.pack.Required == blockKey {
			want = o.inOneBlock
		}
		if want != complete {
			return o, fmt.Errorf("%s, %s: a gang with a required domain was spread over several", s.name, scheduler)
		}
	}

	if err := harness.DeletePods(ctx, r.kube, ns); err != nil {
		return o, err
	}
	return o, nil
}
