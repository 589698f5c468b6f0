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

package harness

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Kubernetes' own gang scheduling: stock kube-scheduler v1.37.2 (the
// binary the local cluster runs) scheduling Workload API PodGroups, against
// an envtest kube-apiserver that serves the Workload API. The benchmarks run
// it beside grove-scheduler on the same nodes.

// WorkloadAPIGates are the feature gates of Kubernetes' gang scheduling
// (GenericWorkload) and its topology-aware placement
// (TopologyAwareWorkloadScheduling, alpha in 1.37).
const WorkloadAPIGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"

// WorkloadAPIControlPlane is an envtest control plane that serves the
// Workload API, with an admin kubeconfig on disk for the processes the
// benchmarks start (kube-scheduler, the operator's translation).
type WorkloadAPIControlPlane struct {
	Env *envtest.Environment
	// Config is the admin's client config (QPS 1000, burst 2000).
	Config *rest.Config
	// Dir holds Kubeconfig and the files of the processes started.
	Dir, Kubeconfig string
}

// StartWorkloadAPIControlPlane is StartControlPlane with the Workload API
// (scheduling.k8s.io/v1beta1) served, and kube-apiserver's flags given as
// name, value pairs set as well. Stop it when done.
func StartWorkloadAPIControlPlane(apiServerFlags ...string) (*WorkloadAPIControlPlane, error) {
	env := &envtest.Environment{}
	args := env.ControlPlane.GetAPIServer().Configure().
		Append("feature-gates", WorkloadAPIGates).
		Append("runtime-config", "scheduling.k8s.io/v1beta1=true")
	for i := 0; i+1 < len(apiServerFlags); i += 2 {
		args.Set(apiServerFlags[i], apiServerFlags[i+1])
	}
	if _, err := startControlPlane(env); err != nil {
		// envtest leaves etcd and kube-apiserver running when installing
		// the CRDs fails.
		_ = env.Stop()
		return nil, err
	}
	cp := &WorkloadAPIControlPlane{Env: env}
	if err := cp.addAdmin(); err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

func (cp *WorkloadAPIControlPlane) addAdmin() error {
	admin, err := cp.Env.AddUser(envtest.User{Name: "bench-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding the admin user: %w", err)
	}
	data, err := admin.KubeConfig()
	if err != nil {
		return fmt.Errorf("rendering kubeconfig: %w", err)
	}
	if cp.Dir, err = os.MkdirTemp("", "grove-bench-"); err != nil {
		return err
	}
	cp.Kubeconfig = filepath.Join(cp.Dir, "kubeconfig")
	cp.Config = admin.Config()
	cp.Config.QPS, cp.Config.Burst = 1000, 2000
	return os.WriteFile(cp.Kubeconfig, data, 0o600)
}

// Stop stops the control plane and removes Dir.
func (cp *WorkloadAPIControlPlane) Stop() {
	_ = cp.Env.Stop()
	if cp.Dir != "" {
		_ = os.RemoveAll(cp.Dir)
	}
}

// repoRoot is the repository's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// TranslateGangs writes the Workload and PodGroups of every PodGang of ns
// with the operator's default-scheduler backend (its Sync, through
// operator/internal/backend/workloadapi/translategangs), as the operator
// would. topologyAware is the backend's topologyAwareScheduling.
func TranslateGangs(ctx context.Context, kubeconfig, ns string, topologyAware bool) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "run", "github.com/grove-project/grove/operator/internal/backend/workloadapi/translategangs",
		"--kubeconfig", kubeconfig, "--namespace", ns, "--topology-aware="+strconv.FormatBool(topologyAware))
	cmd.Dir = repoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("translating the PodGangs of %s: %w: %s", ns, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// KubeScheduler is a running stock kube-scheduler process.
type KubeScheduler struct {
	cmd *exec.Cmd
	// done is closed once the process has exited; waitErr is then its exit.
	done    chan struct{}
	waitErr error
}

// StartKubeScheduler runs bin/k8s-v1.37.2/kube-scheduler with its default
// profile, the Workload API gates and the given client QPS/burst, logging
// to stderr, and returns once its /readyz says its informers are synced
// (within 10 minutes: on a loaded machine syncing thousands of pods is slow).
func StartKubeScheduler(ctx context.Context, kubeconfig, dir string, qps float32, burst int32) (*KubeScheduler, error) {
	config := filepath.Join(dir, "kube-scheduler.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: %g
  burst: %d
leaderElection:
  leaderElect: false
`, kubeconfig, qps, burst), 0o600); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot(), "bin", "k8s-v1.37.2", "kube-scheduler"),
		"--config", config, "--feature-gates", WorkloadAPIGates,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port), "--cert-dir", dir, "--v", "0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-scheduler (make control-plane builds it): %w", err)
	}
	ks := &KubeScheduler{cmd: cmd, done: make(chan struct{})}
	go func() { ks.waitErr = cmd.Wait(); close(ks.done) }()
	httpc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	url := fmt.Sprintf("https://127.0.0.1:%d/readyz", port)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		select {
		case <-ks.done:
			return nil, fmt.Errorf("kube-scheduler exited before it was ready: %w", ks.waitErr)
		case <-time.After(20 * time.Millisecond):
		}
		if resp, err := httpc.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ks, nil
			}
		}
		if time.Now().After(deadline) {
			ks.Stop()
			return nil, fmt.Errorf("kube-scheduler not ready after 10 minutes")
		}
	}
}

// Stop ends the process and waits for it.
func (ks *KubeScheduler) Stop() {
	_ = ks.cmd.Process.Kill()
	<-ks.done
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
