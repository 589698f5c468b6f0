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
	"strings"
	"testing"
)

func TestVersionNamesTheKubernetesLine(t *testing.T) {
	cmd := newCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--version"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("grove-scheduler --version: %v", err)
	}
	const want = "grove-scheduler: kube-scheduler v1.37."
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "with the GroveGang plugin") {
		t.Errorf("grove-scheduler --version printed %q, want a line starting %q naming the GroveGang plugin", out.String(), want)
	}
}
