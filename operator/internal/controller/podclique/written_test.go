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

package podclique

import "testing"

func TestWrittenVersionsBehind(t *testing.T) {
	tests := []struct {
		name     string
		written  string // "" records nothing
		cached   string
		want     bool
		wantKept bool
	}{
		{name: "nothing written", cached: "100"},
		{name: "cache older than the write", written: "1200", cached: "999", want: true, wantKept: true},
		{name: "cache shows the write", written: "1200", cached: "1200"},
		{name: "cache past the write", written: "1200", cached: "1300"},
		{name: "versions not numbers: never held back", written: "abc", cached: "abb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWrittenVersions()
			if tt.written != "" {
				w.wrote("ns/pclq", tt.written)
			}
			if got := w.behind("ns/pclq", tt.cached); got != tt.want {
				t.Errorf("behind = %v, want %v", got, tt.want)
			}
			if kept := len(w.versions) == 1; kept != tt.wantKept {
				t.Errorf("entry kept = %v, want %v", kept, tt.wantKept)
			}
		})
	}
	w := newWrittenVersions()
	w.wrote("ns/pclq", "5")
	w.forget("ns/pclq")
	if w.behind("ns/pclq", "4") {
		t.Error("a forgotten PodClique is held back")
	}
}
