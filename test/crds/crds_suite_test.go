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

// Package crds checks Grove's CRDs against a real kube-apiserver: objects are
// accepted, defaults applied, /scale served and bad input rejected by the
// schema and CEL rules with messages that name the field.
package crds

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
)

var (
	testEnv *envtest.Environment
	clients *groveclient.Clientset
	ctx     = context.Background()
)

func TestCRDs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CRD suite")
}

var _ = BeforeSuite(func() {
	_, thisFile, _, _ := runtime.Caller(0)
	apiDir := filepath.Join(filepath.Dir(thisFile), "..", "..", "api")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths: []string{
			filepath.Join(apiDir, "core", "v1alpha1", "crds"),
			filepath.Join(apiDir, "scheduler", "v1alpha1", "crds"),
		},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest: is KUBEBUILDER_ASSETS set (make control-plane)?")
	clients, err = groveclient.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
