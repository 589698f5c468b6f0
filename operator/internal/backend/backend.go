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

// Package backend holds the scheduler backends grove-operator can hand pods
// to. A backend prepares pods for its scheduler; grove-scheduler gang-schedules
// PodGangs itself, default-scheduler only gets Grove's gates and ordering.
package backend

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/grove-project/grove/operator/internal/config"
)

// Backend prepares pods for one scheduler.
type Backend interface {
	// Name is the backend's profile name and the schedulerName it sets on pods.
	Name() string
	// PreparePod sets what the scheduler needs on a pod Grove is about to create.
	PreparePod(pod *corev1.Pod)
}

type schedulerNameBackend struct{ name string }

func (b schedulerNameBackend) Name() string { return b.name }

func (b schedulerNameBackend) PreparePod(pod *corev1.Pod) { pod.Spec.SchedulerName = b.name }

// Registry holds the enabled backends.
type Registry struct {
	backends    map[string]Backend
	defaultName string
}

// NewRegistry returns the backends enabled in the operator configuration.
func NewRegistry(cfg *config.OperatorConfiguration) (*Registry, error) {
	r := &Registry{backends: map[string]Backend{}, defaultName: cfg.Scheduler.DefaultProfileName}
	for _, p := range cfg.Scheduler.Profiles {
		if !config.SupportedSchedulerBackends.Has(p.Name) {
			return nil, fmt.Errorf("unsupported scheduler backend %q", p.Name)
		}
		r.backends[p.Name] = schedulerNameBackend{name: p.Name}
	}
	if _, ok := r.backends[r.defaultName]; !ok {
		return nil, fmt.Errorf("default scheduler backend %q is not enabled", r.defaultName)
	}
	return r, nil
}

// Default returns the backend for pods whose template names no scheduler.
func (r *Registry) Default() Backend { return r.backends[r.defaultName] }

// Get returns the named backend, if enabled.
func (r *Registry) Get(name string) (Backend, bool) {
	b, ok := r.backends[name]
	return b, ok
}

// ForSchedulerName returns the backend for a pod template's schedulerName:
// the default backend when it is empty, an error when it names a backend that
// is not enabled.
func (r *Registry) ForSchedulerName(schedulerName string) (Backend, error) {
	if schedulerName == "" {
		return r.Default(), nil
	}
	if b, ok := r.backends[schedulerName]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("scheduler %q is not an enabled scheduler backend (enabled: %v)", schedulerName, r.Names())
}

// Names returns the enabled backend names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.backends))
	for n := range r.backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
