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

package parents

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		values  []string
		want    []Parent
		wantErr []string // substrings the error must contain
	}{
		{
			name:   "one parent",
			values: []string{"demo-0-mn-0-ldr:1"},
			want:   []Parent{{PodClique: "demo-0-mn-0-ldr", MinAvailable: 1}},
		},
		{
			name:   "several parents keep their order",
			values: []string{"a-0-vision:1", "a-0-reasoning:4", "a-0-code-gen:2"},
			want: []Parent{
				{PodClique: "a-0-vision", MinAvailable: 1},
				{PodClique: "a-0-reasoning", MinAvailable: 4},
				{PodClique: "a-0-code-gen", MinAvailable: 2},
			},
		},
		{
			name:   "blank values and surrounding spaces are ignored",
			values: []string{"", "  ", " mpi-0-worker : 8 "},
			want:   []Parent{{PodClique: "mpi-0-worker", MinAvailable: 8}},
		},
		{
			name:    "no value at all",
			values:  nil,
			wantErr: []string{"no parent PodClique given", "--podcliques=<podclique-name>:<minAvailable>"},
		},
		{
			name:    "only blank values",
			values:  []string{"", " "},
			wantErr: []string{"no parent PodClique given"},
		},
		{
			name:    "missing count",
			values:  []string{"ok:1", "foo"},
			wantErr: []string{"--podcliques=foo", `missing ":<minAvailable>"`},
		},
		{
			name:    "zero count",
			values:  []string{"foo:0"},
			wantErr: []string{"--podcliques=foo:0", "minAvailable must be greater than 0, got 0"},
		},
		{
			name:    "negative count",
			values:  []string{"foo:-2"},
			wantErr: []string{"--podcliques=foo:-2", "greater than 0, got -2"},
		},
		{
			name:    "count is not a number",
			values:  []string{"foo:x"},
			wantErr: []string{"--podcliques=foo:x", `minAvailable "x" is not a whole number`},
		},
		{
			name:    "empty count",
			values:  []string{"foo:"},
			wantErr: []string{"--podcliques=foo:", `minAvailable "" is not a whole number`},
		},
		{
			name:    "empty name",
			values:  []string{":3"},
			wantErr: []string{"--podcliques=:3", "PodClique name is empty"},
		},
		{
			name:    "too many colons",
			values:  []string{"foo:1:2"},
			wantErr: []string{"--podcliques=foo:1:2", `exactly one ":"`},
		},
		{
			name:    "name that cannot be a PodClique",
			values:  []string{"Foo_Bar:1"},
			wantErr: []string{"--podcliques=Foo_Bar:1", `PodClique name "Foo_Bar" is not a valid object name`},
		},
		{
			name:    "same parent twice",
			values:  []string{"foo:1", "foo:2"},
			wantErr: []string{"--podcliques=foo:2", `PodClique "foo" is listed more than once`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.values)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Parse(%q) = %v, want an error", tc.values, got)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): unexpected error %v", tc.values, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Parse(%q) = %+v, want %+v", tc.values, got, tc.want)
			}
		})
	}
}

func TestParentString(t *testing.T) {
	if got := (Parent{PodClique: "x-0-a", MinAvailable: 3}).String(); got != "x-0-a:3" {
		t.Fatalf("String() = %q", got)
	}
}
