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

// Command operator is grove-operator's throughput benchmark (make
// bench-operator). On one envtest control plane it measures, in the same run:
//
//   - baseline: a plain client-go loop creating N pods at the operator's
//     client QPS/burst;
//   - grove: the time from creating one PodCliqueSet of R replicas × P pods to
//     all its pods existing, all PodGangs existing, and all PodGangs
//     Initialized (every pod created and referenced).
//
// It prints a Markdown table for docs/dev/benchmarks.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/manager"
)

func main() {
	replicas := flag.Int("replicas", 500, "PodCliqueSet replicas")
	podsPerReplica := flag.Int("pods-per-replica", 2, "pods per replica (one clique)")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	pclqSyncs := flag.Int("podclique-syncs", 0, "PodClique controller workers (0: the configuration default)")
	pcsSyncs := flag.Int("podcliqueset-syncs", 0, "PodCliqueSet controller workers (0: the configuration default)")
	cpuProfile := flag.String("cpuprofile", "", "write the benchmark process's CPU profile (operator included) to this file")
	flag.Parse()
	err := withCPUProfile(*cpuProfile, func() error {
		return run(*replicas, *podsPerReplica, *timeout, *pclqSyncs, *pcsSyncs)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// withCPUProfile runs fn, writing the process's CPU profile to path while it
// runs (no profile when path is empty).
func withCPUProfile(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating CPU profile: %w", err)
	}
	defer func() { _ = f.Close() }()
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("starting CPU profile: %w", err)
	}
	defer pprof.StopCPUProfile()
	return fn()
}

type result struct {
	baseline, pods, podGangs, initialized time.Duration
}

func run(replicas, podsPerReplica int, timeout time.Duration, pclqSyncs, pcsSyncs int) error {
	ctrl.SetLogger(zap.New(zap.Level(zapLevelError{})))
	_, thisFile, _, _ := runtime.Caller(0)
	apiDir := filepath.Join(filepath.Dir(thisFile), "..", "..", "..", "..", "api")
	env := &envtest.Environment{
		CRDDirectoryPaths: []string{
			filepath.Join(apiDir, "core", "v1alpha1", "crds"),
			filepath.Join(apiDir, "scheduler", "v1alpha1", "crds"),
		},
		ErrorIfCRDPathMissing: true,
	}
	restCfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting envtest (is KUBEBUILDER_ASSETS set?): %w", err)
	}
	defer func() { _ = env.Stop() }()

	opCfg := config.Default()
	opCfg.Server.HealthProbes.Port, opCfg.Server.Metrics.Port = -1, -1
	opCfg.LogLevel = config.LogLevelError
	if pclqSyncs > 0 {
		opCfg.Controllers.PodClique.ConcurrentSyncs = pclqSyncs
	}
	if pcsSyncs > 0 {
		opCfg.Controllers.PodCliqueSet.ConcurrentSyncs = pcsSyncs
	}
	restCfg.QPS, restCfg.Burst = opCfg.RuntimeClientConnection.QPS, opCfg.RuntimeClientConnection.Burst

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var res result
	total := replicas * podsPerReplica
	if res.baseline, err = baseline(ctx, restCfg, total); err != nil {
		return err
	}
	if err := grove(ctx, restCfg, opCfg, replicas, podsPerReplica, &res); err != nil {
		return err
	}
	countsMu.Lock()
	for k, v := range counts {
		fmt.Fprintf(os.Stderr, "requests %-50s %d\n", k, v)
	}
	countsMu.Unlock()
	fmt.Printf("PodClique workers %d, PodCliqueSet workers %d\n\n", opCfg.Controllers.PodClique.ConcurrentSyncs, opCfg.Controllers.PodCliqueSet.ConcurrentSyncs)
	fmt.Printf("| pods | QPS/burst | baseline client-go loop | Grove: all pods exist | Grove: all %d PodGangs exist | Grove: all PodGangs Initialized | Grove / baseline |\n", replicas)
	fmt.Println("|---|---|---|---|---|---|---|")
	fmt.Printf("| %d (%d replicas × %d) | %.0f/%d | %.2f s | %.2f s | %.2f s | %.2f s | %.2f× |\n",
		total, replicas, podsPerReplica, restCfg.QPS, restCfg.Burst,
		res.baseline.Seconds(), res.pods.Seconds(), res.podGangs.Seconds(), res.initialized.Seconds(),
		res.pods.Seconds()/res.baseline.Seconds())
	return nil
}

