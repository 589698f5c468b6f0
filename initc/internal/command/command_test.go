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

package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"--podcliques=a:1"},
			want: options{podCliques: []string{"a:1"}, podInfoDir: "/var/grove/pod-info"},
		},
		{
			name: "long, short and separate-value forms repeat",
			args: []string{"--podcliques=a:1", "-p", "b:2", "--podcliques", "c:3", "-p=d:4"},
			want: options{podCliques: []string{"a:1", "b:2", "c:3", "d:4"}, podInfoDir: "/var/grove/pod-info"},
		},
		{
			name: "values with commas are not split",
			args: []string{"--podcliques=a:1,b:2"},
			want: options{podCliques: []string{"a:1,b:2"}, podInfoDir: "/var/grove/pod-info"},
		},
		{
			name: "overrides for tests and local runs",
			args: []string{"-p", "a:1", "--pod-info-dir=/tmp/info", "--kubeconfig=/tmp/kc"},
			want: options{podCliques: []string{"a:1"}, podInfoDir: "/tmp/info", kubeconfig: "/tmp/kc"},
		},
		{
			name:    "unknown flag",
			args:    []string{"--podclique=a:1"},
			wantErr: "unknown flag: --podclique",
		},
		{
			name:    "positional argument",
			args:    []string{"a:1"},
			wantErr: `unexpected positional arguments ["a:1"]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFlags(tc.args, &bytes.Buffer{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("options = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRunFailsFastOnBadInput(t *testing.T) {
	podInfo := t.TempDir()
	for name, content := range map[string]string{"namespace": "ns", "podgangname": "pg-0"} {
		if err := os.WriteFile(filepath.Join(podInfo, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	emptyDir := t.TempDir()
	missingKubeconfig := filepath.Join(t.TempDir(), "missing-kubeconfig")

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantLog  []string
	}{
		{
			name:     "no --podcliques",
			args:     []string{"--pod-info-dir=" + podInfo},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"no parent PodClique given", "ERR_INVALID_INPUT"},
		},
		{
			name:     "name without count",
			args:     []string{"--podcliques=foo", "--pod-info-dir=" + podInfo},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"invalid --podcliques=foo:"},
		},
		{
			name:     "zero count",
			args:     []string{"--podcliques=foo:0", "--pod-info-dir=" + podInfo},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"invalid --podcliques=foo:0:", "greater than 0"},
		},
		{
			name:     "count not a number",
			args:     []string{"-p", "foo:x", "--pod-info-dir=" + podInfo},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"invalid --podcliques=foo:x:", "not a whole number"},
		},
		{
			name:     "unknown flag",
			args:     []string{"--podclique=foo:1"},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"unknown flag: --podclique"},
		},
		{
			name:     "pod info files missing",
			args:     []string{"--podcliques=foo:1", "--pod-info-dir=" + emptyDir},
			wantCode: ExitInvalidInput,
			wantLog:  []string{"Cannot read pod info", filepath.Join(emptyDir, "namespace")},
		},
		{
			name:     "kubeconfig missing",
			args:     []string{"--podcliques=foo:1", "--pod-info-dir=" + podInfo, "--kubeconfig=" + missingKubeconfig},
			wantCode: ExitClientConfig,
			wantLog:  []string{"ERR_CLIENT_CONFIG", "--kubeconfig=" + missingKubeconfig},
		},
		{
			name:     "help",
			args:     []string{"--help"},
			wantCode: ExitReady,
			wantLog:  []string{"--podcliques stringArray"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code := Run(context.Background(), tc.args, &bytes.Buffer{}, &out)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; output:\n%s", code, tc.wantCode, out.String())
			}
			for _, s := range tc.wantLog {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not contain %q:\n%s", s, out.String())
				}
			}
		})
	}
}

func TestRunWithoutClusterNamesTheTokenPath(t *testing.T) {
	podInfo := t.TempDir()
	for name, content := range map[string]string{"namespace": "ns", "podgangname": "pg-0"} {
		if err := os.WriteFile(filepath.Join(podInfo, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	var out bytes.Buffer
	code := Run(context.Background(), []string{"-p", "a:1", "--pod-info-dir=" + podInfo}, &bytes.Buffer{}, &out)
	if code != ExitClientConfig {
		t.Fatalf("exit code = %d, want %d; output:\n%s", code, ExitClientConfig, out.String())
	}
	if !strings.Contains(out.String(), "in-cluster config from /var/run/secrets/kubernetes.io/serviceaccount") {
		t.Errorf("output does not name the token path:\n%s", out.String())
	}
}

func TestVersionPrintsGrovesVersionOnStdout(t *testing.T) {
	var stdout, logs bytes.Buffer
	code := Run(context.Background(), []string{"--version"}, &stdout, &logs)
	if code != ExitReady {
		t.Fatalf("exit code = %d, want %d; logs:\n%s", code, ExitReady, logs.String())
	}
	if want := "grove-initc v0.0.0-dev (go"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("--version printed %q, want a line starting %q", stdout.String(), want)
	}
	if logs.Len() != 0 {
		t.Errorf("--version logged %q, want nothing", logs.String())
	}
}
