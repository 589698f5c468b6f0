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

package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// Component is one process of the local cluster, named as hack/local-cluster names it.
type Component string

// The local cluster's components, in start order.
const (
	Etcd                  Component = "etcd"
	KubeAPIServer         Component = "kube-apiserver"
	KubeControllerManager Component = "kube-controller-manager"
	Kwok                  Component = "kwok"
	GroveScheduler        Component = "grove-scheduler"
	GroveOperator         Component = "grove-operator"
)

// Components lists every component in start order.
var Components = []Component{Etcd, KubeAPIServer, KubeControllerManager, Kwok, GroveScheduler, GroveOperator}

// ParseComponent returns the component called name.
func ParseComponent(name string) (Component, error) {
	for _, c := range Components {
		if string(c) == name {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown component %q: one of %v", name, Components)
}

// Local is a running local cluster and a cluster-admin client to it.
type Local struct {
	// Root is the repository checkout whose hack/local-cluster runs the cluster.
	Root string
	// Dir is the cluster's state directory (GROVE_LOCAL_DIR).
	Dir string
	// Config is the admin REST config; Client uses it with Scheme.
	Config *rest.Config
	Client client.Client
	Scheme *runtime.Scheme
}

// Connect checks that every component of the local cluster in dir (the
// repository's .local-cluster/ when empty) is healthy and returns a client
// with Grove's types registered. qps and burst set the client's rate limit.
func Connect(root, dir string, qps float32, burst int) (*Local, error) {
	if dir == "" {
		dir = filepath.Join(root, ".local-cluster")
	}
	l := &Local{Root: root, Dir: dir}
	if out, err := l.Status(); err != nil {
		return nil, fmt.Errorf("the local cluster in %s is not healthy (start it with `hack/local-cluster up`): %w\n%s", dir, err, out)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return nil, fmt.Errorf("loading the local cluster's kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = qps, burst
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, grovecorev1alpha1.AddToScheme, groveschedulerv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	l.Config, l.Client, l.Scheme = cfg, c, scheme
	return l, nil
}

// run runs hack/local-cluster with args against this cluster's directory.
func (l *Local) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(l.Root, "hack", "local-cluster"), args...)
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+l.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("hack/local-cluster %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), err
}

// Status runs `hack/local-cluster status`; it fails unless all components are healthy.
func (l *Local) Status() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return l.run(ctx, "status")
}

// Kill sends SIGKILL to a component and returns once the process is gone.
func (l *Local) Kill(ctx context.Context, c Component) error {
	out, err := l.run(ctx, "kill", string(c))
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// Start starts a stopped component with its existing binary and returns
// once it is healthy.
func (l *Local) Start(ctx context.Context, c Component) error {
	out, err := l.run(ctx, "start", string(c))
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// KwokResyncAnnotation is what NudgeKwok sets on a pod; nothing in Grove reads it.
const KwokResyncAnnotation = "faults.grove.io/kwok-resync"

// NudgeKwok makes kwok look at pods again by annotating them, as a kubelet's
// periodic resync would (see PodWatch.StuckAtKubelet). It returns the pods
// it annotated.
func (l *Local) NudgeKwok(ctx context.Context, pods []*corev1.Pod) ([]string, error) {
	var names []string
	patch := client.RawPatch(types.MergePatchType,
		[]byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, KwokResyncAnnotation, time.Now().UTC().Format(time.RFC3339Nano))))
	for _, p := range pods {
		target := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
		if err := l.Client.Patch(ctx, target, patch); client.IgnoreNotFound(err) != nil {
			return names, fmt.Errorf("annotating pod %s/%s for kwok: %w", p.Namespace, p.Name, err)
		}
		names = append(names, p.Name)
	}
	return names, nil
}

// PIDs returns the process ID recorded for each running component. A
// component that crashed and was started again has a new one.
func (l *Local) PIDs() map[Component]int {
	out := map[Component]int{}
	for _, c := range Components {
		data, err := os.ReadFile(filepath.Join(l.Dir, "pids", string(c)))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(data))
		if len(fields) == 0 {
			continue
		}
		if pid, err := strconv.Atoi(fields[0]); err == nil {
			out[c] = pid
		}
	}
	return out
}
