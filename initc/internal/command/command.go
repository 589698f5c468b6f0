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

// Package command is the grove-initc program: flags, pod info, API client,
// waiting, logging and exit codes.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	apicommon "github.com/grove-project/grove/api/common"
	"github.com/grove-project/grove/initc/internal/parents"
	"github.com/grove-project/grove/initc/internal/podinfo"
	"github.com/grove-project/grove/initc/internal/waiter"
)

// Exit codes of grove-initc. Only ExitReady lets the pod's containers start;
// on any other code the kubelet restarts grove-initc (pods restart init
// containers whatever their restartPolicy), unless the pod is being deleted.
const (
	// ExitReady: every parent PodClique has at least its minAvailable Ready pods.
	ExitReady = 0
	// ExitInvalidInput: bad or missing --podcliques, or an unreadable or empty
	// pod info file. The log line has code ERR_INVALID_INPUT and names the argument or file.
	ExitInvalidInput = 1
	// ExitClientConfig: no API client could be built (in-cluster token or CA
	// missing, or an unreadable --kubeconfig). Log code ERR_CLIENT_CONFIG.
	ExitClientConfig = 2
	// ExitInterrupted: stopped by SIGINT (128+2) before the parents were ready.
	ExitInterrupted = 130
	// ExitTerminated: stopped by SIGTERM (128+15) before the parents were ready,
	// normally because the pod is being deleted. Not 0, so a stray signal never
	// lets the containers start early.
	ExitTerminated = 143
)

// Error codes in grove-initc's error log lines.
const (
	errInvalidInput = "ERR_INVALID_INPUT"
	errClientConfig = "ERR_CLIENT_CONFIG"
)

// version is Grove's release version, stamped at link time with -ldflags
// "-X github.com/grove-project/grove/initc/internal/command.version=…"
// (make build, make images): the operator injects grove-initc by its own
// version, so the two are released together.
var version = "v0.0.0-dev"

// options are grove-initc's flags.
type options struct {
	podCliques  []string
	podInfoDir  string
	kubeconfig  string
	showVersion bool
}

// Main runs grove-initc with the process's arguments and signals and returns
// the exit code. The first SIGTERM or SIGINT stops the wait cleanly; a second
// one exits at once with the code of that signal.
func Main() int {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// signalCause is the cancellation cause of a context ended by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "received signal " + s.sig.String() }

// SignalContext returns a context cancelled, with the signal as its cause, on
// the first SIGTERM or SIGINT. The second signal exits the process immediately.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case sig := <-signals:
			cancel(signalCause{sig: sig})
		case <-ctx.Done():
			return
		}
		sig := <-signals
		os.Exit(signalExitCode(sig))
	}()
	return ctx, func() {
		signal.Stop(signals)
		cancel(context.Canceled)
	}
}

func signalExitCode(sig os.Signal) int {
	if sig == syscall.SIGINT {
		return ExitInterrupted
	}
	return ExitTerminated
}

// Run is grove-initc with explicit arguments (without the program name),
// standard output (where --version prints) and log output; it returns the
// exit code. ctx ending stops the wait; when its cause is a signal, the exit
// code is that signal's.
func Run(ctx context.Context, args []string, stdout, logOutput io.Writer) int {
	log := logr.FromSlogHandler(slog.NewJSONHandler(logOutput, nil))
	// client-go logs through klog; send it to the same JSON stream.
	klog.SetLogger(log)

	opts, err := parseFlags(args, logOutput)
	if errors.Is(err, pflag.ErrHelp) {
		return ExitReady
	}
	if err != nil {
		log.Error(err, "Invalid arguments", "code", errInvalidInput)
		return ExitInvalidInput
	}
	if opts.showVersion {
		fmt.Fprintf(stdout, "grove-initc %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return ExitReady
	}
	parentList, err := parents.Parse(opts.podCliques)
	if err != nil {
		log.Error(err, "Invalid arguments", "code", errInvalidInput)
		return ExitInvalidInput
	}
	info, err := podinfo.Read(opts.podInfoDir)
	if err != nil {
		log.Error(err, "Cannot read pod info", "code", errInvalidInput)
		return ExitInvalidInput
	}
	client, err := newClient(opts.kubeconfig)
	if err != nil {
		log.Error(err, "Cannot build the API client", "code", errClientConfig)
		return ExitClientConfig
	}

	names := make([]string, 0, len(parentList))
	for _, p := range parentList {
		names = append(names, p.String())
	}
	log = log.WithValues("namespace", info.Namespace, "podGang", info.PodGang)
	log.Info("Waiting for parent PodCliques", "parents", names)

	err = waiter.Wait(ctx, waiter.Config{
		Client:    client,
		Namespace: info.Namespace,
		PodGang:   info.PodGang,
		Parents:   parentList,
		Log:       log,
	})
	if err == nil {
		log.Info("Successfully waited for all parent PodCliques to start up")
		return ExitReady
	}
	var sig signalCause
	if errors.As(context.Cause(ctx), &sig) {
		log.Info("Stopped by signal before the parent PodCliques were ready", "signal", sig.sig.String())
		return signalExitCode(sig.sig)
	}
	if ctx.Err() != nil {
		log.Info("Stopped before the parent PodCliques were ready", "reason", context.Cause(ctx).Error())
		return ExitTerminated
	}
	log.Error(err, "Cannot wait for parent PodCliques", "code", errInvalidInput)
	return ExitInvalidInput
}

func parseFlags(args []string, usageOutput io.Writer) (options, error) {
	var opts options
	fs := pflag.NewFlagSet("grove-initc", pflag.ContinueOnError)
	fs.SetOutput(usageOutput)
	fs.StringArrayVarP(&opts.podCliques, parents.FlagName, "p", nil,
		"a parent PodClique and the number of its pods that must be Ready, as <podclique-name>:<minAvailable>; repeat for each parent")
	fs.StringVar(&opts.podInfoDir, "pod-info-dir", apicommon.PodInfoMountPath,
		"directory holding the downward-API files "+apicommon.PodInfoNamespaceFile+" and "+apicommon.PodInfoPodGangFile)
	fs.StringVar(&opts.kubeconfig, "kubeconfig", "",
		"kubeconfig file for running outside a pod; by default the in-cluster ServiceAccount token is used")
	fs.BoolVar(&opts.showVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected positional arguments %q: parents are given with --%s", fs.Args(), parents.FlagName)
	}
	return opts, nil
}

func newClient(kubeconfig string) (kubernetes.Interface, error) {
	var (
		cfg *rest.Config
		err error
	)
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("loading --kubeconfig=%s: %w", kubeconfig, err)
		}
	} else {
		cfg, err = rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster config from %s: %w", apicommon.ServiceAccountTokenMountPath, err)
		}
	}
	cfg.UserAgent = "grove-initc"
	return kubernetes.NewForConfig(cfg)
}
