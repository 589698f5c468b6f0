package controllers

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("scratch uid", func() {
	It("probes", func() {
		ns := newNamespace()
		// absent + uid
		ac := corev1ac.ServiceAccount("a", ns).WithUID(types.UID("11111111-2222-3333-4444-555555555555")).WithLabels(map[string]string{"x": "y"})
		err := k8sClient.Apply(ctx, ac, client.FieldOwner("t"), client.ForceOwnership)
		sa := &corev1.ServiceAccount{}
		_ = k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, sa)
		fmt.Fprintf(GinkgoWriter, "PROBE absent: err=%v uid=%s\n", err, sa.UID)
		// existing + other uid
		u := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}}
		_ = k8sClient.Create(ctx, u)
		ac = corev1ac.ServiceAccount("b", ns).WithUID(types.UID("11111111-2222-3333-4444-555555555555")).WithLabels(map[string]string{"x": "y"})
		err = k8sClient.Apply(ctx, ac, client.FieldOwner("t"), client.ForceOwnership)
		_ = k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "b"}, sa)
		fmt.Fprintf(GinkgoWriter, "PROBE existing: err=%v labels=%v\n", err, sa.Labels)
		// existing + own uid
		ac = corev1ac.ServiceAccount("b", ns).WithUID(sa.UID).WithLabels(map[string]string{"x": "z"})
		err = k8sClient.Apply(ctx, ac, client.FieldOwner("t"), client.ForceOwnership)
		_ = k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "b"}, sa)
		fmt.Fprintf(GinkgoWriter, "PROBE own uid: err=%v labels=%v mf=%d\n", err, sa.Labels, len(sa.ManagedFields))
	})
})
