#!/usr/bin/env bash
# Builds the pinned helm (HELM_VERSION in hack/versions.sh) from the Go module
# proxy into bin/helm-<version>/ unless it is there, and prints its path. The
# chart checks, the chart unit tests and the local cluster's install all use
# this binary; hack/control-plane.sh builds it with the other binaries the
# tests need, so that `make test` works on a fresh machine.
#
# Built outside the go.work workspace: helm would raise
# github.com/evanphx/json-patch in the operator's and scheduler's builds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/versions.sh"
HELM="$ROOT/bin/helm-$HELM_VERSION/helm"
if [ ! -x "$HELM" ]; then
  echo "[helm] building helm $HELM_VERSION (cold: about 3 minutes on 2 cores)" >&2
  mkdir -p "$(dirname "$HELM")"
  s=$(date +%s)
  (cd "$ROOT" && GOWORK=off GOBIN="$(dirname "$HELM")" go install -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
  echo "[helm]   done in $(( $(date +%s) - s ))s" >&2
fi
echo "$HELM"
