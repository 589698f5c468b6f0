#!/usr/bin/env bash
# Lints the Helm chart and renders it in both certificate modes with a pinned
# helm built from the Go module proxy (cached under bin/helm-<version>/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/versions.sh"
HELM="$ROOT/bin/helm-$HELM_VERSION/helm"
if [ ! -x "$HELM" ]; then
  echo "[chart] building helm $HELM_VERSION (about a minute)" >&2
  mkdir -p "$(dirname "$HELM")"
  (cd "$ROOT" && GOWORK=off GOBIN="$(dirname "$HELM")" go install -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
fi
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
