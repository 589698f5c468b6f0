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

package core

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

// disruptionBudget is what preemption needs of one PodDisruptionBudget: the
// pods it covers and how many of them may still be disrupted.
type disruptionBudget struct {
	name      string
	namespace string
	selector  labels.Selector
	allowed   int32
	// disrupted are the pods the disruption controller already counts as
	// disrupted: evicting them again costs the budget nothing.
	disrupted sets.Set[string]
}

// disruptionBudgets are the budgets covering the pods of preemption candidates.
type disruptionBudgets []disruptionBudget

// disruptionBudgets reads, from the PodDisruptionBudget informer, the budgets
// of every namespace a unit has pods in. A budget with an empty or invalid
// selector covers no pod, as in kube-scheduler's preemption.
func (m *Manager) disruptionBudgets(units []*victimUnit) disruptionBudgets {
	namespaces := sets.New[string]()
	for _, u := range units {
		for _, p := range u.pods {
			namespaces.Insert(p.Namespace)
		}
	}
	var out disruptionBudgets
	for _, ns := range sets.List(namespaces) {
		pdbs, err := m.pdbs.PodDisruptionBudgets(ns).List(labels.Everything())
		if err != nil {
			m.log.Error(err, "Listing PodDisruptionBudgets for preemption", "namespace", ns)
			continue
		}
		for _, pdb := range pdbs {
			selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || selector.Empty() {
				continue
			}
			b := disruptionBudget{name: pdb.Name, namespace: ns, selector: selector, allowed: pdb.Status.DisruptionsAllowed, disrupted: sets.New[string]()}
			for name := range pdb.Status.DisruptedPods {
				b.disrupted.Insert(name)
			}
			out = append(out, b)
		}
	}
	return out
}

// spend evicts the units' placed pods in order against the budgets and
// returns, per unit, how many of its pods take a covering budget below zero
// (a pod counts once however many of its budgets it exhausts).
func (b disruptionBudgets) spend(units []*victimUnit) []int {
	left := make([]int32, len(b))
	for i := range b {
		left[i] = b[i].allowed
	}
	out := make([]int, len(units))
	for ui, u := range units {
		for _, p := range u.pods {
			violated := false
			for i := range b {
				if b[i].namespace != p.Namespace || b[i].disrupted.Has(p.Name) || !b[i].selector.Matches(labels.Set(p.Labels)) {
					continue
				}
				left[i]--
				if left[i] < 0 {
					violated = true
				}
			}
			if violated {
				out[ui]++
			}
		}
	}
	return out
}

// violations is the number of budget violations evicting the victims causes,
// counted in the order the victims appear among units.
func (b disruptionBudgets) violations(units, victims []*victimUnit) int {
	chosen := make(map[*victimUnit]bool, len(victims))
	for _, v := range victims {
		chosen[v] = true
	}
	var ordered []*victimUnit
	for _, u := range units {
		if chosen[u] {
			ordered = append(ordered, u)
		}
	}
	total := 0
	for _, n := range b.spend(ordered) {
		total += n
	}
	return total
}
