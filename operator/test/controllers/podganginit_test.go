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
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apicommon "github.com/grove-project/grove/api/common"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/podganginit"
)

// schedulerFirst is the manager's client with one race made certain: when
// the operator writes Initialized=True on an armed PodGang, grove-scheduler's
// status write (phase and Scheduled condition) lands just before it, so the
// operator's write, computed on the older PodGang, gets a Conflict from the
// API server.
type schedulerFirst struct {
	client.Client
	mu    sync.Mutex
	armed map[string]bool
	raced []string
}

func (c *schedulerFirst) arm(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed[name] = true
}

func (c *schedulerFirst) racedGangs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.raced...)
}

func (c *schedulerFirst) take(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed[name] {
		return false
	}
	delete(c.armed, name)
	c.raced = append(c.raced, name)
	return true
}

func (c *schedulerFirst) Status() client.SubResourceWriter {
	return schedulerFirstStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type schedulerFirstStatus struct {
	client.SubResourceWriter
	c *schedulerFirst
}

func (s schedulerFirstStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if pg, ok := obj.(*groveschedulerv1alpha1.PodGang); ok && podganginit.IsTrue(pg) && s.c.take(pg.Name) {
		cur := &groveschedulerv1alpha1.PodGang{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pg), cur)).To(Succeed())
		cur.Status.Phase = groveschedulerv1alpha1.PodGangPhasePending
		meta.SetStatusCondition(&cur.Status.Conditions, metav1.Condition{
			Type: groveschedulerv1alpha1.PodGangConditionTypeScheduled, Status: metav1.ConditionFalse,
			Reason: "Unschedulable", Message: "written by the spec as grove-scheduler",
		})
		Expect(k8sClient.Status().Update(ctx, cur)).To(Succeed())
	}
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

var _ = Describe("PodGang Initialized", Ordered, func() {
	var racer *schedulerFirst
	BeforeAll(func() {
		stopMgr()
		<-mgrDone
		racer = &schedulerFirst{armed: map[string]bool{}}
		stopMgr, mgrDone = startManagerWith(restCfg, func(o *ctrl.Options) {
			newClient := o.NewClient
			o.NewClient = func(cfg *rest.Config, opts client.Options) (client.Client, error) {
				c, err := newClient(cfg, opts)
				if err != nil {
					return nil, err
				}
				racer.Client = c
				return racer, nil
			}
		})
		DeferCleanup(func() {
			stopMgr()
			<-mgrDone
			stopMgr, mgrDone = startManager(restCfg)
		})
	})

	initialized := func(ns, name string) func() metav1.ConditionStatus {
		return func() metav1.ConditionStatus {
			pg := &groveschedulerv1alpha1.PodGang{}
			if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pg); err != nil {
				return ""
			}
			if c := meta.FindStatusCondition(pg.Status.Conditions, groveschedulerv1alpha1.PodGangConditionTypeInitialized); c != nil {
				return c.Status
			}
			return ""
		}
	}

	It("turns True on a scaled-out replica's PodGang even when grove-scheduler's status write beats the operator's", func() {
		ns := newNamespace()
		pcs := onePodPCS(ns, "init", "")
		pcs.Spec.Template.Cliques[0].Spec.Replicas = 2
		Expect(k8sClient.Create(ctx, pcs)).To(Succeed())
		Eventually(initialized(ns, "init-0")).Should(Equal(metav1.ConditionTrue))

		By("scaling out to 2 replicas, grove-scheduler writing the new PodGang's status first")
		racer.arm(apicommon.BasePodGangName("init", 1))
		scalePodCliqueSet(ns, "init", 2)
		Eventually(initialized(ns, "init-1")).Should(Equal(metav1.ConditionTrue))
		Expect(racer.racedGangs()).To(Equal([]string{"init-1"}), "the operator's write met the scheduler's")
		Expect(podGang(ns, "init-1").Status.Phase).To(Equal(groveschedulerv1alpha1.PodGangPhasePending), "the scheduler's phase stays")
	})
})
