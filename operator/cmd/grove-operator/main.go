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

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/config"
	"github.com/grove-project/grove/operator/internal/manager"
	"github.com/grove-project/grove/operator/internal/version"
)

const (
	exitBadArgs     = 1
	exitBadConfig   = 2
	exitManagerInit = 4
	exitStart       = 6
)

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

	restConfig, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "Loading kubeconfig")
		return exitManagerInit
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
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "Running manager")
		return exitStart
	}
	return 0
}
