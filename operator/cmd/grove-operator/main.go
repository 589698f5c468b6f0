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

// Command grove-operator runs Grove's controllers: it turns PodCliqueSets
// into PodCliques, PodCliqueScalingGroups, PodGangs, pods, Services and HPAs.
//
// Exit codes: 0 success, 1 bad arguments, 2 bad configuration, 4 manager
// initialization failed, 6 the manager failed while running.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/manager"
	"github.com/grove-project/grove/operator/internal/memlimit"
	"github.com/grove-project/grove/operator/internal/mnnvl"
	"github.com/grove-project/grove/operator/internal/version"
	"github.com/grove-project/grove/operator/internal/webhook"
	"github.com/grove-project/grove/operator/internal/webhook/certs"
)

const (
	exitBadArgs     = 1
	exitBadConfig   = 2
	exitManagerInit = 4
	exitStart       = 6
	// exitMNNVLPreflight: network.autoMNNVLEnabled without the ComputeDomain CRD.
	exitMNNVLPreflight = 7
)

// serviceAccountNamespaceFile holds the namespace of a pod's ServiceAccount.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// operatorNamespace is where the operator runs: POD_NAMESPACE (set by the
// chart), else the in-cluster ServiceAccount's namespace, else the webhook
// Secret's namespace from the configuration (a local run), else grove-system.
func operatorNamespace(cfg *config.OperatorConfiguration) string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(serviceAccountNamespaceFile); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	if ns := cfg.Server.Webhooks.SecretNamespace; ns != "" {
		return ns
	}
	return "grove-system"
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grove-operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "path to the OperatorConfiguration file")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return exitBadArgs
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %v\n", fs.Args())
		return exitBadArgs
	}
	if *showVersion {
		fmt.Fprintln(stdout, "grove-operator "+version.Get().String())
		return 0
	}
	if *configPath == "" {
		fmt.Fprintln(stderr, "one of --config or --version is required")
		fs.Usage()
		return exitBadArgs
	}

	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitBadConfig
	}
	logger := manager.Logger(cfg)
	ctrl.SetLogger(logger)
	log := logger.WithName("setup")
	log.Info("Starting grove-operator", "version", version.Get())
	memlimit.Apply(log)

	restConfig, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "Loading kubeconfig")
		return exitManagerInit
	}
	if cfg.Network.AutoMNNVLEnabled {
		if err := mnnvl.Preflight(restConfig); err != nil {
			log.Error(err, "MNNVL preflight")
			return exitMNNVLPreflight
		}
	}
	mgr, err := manager.New(cfg, restConfig)
	if err != nil {
		log.Error(err, "Creating manager")
		return exitManagerInit
	}
	backends, err := backend.NewRegistry(cfg)
	if err != nil {
		log.Error(err, "Creating scheduler backends")
		return exitManagerInit
	}
	if err := manager.RegisterControllers(mgr, cfg, backends); err != nil {
		log.Error(err, "Registering controllers")
		return exitManagerInit
	}
	// Certificates come before the manager starts: the webhook server reads
	// them when it starts, ahead of every other runnable.
	namespace := operatorNamespace(cfg)
	certsReady, err := certs.Setup(mgr, cfg, namespace)
	if err != nil {
		log.Error(err, "Setting up webhook certificates", "namespace", namespace)
		return exitManagerInit
	}
	if err := mgr.AddReadyzCheck("webhook-certs", certs.ReadyChecker(certsReady, mgr.GetWebhookServer())); err != nil {
		log.Error(err, "Adding webhook readiness check")
		return exitManagerInit
	}
	if err := webhook.Setup(mgr, cfg, backends); err != nil {
		log.Error(err, "Registering webhooks")
		return exitManagerInit
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Running manager")
		return exitStart
	}
	return 0
}
