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
//   - grove: R replicas × one clique of P pods, in one PodCliqueSet or spread
//     evenly over S of them, from their create to all pods Running (with a
//     timeline: pods exist, PodGangs Initialized, gates lifted, bound,
//     Running), then from their delete until the last pod is gone (with a
//     deletion timeline: pods left and terminating, PodCliques, PodGangs);
//   - gated, after Grove's run (so that Grove's is made on a cluster as
//     before): the raw loop, but each pod is created with a scheduling gate,
//     the gate is removed at once, and grove-scheduler places the pod: the
//     path every Grove pod takes (gated create, gate removal, binding,
//     status), without Grove's own objects;
//   - with -contract-loop, the contract floor (floor.go): per replica the
//     headless Service, the PodGang with Initialized True and the gated pods
//     Grove's API calls for, written by this program without an operator;
//   - with -peer lws, LeaderWorkerSet: the same R groups of P pods in
//     LeaderWorkerSets, its controller manager (test/bench/lws/peer.sh) run
//     as a local process only for its run, its pods placed by kube-scheduler;
//     Grove and the peer take turns going first;
//
// the operator's API requests by verb and resource during the Grove run, read
// from its grove_operator_api_requests_total metric, and the CPU seconds and
// peak resident memory of grove-operator, grove-scheduler and the control
// plane's processes, read from /proc for the local cluster's processes. Pods and PodGangs are
// followed through informers, so that sampling 10k pods once a second costs
// the API server one watch, not a list a second. It prints Markdown for
// docs/dev/benchmarks.md.
//
// -rounds repeats all of it and prints each round's ratios and their range;
// with a peer the output ends with one line of the Grove / peer ratios'
// medians, e.g. "peer lws: running 0.71x, cpu 0.68x, deletion 0.90x".
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/test/cluster"
)

type options struct {
	kubeconfig           string
	clusterDir           string
	localCluster         string
	metricsURL           string
	replicas, pods, sets int
	rounds               int
	timeout              time.Duration
	skipRaw, gated       bool
	floor                bool
	floorAsGrove         bool
	peer, peerScript     string
}

func main() {
	var o options
	dir := os.Getenv("GROVE_LOCAL_DIR")
	if dir == "" {
		dir = ".local-cluster"
	}
	flag.StringVar(&o.kubeconfig, "kubeconfig", filepath.Join(dir, "kubeconfig"), "the local cluster's kubeconfig")
	flag.StringVar(&o.metricsURL, "operator-metrics", "", "grove-operator's authenticated metrics URL, read with a grove-metrics-reader token (default: from the local cluster's ports.env)")
	flag.IntVar(&o.replicas, "replicas", 500, "PodCliqueSet replicas")
	flag.IntVar(&o.pods, "pods-per-replica", 2, "pods per replica (one clique)")
	flag.IntVar(&o.sets, "sets", 1, "spread the replicas evenly over this many PodCliqueSets")
	flag.IntVar(&o.rounds, "rounds", 1, "measure this many rounds, each with its own loops and runs, and print the range of their ratios")
	flag.DurationVar(&o.timeout, "timeout", 45*time.Minute, "give up on a round after this long")
	flag.BoolVar(&o.skipRaw, "skip-raw", false, "measure Grove only (no raw or gated loop)")
	flag.BoolVar(&o.gated, "gated-loop", true, "also measure the gated loop: pods created with a scheduling gate, ungated at once, placed by grove-scheduler")
	flag.BoolVar(&o.floor, "contract-loop", false, "also measure the contract floor: per replica the writes the API contract asks for (Service, PodClique, PodGang with its Initialized False and True, gated pods, one PodClique status), made by the benchmark without operator logic")
	flag.BoolVar(&o.floorAsGrove, "contract-loop-as-grove", false, "write the contract floor with grove-operator's kinds of request: server-side apply for creates, merge patches (and a JSON patch for the pod references) for updates")
	flag.StringVar(&o.localCluster, "local-cluster", filepath.Join("..", "hack", "local-cluster"), "the local cluster script, to restart kwok after the raw loop")
	flag.StringVar(&o.peer, "peer", "", `measure a peer on the same cluster in each round: "lws" (LeaderWorkerSet, R groups of P pods)`)
	flag.StringVar(&o.peerScript, "peer-script", filepath.Join("bench", "lws", "peer.sh"), "the script that installs, starts and stops the peer's controller")
	flag.Parse()
	logf.SetLogger(logr.Discard())
	o.clusterDir = dir
	if o.sets < 1 || o.replicas%o.sets != 0 {
		fmt.Fprintf(os.Stderr, "bench-e2e: -replicas %d must be a multiple of -sets %d\n", o.replicas, o.sets)
		os.Exit(2)
	}
	if o.peer != "" && o.peer != peerLWS {
		fmt.Fprintf(os.Stderr, "bench-e2e: -peer %q: the only peer is %q\n", o.peer, peerLWS)
		os.Exit(2)
	}
	if o.rounds < 1 {
		fmt.Fprintf(os.Stderr, "bench-e2e: -rounds %d: at least 1\n", o.rounds)
		os.Exit(2)
	}
	if o.metricsURL == "" {
		o.metricsURL = "https://127.0.0.1:" + portFrom(filepath.Join(dir, "ports.env"), "OP_METRICS_PORT") + "/metrics"
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
	nodes, err := fakeNodes(context.Background(), c)
	if err != nil {
		return err
	}
	if o.peer != "" {
		if err := peerCommand(o, "install"); err != nil {
			return err
		}
	}
	var results []roundResult
	for round := 1; round <= o.rounds; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		res, err := runRound(ctx, o, round, cfg, c, nodes)
		cancel()
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		results = append(results, res)
	}
	reportRounds(o, results)
	return nil
}

