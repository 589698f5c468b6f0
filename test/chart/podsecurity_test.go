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

package chart

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// warnings collects the API server's warning headers (Pod Security
// admission's warn mode answers a workload it would reject with one).
type warnings struct {
	mu  sync.Mutex
	all []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.all
	w.all = nil
	return out
}

// TestPodSecurityRestricted applies the chart's Deployments, and pods made
// from their templates, by server-side dry run into a namespace that
// enforces the restricted Pod Security Standard, on a real kube-apiserver
// (envtest): Pod Security admission rejects a pod that breaks the standard,
// and warns about a Deployment whose template would.
func TestPodSecurityRestricted(t *testing.T) {
	root := repoRoot(t)
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (KUBEBUILDER_ASSETS, set by make; make control-plane builds the binaries): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	warned := &warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandlerWithContext = nil
	cfg.WarningHandler = warned
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "grove-system"
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest",
		"pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/warn-version": "latest",
	}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sa := range []string{"grove-operator", "grove-scheduler"} {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

	// podFrom is a pod of a Deployment's template, as its ReplicaSet would create it.
	podFrom := func(name string, tmpl corev1.PodTemplateSpec) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-dry-run", Namespace: ns, Labels: tmpl.Labels}, Spec: tmpl.Spec}
	}

	for _, values := range [][]string{
		nil, // auto certificates: an emptyDir
		{"certManager.enabled=true", "scheduler.replicas=2"}, // a Secret volume
		{"webhooks.certProvisionMode=manual", "scheduler.metricsPort=0", "priorityClass.enabled=false"},
	} {
		t.Run(fmt.Sprintf("values %v", values), func(t *testing.T) {
			objs := render(t, root, ns, values...)
			for _, name := range []string{"grove-operator", "grove-scheduler"} {
				d := deployment(t, objs, name)
				d.ResourceVersion = ""
				if _, err := cs.AppsV1().Deployments(ns).Create(ctx, &d, dryRun); err != nil {
					t.Errorf("Deployment %s: %v", name, err)
				}
				if w := warned.take(); len(w) > 0 {
					t.Errorf("Deployment %s: Pod Security warnings %v", name, w)
				}
				if _, err := cs.CoreV1().Pods(ns).Create(ctx, podFrom(name, d.Spec.Template), dryRun); err != nil {
					t.Errorf("a pod of Deployment %s is rejected: %v", name, err)
				}
			}
		})
	}

	// The check catches a template that breaks the standard.
	t.Run("a pod without the chart's securityContext is rejected", func(t *testing.T) {
		d := deployment(t, render(t, root, ns), "grove-operator")
		d.Spec.Template.Spec.SecurityContext = nil
		d.Spec.Template.Spec.Containers[0].SecurityContext = nil
		_, err := cs.CoreV1().Pods(ns).Create(ctx, podFrom("grove-operator", d.Spec.Template), dryRun)
		if err == nil || !strings.Contains(err.Error(), `violates PodSecurity "restricted:latest"`) {
			t.Fatalf("pod without securityContext: got %v, want a restricted:latest violation", err)
		}
		for _, want := range []string{"allowPrivilegeEscalation != false", "unrestricted capabilities", "runAsNonRoot != true", "seccompProfile"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("violation %q not named in %v", want, err)
			}
		}
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, &d, dryRun); err != nil {
			t.Fatalf("Deployment: %v (Pod Security only warns about workloads)", err)
		}
		if w := warned.take(); len(w) == 0 {
			t.Error("no Pod Security warning for a Deployment whose pods would be rejected")
		}
	})
}
