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

package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/scheduler/test/harness"
)

// selectedNodeAnnotation is where kube-scheduler's volume binder records the
// node it picked for a WaitForFirstConsumer claim to be provisioned for.
const selectedNodeAnnotation = "volume.kubernetes.io/selected-node"

// blockedClaimGang binds a pod taking one of host's two GPUs, then creates
// gang "shared": two 1-GPU worker pods that both mount claim "model".
func blockedClaimGang(ns, host string) []*corev1.Pod {
	GinkgoHelper()
	blocker := harness.NewPod(harness.PodSpec{Namespace: ns, Name: "blocker", SchedulerName: schedulerName, Requests: gpus("1"),
		NodeSelector: map[string]string{corev1.LabelHostname: host}})
	createPods([]*corev1.Pod{blocker})
	Eventually(func() map[string]string { return boundPods(ns, []string{"blocker"}) }, 20*time.Second, 100*time.Millisecond).Should(HaveKey("blocker"))

	groups := []group{{name: "worker", pods: 2, min: 2, requests: gpus("1")}}
	pods := gangPods(ns, ns, "shared", "", groups...)
	for _, p := range pods {
		p.Spec.Volumes = []corev1.Volume{{Name: "model", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "model"}}}}
	}
	createPods(pods)
	createPodGang(newPodGang(ns, "shared", "", "", groups...))
	return pods
}

