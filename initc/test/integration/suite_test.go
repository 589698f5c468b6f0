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

// Package integration runs the real grove-initc binary as a process against a
// kube-apiserver from envtest. grove-initc authenticates as its own user, bound
// only to the permissions the operator's Role grants it (get, list and watch
// pods), and reads a kubeconfig file written for it.
package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

const initcUser = "grove-initc"

var (
	testEnv *envtest.Environment
	// admin acts as the operator and the kubelet: it creates pods and sets their status.
	admin *kubernetes.Clientset
	// initcBinary is the built grove-initc.
	initcBinary string
	// initcKubeconfig is a kubeconfig for the grove-initc user.
	initcKubeconfig string
	ctx             = context.Background()
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "grove-initc integration suite")
}

var _ = BeforeSuite(func() {
	var err error
	initcBinary, err = gexec.Build("github.com/grove-project/grove/initc/cmd/grove-initc")
	Expect(err).NotTo(HaveOccurred(), "building grove-initc")

	testEnv = &envtest.Environment{}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest: is KUBEBUILDER_ASSETS set (make control-plane)?")
	admin, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())

	user, err := testEnv.AddUser(envtest.User{Name: initcUser}, nil)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	initcKubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(initcKubeconfig, kubeconfig, 0o600)).To(Succeed())
})

var _ = AfterSuite(func() {
	gexec.KillAndWait()
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
	gexec.CleanupBuildArtifacts()
})

// createNamespace creates a namespace in which the grove-initc user may read
// pods, as the operator's Role grove.io:pcs:<pcs> allows.
func createNamespace(name string) {
	_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "grove.io:pcs:test", Namespace: name},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""},
			Resources: []string{"pods", "pods/status"},
			Verbs:     []string{"get", "list", "watch"},
		}},
	}
	_, err = admin.RbacV1().Roles(name).Create(ctx, role, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "grove.io:pcs:test", Namespace: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: initcUser}},
	}
	_, err = admin.RbacV1().RoleBindings(name).Create(ctx, binding, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}
