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

package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/grove-project/grove/scheduler/pkg/featuregates"
)

func TestVersionNamesGroveAndTheKubernetesLine(t *testing.T) {
	cmd := newCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--version"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("grove-scheduler --version: %v", err)
	}
	const want = "grove-scheduler v0.0.0-dev (kube-scheduler v1.37."
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "with the GroveGang plugin") {
		t.Errorf("grove-scheduler --version printed %q, want a line starting %q (Grove's version, then the Kubernetes line) naming the GroveGang plugin", out.String(), want)
	}
}

// The gate defaults must survive kube-scheduler's own flag handling
// (ComponentGlobalsRegistry.Set in PersistentPreRunE) and still yield to
// --feature-gates.
func TestFeatureGateDefaults(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want bool
	}{
		{name: "grove default", args: []string{"--version"}, want: false},
		{name: "flag overrides", args: []string{"--version", "--feature-gates=NominatedNodeNameForExpectation=true"}, want: true},
		{name: "other gates keep the default", args: []string{"--version", "--feature-gates=OpportunisticBatching=true"}, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The registry is process-wide and keeps earlier --feature-gates;
			// a real grove-scheduler parses one command line.
			compatibility.DefaultComponentGlobalsRegistry.Reset()
			cmd := newCommand()
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("grove-scheduler %v: %v", tc.args, err)
			}
			if got := utilfeature.DefaultFeatureGate.Enabled(featuregates.NominatedNodeNameForExpectation); got != tc.want {
				t.Errorf("after grove-scheduler %v NominatedNodeNameForExpectation is %t, want %t", tc.args, got, tc.want)
			}
		})
	}
}

// The shipped configuration turns off kube-scheduler's system default
// spreading in the grove-scheduler profile and keeps the GroveGang plugin
// configured; pods' own topologySpreadConstraints are untouched by it.
func TestShippedConfigHasNoDefaultSpreading(t *testing.T) {
	cfg, err := options.LoadConfigFromFile(klog.Background(), "../../config/grove-scheduler.yaml")
	if err != nil {
		t.Fatalf("loading config/grove-scheduler.yaml: %v", err)
	}
	if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "grove-scheduler" {
		t.Fatalf("profiles = %d, want one named grove-scheduler", len(cfg.Profiles))
	}
	var spread *schedconfig.PodTopologySpreadArgs
	var gangConfigured bool
	for _, pc := range cfg.Profiles[0].PluginConfig {
		switch pc.Name {
		case "PodTopologySpread":
			spread, _ = pc.Args.(*schedconfig.PodTopologySpreadArgs)
		case "GroveGang":
			gangConfigured = true
		}
	}
	if spread == nil {
		t.Fatal("the grove-scheduler profile has no PodTopologySpread args")
	}
	if spread.DefaultingType != schedconfig.ListDefaulting || len(spread.DefaultConstraints) != 0 {
		t.Errorf("PodTopologySpread defaultingType %q with %d default constraints, want %q with none",
			spread.DefaultingType, len(spread.DefaultConstraints), schedconfig.ListDefaulting)
	}
	if !gangConfigured {
		t.Error("the grove-scheduler profile has no GroveGang args")
	}
}
