//go:build e2e

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

package e2e

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("API priority", func() {
	It("kube-apiserver serves grove-operator's and grove-scheduler's requests at workload-high through the chart's FlowSchemas", func() {
		for name, level := range map[string]string{"grove-workload": "workload-high", "grove-leader-election": "leader-election"} {
			fs := &flowcontrolv1.FlowSchema{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, fs)).To(Succeed())
			Expect(fs.Spec.PriorityLevelConfiguration.Name).To(Equal(level), "FlowSchema %s", name)
			Expect(fs.Status.Conditions).To(ContainElement(And(
				HaveField("Type", flowcontrolv1.FlowSchemaConditionType(flowcontrolv1.FlowSchemaConditionDangling)),
				HaveField("Status", flowcontrolv1.ConditionFalse))), "FlowSchema %s names a priority level that exists", name)
		}

		before := dispatchedBy("grove-workload", "workload-high")
		ns := newNamespace("apf")
		createPCS(statusReady, ns)
		runningPods(ns, "ready", 5)
		// The operator created 5 pods and grove-scheduler bound them: at
		// least 10 requests, besides their reads and status writes.
		Expect(dispatchedBy("grove-workload", "workload-high") - before).To(BeNumerically(">=", 10))
	})
})

// dispatchedBy is kube-apiserver's count of the requests the FlowSchema
// classified and the priority level served
// (apiserver_flowcontrol_dispatched_requests_total).
func dispatchedBy(flowSchema, priorityLevel string) float64 {
	GinkgoHelper()
	cs, err := kubernetes.NewForConfig(adminConfig())
	Expect(err).NotTo(HaveOccurred())
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	total, err := sumSamples(bytes.NewReader(raw), "apiserver_flowcontrol_dispatched_requests_total",
		`flow_schema="`+flowSchema+`"`, `priority_level="`+priorityLevel+`"`)
	Expect(err).NotTo(HaveOccurred())
	return total
}
