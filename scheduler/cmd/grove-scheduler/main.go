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

// Command grove-scheduler is kube-scheduler v1.37 with Grove's GroveGang
// plugin registered. Its grove_ metrics are served with kube-scheduler's own on
// the secure port's /metrics (HTTPS, delegated authentication and
// authorization). Besides every kube-scheduler flag it takes
// --grove-metrics-bind-address, an optional plain HTTP /metrics endpoint
// without authentication (default "0": off). --version (and --version=raw)
// prints Grove's version and the Kubernetes release it is built on instead
// of kube-scheduler's unstamped component version. Feature gates default as kube-scheduler's do,
// except those in package featuregates (NominatedNodeNameForExpectation is
// off); --feature-gates overrides either.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics in the legacy registry
	_ "k8s.io/component-base/metrics/prometheus/version"  // build info metric
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/grove-project/grove/scheduler/pkg/featuregates"
	"github.com/grove-project/grove/scheduler/pkg/gang"
	"github.com/grove-project/grove/scheduler/pkg/metrics"
)

func main() {
	os.Exit(cli.Run(newCommand()))
}

// newCommand wraps kube-scheduler's command so the plain metrics server runs
// for the scheduler's whole lifetime.
func newCommand() *cobra.Command {
	// Grove's gate defaults go in before the flags are parsed, so
	// --feature-gates still overrides each of them.
	if err := featuregates.Apply(utilfeature.DefaultMutableFeatureGate); err != nil {
		panic(fmt.Sprintf("setting grove-scheduler's feature gate defaults: %v", err))
	}
	cmd := app.NewSchedulerCommand(app.WithPlugin(gang.Name, gang.New))
	cmd.Use = "grove-scheduler"
	var metricsAddr string
	cmd.Flags().StringVar(&metricsAddr, "grove-metrics-bind-address", "0",
		"address (e.g. 0.0.0.0:8080) of a plain HTTP /metrics endpoint with the grove_ and scheduler_ metrics and no authentication; \"0\" or \"off\" (the default) disables it; the secure port always serves them behind authentication")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if f := c.Flags().Lookup("version"); f != nil && (f.Value.String() == "true" || f.Value.String() == "raw") {
			_, err := fmt.Fprintln(c.OutOrStdout(), versionLine())
			return err
		}
		metrics.Register()
		ln, err := metrics.Listen(metricsAddr)
		if err != nil {
			return err
		}
		if ln != nil {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				if err := metrics.Serve(ctx, ln); err != nil {
					fmt.Fprintf(os.Stderr, "metrics server: %v\n", err)
				}
			}()
		}
		return run(c, args)
	}
	return cmd
}
