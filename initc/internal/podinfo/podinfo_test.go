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

package podinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    Info
		wantErr string
	}{
		{
			name:  "both files, trailing newline trimmed",
			files: map[string]string{"namespace": "inference\n", "podgangname": "demo-0"},
			want:  Info{Namespace: "inference", PodGang: "demo-0"},
		},
		{
			name:    "namespace file missing",
			files:   map[string]string{"podgangname": "demo-0"},
			wantErr: "reading pod info file DIR/namespace",
		},
		{
			name:    "podgang file missing",
			files:   map[string]string{"namespace": "inference"},
			wantErr: "reading pod info file DIR/podgangname",
		},
		{
			name:    "podgang file empty (pod without grove.io/podgang label)",
			files:   map[string]string{"namespace": "inference", "podgangname": " \n"},
			wantErr: "pod info file DIR/podgangname is empty",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Read(dir)
			if tc.wantErr != "" {
				want := strings.ReplaceAll(tc.wantErr, "DIR", dir)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Read() error = %v, want it to contain %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Read() = %+v, want %+v", got, tc.want)
			}
		})
	}
}
