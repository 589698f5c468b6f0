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

package pod

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

// IsActive reports whether a pod counts towards a PodClique's replicas: not
// terminating and not finished.
func IsActive(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// podIndexOf reads a pod's index from its hostname <pclq>-<index>, falling
// back to its pod-index label.
func podIndexOf(pclqName string, pod *corev1.Pod) (int, bool) {
	if rest, ok := strings.CutPrefix(pod.Spec.Hostname, pclqName+"-"); ok {
		if i, err := strconv.Atoi(rest); err == nil && i >= 0 {
			return i, true
		}
	}
	if i, err := strconv.Atoi(pod.Labels[apicommon.LabelPodCliquePodIndex]); err == nil && i >= 0 {
		return i, true
	}
	return 0, false
}

// FreeIndices returns the n lowest pod indices not used by active pods or by
// creates still pending, filling holes first.
func FreeIndices(pclqName string, active []*corev1.Pod, pending []int, n int) []int {
	used := make(map[int]bool, len(active)+len(pending))
	for _, p := range active {
		if i, ok := podIndexOf(pclqName, p); ok {
			used[i] = true
		}
	}
	for _, i := range pending {
		used[i] = true
	}
	out := make([]int, 0, n)
	for i := 0; len(out) < n; i++ {
		if !used[i] {
			out = append(out, i)
		}
	}
	return out
}

// DuplicateIndexExtras returns the pods that must give up their pod index
// because another pod holds it too, and pods with no index at all. Of the pods
// sharing an index, the one SortForDeletion would delete last stays (on a
// node, running, ready, current template, oldest).
func DuplicateIndexExtras(pclqName string, active []*corev1.Pod, currentTemplateHash string) []*corev1.Pod {
	byIndex := make(map[int][]*corev1.Pod, len(active))
	var extras []*corev1.Pod
	for _, p := range active {
		if i, ok := podIndexOf(pclqName, p); ok {
			byIndex[i] = append(byIndex[i], p)
		} else {
			extras = append(extras, p)
		}
	}
	indices := make([]int, 0, len(byIndex))
	for i, pods := range byIndex {
		if len(pods) > 1 {
			indices = append(indices, i)
		}
	}
	sort.Ints(indices)
	for _, i := range indices {
		group := slices.Clone(byIndex[i])
		SortForDeletion(group, pclqName, currentTemplateHash)
		extras = append(extras, group[:len(group)-1]...)
	}
	return extras
}

// SortForDeletion orders pods so the ones to remove first on scale-in come
// first: not yet on a node, then by phase (Pending, Unknown, Running), not
// ready before ready, outdated template before current, then the highest pod
// index (so indices stay compact), then the newest.
func SortForDeletion(pods []*corev1.Pod, pclqName, currentTemplateHash string) {
	phaseRank := map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}
	sort.SliceStable(pods, func(a, b int) bool {
		pa, pb := pods[a], pods[b]
		if (pa.Spec.NodeName == "") != (pb.Spec.NodeName == "") {
			return pa.Spec.NodeName == ""
		}
		if ra, rb := phaseRank[pa.Status.Phase], phaseRank[pb.Status.Phase]; ra != rb {
			return ra < rb
		}
		if IsReady(pa) != IsReady(pb) {
			return !IsReady(pa)
		}
		if oa, ob := pa.Labels[apicommon.LabelPodTemplateHash] != currentTemplateHash, pb.Labels[apicommon.LabelPodTemplateHash] != currentTemplateHash; oa != ob {
			return oa
		}
		ia, _ := podIndexOf(pclqName, pa)
		ib, _ := podIndexOf(pclqName, pb)
		if ia != ib {
			return ia > ib
		}
		return pb.CreationTimestamp.Before(&pa.CreationTimestamp)
	})
}

// IsReady reports whether a pod's Ready condition is True.
func IsReady(pod *corev1.Pod) bool {
	return conditionTrue(pod, corev1.PodReady)
}

// IsScheduled reports whether a pod is bound to a node.
func IsScheduled(pod *corev1.Pod) bool {
	return pod.Spec.NodeName != "" || conditionTrue(pod, corev1.PodScheduled)
}

func conditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
