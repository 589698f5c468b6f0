#!/usr/bin/env bash
# Lints the Helm chart and renders it in both certificate modes with a pinned
# helm built from the Go module proxy (hack/helm.sh; cached under bin/helm-<version>/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELM=$("$ROOT/hack/helm.sh")
"$HELM" lint --strict "$ROOT/charts/grove"
out=$(mktemp -d)
"$HELM" template grove "$ROOT/charts/grove" --namespace grove-system > "$out/auto.yaml"
"$HELM" template grove "$ROOT/charts/grove" --namespace grove-system \
  --set webhooks.certProvisionMode=manual --set webhooks.caBundle=Zm9v > "$out/manual.yaml"
for f in "$out"/*.yaml; do
  n=$(grep -c '^kind:' "$f")
  echo "[chart] $(basename "$f" .yaml) mode renders $n objects" >&2
done
rm -rf "$out"
