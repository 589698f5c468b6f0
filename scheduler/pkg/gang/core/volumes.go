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
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// volumeTopology is where a pod's PersistentVolumeClaims let it run, as
// kube-scheduler's VolumeBinding filter decides it for one pod.
type volumeTopology struct {
	// fits are the claims' node checks; a node must pass all.
	fits []func(*corev1.Node) bool
	// key names the volumes and unbound claims, so pods constrained alike compare equal.
	key string
}

// allows reports whether the node passes every claim's check.
func (v volumeTopology) allows(node *corev1.Node) bool {
	for _, fit := range v.fits {
		if !fit(node) {
			return false
		}
	}
	return true
}

// volumeTopologyOf reads, from the informer caches, where the pod's claims let
// it run. A bound claim (spec.volumeName set and the volume known) allows the
// nodes its PersistentVolume's required node affinity selects. An unbound
// claim is checked as the VolumeBinding filter checks it (unboundClaimFit).
// Claims not in the cache add nothing: the per-pod filter reports them.
func (m *Manager) volumeTopologyOf(pod *corev1.Pod) volumeTopology {
	var out volumeTopology
	if m.pvcs == nil || m.pvs == nil {
		return out
	}
	var names []string
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim == nil {
			continue
		}
		pvc, err := m.pvcs.PersistentVolumeClaims(pod.Namespace).Get(vol.PersistentVolumeClaim.ClaimName)
		if err != nil {
			continue
		}
		if pvc.Spec.VolumeName == "" {
			out.fits = append(out.fits, m.unboundClaimFit(pvc))
			names = append(names, "claim:"+pvc.Namespace+"/"+pvc.Name)
			continue
		}
		pv, err := m.pvs.Get(pvc.Spec.VolumeName)
		if err != nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		selector := pv.Spec.NodeAffinity.Required
		out.fits = append(out.fits, func(node *corev1.Node) bool {
			ok, err := corev1helpers.MatchNodeSelectorTerms(node, selector)
			return err == nil && ok
		})
		names = append(names, "volume:"+pv.Name)
	}
	sort.Strings(names)
	out.key = strings.Join(names, ",")
	return out
}

// unboundClaimFit is the node check of a claim not bound yet, following the
// VolumeBinding filter:
//   - a claim without a StorageClass, whose class is unknown or binds
//     immediately fits no node: the filter refuses the pod until the
//     PersistentVolume controller binds it;
//   - a WaitForFirstConsumer claim the scheduler already picked a node for
//     (annotation volume.kubernetes.io/selected-node) fits that node only, if
//     the class can provision there;
//   - otherwise a node fits when an available PersistentVolume of the class
//     matches the claim there (size, access and volume modes, selector, node
//     affinity; or the volume pre-bound to the claim), or when the class has a
//     provisioner and its allowedTopologies admit the node.
//
// CSIStorageCapacity is not consulted: a driver that publishes capacity can
// still refuse a node the search admitted, and the per-pod filter then holds
// the pod back.
func (m *Manager) unboundClaimFit(pvc *corev1.PersistentVolumeClaim) func(*corev1.Node) bool {
	never := func(*corev1.Node) bool { return false }
	className := volumehelpers.GetPersistentVolumeClaimClass(pvc)
	if className == "" || m.classes == nil {
		return never
	}
	class, err := m.classes.Get(className)
	if err != nil || class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return never
	}
	provisions := func(node *corev1.Node) bool {
		return class.Provisioner != "" && class.Provisioner != volumehelpers.NotSupportedProvisioner &&
			matchesTopology(class.AllowedTopologies, node.Labels)
	}
	if selected := pvc.Annotations[volumehelpers.AnnSelectedNode]; selected != "" {
		return func(node *corev1.Node) bool { return node.Name == selected && provisions(node) }
	}
	// The volumes that may match on some node: the class's and any pre-bound to the claim.
	var candidates []*corev1.PersistentVolume
	if all, err := m.pvs.List(labels.Everything()); err == nil {
		for _, pv := range all {
			if volumehelpers.GetPersistentVolumeClass(pv) == className || volumehelpers.IsVolumeBoundToClaim(pv, pvc) {
				candidates = append(candidates, pv)
			}
		}
	}
	return func(node *corev1.Node) bool {
		if len(candidates) > 0 {
			if pv, err := volumehelpers.FindMatchingVolume(pvc, candidates, node, nil, true, true); err == nil && pv != nil {
				return true
			}
		}
		return provisions(node)
	}
}

// matchesTopology reports whether node labels satisfy a StorageClass's
// allowedTopologies: any term, with every requirement of the term met (the
// label present with one of its values); no terms allow every node, an empty
// term none.
func matchesTopology(terms []corev1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, term := range terms {
		ok := len(term.MatchLabelExpressions) > 0
		for _, req := range term.MatchLabelExpressions {
			v, has := nodeLabels[req.Key]
			if !has || !slices.Contains(req.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// hasClaims reports whether the pod mounts any PersistentVolumeClaim.
func hasClaims(pod *corev1.Pod) bool {
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// groupVolumeTopology is the volume topology a group's demand carries: that
// of its unplaced pods when they all share it (claims shared by the group, or
// volumes pinned alike), none when they differ. Pods whose claims pin them to
// different places are not copies of one template, so the search leaves them
// to the per-pod filter rather than requiring all of them of every pod.
func (m *Manager) groupVolumeTopology(v gangView, gi int, atHand *corev1.Pod) volumeTopology {
	spec := v.spec
	var out volumeTopology
	first := true
	for _, ref := range spec.groups[gi].refs {
		if _, ok := v.assigned[ref]; ok {
			continue
		}
		p := atHand
		if p == nil || p.Name != ref {
			var err error
			if p, err = m.pods.Pods(spec.namespace).Get(ref); err != nil || p.DeletionTimestamp != nil {
				continue
			}
		}
		if first && !hasClaims(p) {
			// Pods of a group share a template: without claims there is nothing to read.
			return volumeTopology{}
		}
		t := m.volumeTopologyOf(p)
		if first {
			out, first = t, false
			continue
		}
		if t.key != out.key {
			return volumeTopology{}
		}
	}
	return out
}
