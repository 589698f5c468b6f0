#!/usr/bin/env bash
# Lints the Helm chart and renders it in its three certificate modes (auto,
# manual, cert-manager) with a pinned helm built from the Go module proxy
# (hack/helm.sh; cached under bin/helm-<version>/), for the Kubernetes version
# the chart requires (Chart.yaml kubeVersion; helm's own default is older).
# The chart's behaviour is tested in test/chart.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/versions.sh"
HELM=$("$ROOT/hack/helm.sh")
"$HELM" lint --strict --kube-version "$K8S_VERSION" "$ROOT/charts/grove"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
render() {
  local mode=$1; shift
  "$HELM" template grove "$ROOT/charts/grove" --namespace grove-system --kube-version "$K8S_VERSION" "$@" > "$out/$mode.yaml"
  echo "[chart] $mode mode renders $(grep -c '^kind:' "$out/$mode.yaml") objects" >&2
}
render auto
render manual --set webhooks.certProvisionMode=manual --set webhooks.caBundle=Zm9v
render cert-manager --set certManager.enabled=true
# values.schema.json is in force: a misspelt key fails, naming it.
if err=$("$HELM" template grove "$ROOT/charts/grove" --kube-version "$K8S_VERSION" --set operator.config.bogus=1 2>&1); then
  echo "[chart] ERROR: operator.config.bogus=1 rendered; values.schema.json is not checked" >&2; exit 1
fi
grep -q "'bogus' not allowed" <<<"$err" || { echo "[chart] ERROR: unexpected error for operator.config.bogus=1: $err" >&2; exit 1; }
