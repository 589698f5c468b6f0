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

// Package podinfo reads what the operator tells grove-initc about its own pod
// through downward-API files: the namespace and the PodGang.
package podinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apicommon "github.com/grove-project/grove/api/common"
)

// Info is the identity of the pod grove-initc runs in.
type Info struct {
	// Namespace is the pod's namespace; grove-initc only reads pods there.
	Namespace string
	// PodGang is the pod's PodGang; only pods of the same PodGang can be parents.
	PodGang string
}

// Read reads the namespace and PodGang files from dir (normally
// common.PodInfoMountPath). A missing or empty file is an error that names the file.
func Read(dir string) (Info, error) {
	namespace, err := readFile(dir, apicommon.PodInfoNamespaceFile)
	if err != nil {
		return Info{}, err
	}
	podGang, err := readFile(dir, apicommon.PodInfoPodGangFile)
	if err != nil {
		return Info{}, err
	}
	return Info{Namespace: namespace, PodGang: podGang}, nil
}

func readFile(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading pod info file %s: %w", path, err)
	}
	value := strings.TrimSpace(string(data))
	if value == "" {
		return "", fmt.Errorf("pod info file %s is empty", path)
	}
	return value, nil
}
