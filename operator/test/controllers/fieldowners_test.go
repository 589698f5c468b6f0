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

package controllers

import (
	"fmt"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

// writers lists an object's field managers as "<manager>/<operation>", with
// "/<subresource>" for a subresource's, sorted.
func writers(obj client.Object) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		w := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			w += "/" + e.Subresource
		}
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// The table of docs/dev/architecture.md ("Who writes what"), read back from
// metadata.managedFields after a PodCliqueSet came up.
var _ = Describe("Field ownership", func() {
	It("records every field of every object Grove writes under the one controller the architecture table names", func() {
		ns := newNamespace()
		Expect(k8sClient.Create(ctx, orderedSimple1(ns))).To(Succeed())
		Eventually(groupSummary(ns, "simple1-0")).Should(Equal([]string{"simple1-0-pca/2/2", "simple1-0-pcd/1/1", "simple1-0-sga-0-pcb/1/1", "simple1-0-sga-0-pcc/1/2"}))

		const (
			pcsApply  = childsync.PodCliqueSetFieldManager + "/Apply"
			pcsStatus = childsync.PodCliqueSetFieldManager + "/Update/status"
			pcsgApply = childsync.PodCliqueScalingGroupFieldManager + "/Apply"
			pclqMain  = childsync.PodCliqueFieldManager + "/Update"
			pclqState = childsync.PodCliqueFieldManager + "/Update/status"
		)
		want := map[client.Object][]string{
			&grovecorev1alpha1.PodClique{}:             {pcsApply, pclqState},
			&grovecorev1alpha1.PodCliqueScalingGroup{}: {pcsApply, childsync.PodCliqueScalingGroupFieldManager + "/Update/status"},
			&groveschedulerv1alpha1.PodGang{}:          {pcsApply, pcsStatus, pclqMain},
			&corev1.Service{}:                          {pcsApply},
			&autoscalingv2.HorizontalPodAutoscaler{}:   {pcsApply},
			&corev1.ServiceAccount{}:                   {pcsApply},
			&rbacv1.Role{}:                             {pcsApply},
			&rbacv1.RoleBinding{}:                      {pcsApply},
			&corev1.Secret{}:                           {childsync.CreateFieldManager + "/Update"},
		}
		names := map[string]string{
			"*v1alpha1.PodClique": "simple1-0-pcd", "*v1alpha1.PodCliqueScalingGroup": "simple1-0-sga", "*v1alpha1.PodGang": "simple1-0",
			"*v1.Service": "simple1-0", "*v2.HorizontalPodAutoscaler": "simple1-0-pca",
			"*v1.ServiceAccount": apicommon.InitcServiceAccountName("simple1"), "*v1.Role": apicommon.InitcRoleName("simple1"),
			"*v1.RoleBinding": apicommon.InitcRoleBindingName("simple1"), "*v1.Secret": apicommon.InitcTokenSecretName("simple1"),
		}
		for obj, managers := range want {
			kind := fmt.Sprintf("%T", obj)
			Eventually(func(g Gomega) []string {
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: names[kind]}, obj)).To(Succeed())
				return writers(obj)
			}).Should(ConsistOf(managers), kind)
		}

		By("a scaling group's member PodCliques are the scaling-group controller's; pods and the references the PodClique controller's")
		member := &grovecorev1alpha1.PodClique{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "simple1-0-sga-0-pcb"}, member)).To(Succeed())
		Expect(writers(member)).To(ConsistOf(pcsgApply, pclqState))
		pods := &corev1.PodList{}
		Expect(k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{apicommon.LabelPartOfKey: "simple1"})).To(Succeed())
		Expect(pods.Items).NotTo(BeEmpty())
		for i := range pods.Items {
			Expect(writers(&pods.Items[i])).To(ConsistOf(pclqMain), pods.Items[i].Name)
		}
	})
})
