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
// to, one per enabled profile of the operator configuration. Every backend
// prepares pods for its scheduler and checks that a PodCliqueSet asks for
// nothing its scheduler cannot do. grove-scheduler reads PodGangs itself;
// the backends of other gang schedulers (Translators) also translate each
// PodGang into their scheduler's own objects and read its verdict back.
package backend

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend/coscheduling"
	"github.com/grove-project/grove/operator/internal/backend/kai"
	"github.com/grove-project/grove/operator/internal/backend/translation"
	"github.com/grove-project/grove/operator/internal/backend/volcano"
	"github.com/grove-project/grove/operator/internal/backend/workloadapi"
	"github.com/grove-project/grove/operator/internal/config"
)

// Backend prepares pods for one scheduler.
type Backend interface {
	// Name is the backend's profile name and the schedulerName it sets on pods.
	Name() string
	// PreparePod sets what the scheduler needs on a pod Grove is about to
	// create; the pod carries its PodClique and PodGang labels already.
	PreparePod(pod *corev1.Pod)
	// ValidatePodCliqueSet names the fields of a PodCliqueSet the scheduler
	// cannot honour, for the admission webhook.
	ValidatePodCliqueSet(pcs *grovecorev1alpha1.PodCliqueSet) field.ErrorList
}

// Translator is a backend whose scheduler reads gangs from its own objects.
type Translator interface {
	Backend
	// Types are empty objects of each kind Sync writes, to watch them and to
	// check that the cluster serves them.
	Types() []client.Object
	// Sync creates or updates the scheduler's objects for the gang (owned by
	// the PodGang, so they are deleted with it), deletes those it no longer
	// needs, and returns what the scheduler says of the gang. A
	// *translation.MappingError means the gang cannot be expressed.
	Sync(ctx context.Context, c client.Client, pg *groveschedulerv1alpha1.PodGang, pcs *grovecorev1alpha1.PodCliqueSet) (translation.Verdict, error)
}

// schedulerNameBackend only names the scheduler: grove-scheduler reads
// PodGangs itself, and kube-scheduler without the Workload API schedules
// pods one by one.
type schedulerNameBackend struct{ name string }

func (b schedulerNameBackend) Name() string { return b.name }

func (b schedulerNameBackend) PreparePod(pod *corev1.Pod) { pod.Spec.SchedulerName = b.name }

func (b schedulerNameBackend) ValidatePodCliqueSet(*grovecorev1alpha1.PodCliqueSet) field.ErrorList {
	return nil
}

// Registry holds the enabled backends.
type Registry struct {
	backends    map[string]Backend
	defaultName string
}

// NewRegistry returns the backends enabled in the operator configuration.
func NewRegistry(cfg *config.OperatorConfiguration) (*Registry, error) {
	r := &Registry{backends: map[string]Backend{}, defaultName: cfg.Scheduler.DefaultProfileName}
	for _, p := range cfg.Scheduler.Profiles {
		b, err := newBackend(p)
		if err != nil {
			return nil, err
		}
		r.backends[p.Name] = b
	}
	if _, ok := r.backends[r.defaultName]; !ok {
		return nil, fmt.Errorf("default scheduler backend %q is not enabled", r.defaultName)
	}
	return r, nil
}

func newBackend(p config.SchedulerProfile) (Backend, error) {
	switch p.Name {
	case config.SchedulerBackendGrove:
		return schedulerNameBackend{name: p.Name}, nil
	case config.SchedulerBackendDefault:
		c, err := config.ProfileConfig[config.DefaultSchedulerConfig](p)
		if err != nil || !c.GangScheduling {
			return schedulerNameBackend{name: p.Name}, err
		}
		return workloadapi.New(c), nil
	case config.SchedulerBackendSchedulerPlugins:
		c, err := config.ProfileConfig[config.SchedulerPluginsConfig](p)
		return coscheduling.New(c), err
	case config.SchedulerBackendVolcano:
		c, err := config.ProfileConfig[config.VolcanoConfig](p)
		return volcano.New(c), err
	case config.SchedulerBackendKAI:
		c, err := config.ProfileConfig[config.KAIConfig](p)
		return kai.New(c), err
	}
	return nil, fmt.Errorf("unsupported scheduler backend %q", p.Name)
}

// Default returns the backend for pods whose template names no scheduler.
func (r *Registry) Default() Backend { return r.backends[r.defaultName] }

// Get returns the named backend, if enabled.
func (r *Registry) Get(name string) (Backend, bool) {
	b, ok := r.backends[name]
	return b, ok
}

// Translators returns the enabled backends that translate PodGangs, by name.
func (r *Registry) Translators() map[string]Translator {
	out := map[string]Translator{}
	for name, b := range r.backends {
		if t, ok := b.(Translator); ok {
			out[name] = t
		}
	}
	return out
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