// roundResult holds what one round measured, for the ratios over rounds.
type roundResult struct {
	raw, gated, grove, peer, floor phaseTimes
	// CPU seconds of all measured processes, create to deleted.
	groveCPU, peerCPU, floorCPU float64
	// The operator's API requests per pod, create to deleted.
	requestsPerPod float64
	peerFirst      bool
}

// runRound measures the raw loop, Grove, the peer (if any) and the gated
// loop, each on a kwok restarted after the phase before it: kwok works off
// its queue in order, and the previous phase's terminations (two plays a
// pod, the second failing on a pod already gone) would otherwise be ahead of
// every pod's start for minutes. Grove and the peer take turns going first,
// so that neither always meets the cluster the other has just emptied.
func runRound(ctx context.Context, o options, round int, cfg *rest.Config, c client.Client, nodes []string) (roundResult, error) {
	res := roundResult{peerFirst: o.peer != "" && round%2 == 0}
	total := o.replicas * o.pods
	fmt.Printf("\n## Round %d of %d: %d pods on %d fake nodes, %s, load average %s\n", round, o.rounds, total, len(nodes), time.Now().UTC().Format(time.RFC3339), loadAverage())
	kwokDirty := round > 1
	settle := func() error {
		if !kwokDirty {
			kwokDirty = true
			return nil
		}
		return restartKwok(ctx, o, c, nodes)
	}
	var err error
	if !o.skipRaw {
		if err := settle(); err != nil {
			return res, err
		}
		if res.raw, err = rawPods.run(ctx, o.clusterDir, cfg, c, nodes, total); err != nil {
			return res, fmt.Errorf("raw loop: %w", err)
		}
	}
	order := []string{"grove"}
	switch {
	case o.peer == "":
	case res.peerFirst:
		order = []string{o.peer, "grove"}
	default:
		order = append(order, o.peer)
	}
	for _, run := range order {
		if err := settle(); err != nil {
			return res, err
		}
		if run == "grove" {
			res.grove, res.groveCPU, res.requestsPerPod, err = measureGrove(ctx, o, cfg, c, res.raw)
		} else {
			res.peer, res.peerCPU, err = measureLWS(ctx, o, cfg, c, res.raw)
		}
		if err != nil {
			return res, err
		}
	}
	if o.gated && !o.skipRaw {
		if err := settle(); err != nil {
			return res, err
		}
		if res.gated, err = gatedPods.run(ctx, o.clusterDir, cfg, c, nodes, total); err != nil {
			return res, fmt.Errorf("gated loop: %w", err)
		}
		reportBaselines(o, total, res.raw, res.gated, res.grove)
	}
	if o.floor {
		if err := settle(); err != nil {
			return res, err
		}
		if res.floor, res.floorCPU, err = measureFloor(ctx, o, cfg, c, res.raw); err != nil {
			return res, err
		}
	}
	printTimeline("Grove timeline", res.grove.timeline)
	fmt.Printf("kube-apiserver from Grove's create to all Running, every client: %s\n", requestSummary(res.grove.createRequests))
	printTimeline("Grove deletion timeline", res.grove.deletion)
	fmt.Printf("kube-apiserver during Grove's deletion, every client: %s\n", requestSummary(res.grove.deleteRequests))
	if o.peer != "" {
		printTimeline("LeaderWorkerSet timeline", res.peer.timeline)
		fmt.Printf("kube-apiserver from LeaderWorkerSet's create to all Running, every client: %s\n", requestSummary(res.peer.createRequests))
		printTimeline("LeaderWorkerSet deletion timeline", res.peer.deletion)
		fmt.Printf("kube-apiserver during LeaderWorkerSet's deletion, every client: %s\n", requestSummary(res.peer.deleteRequests))
	}
	return res, nil
}

