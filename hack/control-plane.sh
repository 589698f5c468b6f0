#!/usr/bin/env bash
# Builds the control-plane binaries Grove's tests and local cluster run on, from
# the Go module proxy, at pinned versions, into bin/ (one folder per version).
# A binary that is already there is not rebuilt. Prints progress and timings.
#
#   bin/k8s-<v>/      kube-apiserver kube-controller-manager kube-scheduler kubectl
#   bin/etcd-<v>/     etcd
#   bin/kwok-<v>/     kwok
#   bin/helm-<v>/     helm (hack/helm.sh: the chart tests and the local cluster's install)
#   bin/envtest/      links to etcd, kube-apiserver, kubectl (KUBEBUILDER_ASSETS)
#
# Usage: hack/control-plane.sh [--print-assets]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/versions.sh"

K8S_DIR="$ROOT/bin/k8s-$K8S_VERSION"
ETCD_DIR="$ROOT/bin/etcd-$ETCD_VERSION"
KWOK_DIR="$ROOT/bin/kwok-$KWOK_VERSION"
ASSETS="$ROOT/bin/envtest"

if [ "${1:-}" = "--print-assets" ]; then echo "$ASSETS"; exit 0; fi

log() { printf '[control-plane] %s\n' "$*" >&2; }
timed() { local s; s=$(date +%s); "$@"; log "  done in $(( $(date +%s) - s ))s"; }

minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
# Version stamps: without them the servers report v0.0.0-master.
K8S_LDFLAGS="-s -w \
 -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 \
 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 \
 -X k8s.io/client-go/pkg/version.gitMinor=$minor"

missing=()
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$K8S_DIR/$b" ] || missing+=("k8s.io/kubernetes/cmd/$b")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "building ${missing[*]##*/} $K8S_VERSION (cold: 15-20 minutes on 2 cores; with a warm Go build cache about 20 seconds)"
  mkdir -p "$K8S_DIR"
  # Built inside the go.work workspace (hack/tools pins the versions) and without
  # -trimpath, so the compiled k8s.io packages are shared with the tests' builds.
  (cd "$ROOT/hack/tools" && timed go build -ldflags "$K8S_LDFLAGS" -o "$K8S_DIR/" "${missing[@]}")
else
  log "kube binaries $K8S_VERSION present"
fi

if [ ! -x "$ETCD_DIR/etcd" ]; then
  log "building etcd $ETCD_VERSION (about 1 minute)"
  mkdir -p "$ETCD_DIR"
  # etcd lives in its own module outside the workspace so the apiserver keeps
  # the etcd client version Kubernetes pins.
  (cd "$ROOT/hack/tools-etcd" && GOWORK=off timed go build -ldflags "-s -w" -o "$ETCD_DIR/etcd" go.etcd.io/etcd/server/v3)
else
  log "etcd $ETCD_VERSION present"
fi

if [ ! -x "$KWOK_DIR/kwok" ]; then
  pinned=$(cd "$ROOT/hack/tools" && go list -m -f '{{.Version}}' sigs.k8s.io/kwok)
  if [ "$pinned" != "$KWOK_VERSION" ]; then
    log "hack/tools/go.mod pins kwok $pinned but hack/versions.sh says $KWOK_VERSION"; exit 1
  fi
  log "building kwok $KWOK_VERSION (cold, after the kube binaries: about 1 minute)"
  mkdir -p "$KWOK_DIR"
  # Built in the workspace like the kube binaries: it compiles against the same
  # k8s.io v0.37 packages and reuses what their build compiled (a separate
  # GOWORK=off install of kwok's own v0.36 dependency set took 165 s cold).
  (cd "$ROOT/hack/tools" && timed go build -ldflags "-s -w" -o "$KWOK_DIR/kwok" sigs.k8s.io/kwok/cmd/kwok)
else
  log "kwok $KWOK_VERSION present"
fi

"$ROOT/hack/helm.sh" >/dev/null

mkdir -p "$ASSETS"
ln -sfn "$ETCD_DIR/etcd" "$ASSETS/etcd"
ln -sfn "$K8S_DIR/kube-apiserver" "$ASSETS/kube-apiserver"
ln -sfn "$K8S_DIR/kubectl" "$ASSETS/kubectl"
log "ready: KUBEBUILDER_ASSETS=$ASSETS"
