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

// Command translategangs writes the Workload API objects of every PodGang of
// a namespace through the default-scheduler backend's Sync, exactly as the
// operator's podgang-backend-controller does, once. The scheduler
// benchmarks (make bench-scheduler, make bench-topology) run it so that
// stock kube-scheduler gets the same gangs as grove-scheduler, expressed by
// the operator's own translation. It prints how many PodGangs it wrote and
// names each one the Workload API cannot express.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/backend/workloadapi"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/manager"
)

func main() {
	// --kubeconfig is controller-runtime's flag (client/config).
	namespace := flag.String("namespace", "", "namespace whose PodGangs to translate")
	topology := flag.Bool("topology-aware", false, "the backend config's topologyAwareScheduling")
	workers := flag.Int("workers", 32, "PodGangs synced at once")
	flag.Parse()
	if err := run(*namespace, *topology, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "translategangs:", err)
		os.Exit(1)
	}
}

func run(namespace string, topology bool, workers int) error {
	cfg, err := ctrlconfig.GetConfig()
	if err != nil {
		return fmt.Errorf("reading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return err
	}
	ctx := context.Background()
	gangs := &groveschedulerv1alpha1.PodGangList{}
	if err := c.List(ctx, gangs, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing PodGangs of %s: %w", namespace, err)
	}
	b := workloadapi.New(config.DefaultSchedulerConfig{GangScheduling: true, TopologyAwareScheduling: topology})
	var written atomic.Int32
	var mu sync.Mutex
	var failed []string
	var firstErr error
	next := make(chan *groveschedulerv1alpha1.PodGang)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for pg := range next {
				_, err := b.Sync(ctx, c, pg, nil)
				var mapping *translation.MappingError
				mu.Lock()
				switch {
				case errors.As(err, &mapping):
					failed = append(failed, pg.Name+": "+mapping.Message)
				case err != nil && firstErr == nil:
					firstErr = fmt.Errorf("PodGang %s: %w", pg.Name, err)
				case err == nil:
					written.Add(1)
				}
				mu.Unlock()
			}
		})
	}
	for i := range gangs.Items {
		next <- &gangs.Items[i]
	}
	close(next)
	wg.Wait()
	fmt.Printf("translated %d of %d PodGangs of %s into Workloads and PodGroups\n", written.Load(), len(gangs.Items), namespace)
	for _, f := range failed {
		fmt.Println("cannot express", f)
	}
	return firstErr
}
