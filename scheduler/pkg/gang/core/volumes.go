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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// volumeTopology is where a pod's bound volumes let it run: the required node
// affinity of the PersistentVolume of each of its bound claims.
type volumeTopology struct {
	// selectors are the PersistentVolumes' required node affinities; a node must match all.
	selectors []*corev1.NodeSelector
	// key names the PersistentVolumes, so pods pinned alike compare equal.
	key string
}

// allows reports whether the node satisfies every volume's node affinity.
func (v volumeTopology) allows(node *corev1.Node) bool {
	for _, s := range v.selectors {
		if ok, err := corev1helpers.MatchNodeSelectorTerms(node, s); err != nil || !ok {
			return false
		}
	}
	return true
}

// volumeTopologyOf reads, from the informer caches, the node affinity of the
// PersistentVolumes the pod's claims are bound to (spec.volumeName set and the
// volume known). Unbound claims and volumes without node affinity add nothing:
// the search leaves them to the per-pod VolumeBinding filter.
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
		if err != nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv, err := m.pvs.Get(pvc.Spec.VolumeName)
		if err != nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		out.selectors = append(out.selectors, pv.Spec.NodeAffinity.Required)
		names = append(names, pv.Name)
	}
	sort.Strings(names)
	out.key = strings.Join(names, ",")
	return out
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
