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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badConfig, []byte("apiVersion: operator.config.grove.io/v1alpha1\nkind: OperatorConfiguration\nlogLevel: loud\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout string
		wantStderr string
	}{
		{name: "version names the Kubernetes line", args: []string{"--version"}, code: 0, wantStdout: "grove-operator v0.0.0-dev (Kubernetes v1.37."},
		{name: "no flags", args: nil, code: exitBadArgs, wantStderr: "one of --config or --version is required"},
		{name: "unknown flag", args: []string{"--nope"}, code: exitBadArgs, wantStderr: "flag provided but not defined"},
		{name: "stray argument", args: []string{"--version", "x"}, code: exitBadArgs, wantStderr: "unexpected arguments"},
		{name: "missing config file", args: []string{"--config", filepath.Join(dir, "none.yaml")}, code: exitBadConfig, wantStderr: "reading operator configuration"},
		{name: "invalid config", args: []string{"--config", badConfig}, code: exitBadConfig, wantStderr: "logLevel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.code {
				t.Fatalf("exit code %d, want %d (stderr %q)", got, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}