func printTimeline(title string, lines []string) {
	fmt.Printf("\n%s:\n", title)
	for _, l := range lines {
		fmt.Println("  " + l)
	}
}

// measureGrove creates and deletes the PodCliqueSets and reports their
// times, the operator's requests and the processes' CPU seconds; it returns
// the times, the CPU seconds of all processes and the requests per pod,
// create to deleted.
func measureGrove(ctx context.Context, o options, cfg *rest.Config, c client.Client, raw phaseTimes) (phaseTimes, float64, float64, error) {
	total := o.replicas * o.pods
	scraper, err := cluster.NewMetricsScraper(ctx, cfg)
	if err != nil {
		return phaseTimes{}, 0, 0, fmt.Errorf("setting up the metrics scrape: %w", err)
	}
	before, err := scrape(scraper, o.metricsURL)
	if err != nil {
		return phaseTimes{}, 0, 0, fmt.Errorf("reading operator metrics: %w", err)
	}
	cpuBefore := readProcesses(o.clusterDir)
	// The create phase is reported as soon as every pod is Running, so that
	// a deletion cut short still leaves its figures.
	start := time.Now()
	grove, err := workloadRun(ctx, cfg, c, "bench-grove-", total, true, podCliqueSets(o), func(t phaseTimes) {
		reportCreate(o, total, raw, t)
		reportProcesses("create to all Running", cpuBefore, readProcesses(o.clusterDir))
		reportNodeLifecycle(ctx, c, start)
	})
	if err != nil {
		return grove, 0, 0, fmt.Errorf("grove: %w", err)
	}
	cpuAfter := readProcesses(o.clusterDir)
	after, err := scrape(scraper, o.metricsURL)
	if err != nil {
		return grove, 0, 0, fmt.Errorf("reading operator metrics: %w", err)
	}
	requests := diff(before, after)
	reportDelete(o, total, raw, grove, requests)
	reportProcesses("create to deleted", cpuBefore, cpuAfter)
	reportNodeLifecycle(ctx, c, start)
	return grove, cpuTotal(cpuBefore, cpuAfter), requestTotal(requests) / float64(total), nil
}

// measuredProcesses are the local cluster's components whose resources the
// benchmark reports: Grove's two, and the rest of the control plane, which
// shares the machine's cores with them (a Grove pod costs kube-controller-
// manager and etcd work that a raw pod does not). kube-scheduler places the
// peer's pods, and LeaderWorkerSet's controller runs only during its own
// run (peer.sh records its pid beside the cluster's).
var measuredProcesses = []string{"grove-operator", "grove-scheduler", "kube-apiserver", "kube-controller-manager", "etcd", "kwok", "kube-scheduler", lwsProcess}

// procStat is one process's CPU time so far and its peak resident memory.
type procStat struct {
	cpuSeconds float64
	peakRSSMiB float64
	ok         bool
}

