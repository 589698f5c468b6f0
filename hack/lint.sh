#!/usr/bin/env bash
# Runs golangci-lint with the Kube API Linter module over every module of the
# workspace, with the repository's .golangci.yml.
#
# The binary is built from the Go module proxy at the versions pinned in
# hack/tools-lint/go.mod, from kube-api-linter's own entry point
# (cmd/golangci-lint-kube-api-linter: golangci-lint's command with the Kube API
# Linter registered as a module plugin), and cached under
# bin/golangci-lint-<golangci-lint version>-kal-<kube-api-linter commit>/.
# hack/tools-lint is a module of its own, outside go.work, so the linters'
# dependencies never raise the versions the operator, the scheduler or the
# control-plane binaries are built with.
#
# Usage: hack/lint.sh [--print-binary] [golangci-lint run flags...]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS="$ROOT/hack/tools-lint"

log() { printf '[lint] %s\n' "$*" >&2; }

versions=$(cd "$TOOLS" && GOWORK=off go list -m -f '{{.Path}} {{.Version}}' \
  github.com/golangci/golangci-lint/v2 sigs.k8s.io/kube-api-linter)
GCL_VERSION=$(awk '$1 == "github.com/golangci/golangci-lint/v2" {print $2}' <<<"$versions")
KAL_VERSION=$(awk '$1 == "sigs.k8s.io/kube-api-linter" {print $2}' <<<"$versions")
BIN="$ROOT/bin/golangci-lint-$GCL_VERSION-kal-${KAL_VERSION##*-}/golangci-lint"

if [ "${1:-}" = "--print-binary" ]; then echo "$BIN"; exit 0; fi

if [ ! -x "$BIN" ]; then
  log "building golangci-lint $GCL_VERSION with kube-api-linter $KAL_VERSION (cold: about 3 minutes on 2 idle cores)"
  mkdir -p "$(dirname "$BIN")"
  s=$(date +%s)
  (cd "$TOOLS" && GOWORK=off go build -o "$BIN" sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter)
  log "  done in $(( $(date +%s) - s ))s"
fi

cd "$ROOT"
# One run over the workspace's modules: golangci-lint loads the packages
# through go.work, so cross-module types resolve as in the build.
"$BIN" run "$@" ./api/... ./initc/... ./operator/... ./scheduler/... ./test/...