// baseline creates n pods one after another with a plain clientset.
func baseline(ctx context.Context, cfg *rest.Config, n int) (time.Duration, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "baseline"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "baseline-", Namespace: ns.Name},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}
		if _, err := cs.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return 0, fmt.Errorf("baseline pod %d: %w", i, err)
		}
	}
	return time.Since(start), nil
}

func grove(ctx context.Context, restCfg *rest.Config, opCfg *config.OperatorConfiguration, replicas, podsPerReplica int, res *result) error {
	counting := rest.CopyConfig(restCfg)
	counting.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &requestCounter{next: rt} })
	mgr, err := manager.New(opCfg, counting)
	if err != nil {
		return err
	}
	backends, err := backend.NewRegistry(opCfg)
	if err != nil {
		return err
	}
	if err := manager.RegisterControllers(mgr, opCfg, backends); err != nil {
		return err
	}
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = mgr.Start(mctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("manager cache did not sync")
	}
	c, err := client.New(restCfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return err
	}
	pcs := &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "default"},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas: int32(replicas),
			Template: grovecorev1alpha1.PodCliqueSetTemplateSpec{Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{{
				Name: "worker",
				Spec: grovecorev1alpha1.PodCliqueSpec{
					RoleName: "worker", Replicas: int32(podsPerReplica),
					PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "w", Image: "nginx"}}},
				},
			}}},
		},
	}
	start := time.Now()
	if err := c.Create(ctx, pcs); err != nil {
		return err
	}
	wantPods := replicas * podsPerReplica
	lastReport := time.Time{}
	var podCount, gangCount, initCount int
	for res.pods == 0 || res.podGangs == 0 || res.initialized == 0 {
		if time.Since(lastReport) > 2*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(os.Stderr, "progress t=%5.1fs pods=%d podgangs=%d initialized=%d\n", time.Since(start).Seconds(), podCount, gangCount, initCount)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("timed out: %+v", res)
		}
		now := time.Since(start)
		if res.pods == 0 {
			pods := &metav1.PartialObjectMetadataList{}
			pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
			if err := c.List(ctx, pods, client.InNamespace("default"), client.MatchingLabels{apicommon.LabelPartOfKey: "bench"}); err != nil {
				return err
			}
			podCount = len(pods.Items)
			if len(pods.Items) >= wantPods {
				res.pods = now
			}
		}
		if res.podGangs == 0 || res.initialized == 0 {
			gangs := &groveschedulerv1alpha1.PodGangList{}
			if err := c.List(ctx, gangs, client.InNamespace("default")); err != nil {
				return err
			}
			gangCount = len(gangs.Items)
			if len(gangs.Items) >= replicas && res.podGangs == 0 {
				res.podGangs = now
			}
			initialized := 0
			for i := range gangs.Items {
				if meta.IsStatusConditionTrue(gangs.Items[i].Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized) {
					initialized++
				}
			}
			initCount = initialized
			if initialized >= replicas {
				res.initialized = now
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// requestCounter counts the operator's API requests by verb and resource.
type requestCounter struct {
	next http.RoundTripper
}

var (
	countsMu sync.Mutex
	counts   = map[string]int{}
)

func (r *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	// /api(s)/<group/>version/namespaces/<ns>/<resource>[/<name>[/<subresource>]]
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	key := req.Method
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			key += " " + parts[i+2]
			if i+4 < len(parts) {
				key += "/" + parts[i+4]
			}
			break
		}
	}
	if req.URL.Query().Get("watch") == "true" {
		key = "WATCH"
	}
	countsMu.Lock()
	counts[key]++
	countsMu.Unlock()
	return r.next.RoundTrip(req)
}

// zapLevelError keeps the operator's logs quiet during the benchmark.
type zapLevelError struct{}

func (zapLevelError) Enabled(l zapcore.Level) bool { return l >= zapcore.ErrorLevel }
