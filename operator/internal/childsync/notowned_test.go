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

package childsync

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestSplitNotOwned(t *testing.T) {
	a := ErrNotOwned{Kind: "Service", Name: "a"}
	b := ErrNotOwned{Kind: "Service", Name: "b"}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		err   error
		taken []string
		rest  string
	}{
		{"nil", nil, nil, ""},
		{"a failure alone", boom, nil, "boom"},
		{"one not owned", a, []string{"a"}, ""},
		{"wrapped with context", fmt.Errorf("applying Service a: %w", a), []string{"a"}, ""},
		{"joined by Parallel with a failure", errors.Join(fmt.Errorf("applying a: %w", a), boom, b), []string{"a", "b"}, "boom"},
		{"a wrapped join of both kinds stays whole", fmt.Errorf("sync: %w", errors.Join(a, boom)), nil, "sync: Service a exists (no controller), not controlled by this : left untouched\nboom"},
	} {
		taken, rest := SplitNotOwned(tc.err)
		var names []string
		for _, e := range taken {
			names = append(names, e.Name)
		}
		gotRest := ""
		if rest != nil {
			gotRest = rest.Error()
		}
		if !slices.Equal(names, tc.taken) || gotRest != tc.rest {
			t.Errorf("%s: SplitNotOwned = %v, %q; want %v, %q", tc.name, names, gotRest, tc.taken, tc.rest)
		}
	}
}
