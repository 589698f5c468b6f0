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

// Package harness runs grove-scheduler (or stock kube-scheduler) in-process
// against an envtest kube-apiserver with Node objects and no kubelet. The
// integration tests and the scheduler benchmark share it.
package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	corecrds "github.com/grove-project/grove/api/core/v1alpha1/crds"
	schedcrds "github.com/grove-project/grove/api/scheduler/v1alpha1/crds"
	"github.com/grove-project/grove/scheduler/pkg/featuregates"
	"github.com/grove-project/grove/scheduler/pkg/gang"
)

// StartControlPlane starts etcd and kube-apiserver from KUBEBUILDER_ASSETS with
// Grove's CRDs installed. Stop the returned environment when done.
func StartControlPlane() (*envtest.Environment, *rest.Config, error) {
	env := &envtest.Environment{}
	cfg, err := startControlPlane(env)
	if err != nil {
		return nil, nil, err
	}
	return env, cfg, nil
}

// startControlPlane starts env with Grove's CRDs installed.
func startControlPlane(env *envtest.Environment) (*rest.Config, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, manifests := range []func() ([][]byte, error){corecrds.Manifests, schedcrds.Manifests} {
		docs, err := manifests()
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(doc, crd); err != nil {
				return nil, fmt.Errorf("decoding CRD: %w", err)
			}
			crds = append(crds, crd)
		}
	}
	env.CRDInstallOptions = envtest.CRDInstallOptions{CRDs: crds}
	cfg, err := env.Start()
	if err != nil {
		return nil, err
	}
	// The test clients must not be the bottleneck.
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg, nil
}

// ConfigFile is the path of the shipped grove-scheduler configuration.
func ConfigFile() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "config", "grove-scheduler.yaml")
}

// Options tune an in-process scheduler.
type Options struct {
	// Grove selects grove-scheduler (the shipped configuration); false runs stock
	// kube-scheduler with its default profile and no Grove plugins.
	Grove bool
	// PermitWaitingTimeSeconds overrides GroveGang's Permit timeout when > 0.
	PermitWaitingTimeSeconds float64
	// InitialBackoffSeconds and MaxBackoffSeconds override the pod backoffs when > 0.
	InitialBackoffSeconds, MaxBackoffSeconds int64
	// QPS and Burst override clientConnection when > 0.
	QPS   float32
	Burst int32
	// DefaultBinder binds every pod with kube-scheduler's DefaultBinder, as
	// grove-scheduler did before GroveGang bound gang pods itself (for a
	// benchmark's side-by-side run).
	DefaultBinder bool
}

// RunScheduler builds a scheduler like kube-scheduler's app.Setup does and runs
// it until ctx ends. It returns once the informers are synced.
func RunScheduler(ctx context.Context, restCfg *rest.Config, o Options) error {
	// Feature gates as the binaries set them: grove-scheduler's defaults, or
	// stock kube-scheduler's. The scheduler reads them once, in New.
	setGates := featuregates.Restore
	if o.Grove {
		setGates = featuregates.Apply
	}
	if err := setGates(utilfeature.DefaultMutableFeatureGate); err != nil {
		return err
	}
	var cfg *schedconfig.KubeSchedulerConfiguration
	var err error
	if o.Grove {
		cfg, err = options.LoadConfigFromFile(klog.FromContext(ctx), ConfigFile())
	} else {
		cfg, err = latest.Default()
	}
	if err != nil {
		return err
	}
	if o.PermitWaitingTimeSeconds > 0 {
		for pi := range cfg.Profiles {
			for ci, pc := range cfg.Profiles[pi].PluginConfig {
				if pc.Name != gang.Name {
					continue
				}
				raw, _ := json.Marshal(gang.Args{PermitWaitingTimeSeconds: o.PermitWaitingTimeSeconds})
				cfg.Profiles[pi].PluginConfig[ci].Args = &k8sruntime.Unknown{Raw: raw, ContentType: k8sruntime.ContentTypeJSON}
			}
		}
	}
	if o.DefaultBinder {
		for pi := range cfg.Profiles {
			cfg.Profiles[pi].Plugins.Bind = schedconfig.PluginSet{Enabled: []schedconfig.Plugin{{Name: defaultbinder.Name}}}
		}
	}
	initial, maxBackoff := cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds
	if o.InitialBackoffSeconds > 0 {
		initial = o.InitialBackoffSeconds
	}
	if o.MaxBackoffSeconds > 0 {
		maxBackoff = o.MaxBackoffSeconds
	}
	kubeCfg := rest.CopyConfig(restCfg)
	kubeCfg.QPS, kubeCfg.Burst = cfg.ClientConnection.QPS, int(cfg.ClientConnection.Burst)
	// Use the content types the real kube-scheduler's client gets from its
	// configuration defaults (protobuf), so plugins that talk to custom
	// resources are tested the way they run.
	kubeCfg.ContentType = cfg.ClientConnection.ContentType
	kubeCfg.AcceptContentTypes = cfg.ClientConnection.AcceptContentTypes
	if o.QPS > 0 {
		kubeCfg.QPS, kubeCfg.Burst = o.QPS, int(o.Burst)
	}
	client, err := kubernetes.NewForConfig(kubeCfg)
	if err != nil {
		return err
	}
	dynClient, err := dynamic.NewForConfig(kubeCfg)
	if err != nil {
		return err
	}
	informerFactory := scheduler.NewInformerFactory(client, 0, nil)
	dynInformerFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dynClient, 0, corev1.NamespaceAll, nil)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	registry := frameworkruntime.Registry{}
	if o.Grove {
		registry[gang.Name] = gang.New
	}
	sched, err := scheduler.New(ctx, client, informerFactory, dynInformerFactory, profile.NewRecorderFactory(broadcaster),
		scheduler.WithKubeConfig(kubeCfg),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithParallelism(cfg.Parallelism),
		scheduler.WithFrameworkOutOfTreeRegistry(registry),
		scheduler.WithPodInitialBackoffSeconds(initial),
		scheduler.WithPodMaxBackoffSeconds(maxBackoff),
	)
	if err != nil {
		return fmt.Errorf("building scheduler: %w", err)
	}
	broadcaster.StartRecordingToSink(ctx.Done())
	informerFactory.Start(ctx.Done())
	dynInformerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	dynInformerFactory.WaitForCacheSync(ctx.Done())
	go func() {
		sched.Run(ctx)
		broadcaster.Shutdown()
	}()
	return nil
}

