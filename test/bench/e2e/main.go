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

// Command e2e is Grove's end-to-end benchmark on the local cluster (make
// bench-e2e). In one run against the same control plane it measures:
//
//   - raw: a client-go loop creating N pods with nodeName preset on the fake
//     nodes (32 workers, QPS 500) until all are Running, then deleting them
//     until none is left;
//   - grove: one PodCliqueSet of R replicas × one clique of P pods, from its
//     create to all pods Running (with a timeline: pods exist, PodGangs
//     Initialized, gates lifted, bound, Running), then from its delete until
//     its last pod is gone;
//
// and the operator's API requests by verb and resource during the Grove
// run, read from its grove_operator_api_requests_total metric. It prints
// Markdown for docs/benchmarks.md.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

type options struct {
	kubeconfig     string
	metricsURL     string
	replicas, pods int
	timeout        time.Duration
	skipRaw        bool
}

func main() {
	var o options
	dir := os.Getenv("GROVE_LOCAL_DIR")
	if dir == "" {
		dir = ".local-cluster"
	}
	flag.StringVar(&o.kubeconfig, "kubeconfig", filepath.Join(dir, "kubeconfig"), "the local cluster's kubeconfig")
	flag.StringVar(&o.metricsURL, "operator-metrics", "", "grove-operator's metrics URL (default: from the local cluster's ports.env)")
	flag.IntVar(&o.replicas, "replicas", 500, "PodCliqueSet replicas")
	flag.IntVar(&o.pods, "pods-per-replica", 2, "pods per replica (one clique)")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up after this long")
	flag.BoolVar(&o.skipRaw, "skip-raw", false, "measure Grove only")
	flag.Parse()
	if o.metricsURL == "" {
		o.metricsURL = "http://127.0.0.1:" + portFrom(filepath.Join(dir, "ports.env"), "OP_METRICS_PORT") + "/metrics"
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
}

func portFrom(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return "0"
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), key+"="); ok {
			return v
		}
	}
	return "0"
}

func run(o options) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig %s: %w", o.kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, grovecorev1alpha1.AddToScheme, groveschedulerv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	total := o.replicas * o.pods
	nodes, err := fakeNodes(ctx, c)
	if err != nil {
		return err
	}
	fmt.Printf("bench-e2e: %d pods on %d fake nodes, %s, load average %s\n", total, len(nodes), time.Now().UTC().Format(time.RFC3339), loadAverage())

	var raw phaseTimes
	if !o.skipRaw {
		if raw, err = rawLoop(ctx, c, nodes, total); err != nil {
			return fmt.Errorf("raw loop: %w", err)
		}
	}
	before, err := scrape(o.metricsURL)
	if err != nil {
		return fmt.Errorf("reading operator metrics: %w", err)
	}
	grove, err := groveRun(ctx, c, o.replicas, o.pods)
	if err != nil {
		return fmt.Errorf("grove: %w", err)
	}
	after, err := scrape(o.metricsURL)
	if err != nil {
		return fmt.Errorf("reading operator metrics: %w", err)
	}
	report(o, total, raw, grove, diff(before, after))
	return nil
}

// phaseTimes are the moments, from the start of a run, when every pod
// reached a state.
type phaseTimes struct {
	exist, initialized, ungated, bound, running, deleted time.Duration
	timeline                                             []string
}

func fakeNodes(ctx context.Context, c client.Client) ([]string, error) {
	list := &corev1.NodeList{}
	if err := c.List(ctx, list, client.MatchingLabels{"type": "kwok"}); err != nil {
		return nil, err
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no fake nodes: is the local cluster up?")
	}
	sort.Strings(names)
	return names, nil
}

var toleration = corev1.Toleration{Key: "fake-node", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{
		Tolerations: []corev1.Toleration{toleration},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/engine:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}}}},
	}
}

func namespace(ctx context.Context, c client.Client, prefix string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
	if err := c.Create(ctx, ns); err != nil {
		return "", err
	}
	// Pod admission needs the default ServiceAccount; the local cluster's
	// controller manager creates it, but not instantly.
	for {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "default"}, &corev1.ServiceAccount{})
		if err == nil {
			return ns.Name, nil
		}
		if !apierrors.IsNotFound(err) {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// rawLoop creates total pods bound to the fake nodes round-robin, waits until
// all are Running, deletes them and waits until none is left.
func rawLoop(ctx context.Context, c client.Client, nodes []string, total int) (phaseTimes, error) {
	var t phaseTimes
	ns, err := namespace(ctx, c, "bench-raw-")
	if err != nil {
		return t, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				spec := podSpec()
				spec.NodeName = nodes[i%len(nodes)]
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("raw-%d", i), Namespace: ns, Labels: map[string]string{"bench": "raw"}}, Spec: spec}
				if err := c.Create(ctx, p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return t, err
	}
	if err := watchPods(ctx, c, ns, client.MatchingLabels{"bench": "raw"}, total, start, &t, false); err != nil {
		return t, err
	}
	delStart := time.Now()
	if err := c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.MatchingLabels{"bench": "raw"}, client.GracePeriodSeconds(0)); err != nil {
		return t, err
	}
	if err := waitGone(ctx, c, ns, client.MatchingLabels{"bench": "raw"}); err != nil {
		return t, err
	}
	t.deleted = time.Since(delStart)
	return t, nil
}

