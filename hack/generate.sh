#!/usr/bin/env bash
# Generates the API module's code: deepcopy functions and CRD manifests
# (controller-gen), and the clientset, listers, informers and apply
# configurations (code-generator's kube_codegen.sh, from the module cache);
# and grove-operator's RBAC rules from the +kubebuilder:rbac markers in
# operator/ (controller-gen) into the Helm chart; and the reference pages
# docs/reference/api.md and docs/reference/operator-configuration.md from the
# Go types (crd-ref-docs, pinned in hack/tools-docs, outside go.work).
# Idempotent: running it twice leaves no diff.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS_BIN="$ROOT/bin/tools"
BOILERPLATE="$ROOT/hack/boilerplate.go.txt"
API_PKG=github.com/grove-project/grove/api

log() { printf '[generate] %s\n' "$*" >&2; }


# KAI_VERSION is the KAI scheduler release whose PodGroup CRD the operator's
# tests use. No Grove module requires KAI's module (its API package does not
# build against the operator's controller-runtime), so it is fetched by version.
KAI_VERSION=v0.12.0

# module_version_dir MODULE@VERSION prints the directory of that module
# version in the module cache, downloading it first.
module_version_dir() {
  local dir tmp
  # Outside every module: `go mod download M@V` there changes no go.mod.
  tmp=$(mktemp -d)
  dir=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rmdir "$tmp"
  [ -n "$dir" ] || { echo "generate: downloading $1 failed" >&2; return 1; }
  echo "$dir"
}

# module_dir MODULE_ROOT MODULE prints the directory of MODULE as required by
# the module at MODULE_ROOT, downloading it first: `go list -m` alone prints
# nothing for a module a fresh machine's cache does not hold yet.
module_dir() {
  local dir
  (cd "$1" && go mod download "$2") || { echo "generate: downloading $2 failed" >&2; return 1; }
  dir=$(cd "$1" && go list -m -f '{{.Dir}}' "$2")
  [ -n "$dir" ] || { echo "generate: no directory for module $2" >&2; return 1; }
  echo "$dir"
}

log "building controller-gen"
mkdir -p "$TOOLS_BIN"
(cd "$ROOT/hack/tools" && go build -o "$TOOLS_BIN/" sigs.k8s.io/controller-tools/cmd/controller-gen)

cd "$ROOT/api"
log "deepcopy"
"$TOOLS_BIN/controller-gen" object:headerFile="$BOILERPLATE" paths=./core/... paths=./scheduler/...

log "CRDs"
# allowDangerousTypes: PodGang status.placementScore is a float.
for group in core scheduler; do
  rm -f "./$group/v1alpha1/crds/"*.yaml
  "$TOOLS_BIN/controller-gen" crd:allowDangerousTypes=true \
    paths="./$group/v1alpha1/..." output:crd:dir="./$group/v1alpha1/crds"
done

log "clientset, listers, informers, apply configurations"
CODEGEN_DIR=$(module_dir "$ROOT/hack/tools" k8s.io/code-generator)
# kube_codegen.sh installs its generators into GOBIN; keep them in bin/tools.
export GOBIN="$TOOLS_BIN"
# shellcheck source=/dev/null
source "$CODEGEN_DIR/kube_codegen.sh"
kube::codegen::gen_client \
  --with-watch \
  --with-applyconfig \
  --applyconfig-externals "k8s.io/api/core/v1.PodSpec:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/autoscaling/v2.MetricSpec:k8s.io/client-go/applyconfigurations/autoscaling/v2" \
  --output-dir "$ROOT/api/client" \
  --output-pkg "$API_PKG/client" \
  --boilerplate "$BOILERPLATE" \
  "$ROOT/api"

