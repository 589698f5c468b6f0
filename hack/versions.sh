# Pinned versions of the control-plane binaries (sourced by hack/ scripts).
# Keep K8S_VERSION in step with k8s.io/kubernetes in hack/tools/go.mod.
K8S_VERSION=v1.37.2
ETCD_VERSION=v3.7.0
KWOK_VERSION=v0.8.0   # keep in step with sigs.k8s.io/kwok in hack/tools/go.mod
HELM_VERSION=v3.19.5