// readProcesses reads each measured component's /proc entry; the local
// cluster records every component's pid in <dir>/pids/<component>.
func readProcesses(dir string) map[string]procStat {
	out := map[string]procStat{}
	for _, c := range measuredProcesses {
		pidLine, err := os.ReadFile(filepath.Join(dir, "pids", c))
		if err != nil {
			continue
		}
		f := strings.Fields(string(pidLine))
		if len(f) == 0 {
			continue
		}
		st, err := readProc(f[0])
		if err != nil {
			continue
		}
		out[c] = st
	}
	return out
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times; 100 on
// every Linux architecture Grove runs on.
const clockTicks = 100

func readProc(pid string) (procStat, error) {
	var st procStat
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return st, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: utime and stime are the 12th and 13th of them.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return st, fmt.Errorf("short /proc/%s/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return st, fmt.Errorf("parsing /proc/%s/stat", pid)
	}
	st.cpuSeconds = (utime + stime) / clockTicks
	status, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return st, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				return st, fmt.Errorf("parsing VmHWM of %s: %w", pid, err)
			}
			st.peakRSSMiB = kib / 1024
		}
	}
	st.ok = true
	return st, nil
}

// phaseTimes are the moments, from the start of a run, when every pod
// reached a state.
type phaseTimes struct {
	exist, initialized, ungated, bound, running, deleted time.Duration
	// timeline samples the creation once a second, deletion the deletion.
	timeline, deletion []string
	// createRequests and deleteRequests count kube-apiserver's requests
	// from every client from the create to all Running and during the
	// deletion, by "VERB resource".
	createRequests, deleteRequests map[string]float64
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

// follow starts an informer cache on the pods (and, for Grove, the PodGangs)
// of one namespace; it stops with ctx.
func follow(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, ns string, gangs bool) (client.Reader, error) {
	cc, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		return nil, fmt.Errorf("creating the informer cache: %w", err)
	}
	kinds := []client.Object{&corev1.Pod{}}
	if gangs {
		kinds = append(kinds, &groveschedulerv1alpha1.PodGang{}, &grovecorev1alpha1.PodClique{})
	}
	for _, k := range kinds {
		if _, err := cc.GetInformer(ctx, k, cache.BlockUntilSynced(false)); err != nil {
			return nil, fmt.Errorf("informer for %T: %w", k, err)
		}
	}
	go func() { _ = cc.Start(ctx) }()
	if !cc.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("informer cache of namespace %s did not sync", ns)
	}
	return cc, nil
}

// podLoop is a baseline: a client-go loop creating pods one request each.
type podLoop string

const (
	// rawPods are bound to the fake nodes round-robin (nodeName preset).
	rawPods podLoop = "raw"
	// gatedPods are created with a scheduling gate, which the same worker
	// removes at once; grove-scheduler binds them.
	gatedPods podLoop = "gated"
)

// benchGate holds a gated loop's pod until its worker removes it.
const benchGate = "bench.grove.io/hold"

// ungate removes a pod's scheduling gates (benchGate).
var ungate = client.RawPatch(types.MergePatchType, []byte(`{"spec":{"schedulingGates":null}}`))

// run creates total pods, waits until all are Running, deletes them and
// waits until none is left.
//
// The CPU seconds the cluster's processes spent until all were Running are
// printed with the time: on two shared cores the loops' time follows them.
func (l podLoop) run(ctx context.Context, clusterDir string, cfg *rest.Config, c client.Client, nodes []string, total int) (phaseTimes, error) {
	var t phaseTimes
	ns, err := namespace(ctx, c, "bench-"+string(l)+"-")
	if err != nil {
		return t, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	r, err := follow(fctx, cfg, c.Scheme(), ns, false)
	if err != nil {
		return t, err
	}
	cpuBefore := readProcesses(clusterDir)
	start := time.Now()
	err = parallel(total, func(i int) error {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: l.podName(i), Namespace: ns, Labels: map[string]string{"bench": string(l)}}, Spec: podSpec()}
		if l == rawPods {
			p.Spec.NodeName = nodes[i%len(nodes)]
			return c.Create(ctx, p)
		}
		p.Spec.SchedulerName = "grove-scheduler"
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: benchGate}}
		if err := c.Create(ctx, p); err != nil {
			return err
		}
		return c.Patch(ctx, p, ungate)
	})
	if err != nil {
		return t, err
	}
	if err := watchPods(ctx, r, ns, total, start, &t, false); err != nil {
		return t, err
	}
	fmt.Printf("%s loop: %d pods Running after %s; CPU seconds to Running: %s\n", l, total, secs(t.running), cpuSummary(cpuBefore, readProcesses(clusterDir)))
	// One delete per pod from the same 32 workers: a single deletecollection
	// of 10k pods outlives the API server's request timeout. The pods'
	// default grace period applies, as it does when the garbage collector
	// deletes Grove's pods: kwok finishes both kinds of termination alike.
	delStart := time.Now()
	err = parallel(total, func(i int) error {
		err := c.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: l.podName(i), Namespace: ns}})
		return client.IgnoreNotFound(err)
	})
	if err != nil {
		return t, err
	}
	if t.deletion, err = waitGone(ctx, r, ns, delStart, false); err != nil {
		return t, err
	}
	t.deleted = time.Since(delStart)
	return t, nil
}

