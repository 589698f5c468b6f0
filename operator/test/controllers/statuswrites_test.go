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
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	apicommon "github.com/grove-project/grove/api/common"
	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/backend"
	"github.com/grove-project/grove/operator/internal/childsync"
	"github.com/grove-project/grove/operator/internal/controller/podcliquescalinggroup"
	"github.com/grove-project/grove/operator/internal/controller/podcliqueset"
	"github.com/grove-project/grove/operator/internal/index"
	"github.com/grove-project/grove/operator/internal/manager"
	"github.com/grove-project/grove/operator/internal/update"
)

// statusWrites counts status writes per object ("Kind/name"), and successful
// writes of whole objects (creates, applies, patches, updates, deletes) in
// objects.
type statusWrites struct {
	mu      sync.Mutex
	counts  map[string]int
	objects map[string]int
	// conflict, when set, fails the next status write of that object
	// ("Kind/name") with a Conflict, as a write computed on a stale cache gets.
	conflict string
}

func (w *statusWrites) client() client.Client {
	GinkgoHelper()
	c, err := client.NewWithWatch(restCfg, client.Options{Scheme: manager.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	count := func(obj client.Object) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.counts[fmt.Sprintf("%T/%s", obj, obj.GetName())]++
	}
	// write counts a request that changed or created something; an answer
	// such as AlreadyExists is no write.
	write := func(verb string, obj any, err error) error {
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		name := ""
		if o, ok := obj.(client.Object); ok {
			name = o.GetName()
		} else if o, ok := obj.(interface{ GetName() *string }); ok && o.GetName() != nil {
			name = *o.GetName()
		}
		kind := fmt.Sprintf("%T", obj)
		if o, ok := obj.(interface{ GetKind() string }); ok && o.GetKind() != "" {
			kind = o.GetKind() // an apply configuration built from an object
		}
		w.objects[fmt.Sprintf("%s %s/%s", verb, kind, name)]++
		return nil
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return c.List(ctx, list, labelsForIndexes(opts)...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return write("create", obj, c.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return write("update", obj, c.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return write("patch", obj, c.Patch(ctx, obj, patch, opts...))
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			return write("apply", obj, c.Apply(ctx, obj, opts...))
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return write("delete", obj, c.Delete(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			count(obj)
			w.mu.Lock()
			key := fmt.Sprintf("%T/%s", obj, obj.GetName())
			fail := w.conflict == key
			if fail {
				w.conflict = ""
			}
			w.mu.Unlock()
			if fail {
				return apierrors.NewConflict(grovecorev1alpha1.Resource("podcliquescalinggroups"), obj.GetName(), fmt.Errorf("injected by the spec"))
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count(obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
}

// labelsForIndexes turns a list through the manager cache's field indexes,
// which the API server does not know, into the list by the labels they file
// by.
func labelsForIndexes(opts []client.ListOption) []client.ListOption {
	GinkgoHelper()
	lo := &client.ListOptions{}
	lo.ApplyOptions(opts)
	if lo.FieldSelector == nil {
		return opts
	}
	labelOf := map[string]string{index.PartOf: apicommon.LabelPartOfKey, index.PodClique: apicommon.LabelPodClique, index.BasePodGang: apicommon.LabelBasePodGang}
	sel := labels.Everything()
	if lo.LabelSelector != nil {
		sel = lo.LabelSelector
	}
	for _, r := range lo.FieldSelector.Requirements() {
		key, ok := labelOf[r.Field]
		Expect(ok).To(BeTrue(), "a list by field %s", r.Field)
		req, err := labels.NewRequirement(key, selection.Equals, []string{r.Value})
		Expect(err).NotTo(HaveOccurred())
		sel = sel.Add(*req)
	}
	lo.FieldSelector, lo.LabelSelector = nil, sel
	return []client.ListOption{lo}
}

func (w *statusWrites) reset() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.counts
	w.counts = map[string]int{}
	return out
}

func (w *statusWrites) resetObjects() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.objects
	w.objects = map[string]int{}
	return out
}

// The manager is stopped: each reconciler is called directly, with a client
// that reads from the API server (no cache lag) and counts status writes.
var _ = Describe("Status writes", Ordered, func() {
	var (
		writes *statusWrites
		pcsR   *podcliqueset.Reconciler
		pcsgR  *podcliquescalinggroup.Reconciler
		ns     string
	)
	const pcsName = "writes"
	BeforeAll(func() {
		stopMgr()
		<-mgrDone
		DeferCleanup(func() { stopMgr, mgrDone = startManager(restCfg) })
		writes = &statusWrites{counts: map[string]int{}, objects: map[string]int{}}
		c := writes.client()
		cfg := testConfig()
		backends, err := backend.NewRegistry(cfg)
		Expect(err).NotTo(HaveOccurred())
		deps := childsync.Deps{Client: c, Scheme: manager.Scheme(), Recorder: &events.FakeRecorder{}, FieldManager: childsync.PodCliqueSetFieldManager}
		pcsR = podcliqueset.NewReconciler(c, c, deps, cfg, backends)
		pcsgR = podcliquescalinggroup.NewReconciler(deps, c)
		ns = newNamespace()
		Expect(k8sClient.Create(ctx, rolloutPCS(ns, pcsName, 1))).To(Succeed())
	})

	reconcileAll := func() {
		GinkgoHelper()
		key := client.ObjectKey{Namespace: ns, Name: pcsName}
		_, err := pcsR.Reconcile(ctx, podcliqueset.Request{NamespacedName: key, Replica: 0})
		Expect(err).NotTo(HaveOccurred())
		_, err = pcsR.Reconcile(ctx, podcliqueset.SetLevel(key))
		Expect(err).NotTo(HaveOccurred())
		_, err = pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsName + "-0-sg"}})
		Expect(err).NotTo(HaveOccurred())
	}
	pcsKey := "*v1alpha1.PodCliqueSet/" + pcsName
	pcsgKey := "*v1alpha1.PodCliqueScalingGroup/" + pcsName + "-0-sg"

	It("writes no status when a reconcile changes nothing", func() {
		// The first rounds create the children and record them.
		for range 3 {
			reconcileAll()
		}
		writes.reset()
		Expect(writes.resetObjects()).To(HaveKey(ContainSubstring("apply Service/"+pcsName+"-0")), "children are applied")
		for range 3 {
			reconcileAll()
		}
		Expect(writes.reset()).To(BeEmpty())
		Expect(writes.resetObjects()).To(BeEmpty(), "converged children are not written")
		Expect(getPCS(ns, pcsName)().Status.LastOperation).To(HaveField("State", grovecorev1alpha1.LastOperationStateSucceeded))
	})

	It("writes the PodCliqueSet status once for a change, then not again", func() {
		pg := &groveschedulerv1alpha1.PodGang{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: apicommon.BasePodGangName(pcsName, 0)}, pg)).To(Succeed())
		pg.Status.Phase = groveschedulerv1alpha1.PodGangPhaseRunning
		Expect(k8sClient.Status().Update(ctx, pg)).To(Succeed())

		reconcileAll()
		Expect(writes.reset()).To(Equal(map[string]int{pcsKey: 1}))
		Expect(getPCS(ns, pcsName)().Status.PodGangStatuses).To(ContainElement(
			HaveField("Phase", groveschedulerv1alpha1.PodGangPhaseRunning)))
		reconcileAll()
		Expect(writes.reset()).To(BeEmpty())
	})

	It("writes the PodCliqueScalingGroup status once for a change, then not again", func() {
		for _, name := range []string{pcsName + "-0-sg-0-leader", pcsName + "-0-sg-0-worker"} {
			pclq := getPCLQ(ns, name)()
			pclq.Status.Replicas, pclq.Status.ScheduledReplicas = pclq.Spec.Replicas, pclq.Spec.Replicas
			meta.SetStatusCondition(&pclq.Status.Conditions, metav1.Condition{
				Type: grovecorev1alpha1.ConditionTypePodCliqueScheduled, Status: metav1.ConditionTrue,
				Reason: grovecorev1alpha1.ConditionReasonSufficientScheduledPods, Message: "scheduled",
			})
			Expect(k8sClient.Status().Update(ctx, pclq)).To(Succeed())
		}

		_, err := pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsName + "-0-sg"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(writes.reset()).To(Equal(map[string]int{pcsgKey: 1}))
		Expect(getPCSG(ns, pcsName+"-0-sg")().Status.ScheduledReplicas).To(Equal(int32(1)))
		_, err = pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsName + "-0-sg"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(writes.reset()).To(BeEmpty())
	})

	It("replaces no scaling-group replica until the status records it was selected for the update", func() {
		pcsgName := pcsName + "-0-sg"
		By("every member PodClique of both group replicas is available")
		for _, name := range []string{pcsgName + "-0-leader", pcsgName + "-0-worker", pcsgName + "-1-leader", pcsgName + "-1-worker"} {
			pclq := getPCLQ(ns, name)()
			pclq.Status.Replicas, pclq.Status.ScheduledReplicas, pclq.Status.ReadyReplicas = pclq.Spec.Replicas, pclq.Spec.Replicas, pclq.Spec.Replicas
			meta.SetStatusCondition(&pclq.Status.Conditions, metav1.Condition{
				Type: grovecorev1alpha1.ConditionTypePodCliqueScheduled, Status: metav1.ConditionTrue,
				Reason: grovecorev1alpha1.ConditionReasonSufficientScheduledPods, Message: "scheduled",
			})
			Expect(k8sClient.Status().Update(ctx, pclq)).To(Succeed())
		}
		uid := func(name string) types.UID { return getPCLQ(ns, name)().UID }
		replica0 := map[string]types.UID{pcsgName + "-0-leader": uid(pcsgName + "-0-leader"), pcsgName + "-0-worker": uid(pcsgName + "-0-worker")}
		setImage(ns, pcsName, "worker", "registry.example/worker:2")
		_, err := pcsR.Reconcile(ctx, podcliqueset.SetLevel(client.ObjectKey{Namespace: ns, Name: pcsName}))
		Expect(err).NotTo(HaveOccurred(), "the PodCliqueSet starts rolling its replica 0")
		_, gen := hashes(ns, pcsName, "worker")
		Expect(update.ReplicaUpdating(getPCS(ns, pcsName)(), 0, gen)).To(BeTrue())

		By("a reconcile whose status write conflicts deletes nothing")
		writes.reset()
		writes.mu.Lock()
		writes.conflict = pcsgKey
		writes.mu.Unlock()
		_, err = pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsgName}})
		Expect(err).NotTo(HaveOccurred())
		Expect(writes.reset()).To(Equal(map[string]int{pcsgKey: 1}), "the one status write was tried")
		for name, was := range replica0 {
			p := getPCLQ(ns, name)()
			Expect(p.UID).To(Equal(was))
			Expect(p.DeletionTimestamp).To(BeNil(), "%s deleted although its selection was not recorded", name)
		}
		Expect(getPCSG(ns, pcsgName)().Status.UpdateProgress).To(BeNil())

		By("the next reconcile records replica 0 as selected, then replaces it")
		_, err = pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsgName}})
		Expect(err).NotTo(HaveOccurred())
		progress := getPCSG(ns, pcsgName)().Status.UpdateProgress
		Expect(progress).NotTo(BeNil())
		Expect(progress.ReadyReplicaIndicesSelectedToUpdate).To(Equal(&grovecorev1alpha1.PodCliqueScalingGroupReplicaRollingUpdateProgress{Current: 0}))
		for name, was := range replica0 {
			p := &grovecorev1alpha1.PodClique{}
			err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)
			if err == nil {
				Expect(p.UID != was || p.DeletionTimestamp != nil).To(BeTrue(), "%s still stands", name)
			} else {
				Expect(apierrors.IsNotFound(err)).To(BeTrue(), "reading %s: %v", name, err)
			}
		}

		By("a repeated reconcile that picks replica 0 again records it once")
		writes.reset()
		_, err = pcsgR.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: pcsgName}})
		Expect(err).NotTo(HaveOccurred())
		Expect(getPCSG(ns, pcsgName)().Status.UpdateProgress.ReadyReplicaIndicesSelectedToUpdate).To(Equal(
			&grovecorev1alpha1.PodCliqueScalingGroupReplicaRollingUpdateProgress{Current: 0}))
	})
})
