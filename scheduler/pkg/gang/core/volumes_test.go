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
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
)

// claiming mounts the named PersistentVolumeClaims in the pod.
func claiming(p *corev1.Pod, claims ...string) *corev1.Pod {
	for _, c := range claims {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: c, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c},
		}})
	}
	return p
}

// pinnedVolume is a PersistentVolume whose node affinity requires the host.
func pinnedVolume(name, host string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: hostKey, Operator: corev1.NodeSelectorOpIn, Values: []string{host}}},
		}}}},
	}}
}

func claim(name, volume string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
}

// unboundClaim is a claim of the class for size storage, not bound yet; class
// "-" leaves storageClassName unset.
func unboundClaim(name, class, size string, annotations map[string]string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: annotations}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}}
	if class != "-" {
		c.Spec.StorageClassName = &class
	}
	return c
}

// storageClass binds in the mode, provisions with the provisioner and allows
// the hosts (none: every node).
func storageClass(name, provisioner string, mode storagev1.VolumeBindingMode, hosts ...string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	if len(hosts) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: hostKey, Values: hosts}}}}
	}
	return sc
}

// availableVolume is an unclaimed 10Gi ReadWriteMany PersistentVolume of the
// class, pinned to the host.
func availableVolume(name, class, host string) *corev1.PersistentVolume {
	pv := pinnedVolume(name, host)
	pv.Spec.StorageClassName = class
	pv.Spec.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}
	pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	pv.Status.Phase = corev1.VolumeAvailable
	return pv
}

