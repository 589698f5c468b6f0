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

// Command update is the rolling-update benchmark (make bench-update). On the
// local cluster (kwok nodes mark bound pods Ready) it measures, for each
// update strategy in turn (each on a PodCliqueSet of its own, one after the
// other in the same run):
//
//   - create: from creating a PodCliqueSet of R replicas × 2 cliques × P pods
//     to every pod Running and Ready;
//   - update: from changing both cliques' image to the PodCliqueSet reporting
//     the update ended with every pod Ready on the new image. RollingRecreate
//     (maxUnavailable 1) takes one replica at a time, pod by pod; Coherent
//     (maxUnavailable 1) one replica at a time, its gang whole.
//
// It also samples how many pods were not ready at once and the fewest
// replicas fully available (every pod ready) during the update. It prints a
// Markdown table for docs/dev/benchmarks.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

func main() {
	replicas := flag.Int("replicas", 100, "PodCliqueSet replicas")
	pods := flag.Int("pods", 2, "pods per clique (two cliques per replica)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up on one strategy after this long")
	strategies := flag.String("strategies", "RollingRecreate,Coherent", "update strategies to measure, comma-separated, in order")
	dir := os.Getenv("GROVE_LOCAL_DIR")
	if dir == "" {
		dir = ".local-cluster"
	}
	kubeconfig := flag.String("kubeconfig", filepath.Join(dir, "kubeconfig"), "kubeconfig of the local cluster")
	flag.Parse()
	c, err := newClient(*kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var rows []string
	for _, st := range strings.Split(*strategies, ",") {
		row, err := run(c, grovecorev1alpha1.UpdateStrategyType(st), *replicas, *pods, *timeout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", st, err)
			os.Exit(1)
		}
		rows = append(rows, row)
	}
	fmt.Println("| strategy | pods | create: all Ready | update to a new image: ended, all Ready | per replica | fewest replicas fully available (sampled) | most pods not ready at once (sampled) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
}

func newClient(kubeconfig string) (client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading %s (is the local cluster up?): %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	scheme := clientgoscheme.Scheme
	if err := grovecorev1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// run measures one strategy and returns its table row.
func run(c client.Client, strategy grovecorev1alpha1.UpdateStrategyType, replicas, pods int, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	ns := "bench-update-" + rand.String(5)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return "", err
	}
	defer func() {
		_ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		fmt.Fprintf(os.Stderr, "deleted namespace %s\n", ns)
	}()

	total := replicas * 2 * pods
	start := time.Now()
	if err := c.Create(ctx, benchPCS(ns, replicas, pods, "registry.example/engine:1", strategy)); err != nil {
		return "", err
	}
	if _, err := waitPods(ctx, c, ns, replicas, total, "registry.example/engine:1", start); err != nil {
		return "", err
	}
	created := time.Since(start)
	fmt.Fprintf(os.Stderr, "%s: created: %d pods Ready in %.1fs\n", strategy, total, created.Seconds())

	start = time.Now()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bench"}, pcs); err != nil {
			return err
		}
		for i := range pcs.Spec.Template.Cliques {
			pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = "registry.example/engine:2"
		}
		return c.Update(ctx, pcs)
	}); err != nil {
		return "", err
	}
	seen, err := waitPods(ctx, c, ns, replicas, total, "registry.example/engine:2", start)
	if err != nil {
		return "", err
	}
	if err := waitUpdateEnded(ctx, c, ns); err != nil {
		return "", err
	}
	updated := time.Since(start)
	fmt.Fprintf(os.Stderr, "%s: updated: %d pods Ready on the new image, update ended, in %.1fs\n", strategy, total, updated.Seconds())
	return fmt.Sprintf("| %s | %d (%d replicas × 2 cliques × %d) | %.1f s | %.1f s | %.2f s | %d of %d | %d |",
		strategy, total, replicas, pods, created.Seconds(), updated.Seconds(), updated.Seconds()/float64(replicas),
		seen.fewestAvailable, replicas, seen.mostNotReady), nil
}

// benchPCS is a PodCliqueSet of two standalone cliques, prefill and decode,
// on the local cluster's fake nodes.
func benchPCS(ns string, replicas, pods int, image string, strategy grovecorev1alpha1.UpdateStrategyType) *grovecorev1alpha1.PodCliqueSet {
	clique := func(name string) grovecorev1alpha1.PodCliqueTemplateSpec {
		return grovecorev1alpha1.PodCliqueTemplateSpec{Name: name, Spec: grovecorev1alpha1.PodCliqueSpec{
			RoleName: name, Replicas: int32(pods),
			PodSpec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Key: "fake-node", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}},
				Containers:  []corev1.Container{{Name: name, Image: image}},
			},
		}}
	}
	return &grovecorev1alpha1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: ns},
		Spec: grovecorev1alpha1.PodCliqueSetSpec{
			Replicas:       int32(replicas),
			UpdateStrategy: &grovecorev1alpha1.PodCliqueSetUpdateStrategy{Type: strategy},
			Template:       grovecorev1alpha1.PodCliqueSetTemplateSpec{Cliques: []grovecorev1alpha1.PodCliqueTemplateSpec{clique("prefill"), clique("decode")}},
		},
	}
}

// sampled is what waitPods saw at worst.
type sampled struct {
	// mostNotReady: pods not ready (missing ones included) at once.
	mostNotReady int
	// fewestAvailable: replicas with every pod ready at once.
	fewestAvailable int
}

// waitPods polls until want pods run the image and are Ready, and returns
// the worst it saw.
func waitPods(ctx context.Context, c client.Client, ns string, replicas, want int, image string, start time.Time) (sampled, error) {
	worst := sampled{fewestAvailable: replicas}
	perReplica := want / replicas
	last := time.Time{}
	for {
		list := &corev1.PodList{}
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "bench"}); err != nil {
			return worst, err
		}
		ready, onImage := 0, 0
		readyIn := map[string]int{}
		for i := range list.Items {
			p := &list.Items[i]
			if p.DeletionTimestamp != nil || !podReady(p) {
				continue
			}
			ready++
			readyIn[p.Labels[apicommon.LabelPodCliqueSetReplicaIndex]]++
			if p.Spec.Containers[0].Image == image {
				onImage++
			}
		}
		available := 0
		for _, n := range readyIn {
			if n >= perReplica {
				available++
			}
		}
		worst.mostNotReady = max(worst.mostNotReady, want-ready)
		worst.fewestAvailable = min(worst.fewestAvailable, available)
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "t=%6.1fs ready=%d ready-on-%s=%d of %d, replicas fully available %d\n", time.Since(start).Seconds(), ready, image, onImage, want, available)
		}
		if onImage >= want {
			return worst, nil
		}
		select {
		case <-ctx.Done():
			return worst, fmt.Errorf("timed out: %d of %d pods Ready on %s", onImage, want, image)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// waitUpdateEnded polls until the PodCliqueSet's update record ended and it
// reports every replica updated.
func waitUpdateEnded(ctx context.Context, c client.Client, ns string) error {
	for {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bench"}, pcs); err != nil {
			return err
		}
		up := pcs.Status.UpdateProgress
		if up != nil && up.UpdateEndedAt != nil && pcs.Status.UpdatedReplicas == pcs.Spec.Replicas {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for the update to end: %+v", up)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
