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

package backend

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/grove-project/grove/operator/internal/config"
)

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(config.Default())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		schedulerName, want, wantErr string
	}{
		{"", "grove-scheduler", ""},
		{"grove-scheduler", "grove-scheduler", ""},
		{"default-scheduler", "default-scheduler", ""},
		{"volcano", "", `scheduler "volcano" is not an enabled scheduler backend`},
	}
	for _, tc := range tests {
		b, err := r.ForSchedulerName(tc.schedulerName)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.schedulerName, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.schedulerName, err)
		}
		pod := &corev1.Pod{}
		b.PreparePod(pod)
		if pod.Spec.SchedulerName != tc.want {
			t.Errorf("%q: schedulerName %q, want %q", tc.schedulerName, pod.Spec.SchedulerName, tc.want)
		}
	}
}