log "copying CRDs into the Helm chart"
mkdir -p "$ROOT/charts/grove/files/crds"
rm -f "$ROOT/charts/grove/files/crds/"*.yaml
cp "$ROOT"/api/core/v1alpha1/crds/*.yaml "$ROOT"/api/scheduler/v1alpha1/crds/*.yaml "$ROOT/charts/grove/files/crds/"
log "operator RBAC from +kubebuilder:rbac markers"
# charts/grove/files/operator-rbac.yaml holds controller-gen's output as is for
# every operator package but the scheduler backends': a ClusterRole
# (cluster-wide rules) and a Role (rules in the operator's namespace);
# templates/operator-rbac.yaml takes the rules from it. Each backend package's
# markers (the rules for its scheduler's objects) go to
# files/backend-rbac/<profile>.yaml, which the chart adds to the ClusterRole
# only when the values enable that profile. BACKEND_RBAC maps each backend
# package under operator/internal/backend to its profile; test/chart holds
# the same map.
BACKEND_RBAC="workloadapi:default-scheduler coscheduling:scheduler-plugins-scheduler volcano:volcano kai:kai-scheduler"
files="$ROOT/charts/grove/files"
mkdir -p "$files"
rm -rf "$files/backend-rbac"
mkdir -p "$files/backend-rbac"
backend_pkgs_re=$(for e in $BACKEND_RBAC; do printf '%s|' "${e%%:*}"; done)
# MNNVL_RBAC_PKG's markers (ComputeDomains) go to files/mnnvl-rbac.yaml, which
# the chart adds only with operator.config.network.autoMNNVLEnabled.
MNNVL_RBAC_PKG="internal/mnnvl"
core_pkgs=$(cd "$ROOT/operator" && go list ./... | grep -Ev "/internal/backend/(${backend_pkgs_re%|})\$" | grep -v "/${MNNVL_RBAC_PKG}\$" | paste -sd, -)
rbac_out=$(mktemp -d)
(cd "$ROOT/operator" && "$TOOLS_BIN/controller-gen" rbac:roleName=grove-operator "paths={$core_pkgs}" output:rbac:dir="$rbac_out")
cp "$rbac_out/role.yaml" "$files/operator-rbac.yaml"
for e in $BACKEND_RBAC; do
  rm -f "$rbac_out/role.yaml"
  (cd "$ROOT/operator" && "$TOOLS_BIN/controller-gen" rbac:roleName=grove-operator paths="./internal/backend/${e%%:*}" output:rbac:dir="$rbac_out")
  [ -s "$rbac_out/role.yaml" ] || { echo "generate: backend package ${e%%:*} has no +kubebuilder:rbac markers" >&2; exit 1; }
  cp "$rbac_out/role.yaml" "$files/backend-rbac/${e#*:}.yaml"
done
rm -f "$rbac_out/role.yaml"
(cd "$ROOT/operator" && "$TOOLS_BIN/controller-gen" rbac:roleName=grove-operator paths="./$MNNVL_RBAC_PKG" output:rbac:dir="$rbac_out")
[ -s "$rbac_out/role.yaml" ] || { echo "generate: $MNNVL_RBAC_PKG has no +kubebuilder:rbac markers" >&2; exit 1; }
cp "$rbac_out/role.yaml" "$files/mnnvl-rbac.yaml"
rm -rf "$rbac_out"
log "scheduler backends' CRDs for the operator's tests"
# The CRDs of other schedulers' APIs, taken from their published Go modules:
# scheduler-plugins ships its PodGroup CRD (the scheduler module requires the
# module); Volcano's API module ships the types with their kubebuilder
# markers, from which controller-gen writes the CRDs Volcano installs; KAI's
# module ships its PodGroup and Topology CRDs under deployments/.
backend_crds="$ROOT/operator/test/backendcrds"
mkdir -p "$backend_crds"
rm -f "$backend_crds/"*.yaml
sp_dir=$(module_dir "$ROOT/scheduler" sigs.k8s.io/scheduler-plugins)
cp "$sp_dir/config/crd/bases/scheduling.x-k8s.io_podgroups.yaml" "$backend_crds/"
kai_dir=$(module_version_dir "github.com/NVIDIA/KAI-scheduler@$KAI_VERSION")
cp "$kai_dir/deployments/kai-scheduler/crds/scheduling.run.ai_podgroups.yaml" \
  "$kai_dir/deployments/kai-scheduler/crds/kai.scheduler_topologies.yaml" "$backend_crds/"
chmod 0644 "$backend_crds/"*.yaml
(cd "$ROOT/operator" && go mod download volcano.sh/apis && "$TOOLS_BIN/controller-gen" crd paths=volcano.sh/apis/pkg/apis/scheduling/v1beta1 output:crd:dir="$backend_crds")
log "reference pages from the Go types"
(cd "$ROOT/hack/tools-docs" && GOWORK=off go build -o "$TOOLS_BIN/" github.com/elastic/crd-ref-docs)
ref="$ROOT/docs/reference"
mkdir -p "$ref"
# reference_page SOURCE OUT TITLE INTRO renders the types under SOURCE into
# OUT with crd-ref-docs' Markdown templates, under TITLE and INTRO instead of
# the templates' "# API Reference".
reference_page() {
  local tmp
  tmp=$(mktemp)
  "$TOOLS_BIN/crd-ref-docs" --log-level=ERROR --source-path="$1" \
    --config="$ROOT/hack/reference/crd-ref-docs.yaml" --renderer=markdown --output-path="$tmp"
  { printf '# %s\n\n%s\n' "$3" "$4"; tail -n +2 "$tmp"; } > "$2"
  rm -f "$tmp"
}
reference_page "$ROOT/api" "$ref/api.md" "API reference" \
"Every field of grove.io/v1alpha1 (PodCliqueSet, PodClique, PodCliqueScalingGroup,
ClusterTopologyBinding) and scheduler.grove.io/v1alpha1 (PodGang), generated from the Go types
in \`api/\` by \`make generate\`; do not edit. The [user guide](../user-guide.md) explains how
the fields work together."
# The backends' settings (scheduler.profiles[].config) are raw JSON in
# OperatorConfiguration, so nothing reaches their types; they carry the root
# marker to be documented, and the apiVersion/kind rows crd-ref-docs gives a
# root are dropped for them (they have neither).
backend_configs='DefaultSchedulerConfig|SchedulerPluginsConfig|VolcanoConfig|KAIConfig'
reference_page "$ROOT/operator/internal/config" "$ref/operator-configuration.md" "OperatorConfiguration reference" \
"grove-operator reads one file of kind \`OperatorConfiguration\` (\`--config\`); the Helm chart
renders it from its values ([installation](../installation.md)). Unknown keys are errors. A
profile's \`config\` under \`scheduler.profiles\` takes the settings of its backend:
DefaultSchedulerConfig (\`default-scheduler\`), SchedulerPluginsConfig
(\`scheduler-plugins-scheduler\`), VolcanoConfig (\`volcano\`) or KAIConfig (\`kai-scheduler\`).
Generated from the Go types in \`operator/internal/config\` by \`make generate\`; do not edit."
awk -v cfgs="^($backend_configs)\$" '
  /^#### / { type = $2 }
  /^- \[[A-Za-z]+\]\(#[a-z]+\)$/ { name = $0; sub(/^- \[/, "", name); sub(/\].*/, "", name); if (name ~ cfgs && inResources) next }
  /^### Resource Types/ { inResources = 1 } /^#### / { inResources = 0 }
  type ~ cfgs && /^\| `(apiVersion|kind)` _string_ \|/ { next }
  { print }
' "$ref/operator-configuration.md" > "$ref/operator-configuration.md.tmp"
mv "$ref/operator-configuration.md.tmp" "$ref/operator-configuration.md"
log "done"