var _ = Describe("Gang placement and the per-pod filters", func() {
	It("binds no pod of a one-pod-per-host gang on fewer hosts than pods, and every pod once enough hosts exist", func() {
		ns := newNamespace("spread")
		// Each host has room for all four pods: only the anti-affinity keeps them apart.
		capacity := harness.Resources("cpu", "8", "pods", "110", gpu, "8")
		createNodes(ns, 3, capacity, nil)
		groups := []group{{name: "worker", pods: 4, min: 4, requests: gpus("1")}}
		pods := gangPods(ns, ns, "spread", "", groups...)
		for _, p := range pods {
			p.Labels["app"] = "spread-worker"
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread-worker"}},
					TopologyKey:   corev1.LabelHostname,
				}},
			}}
		}
		createPods(pods)
		createPodGang(newPodGang(ns, "spread", "", "", groups...))

		By("refusing the gang before any pod takes a node, naming the anti-affinity")
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "spread"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(MatchRegexp(`^group worker needs 4 pods with 1 nvidia\.com/gpu, 100m cpu, 3 fit: 3/\d+ nodes are available(: \d+ node\(s\) didn't match Pod's node affinity/selector)? \(nodes refused by pod anti-affinity\)$`))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Equal(0))

		By("binding all four pods on four hosts once a fourth host joins")
		createNodes(ns+"-more", 1, capacity, func(int) map[string]string { return map[string]string{poolLabel: ns} })
		var bound map[string]string
		Eventually(func() int { bound = boundPods(ns, allNames(pods)); return len(bound) }, 20*time.Second, 100*time.Millisecond).Should(Equal(4))
		hosts := map[string]bool{}
		for _, node := range bound {
			hosts[node] = true
		}
		Expect(hosts).To(HaveLen(4), "pods share hosts: %v", bound)
	})

	It("keeps a gang sharing a claim bound to a volume pinned to one host off until that host has room for all of it", func() {
		ns := newNamespace("volume")
		names := createNodes(ns, 2, harness.Resources("cpu", "8", "pods", "110", gpu, "2"), nil)
		pinned := names[1]

		By("binding a claim to a volume whose node affinity requires " + pinned)
		// No PersistentVolume controller runs here: the spec binds claim and volume as it would.
		_, err := kube.CoreV1().PersistentVolumes().Create(suiteCtx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-model"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/models"}},
				ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "model"},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{pinned}}},
				}}}},
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		empty := ""
		pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Create(suiteCtx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "model", Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				StorageClassName: &empty,
				VolumeName:       ns + "-model",
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		pvc.Status.Phase = corev1.ClaimBound
		_, err = kube.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(suiteCtx, pvc, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		pods := blockedClaimGang(ns, pinned)

		By("refusing the gang although the other host has room for both pods")
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "shared"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(MatchRegexp(`^group worker needs 2 pods with 1 nvidia\.com/gpu, 100m cpu, 1 fit: 1/\d+ nodes are available, with room for 1 pods: \d+ node\(s\) had volume node affinity conflict$`))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func() int { return len(boundPods(ns, allNames(pods))) }, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Equal(0))

		By("binding both pods on the pinned host once the blocker is gone")
		Expect(kube.CoreV1().Pods(ns).Delete(suiteCtx, "blocker", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() map[string]string { return boundPods(ns, allNames(pods)) }, 20*time.Second, 100*time.Millisecond).
			Should(Equal(map[string]string{"shared-worker-0": pinned, "shared-worker-1": pinned}))
	})

	It("admits a gang sharing an unbound claim only where its StorageClass provisions, and binds it once the volume is provisioned there", func() {
		ns := newNamespace("provision")
		names := createNodes(ns, 2, harness.Resources("cpu", "8", "pods", "110", gpu, "2"), nil)
		allowed := names[1]

		By("a WaitForFirstConsumer class that provisions on " + allowed + " only, and a claim of it")
		wffc := storagev1.VolumeBindingWaitForFirstConsumer
		class := ns + "-local"
		_, err := kube.StorageV1().StorageClasses().Create(suiteCtx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: class},
			Provisioner:       "provisioner.example.com",
			VolumeBindingMode: &wffc,
			AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: corev1.LabelHostname, Values: []string{allowed}},
			}}},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(kube.StorageV1().StorageClasses().Delete(suiteCtx, class, metav1.DeleteOptions{})).To(Succeed())
		})
		_, err = kube.CoreV1().PersistentVolumeClaims(ns).Create(suiteCtx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "model"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				StorageClassName: &class,
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		pods := blockedClaimGang(ns, allowed)

		By("refusing the gang although the other host has room for both pods, and picking no node for the claim")
		Eventually(func(g Gomega) {
			c := expectCondition(g, podGang(ns, "shared"), groveschedulerv1alpha1.PodGangConditionTypeScheduled, metav1.ConditionFalse, groveschedulerv1alpha1.PodGangReasonUnschedulable)
			g.Expect(c.Message).To(MatchRegexp(`^group worker needs 2 pods with 1 nvidia\.com/gpu, 100m cpu, 1 fit: 1/\d+ nodes are available, with room for 1 pods: \d+ node\(s\) had volume node affinity conflict$`))
		}, 15*time.Second, 100*time.Millisecond).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(boundPods(ns, allNames(pods))).To(BeEmpty())
			pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(suiteCtx, "model", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pvc.Annotations).NotTo(HaveKey(selectedNodeAnnotation))
		}, 2*permitTimeoutSeconds*time.Second, 250*time.Millisecond).Should(Succeed())

		By("picking " + allowed + " for the claim once the blocker is gone")
		Expect(kube.CoreV1().Pods(ns).Delete(suiteCtx, "blocker", metav1.DeleteOptions{})).To(Succeed())
		var pvc *corev1.PersistentVolumeClaim
		Eventually(func(g Gomega) {
			pvc, err = kube.CoreV1().PersistentVolumeClaims(ns).Get(suiteCtx, "model", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pvc.Annotations).To(HaveKeyWithValue(selectedNodeAnnotation, allowed))
		}, 20*time.Second, 100*time.Millisecond).Should(Succeed())

		By("binding both pods there once the claim is bound to the provisioned volume")
		// No provisioner or PersistentVolume controller runs here: the spec does their part.
		_, err = kube.CoreV1().PersistentVolumes().Create(suiteCtx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-model"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              class,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/models"}},
				ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "model", UID: pvc.UID},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{allowed}}},
				}}}},
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error {
			pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(suiteCtx, "model", metav1.GetOptions{})
			if err != nil {
				return err
			}
			pvc.Annotations["pv.kubernetes.io/bind-completed"] = "yes"
			pvc.Spec.VolumeName = ns + "-model"
			if pvc, err = kube.CoreV1().PersistentVolumeClaims(ns).Update(suiteCtx, pvc, metav1.UpdateOptions{}); err != nil {
				return err
			}
			pvc.Status.Phase = corev1.ClaimBound
			_, err = kube.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(suiteCtx, pvc, metav1.UpdateOptions{})
			return err
		}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
		Eventually(func() map[string]string { return boundPods(ns, allNames(pods)) }, 30*time.Second, 100*time.Millisecond).
			Should(Equal(map[string]string{"shared-worker-0": allowed, "shared-worker-1": allowed}))
	})
})