func (l podLoop) podName(i int) string { return fmt.Sprintf("%s-%d", l, i) }

// restartKwok restarts the local cluster's kwok, which empties its queue,
// and waits until the new kwok holds every fake node's Lease. kwok claims a
// node through its Lease (holderIdentity is the kwok instance), so a new
// instance plays no pod of a node until the old instance's Lease on it has
// expired (leaseDurationSeconds 40): without the wait that dead time, about
// 30 s, was counted in the Grove run.
func restartKwok(ctx context.Context, o options, c client.Client, nodes []string) error {
	holders, err := leaseHolders(ctx, c, nodes)
	if err != nil {
		return err
	}
	cmd := exec.Command(o.localCluster, "restart", "kwok")
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+o.clusterDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("restarting kwok: %w: %s", err, out)
	}
	start := time.Now()
	for {
		now, err := leaseHolders(ctx, c, nodes)
		if err != nil {
			return err
		}
		waiting := 0
		for node, holder := range now {
			if holder == holders[node] {
				waiting++
			}
		}
		if waiting == 0 {
			fmt.Printf("kwok restarted; it held every node's Lease after %s\n", secs(time.Since(start)))
			return nil
		}
		if time.Since(start) > 2*time.Minute {
			return fmt.Errorf("after restarting kwok, %d of %d node Leases still name the previous kwok", waiting, len(nodes))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// leaseHolders returns each node's Lease holder ("" while a node has none).
func leaseHolders(ctx context.Context, c client.Client, nodes []string) (map[string]string, error) {
	list := &coordinationv1.LeaseList{}
	if err := c.List(ctx, list, client.InNamespace(corev1.NamespaceNodeLease)); err != nil {
		return nil, fmt.Errorf("listing node Leases: %w", err)
	}
	held := map[string]string{}
	for _, l := range list.Items {
		held[l.Name] = ptr.Deref(l.Spec.HolderIdentity, "")
	}
	out := make(map[string]string, len(nodes))
	for _, n := range nodes {
		out[n] = held[n]
	}
	return out, nil
}

// parallel runs do for 0..n-1 on 32 workers and returns the first error.
func parallel(n int, do func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// podCliqueSets builds the benchmark's PodCliqueSets in a namespace: R
// replicas of one clique of P pods (minAvailable P), spread evenly over S sets.
func podCliqueSets(o options) func(ns string) ([]client.Object, error) {
	return func(ns string) ([]client.Object, error) {
		perSet := int32(o.replicas / o.sets)
		sets := make([]client.Object, o.sets)
		for i := range sets {
			sets[i] = &grovecorev1alpha1.PodCliqueSet{
				ObjectMeta: metav1.ObjectMeta{Name: setName(o, i), Namespace: ns},
				Spec: grovecorev1alpha1.PodCliqueSetSpec{Replicas: perSet, Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{
					Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{Name: "w", Spec: grovecorev1alpha1.PodCliqueSpec{
						RoleName: "w", Replicas: int32(o.pods), MinAvailable: ptr.To(int32(o.pods)), PodSpec: podSpec(),
					}}},
				}},
			}
		}
		return sets, nil
	}
}

// setName names the i-th of the run's sets ("bench" when there is one).
func setName(o options, i int) string {
	if o.sets > 1 {
		return fmt.Sprintf("bench-%03d", i)
	}
	return "bench"
}

// workloadRun creates the objects that build returns in a new namespace,
// follows their pods until all total are Running (then calls running),
// deletes the objects and waits until the last pod is gone. gangs also
// follows the namespace's PodGangs.
func workloadRun(ctx context.Context, cfg *rest.Config, c client.Client, prefix string, total int, gangs bool,
	build func(ns string) ([]client.Object, error), running func(phaseTimes)) (phaseTimes, error) {
	var t phaseTimes
	ns, err := namespace(ctx, c, prefix)
	if err != nil {
		return t, err
	}
	defer func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	r, err := follow(fctx, cfg, c.Scheme(), ns, gangs)
	if err != nil {
		return t, err
	}
	objects, err := build(ns)
	if err != nil {
		return t, err
	}
	apiStart, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, err
	}
	start := time.Now()
	for _, obj := range objects {
		if err := c.Create(ctx, obj); err != nil {
			return t, fmt.Errorf("creating %s: %w", obj.GetName(), err)
		}
	}
	if err := watchPods(ctx, r, ns, total, start, &t, gangs); err != nil {
		return t, err
	}
	apiBefore, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, err
	}
	t.createRequests = diff(apiStart, apiBefore)
	running(t)
	delStart := time.Now()
	for _, obj := range objects {
		if err := c.Delete(ctx, obj); err != nil {
			return t, fmt.Errorf("deleting %s: %w", obj.GetName(), err)
		}
	}
	if t.deletion, err = waitGone(ctx, r, ns, delStart, gangs); err != nil {
		return t, err
	}
	t.deleted = time.Since(delStart)
	apiAfter, err := apiserverRequests(ctx, cfg)
	if err != nil {
		return t, err
	}
	t.deleteRequests = diff(apiBefore, apiAfter)
	return t, nil
}