// groveRun creates the PodCliqueSet, follows its pods until all are Running,
// deletes it and waits until its last pod is gone.
func groveRun(ctx context.Context, c client.Client, replicas, pods int) (phaseTimes, error) {
	var t phaseTimes
	ns, err := namespace(ctx, c, "bench-grove-")
	if err != nil {
		return t, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: int32(replicas), Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
			Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "w", Spec: grovecorev1alpha1.PodCliqueSpec{
				RoleName: "w", Replicas: int32(pods), MinAvailable: ptr.To(int32(pods)), PodSpec: podSpec(),
			}}},
		}},
	}
	start := time.Now()
	if err := c.Create(ctx, pcs); err != nil {
		return t, err
	}
	sel := client.MatchingLabels{apicommon.LabelPartOfKey: pcs.Name}
	if err := watchPods(ctx, c, ns, sel, replicas*pods, start, &t, true); err != nil {
		return t, err
	}
	delStart := time.Now()
	if err := c.Delete(ctx, pcs); err != nil {
		return t, err
	}
	if err := waitGone(ctx, c, ns, sel); err != nil {
		return t, err
	}
	t.deleted = time.Since(delStart)
	return t, nil
}

// watchPods polls once a second until total pods are Running and records
// when each phase was complete.
func watchPods(ctx context.Context, c client.Client, ns string, sel client.MatchingLabels, total int, start time.Time, t *phaseTimes, gangs bool) error {
	set := func(d *time.Duration, n int) {
		if *d == 0 && n >= total {
			*d = time.Since(start)
		}
	}
	for {
		list := &corev1.PodList{}
		if err := c.List(ctx, list, client.InNamespace(ns), sel); err != nil {
			return err
		}
		var exist, ungated, bound, running int
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			exist++
			if len(p.Spec.SchedulingGates) == 0 {
				ungated++
			}
			if p.Spec.NodeName != "" {
				bound++
			}
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		initialized := total
		line := fmt.Sprintf("t=%5.1fs exist=%d ungated=%d bound=%d running=%d", time.Since(start).Seconds(), exist, ungated, bound, running)
		if gangs {
			pgs := &groveschedulerv1alpha1.PodGangList{}
			if err := c.List(ctx, pgs, client.InNamespace(ns)); err != nil {
				return err
			}
			n := 0
			for _, pg := range pgs.Items {
				if meta.IsStatusConditionTrue(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized) {
					n++
				}
			}
			// Initialized counts PodGangs; scale it to pods for one threshold.
			if len(pgs.Items) > 0 && n == len(pgs.Items) {
				initialized = total
			} else {
				initialized = 0
			}
			line += fmt.Sprintf(" podgangs-initialized=%d/%d", n, len(pgs.Items))
		}
		t.timeline = append(t.timeline, line)
		set(&t.exist, exist)
		if gangs {
			set(&t.initialized, initialized)
		}
		set(&t.ungated, ungated)
		set(&t.bound, bound)
		set(&t.running, running)
		if t.running > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; last: %s", ctx.Err(), line)
		case <-time.After(time.Second):
		}
	}
}

func waitGone(ctx context.Context, c client.Client, ns string, sel client.MatchingLabels) error {
	for {
		list := &corev1.PodList{}
		if err := c.List(ctx, list, client.InNamespace(ns), sel); err != nil {
			return err
		}
		if len(list.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %d pods left", ctx.Err(), len(list.Items))
		case <-time.After(time.Second):
		}
	}
}

// scrape reads grove_operator_api_requests_total by "VERB resource".
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url) //nolint:gosec // a loopback address of the local cluster
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	out := map[string]float64{}
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		rest, ok := strings.CutPrefix(line, "grove_operator_api_requests_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		var verb, res string
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "verb":
				verb = v
			case "resource":
				res = v
			}
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		out[verb+" "+res] = f
	}
	return out, s.Err()
}

func diff(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func secs(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func report(o options, total int, raw, grove phaseTimes, requests map[string]float64) {
	fmt.Printf("\nload average after the run: %s\n\n", loadAverage())
	fmt.Println("| pods | raw loop: Running | Grove: pods exist | PodGangs Initialized | gates lifted | bound | Running | Grove / raw | raw delete | Grove delete |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	ratio := "–"
	if raw.running > 0 {
		ratio = fmt.Sprintf("%.2f×", grove.running.Seconds()/raw.running.Seconds())
	}
	fmt.Printf("| %d (%d × %d) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", total, o.replicas, o.pods,
		secs(raw.running), secs(grove.exist), secs(grove.initialized), secs(grove.ungated), secs(grove.bound), secs(grove.running),
		ratio, secs(raw.deleted), secs(grove.deleted))
	keys := make([]string, 0, len(requests))
	var sum float64
	for k, v := range requests {
		keys = append(keys, k)
		sum += v
	}
	sort.Strings(keys)
	fmt.Printf("\noperator API requests during the Grove run (create to deleted): %.0f, %.1f per pod\n\n| request | count |\n|---|---|\n", sum, sum/float64(total))
	for _, k := range keys {
		fmt.Printf("| %s | %.0f |\n", k, requests[k])
	}
	fmt.Println("\nGrove timeline:")
	for _, l := range grove.timeline {
		fmt.Println("  " + l)
	}
}
