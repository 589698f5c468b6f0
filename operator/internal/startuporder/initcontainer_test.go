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

package startuporder

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var testImage = Image{Ref: "registry.example/grove-initc:v1.2.3", PullPolicy: corev1.PullIfNotPresent}

func userPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "agentic-0-ai-0-router-abcde",
			Namespace:   "inference",
			Annotations: map[string]string{"team": "search"},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "router-sa",
			InitContainers:     []corev1.Container{{Name: "fetch-model", Image: "fetch:1"}},
			Containers:         []corev1.Container{{Name: "router", Image: "router:latest"}},
			Volumes:            []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
}

// wantInjected is userPod after injecting grove-initc for the two parents of
// the agentic router (a subset, to keep the expectation readable).
func wantInjected() *corev1.Pod {
	pod := userPod()
	pod.Annotations["grove.io/starts-after"] = "agentic-0-ai-0-vision,agentic-0-ai-0-reasoning"
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{
		Name:            "grove-initc",
		Image:           "registry.example/grove-initc:v1.2.3",
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            []string{"--podcliques=agentic-0-ai-0-vision:1", "--podcliques=agentic-0-ai-0-reasoning:2"},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "pod-info-vol", MountPath: "/var/grove/pod-info", ReadOnly: true},
			{Name: "sa-token-secret-vol", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
		},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	})
	pod.Spec.Volumes = append(pod.Spec.Volumes,
		corev1.Volume{
			Name: "pod-info-vol",
			VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}},
				{Path: "podgangname", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels['grove.io/podgang']"}},
			}}},
		},
		corev1.Volume{
			Name: "sa-token-secret-vol",
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName:  "agentic-ic-sat",
				DefaultMode: ptr.To[int32](0o644),
			}},
		},
	)
	return pod
}

var routerParents = []Parent{
	{Name: "agentic-0-ai-0-vision", MinAvailable: 1},
	{Name: "agentic-0-ai-0-reasoning", MinAvailable: 2},
}

func TestInjectInitContainer(t *testing.T) {
	tests := []struct {
		name    string
		inject  func(pod *corev1.Pod)
		wantPod *corev1.Pod
	}{
		{
			name:    "no parents leaves the pod untouched",
			inject:  func(pod *corev1.Pod) { InjectInitContainer(pod, "agentic", testImage, nil) },
			wantPod: userPod(),
		},
		{
			name:    "parents add grove-initc after the user's init containers, its volumes and the annotation",
			inject:  func(pod *corev1.Pod) { InjectInitContainer(pod, "agentic", testImage, routerParents) },
			wantPod: wantInjected(),
		},
		{
			name: "injecting twice changes nothing more",
			inject: func(pod *corev1.Pod) {
				InjectInitContainer(pod, "agentic", testImage, routerParents)
				InjectInitContainer(pod, "agentic", testImage, routerParents)
			},
			wantPod: wantInjected(),
		},
		{
			name: "injecting again with other parents replaces the args and annotation in place",
			inject: func(pod *corev1.Pod) {
				InjectInitContainer(pod, "agentic", Image{Ref: "old:v0", PullPolicy: corev1.PullAlways}, []Parent{{Name: "x", MinAvailable: 9}})
				InjectInitContainer(pod, "agentic", testImage, routerParents)
			},
			wantPod: wantInjected(),
		},
		{
			name: "a pod without annotations gets the starts-after annotation",
			inject: func(pod *corev1.Pod) {
				pod.Annotations = nil
				InjectInitContainer(pod, "agentic", testImage, routerParents)
			},
			wantPod: func() *corev1.Pod {
				pod := wantInjected()
				delete(pod.Annotations, "team")
				return pod
			}(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := userPod()
			tc.inject(pod)
			if !reflect.DeepEqual(pod, tc.wantPod) {
				t.Fatalf("pod after injection:\n got  %+v\n want %+v", pod, tc.wantPod)
			}
		})
	}
}

func TestInjectInitContainerKeepsUserServiceAccount(t *testing.T) {
	pod := userPod()
	pod.Spec.AutomountServiceAccountToken = ptr.To(true)
	InjectInitContainer(pod, "agentic", testImage, routerParents)
	if pod.Spec.ServiceAccountName != "router-sa" {
		t.Errorf("serviceAccountName = %q, want router-sa", pod.Spec.ServiceAccountName)
	}
	if pod.Spec.AutomountServiceAccountToken == nil || !*pod.Spec.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken changed to %v", pod.Spec.AutomountServiceAccountToken)
	}
	for _, c := range pod.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.Name == TokenVolumeName || m.Name == PodInfoVolumeName {
				t.Errorf("user container %q mounts %q; only grove-initc may", c.Name, m.Name)
			}
		}
	}
}

func TestInjectInitContainerWithResolvedParents(t *testing.T) {
	pcs := newPCS("mpi-inference", explicit,
		[]cliqueDef{{name: "worker", replicas: 8}, {name: "leader", replicas: 1, startsAfter: []string{"worker"}}},
		[]groupDef{{name: "mpi-job", cliques: []string{"worker", "leader"}, replicas: 1, minAvailable: ptr.To[int32](1)}})

	for _, tc := range []struct {
		clique         string
		wantInit       int
		wantAnnotation string
	}{
		{clique: "worker", wantInit: 0},
		{clique: "leader", wantInit: 1, wantAnnotation: "mpi-inference-0-mpi-job-0-worker"},
	} {
		t.Run(tc.clique, func(t *testing.T) {
			parents, err := Parents(pcs, 0, tc.clique, 0)
			if err != nil {
				t.Fatal(err)
			}
			pod := &corev1.Pod{}
			InjectInitContainer(pod, pcs.Name, testImage, parents)
			if len(pod.Spec.InitContainers) != tc.wantInit {
				t.Fatalf("init containers = %d, want %d", len(pod.Spec.InitContainers), tc.wantInit)
			}
			if got := pod.Annotations["grove.io/starts-after"]; got != tc.wantAnnotation {
				t.Errorf("starts-after annotation = %q, want %q", got, tc.wantAnnotation)
			}
			if tc.wantInit == 1 {
				want := []string{"--podcliques=mpi-inference-0-mpi-job-0-worker:8"}
				if got := pod.Spec.InitContainers[0].Args; !reflect.DeepEqual(got, want) {
					t.Errorf("args = %q, want %q", got, want)
				}
				if got := pod.Spec.Volumes[1].Secret.SecretName; got != "mpi-inference-ic-sat" {
					t.Errorf("token secret = %q, want mpi-inference-ic-sat", got)
				}
			}
		})
	}
}