// apiserverRequests reads kube-apiserver's apiserver_request_total, summed
// over codes and scopes, by "VERB resource" (subresource appended with /).
func apiserverRequests(ctx context.Context, cfg *rest.Config) (map[string]float64, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
	}
	out := map[string]float64{}
	err = counters(bytes.NewReader(body), "apiserver_request_total", func(l map[string]string, v float64) {
		res := l["resource"]
		if l["subresource"] != "" {
			res += "/" + l["subresource"]
		}
		out[l["verb"]+" "+res] += v
	})
	if err != nil {
		return out, err
	}
	// A watcher that does not take its events as fast as they come is closed
	// by kube-apiserver; its client watches again and is sent every object of
	// the kind anew, a cost no write count shows.
	err = counters(bytes.NewReader(body), "apiserver_terminated_watchers_total", func(l map[string]string, v float64) {
		out[closedWatchers+" "+l["resource"]] += v
	})
	return out, err
}

// closedWatchers keys, among kube-apiserver's counts, the watchers it closed
// for falling behind, by resource.
const closedWatchers = "CLOSED"

// requestSummary renders the writes among requests, most first, and their
// total ("1234 writes: DELETE pods 1000, ...").
func requestSummary(requests map[string]float64) string {
	type kv struct {
		k string
		v float64
	}
	var writes, closed []kv
	var total float64
	for k, v := range requests {
		verb, res, _ := strings.Cut(k, " ")
		switch verb {
		case "GET", "LIST", "WATCH", "CONNECT":
			continue
		case closedWatchers:
			if v > 0 {
				closed = append(closed, kv{res, v})
			}
			continue
		}
		writes = append(writes, kv{k, v})
		total += v
	}
	render := func(list []kv) string {
		sort.Slice(list, func(i, j int) bool {
			return list[i].v > list[j].v || list[i].v == list[j].v && list[i].k < list[j].k
		})
		parts := make([]string, 0, len(list))
		for _, w := range list {
			parts = append(parts, fmt.Sprintf("%s %.0f", w.k, w.v))
		}
		return strings.Join(parts, ", ")
	}
	out := fmt.Sprintf("%.0f writes: %s", total, render(writes))
	if len(closed) > 0 {
		out += "; watchers closed for falling behind: " + render(closed)
	}
	return out
}