// NodeSpec describes fake nodes.
type NodeSpec struct {
	// Prefix names nodes <prefix>-<i>.
	Prefix string
	// Count is the number of nodes.
	Count int
	// Capacity is each node's capacity and allocatable.
	Capacity corev1.ResourceList
	// Labels returns extra labels for node i (may be nil).
	Labels func(i int) map[string]string
}

// CreateNodes creates Ready nodes with the given capacity (no kubelet runs).
func CreateNodes(ctx context.Context, client kubernetes.Interface, spec NodeSpec) ([]string, error) {
	names := make([]string, 0, spec.Count)
	for i := 0; i < spec.Count; i++ {
		name := fmt.Sprintf("%s-%d", spec.Prefix, i)
		labels := map[string]string{corev1.LabelHostname: name}
		if spec.Labels != nil {
			for k, v := range spec.Labels(i) {
				labels[k] = v
			}
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		created, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("creating node %s: %w", name, err)
		}
		created.Status = corev1.NodeStatus{
			Capacity:    spec.Capacity,
			Allocatable: spec.Capacity,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
			Phase: corev1.NodeRunning,
		}
		ready, err := client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("setting status of node %s: %w", name, err)
		}
		// The TaintNodesByCondition admission plugin taints new nodes not-ready;
		// without a node lifecycle controller nobody lifts it, so do it here.
		ready.Spec.Taints = nil
		if _, err := client.CoreV1().Nodes().Update(ctx, ready, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("untainting node %s: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// Resources builds a ResourceList from "name=quantity" pairs, e.g. Resources("cpu", "4", "nvidia.com/gpu", "8").
func Resources(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// PodSpec describes a test pod.
type PodSpec struct {
	Namespace, Name, SchedulerName string
	// PodGang and PodClique set the grove.io/podgang and grove.io/podclique labels when non-empty.
	PodGang, PodClique string
	Requests           corev1.ResourceList
	PriorityClassName  string
	// NodeSelector confines the pod to a test's own nodes.
	NodeSelector map[string]string
	// PodGroup joins the pod to a Workload API PodGroup
	// (spec.schedulingGroup.podGroupName), as the operator's default-scheduler
	// backend does.
	PodGroup string
}

// NewPod builds a pod with one pause container and zero termination grace, so
// a deletion completes at once without a kubelet.
func NewPod(s PodSpec) *corev1.Pod {
	labels := map[string]string{}
	if s.PodGang != "" {
		labels["grove.io/podgang"] = s.PodGang
	}
	if s.PodClique != "" {
		labels["grove.io/podclique"] = s.PodClique
	}
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, Labels: labels},
		Spec: corev1.PodSpec{
			SchedulerName:                 s.SchedulerName,
			TerminationGracePeriodSeconds: &zero,
			PriorityClassName:             s.PriorityClassName,
			NodeSelector:                  s.NodeSelector,
			SchedulingGroup:               schedulingGroup(s.PodGroup),
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: s.Requests, Limits: limitsFor(s.Requests)},
			}},
		},
	}
}

func schedulingGroup(podGroup string) *corev1.PodSchedulingGroup {
	if podGroup == "" {
		return nil
	}
	return &corev1.PodSchedulingGroup{PodGroupName: &podGroup}
}

// limitsFor mirrors extended resources into limits, which the API requires.
func limitsFor(req corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range req {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourceEphemeralStorage {
			out[name] = q
		}
	}
	return out
}

// WaitFor polls cond every interval until it is true or timeout passes.
func WaitFor(ctx context.Context, interval, timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
