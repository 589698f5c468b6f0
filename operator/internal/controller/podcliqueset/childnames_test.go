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

package podcliqueset

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	"github.com/grove-project/grove/operator/internal/childsync"
)

func TestSetChildNameConflict(t *testing.T) {
	sa := childsync.ErrNotOwned{Kind: "ServiceAccount", Name: "demo"}
	svc := childsync.ErrNotOwned{Kind: "Service", Name: "demo-0", Controller: &metav1.OwnerReference{Kind: "Deployment", Name: "web"}}
	var many []childsync.ErrNotOwned
	for i := range 12 {
		many = append(many, childsync.ErrNotOwned{Kind: "Service", Name: fmt.Sprintf("demo-%02d", i)})
	}
	for _, tc := range []struct {
		name    string
		had     bool
		taken   []childsync.ErrNotOwned
		status  metav1.ConditionStatus // "" for no condition
		message string
	}{
		{name: "never a conflict: no condition"},
		{name: "two objects, sorted, the same one reported twice once", taken: []childsync.ErrNotOwned{sa, svc, sa}, status: metav1.ConditionTrue,
			message: "2 objects the PodCliqueSet does not control hold names of its children and are left untouched: Service demo-0 (controlled by Deployment web), ServiceAccount demo (no controller)"},
		{name: "ten named, the rest counted", taken: many, status: metav1.ConditionTrue,
			message: "12 objects the PodCliqueSet does not control hold names of its children and are left untouched: Service demo-00 (no controller), Service demo-01 (no controller), Service demo-02 (no controller), Service demo-03 (no controller), Service demo-04 (no controller), Service demo-05 (no controller), Service demo-06 (no controller), Service demo-07 (no controller), Service demo-08 (no controller), Service demo-09 (no controller), and 2 more"},
		{name: "resolved", had: true, status: metav1.ConditionFalse,
			message: "No object the PodCliqueSet does not control holds a name of its children"},
	} {
		pcs := &grovecorev1alpha1.PodCliqueSet{}
		if tc.had {
			setChildNameConflict(pcs, []childsync.ErrNotOwned{sa})
		}
		setChildNameConflict(pcs, tc.taken)
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovecorev1alpha1.ConditionTypeChildNameConflict)
		switch {
		case tc.status == "" && c != nil:
			t.Errorf("%s: condition %v, want none", tc.name, c)
		case tc.status != "" && (c == nil || c.Status != tc.status || c.Message != tc.message):
			t.Errorf("%s: condition %+v, want %s %q", tc.name, c, tc.status, tc.message)
		}
	}
}