// watchPods samples the informer cache once a second until total pods are
// Running and records when each phase was complete. The benchmark's
// namespace holds only the measured pods.
func watchPods(ctx context.Context, r client.Reader, ns string, total int, start time.Time, t *phaseTimes, gangs bool) error {
	set := func(d *time.Duration, n int) {
		if *d == 0 && n >= total {
			*d = time.Since(start)
		}
	}
	for {
		list := &corev1.PodList{}
		if err := r.List(ctx, list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
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
			if err := r.List(ctx, pgs, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
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

func waitGone(ctx context.Context, r client.Reader, ns string, start time.Time, gangs bool) ([]string, error) {
	var timeline []string
	for {
		list := &corev1.PodList{}
		if err := r.List(ctx, list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return timeline, err
		}
		terminating := 0
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil {
				terminating++
			}
		}
		line := fmt.Sprintf("t=%5.1fs pods=%d terminating=%d", time.Since(start).Seconds(), len(list.Items), terminating)
		if gangs {
			cl := &grovecorev1alpha1.PodCliqueList{}
			if err := r.List(ctx, cl, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err == nil {
				deleting := 0
				for _, c := range cl.Items {
					if c.DeletionTimestamp != nil {
						deleting++
					}
				}
				line += fmt.Sprintf(" podcliques=%d deleting=%d", len(cl.Items), deleting)
			}
			pgs := &groveschedulerv1alpha1.PodGangList{}
			if err := r.List(ctx, pgs, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err == nil {
				line += fmt.Sprintf(" podgangs=%d", len(pgs.Items))
			}
		}
		timeline = append(timeline, line)
		if len(list.Items) == 0 {
			return timeline, nil
		}
		select {
		case <-ctx.Done():
			return timeline, fmt.Errorf("%w: %d pods left", ctx.Err(), len(list.Items))
		case <-time.After(time.Second):
		}
	}
}

// scrape reads grove_operator_api_requests_total by "VERB resource code".
func scrape(scraper *cluster.MetricsScraper, url string) (map[string]float64, error) {
	body, err := scraper.Get(url)
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	out := map[string]float64{}
	err = counters(body, "grove_operator_api_requests_total", func(l map[string]string, v float64) {
		out[l["verb"]+" "+l["resource"]+" "+l["code"]] = v
	})
	return out, err
}

// counters calls add with the labels and value of each sample of the
// counter metric in a Prometheus text exposition.
func counters(r io.Reader, metric string, add func(labels map[string]string, value float64)) error {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), metric+"{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		l := map[string]string{}
		for _, kv := range strings.Split(labels, ",") {
			k, val, _ := strings.Cut(kv, "=")
			l[k] = strings.Trim(val, `"`)
		}
		add(l, v)
	}
	return s.Err()
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

func shapeOf(o options, total int) string {
	if o.sets > 1 {
		return fmt.Sprintf("%d (%d sets × %d × %d)", total, o.sets, o.replicas/o.sets, o.pods)
	}
	return fmt.Sprintf("%d (%d × %d)", total, o.replicas, o.pods)
}

// reportCreate prints the time to each phase of the create.
func reportCreate(o options, total int, raw, grove phaseTimes) {
	fmt.Printf("\nall pods Running; load average %s\n\n", loadAverage())
	fmt.Println("| pods | raw loop: Running | Grove: pods exist | PodGangs Initialized | gates lifted | bound | Running | Grove / raw |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", shapeOf(o, total),
		secs(raw.running), secs(grove.exist), secs(grove.initialized), secs(grove.ungated), secs(grove.bound), secs(grove.running),
		ratio(grove.running, raw.running))
}

// reportBaselines prints the time to Running of both loops and of Grove, and
// their ratios.
func reportBaselines(o options, total int, raw, gated, grove phaseTimes) {
	fmt.Printf("\n| pods | raw loop | gated loop | Grove | gated / raw | Grove / raw | Grove / gated |\n|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", shapeOf(o, total), secs(raw.running), secs(gated.running), secs(grove.running),
		ratio(gated.running, raw.running), ratio(grove.running, raw.running), ratio(grove.running, gated.running))
}

// ratio is a/b, or "–" when either was not measured.
func ratio(a, b time.Duration) string { return times(durationRatio(a, b)) }

// reportDelete prints the deletion times and the operator's requests over
// the whole Grove run.
func reportDelete(o options, total int, raw, grove phaseTimes, requests map[string]float64) {
	fmt.Printf("\nall pods gone; load average %s\n\n", loadAverage())
	fmt.Printf("| pods | raw delete | Grove delete |\n|---|---|---|\n| %s | %s | %s |\n", shapeOf(o, total), secs(raw.deleted), secs(grove.deleted))
	counts := map[string]float64{}
	failed := map[string][]string{}
	sum := requestTotal(requests)
	for k, v := range requests {
		// Keys are "VERB resource code".
		i := strings.LastIndex(k, " ")
		request, code := k[:max(i, 0)], k[i+1:]
		counts[request] += v
		if !strings.HasPrefix(code, "2") {
			failed[request] = append(failed[request], fmt.Sprintf("%.0f × %s", v, code))
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("\noperator API requests during the Grove run (create to deleted): %.0f, %.1f per pod\n\n| request | count | not successful (count × HTTP code) |\n|---|---|---|\n", sum, sum/float64(total))
	for _, k := range keys {
		sort.Strings(failed[k])
		fmt.Printf("| %s | %.0f | %s |\n", k, counts[k], strings.Join(failed[k], ", "))
	}
}

// requestTotal is the number of requests of all kinds.
func requestTotal(requests map[string]float64) float64 {
	var sum float64
	for _, v := range requests {
		sum += v
	}
	return sum
}

// cpuSummary lists the CPU seconds each measured process spent between
// before and after, and their sum.
func cpuSummary(before, after map[string]procStat) string {
	var parts []string
	for _, p := range measuredProcesses {
		b, a := before[p], after[p]
		if !a.ok || !b.ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.1f", p, a.cpuSeconds-b.cpuSeconds))
	}
	return fmt.Sprintf("%s; all %.1f", strings.Join(parts, ", "), cpuTotal(before, after))
}

// cpuTotal is the CPU seconds all measured processes that ran both at
// before and at after spent in between.
func cpuTotal(before, after map[string]procStat) float64 {
	var sum float64
	for _, p := range measuredProcesses {
		if b, a := before[p], after[p]; a.ok && b.ok {
			sum += a.cpuSeconds - b.cpuSeconds
		}
	}
	return sum
}

// reportProcesses prints the CPU seconds each measured process spent since
// before and its peak resident memory.
func reportProcesses(span string, before, after map[string]procStat) {
	fmt.Printf("\nCPU seconds, %s: %s\n", span, cpuSummary(before, after))
	fmt.Printf("\n| process | CPU seconds, %s | peak resident memory (process lifetime) |\n|---|---|---|\n", span)
	for _, p := range measuredProcesses {
		b, a := before[p], after[p]
		if !a.ok {
			fmt.Printf("| %s | – | – |\n", p)
			continue
		}
		cpu := "–"
		if b.ok {
			cpu = fmt.Sprintf("%.1f", a.cpuSeconds-b.cpuSeconds)
		}
		fmt.Printf("| %s | %s | %.0f MiB |\n", p, cpu, a.peakRSSMiB)
	}
}

// nodeLifecycleReasons are the events of kube-controller-manager's node
// lifecycle controller that make a run incomparable: a fake node whose Lease
// kwok renewed late is marked NotReady and its pods are evicted, and Grove
// replaces them.
var nodeLifecycleReasons = []string{"NodeNotReady", "TaintManagerEviction"}

// reportNodeLifecycle prints how often each of nodeLifecycleReasons occurred
// since the create at since (events of every namespace, repeats counted).
func reportNodeLifecycle(ctx context.Context, c client.Client, since time.Time) {
	counts := make([]string, 0, len(nodeLifecycleReasons))
	for _, reason := range nodeLifecycleReasons {
		var events corev1.EventList
		if err := c.List(ctx, &events, client.MatchingFields{"reason": reason}); err != nil {
			counts = append(counts, fmt.Sprintf("%s: unknown (%v)", reason, err))
			continue
		}
		n := int32(0)
		for _, e := range events.Items {
			if last := eventTime(e); !last.Before(since.Truncate(time.Second)) {
				n += max(e.Count, 1)
			}
		}
		counts = append(counts, fmt.Sprintf("%s %d", reason, n))
	}
	fmt.Printf("\nnode lifecycle events since the create: %s\n", strings.Join(counts, ", "))
}

// eventTime is when an event last occurred, whichever API wrote it.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil:
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
