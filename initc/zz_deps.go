//go:build tools

package deps

import (
	_ "k8s.io/client-go/kubernetes"
	_ "github.com/grove-project/grove/api/core/v1alpha1"
)
