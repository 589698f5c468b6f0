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

// Command topology measures grove-scheduler's topology-aware placement on the
// Node objects of one envtest kube-apiserver, labelled with blocks, racks and
// hosts: (a) one large gang with a required block, timed from the moment the
// scheduler starts with the PodGang complete and every pod created to the
// last pod bound; (b) many small gangs without a constraint, with a required
// rack and with a preferred rack, in one run, with pods/s and the share of
// gangs whose pods all landed in one rack.
package main

import (
	"context"
	"errors"
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
	name        string
	gangs, size int
	cpu         string
	pack        *groveschedulerv1alpha1.TopologyPackConstraint
}

// outcome is what a run measured.
type outcome struct {
	elapsed time.Duration
	pods    int
	// inOneRack and inOneBlock count the gangs whose pods share a rack (block).
	inOneRack, inOneBlock int
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

func run(c config) error {
	env, cfg, err := harness.StartControlPlane()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
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
		runs = append(runs, scenario{name: fmt.Sprintf("(a) 1 gang × %d pods, required block", c.bigGang), gangs: 1, size: c.bigGang, cpu: "10",
			pack: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(blockKey)}})
	}
	if c.gangs > 0 {
		label := fmt.Sprintf("(b) %d gangs × %d pods", c.gangs, c.gangSize)
		runs = append(runs,
			scenario{name: label + ", no constraint", gangs: c.gangs, size: c.gangSize, cpu: "100m"},
			scenario{name: label + ", required rack", gangs: c.gangs, size: c.gangSize, cpu: "100m",
				pack: &groveschedulerv1alpha1.TopologyPackConstraint{Required: ptr.To(rackKey)}},
			scenario{name: label + ", preferred rack", gangs: c.gangs, size: c.gangSize, cpu: "100m",
				pack: &groveschedulerv1alpha1.TopologyPackConstraint{Preferred: ptr.To(rackKey)}},
		)
	}
	fmt.Println()
	fmt.Println("| Scenario | Nodes | Pods | all bound after | pods/s | gangs in one rack | gangs in one block |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for i, s := range runs {
		o, err := runOne(ctx, cfg, kube, grove, s, fmt.Sprintf("run-%d", i), place)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %d | %s | %.0f | %d of %d | %d of %d |\n", s.name, c.nodes, o.pods, o.elapsed.Round(time.Millisecond),
			float64(o.pods)/o.elapsed.Seconds(), o.inOneRack, s.gangs, o.inOneBlock, s.gangs)
	}
	return nil
}

// runOne creates the scenario's PodGangs and pods in namespace ns, starts
// grove-scheduler, times it until every pod is bound, checks where each gang
// went, then stops the scheduler and deletes the pods.
func runOne(ctx context.Context, cfg *rest.Config, kube kubernetes.Interface, grove groveclient.Interface, s scenario, ns string,
	place func(nodes []string) (oneRack, oneBlock bool)) (outcome, error) {
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return outcome{}, err
	}
	var pods []*corev1.Pod
	var gangs []*groveschedulerv1alpha1.PodGang
	for g := 0; g < s.gangs; g++ {
		pg, gangPods := harness.Gang(ns, fmt.Sprintf("gang-%d", g), "grove-scheduler", s.size, harness.Resources("cpu", s.cpu, "memory", "128Mi"))
		if s.pack != nil {
			pg.Spec.TopologyConstraint = &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: s.pack}
		}
		gangs = append(gangs, pg)
		pods = append(pods, gangPods...)
	}
	if err := harness.CreateAll(ctx, kube, grove, gangs, pods); err != nil {
		return outcome{}, err
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	bindings, err := harness.WatchBindings(watchCtx, kube, ns, len(pods))
	if err != nil {
		return outcome{}, err
	}

	schedCtx, stopScheduler := context.WithCancel(ctx)
	defer stopScheduler()
	if err := harness.RunScheduler(schedCtx, cfg, harness.Options{Grove: true, QPS: 500, Burst: 1000}); err != nil {
		return outcome{}, err
	}
	begin := time.Now()
	select {
	case <-bindings.Done():
	case <-time.After(5 * time.Minute):
		return outcome{}, fmt.Errorf("%s: only %d of %d pods bound after 5 minutes", s.name, bindings.Count(), len(pods))
	}
	o := outcome{elapsed: time.Since(begin), pods: len(pods)}
	stopScheduler()

	for _, pg := range gangs {
		var nodes []string
		for _, ref := range pg.Spec.PodGroups[0].PodReferences {
			nodes = append(nodes, bindings.NodeOf(ref.Name))
		}
		rack, block := place(nodes)
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
		if want != s.gangs {
			return o, errors.New(s.name + ": a gang with a required domain was spread over several")
		}
	}

	if err := harness.DeletePods(ctx, kube, ns); err != nil {
		return o, err
	}
	return o, nil
}
