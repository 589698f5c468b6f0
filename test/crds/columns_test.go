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

package crds

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
)

// column is a printed column as `kubectl get` shows it: name, and whether
// only -o wide shows it.
type column struct {
	name string
	wide bool
}

// tableOf asks the API server for the Table kubectl get prints.
func tableOf(group, resource string) *metav1.Table {
	GinkgoHelper()
	raw, err := clients.Discovery().RESTClient().Get().
		AbsPath("/apis", group, "v1alpha1", "namespaces", "default", resource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	table := &metav1.Table{}
	Expect(json.Unmarshal(raw, table)).To(Succeed())
	return table
}

func columnsOf(t *metav1.Table) []column {
	var out []column
	for _, c := range t.ColumnDefinitions {
		Expect(c.Description).NotTo(BeEmpty(), "column %s has a description", c.Name)
		out = append(out, column{name: c.Name, wide: c.Priority > 0})
	}
	return out
}

var _ = Describe("kubectl get", func() {
	It("puts every Grove kind in the grove category, with its short name", func() {
		want := map[string]string{
			"podcliquesets":           "pcs",
			"podcliques":              "pclq",
			"podcliquescalinggroups":  "pcsg",
			"clustertopologybindings": "ct",
			"podgangs":                "pg",
		}
		got := map[string]string{}
		for _, gv := range []string{"grove.io/v1alpha1", "scheduler.grove.io/v1alpha1"} {
			list, err := clients.Discovery().ServerResourcesForGroupVersion(gv)
			Expect(err).NotTo(HaveOccurred())
			for _, r := range list.APIResources {
				if _, ok := want[r.Name]; ok {
					Expect(r.Categories).To(Equal([]string{"grove"}), "categories of %s", r.Name)
					Expect(r.ShortNames).To(HaveLen(1), "short names of %s", r.Name)
					got[r.Name] = r.ShortNames[0]
				}
			}
		}
		Expect(got).To(Equal(want))
	})

	It("shows a PodCliqueSet's Ready condition and counts, the update counters only at -o wide", func() {
		Expect(columnsOf(tableOf("grove.io", "podcliquesets"))).To(Equal([]column{
			{name: "Name"},
			{name: "Ready"}, {name: "Replicas"}, {name: "Available"},
			{name: "Updated", wide: true}, {name: "PCLQs-Updated", wide: true}, {name: "PCLQs-Total", wide: true},
			{name: "PCSGs-Updated", wide: true}, {name: "PCSGs-Total", wide: true},
			{name: "Age"},
		}))
	})

	It("shows a PodGang's phase, Scheduled reason, minimum and bound pods and placement score", func() {
		pg := &groveschedulerv1alpha1.PodGang{
			ObjectMeta: metav1.ObjectMeta{Name: "columns-0", Namespace: "default"},
			Spec: groveschedulerv1alpha1.PodGangSpec{PodGroups: []groveschedulerv1alpha1.PodGroup{{
				Name: "columns-0-worker", MinReplicas: 4,
				PodReferences: []groveschedulerv1alpha1.NamespacedName{{Namespace: "default", Name: "columns-0-worker-abcde"}},
			}}},
		}
		created, err := clients.SchedulerV1alpha1().PodGangs("default").Create(ctx, pg, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(clients.SchedulerV1alpha1().PodGangs("default").Delete(ctx, pg.Name, metav1.DeleteOptions{})).To(Succeed())
		})
		created.Status = groveschedulerv1alpha1.PodGangStatus{
			Phase: groveschedulerv1alpha1.PodGangPhaseStarting, MinimumPods: 4, BoundPods: 5, PlacementScore: ptr.To(0.8),
			Conditions: []metav1.Condition{{
				Type: groveschedulerv1alpha1.PodGangConditionTypeScheduled, Status: metav1.ConditionTrue,
				Reason: groveschedulerv1alpha1.PodGangReasonMinimumSetScheduled, Message: "m", LastTransitionTime: metav1.Now(),
			}},
		}
		_, err = clients.SchedulerV1alpha1().PodGangs("default").UpdateStatus(ctx, created, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		table := tableOf("scheduler.grove.io", "podgangs")
		Expect(columnsOf(table)).To(Equal([]column{
			{name: "Name"}, {name: "Phase"}, {name: "Scheduled"}, {name: "MinPods"}, {name: "Bound"}, {name: "Score"}, {name: "Age"},
		}))
		var row []string
		for _, r := range table.Rows {
			if fmt.Sprint(r.Cells[0]) == pg.Name {
				for _, c := range r.Cells[:6] {
					row = append(row, fmt.Sprint(c))
				}
			}
		}
		Expect(row).To(Equal([]string{"columns-0", "Starting", "MinimumSetScheduled", "4", "5", "0.8"}))
	})
})
