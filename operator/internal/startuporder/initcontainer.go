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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	apicommon "github.com/grove-project/grove/api/common"
)

const (
	// PodInfoVolumeName is the downward-API volume that tells grove-initc its
	// namespace and PodGang.
	PodInfoVolumeName = "pod-info-vol"
	// TokenVolumeName is the volume holding the per-PodCliqueSet
	// ServiceAccount token grove-initc talks to the API server with.
	TokenVolumeName = "sa-token-secret-vol"
	// PodCliquesFlag is the grove-initc flag naming one parent PodClique.
	PodCliquesFlag = "--podcliques"

	// tokenFileMode lets grove-initc read the token whatever user the image runs as.
	tokenFileMode int32 = 0o644
)

// InitContainerArgs are the grove-initc arguments for parents: one
// --podcliques=<name>:<minAvailable> per parent, in order.
func InitContainerArgs(parents []Parent) []string {
	args := make([]string, 0, len(parents))
	for _, p := range parents {
		args = append(args, fmt.Sprintf("%s=%s:%d", PodCliquesFlag, p.Name, p.MinAvailable))
	}
	return args
}

// InjectInitContainer makes pod wait for parents before its containers start.
// It appends the grove-initc init container after the user's init containers
// (so those run first and may rely on nothing else), adds the pod-info and
// token volumes, and records the parent names in the grove.io/starts-after
// annotation. Called again on the same pod it updates what it added instead of
// duplicating it. With no parents it leaves the pod unchanged.
//
// The token is the Secret common.InitcTokenSecretName(pcsName), mounted at the
// default ServiceAccount token path in grove-initc only. The pod's
// serviceAccountName and automountServiceAccountToken stay as the user set
// them: the ServiceAccount admission plugin skips containers that already mount
// something at that path, so the user's containers still get the user's token
// and grove-initc gets its own, and the two mounts never clash.
func InjectInitContainer(pod *corev1.Pod, pcsName string, image Image, parents []Parent) {
	if pod == nil || len(parents) == 0 {
		return
	}
	container := initContainer(image, parents)
	upsertInitContainer(&pod.Spec, container)
	upsertVolume(&pod.Spec, podInfoVolume())
	upsertVolume(&pod.Spec, tokenVolume(pcsName))

	names := make([]string, 0, len(parents))
	for _, p := range parents {
		names = append(names, p.Name)
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[apicommon.AnnotationStartsAfter] = strings.Join(names, ",")
}

// Image is the grove-initc image the operator injects (config.InitContainer).
type Image struct {
	// Ref is the image reference with its tag or digest.
	Ref string
	// PullPolicy is the container's image pull policy.
	PullPolicy corev1.PullPolicy
}

func initContainer(image Image, parents []Parent) corev1.Container {
	return corev1.Container{
		Name:            apicommon.InitContainerName,
		Image:           image.Ref,
		ImagePullPolicy: image.PullPolicy,
		Args:            InitContainerArgs(parents),
		VolumeMounts: []corev1.VolumeMount{
			{Name: PodInfoVolumeName, MountPath: apicommon.PodInfoMountPath, ReadOnly: true},
			{Name: TokenVolumeName, MountPath: apicommon.ServiceAccountTokenMountPath, ReadOnly: true},
		},
		// grove-initc logs why it failed; surface that in the pod status.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
}

func podInfoVolume() corev1.Volume {
	return corev1.Volume{
		Name: PodInfoVolumeName,
		VolumeSource: corev1.VolumeSource{
			DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{
					{
						Path:     apicommon.PodInfoNamespaceFile,
						FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
					},
					{
						Path: apicommon.PodInfoPodGangFile,
						FieldRef: &corev1.ObjectFieldSelector{
							APIVersion: "v1",
							FieldPath:  fmt.Sprintf("metadata.labels['%s']", apicommon.LabelPodGang),
						},
					},
				},
			},
		},
	}
}

func tokenVolume(pcsName string) corev1.Volume {
	mode := tokenFileMode
	return corev1.Volume{
		Name: TokenVolumeName,
		VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{
				SecretName:  apicommon.InitcTokenSecretName(pcsName),
				DefaultMode: &mode,
			},
		},
	}
}

func upsertInitContainer(spec *corev1.PodSpec, container corev1.Container) {
	for i := range spec.InitContainers {
		if spec.InitContainers[i].Name == container.Name {
			spec.InitContainers[i] = container
			return
		}
	}
	spec.InitContainers = append(spec.InitContainers, container)
}

func upsertVolume(spec *corev1.PodSpec, volume corev1.Volume) {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == volume.Name {
			spec.Volumes[i] = volume
			return
		}
	}
	spec.Volumes = append(spec.Volumes, volume)
}
