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

package common

import (
	"testing"
	"time"
)

func TestEarliest(t *testing.T) {
	for _, tc := range []struct{ a, b, want time.Duration }{
		{0, 0, 0},
		{0, 5 * time.Second, 5 * time.Second},
		{3 * time.Second, 0, 3 * time.Second},
		{3 * time.Second, 5 * time.Second, 3 * time.Second},
		{7 * time.Second, 5 * time.Second, 5 * time.Second},
	} {
		if got := Earliest(tc.a, tc.b); got != tc.want {
			t.Errorf("Earliest(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