func TestSearchFollowsVolumeTopology(t *testing.T) {
	tests := []struct {
		name string
		// pods are the gang's group w, all unplaced; the first is the pod at hand.
		pods    []*corev1.Pod
		gpus    []int64
		want    []string
		message string
	}{
		{
			name: "a group sharing a claim bound to a volume pinned to n1 goes to n1",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "shared"), claiming(newTestPod("ns", "g-w-1", "g", 1), "shared")},
			gpus: []int64{8, 8},
			want: []string{"n1", "n1"},
		},
		{
			name:    "a group sharing a pinned volume fails when its node lacks room",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "shared"), claiming(newTestPod("ns", "g-w-1", "g", 1), "shared")},
			gpus:    []int64{8, 1},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 1 fit: 1/2 nodes are available, with room for 1 pods: 1 node(s) had volume node affinity conflict",
		},
		{
			name: "an unbound claim a class provisions anywhere constrains nothing",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "anywhere"), claiming(newTestPod("ns", "g-w-1", "g", 1), "anywhere")},
			gpus: []int64{8, 8},
			want: []string{"n0", "n0"},
		},
		{
			name: "an unbound claim whose class provisions on n1 only goes to n1",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "on-n1"), claiming(newTestPod("ns", "g-w-1", "g", 1), "on-n1")},
			gpus: []int64{8, 8},
			want: []string{"n1", "n1"},
		},
		{
			name:    "an unbound claim whose class provisions on n1 only fails when n1 lacks room",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "on-n1"), claiming(newTestPod("ns", "g-w-1", "g", 1), "on-n1")},
			gpus:    []int64{8, 1},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 1 fit: 1/2 nodes are available, with room for 1 pods: 1 node(s) had volume node affinity conflict",
		},
		{
			name: "an unbound claim of a class that does not provision goes where an available volume matches",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "static"), claiming(newTestPod("ns", "g-w-1", "g", 1), "static")},
			gpus: []int64{8, 8},
			want: []string{"n1", "n1"},
		},
		{
			name:    "an unbound claim no available volume is large enough for, of a class that does not provision, fits nowhere",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "too-large"), claiming(newTestPod("ns", "g-w-1", "g", 1), "too-large")},
			gpus:    []int64{8, 8},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 node(s) had volume node affinity conflict",
		},
		{
			name: "an unbound claim the scheduler picked n1 for goes to n1",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "selected-n1"), claiming(newTestPod("ns", "g-w-1", "g", 1), "selected-n1")},
			gpus: []int64{8, 8},
			want: []string{"n1", "n1"},
		},
		{
			name:    "an unbound claim of an Immediate class fits nowhere until it is bound",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "immediate"), claiming(newTestPod("ns", "g-w-1", "g", 1), "immediate")},
			gpus:    []int64{8, 8},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 node(s) had volume node affinity conflict",
		},
		{
			name:    "an unbound claim without a class fits nowhere until it is bound",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "classless"), claiming(newTestPod("ns", "g-w-1", "g", 1), "classless")},
			gpus:    []int64{8, 8},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 node(s) had volume node affinity conflict",
		},
		{
			name:    "an unbound claim of a class that does not exist fits nowhere",
			pods:    []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "unknown-class"), claiming(newTestPod("ns", "g-w-1", "g", 1), "unknown-class")},
			gpus:    []int64{8, 8},
			message: "group w needs 2 pods with 1 nvidia.com/gpu, 100m cpu, 0 fit: 0/2 nodes are available: 2 node(s) had volume node affinity conflict",
		},
		{
			name: "per-pod claims pinned apart are left to the per-pod filter",
			pods: []*corev1.Pod{claiming(newTestPod("ns", "g-w-0", "g", 1), "data-0"), claiming(newTestPod("ns", "g-w-1", "g", 1), "data-1")},
			gpus: []int64{8, 8},
			want: []string{"n0", "n0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			pvcs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			pvs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, obj := range []any{claim("shared", "pv-n1"), claim("data-0", "pv-n0"), claim("data-1", "pv-n1"),
				unboundClaim("anywhere", "csi", "1Gi", nil), unboundClaim("on-n1", "csi-n1", "1Gi", nil),
				unboundClaim("static", "local", "1Gi", nil), unboundClaim("too-large", "local", "100Gi", nil),
				unboundClaim("selected-n1", "csi", "1Gi", map[string]string{"volume.kubernetes.io/selected-node": "n1"}),
				unboundClaim("immediate", "fast", "1Gi", nil), unboundClaim("classless", "-", "1Gi", nil), unboundClaim("unknown-class", "gone", "1Gi", nil)} {
				if err := pvcs.Add(obj); err != nil {
					t.Fatal(err)
				}
			}
			for _, obj := range []any{pinnedVolume("pv-n0", "n0"), pinnedVolume("pv-n1", "n1"), availableVolume("local-n1", "local", "n1")} {
				if err := pvs.Add(obj); err != nil {
					t.Fatal(err)
				}
			}
			classes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, obj := range []any{
				storageClass("csi", "csi.example.com", storagev1.VolumeBindingWaitForFirstConsumer),
				storageClass("csi-n1", "csi.example.com", storagev1.VolumeBindingWaitForFirstConsumer, "n1"),
				storageClass("local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer),
				storageClass("fast", "csi.example.com", storagev1.VolumeBindingImmediate),
			} {
				if err := classes.Add(obj); err != nil {
					t.Fatal(err)
				}
			}
			e.m.pvcs, e.m.pvs = corelisters.NewPersistentVolumeClaimLister(pvcs), corelisters.NewPersistentVolumeLister(pvs)
			e.m.classes = storagelisters.NewStorageClassLister(classes)
			e.addPodGang(newTestPodGang("ns", "g", testGroup{name: "w", pods: len(tt.pods), min: int32(len(tt.pods)), gpus: 1}))
			e.addPods(tt.pods...)
			nodes := []*corev1.Node{
				newTestNode("n0", tt.gpus[0], map[string]string{hostKey: "n0"}),
				newTestNode("n1", tt.gpus[1], map[string]string{hostKey: "n1"}),
			}
			sims, byName := simNodes(nodeInfos(nodes))
			view := e.m.view(e.m.spec("ns/g"))
			demands, msg := e.m.gangDemands(view, 0, tt.pods[0], false)
			if msg != "" {
				t.Fatal(msg)
			}
			p, fail := Search(sims, demands, view.scope(byName))
			if tt.message != "" {
				if fail == nil || fail.Message != tt.message {
					t.Fatalf("Search = %+v, %+v; want failure %q", p, fail, tt.message)
				}
				return
			}
			if fail != nil {
				t.Fatalf("Search failed: %s", fail.Message)
			}
			if !reflect.DeepEqual(p.Nodes[0], tt.want) {
				t.Fatalf("pods placed on %v, want %v", p.Nodes[0], tt.want)
			}
		})
	}
}
