#!/usr/bin/env bash
# test/bench/lws/peer.sh — LeaderWorkerSet as the end-to-end benchmark's peer
# (make bench-e2e): its controller manager, built from the Go module proxy at
# the version this directory's go.mod pins, runs as a local process against
# the benchmark's local cluster, as grove-operator does.
#
#   peer.sh install   build bin/lws-<version>/, install LWS's CRDs, RBAC and
#                     webhook configurations (by URL on 127.0.0.1)
#   peer.sh start     start the controller manager and wait until it serves
#   peer.sh stop      stop it (SIGTERM)
#
# GROVE_LOCAL_DIR names the local cluster (default .local-cluster/). The
# controller's pid is kept in $GROVE_LOCAL_DIR/pids/lws-controller-manager,
# where the benchmark reads its CPU time; its log is logs/lws-controller-manager.log.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/hack/versions.sh"
DIR=${GROVE_LOCAL_DIR:-$ROOT/.local-cluster}
KC=$DIR/kubeconfig
KUBECTL=$ROOT/bin/k8s-$K8S_VERSION/kubectl
STATE=$DIR/lws
NS=lws-system
SA=lws-controller-manager
NAME=lws-controller-manager

log() { printf '[lws-peer] %s\n' "$*" >&2; }
die() { printf '[lws-peer] ERROR: %s\n' "$*" >&2; exit 1; }
k() { "$KUBECTL" --kubeconfig="$KC" "$@"; }
gomod() { (cd "$HERE" && GOWORK=off go "$@"); }

[ -f "$DIR/ports.env" ] || die "no local cluster in $DIR (hack/local-cluster up first)"
# shellcheck disable=SC1091
source "$DIR/ports.env"
# LWS's ports sit beside grove-operator's (port base + 750..753).
BASE=$((API_PORT - 443))
WEBHOOK_PORT=$((BASE + 760))
METRICS_PORT=$((BASE + 761))
HEALTH_PORT=$((BASE + 762))

LWS_VERSION=$(gomod list -m -f '{{.Version}}' sigs.k8s.io/lws)
BIN=$ROOT/bin/lws-$LWS_VERSION/$NAME

build() {
  [ -x "$BIN" ] && return 0
  log "building LeaderWorkerSet $LWS_VERSION from the Go module proxy (cold: several minutes on 2 cores)"
  gomod build -ldflags "-s -w" -o "$BIN" sigs.k8s.io/lws/cmd || die "building sigs.k8s.io/lws/cmd $LWS_VERSION failed"
}

# The module's config/ holds LWS's CRDs and its manager ClusterRole as
# generated YAML; they are applied as LWS's own kustomization would.
module_dir() { gomod mod download -json sigs.k8s.io/lws | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }

install_crds_and_rbac() {
  local mod; mod=$(module_dir)
  [ -d "$mod/config/crd/bases" ] || die "no config/crd/bases in $mod"
  k apply --server-side --force-conflicts --field-manager=lws-peer -f "$mod/config/crd/bases" >/dev/null
  local deadline=$(( $(date +%s) + 60 ))
  until k wait --for=condition=Established --timeout=30s crd leaderworkersets.leaderworkerset.x-k8s.io >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "the LeaderWorkerSet CRD did not become Established"
    sleep 0.5
  done
  k create namespace "$NS" --dry-run=client -o yaml | k apply --server-side --field-manager=lws-peer -f - >/dev/null
  k -n "$NS" create serviceaccount "$SA" --dry-run=client -o yaml | k apply --server-side --field-manager=lws-peer -f - >/dev/null
  # The ClusterRole is named manager-role in LWS's config; it is installed as lws-manager-role.
  sed 's/^  name: manager-role$/  name: lws-manager-role/' "$mod/config/rbac/role.yaml" |
    k apply --server-side --force-conflicts --field-manager=lws-peer -f - >/dev/null
  k create clusterrolebinding lws-manager-rolebinding --clusterrole=lws-manager-role --serviceaccount="$NS:$SA" \
    --dry-run=client -o yaml | k apply --server-side --force-conflicts --field-manager=lws-peer -f - >/dev/null
}

# LWS's own certificate management expects an in-cluster Service; here the
# webhook server runs with a certificate for 127.0.0.1 from a CA of its own,
# and the webhook configurations call it by URL with that CA.
make_certs() {
  mkdir -p "$STATE/certs"
  [ -f "$STATE/certs/tls.crt" ] && return 0
  local d=$STATE/certs q
  q() { "$@" >/dev/null 2>&1; }
  q openssl genrsa -out "$d/ca.key" 2048
  q openssl req -x509 -new -nodes -key "$d/ca.key" -sha256 -days 3650 -subj "/CN=lws-peer-webhook-ca" -out "$d/ca.crt"
  q openssl genrsa -out "$d/tls.key" 2048
  q openssl req -new -key "$d/tls.key" -subj "/CN=lws-webhook" -out "$d/tls.csr"
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$d/tls.ext"
  q openssl x509 -req -in "$d/tls.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "$d/tls.ext" -out "$d/tls.crt" || die "signing the LWS webhook certificate"
}

# webhook NAME PATH GROUP RESOURCE OPERATIONS [pods] writes one webhook of a
# configuration; the pod webhooks select only LWS's pods, as LWS's
# kustomization patches them to.
webhook() {
  local name=$1 path=$2 group=$3 resource=$4 ops=$5 ca
  ca=$(base64 -w0 < "$STATE/certs/ca.crt")
  cat <<EOF
- name: $name
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://127.0.0.1:$WEBHOOK_PORT$path", caBundle: $ca}
  failurePolicy: Fail
  sideEffects: None
  rules: [{apiGroups: ["$group"], apiVersions: [v1], operations: [$ops], resources: [$resource]}]
EOF
  [ "${6:-}" = pods ] && echo "  objectSelector: {matchExpressions: [{key: leaderworkerset.sigs.k8s.io/name, operator: Exists}]}"
  return 0
}

# The webhooks and paths of LWS's config/webhook/manifests.yaml.
install_webhooks() {
  {
    printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: lws-mutating-webhook-configuration}\nwebhooks:\n'
    webhook mleaderworkerset.kb.io /mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset leaderworkerset.x-k8s.io leaderworkersets CREATE,UPDATE
    webhook mpod.kb.io /mutate--v1-pod "" pods CREATE pods
    printf -- '---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: lws-validating-webhook-configuration}\nwebhooks:\n'
    webhook vleaderworkerset.kb.io /validate-leaderworkerset-x-k8s-io-v1-leaderworkerset leaderworkerset.x-k8s.io leaderworkersets CREATE,UPDATE
    webhook vpod.kb.io /validate--v1-pod "" pods CREATE,UPDATE pods
    webhook vdisaggregatedset.kb.io /validate-disaggregatedset-x-k8s-io-v1-disaggregatedset disaggregatedset.x-k8s.io disaggregatedsets CREATE,UPDATE
  } > "$STATE/webhooks.yaml"
  k apply --server-side --force-conflicts --field-manager=lws-peer -f "$STATE/webhooks.yaml" >/dev/null
}

# The controller manager's configuration: LWS's defaults (its client at QPS
# 500, burst 500), without leader election or its own certificate
# management, every port on 127.0.0.1.
write_config() {
  cat > "$STATE/config.yaml" <<EOF
apiVersion: config.lws.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $WEBHOOK_PORT
  certDir: $STATE/certs
metrics:
  bindAddress: 127.0.0.1:$METRICS_PORT
health:
  healthProbeBindAddress: 127.0.0.1:$HEALTH_PORT
EOF
}

write_kubeconfig() {
  local token
  token=$(k -n "$NS" create token "$SA" --duration=720h) || die "creating a token for ServiceAccount $NS/$SA"
  cat > "$STATE/kubeconfig.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: grove-local
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 < "$DIR/pki/ca.crt")
users:
- name: $SA
  user: {token: $token}
contexts:
- name: $SA
  context: {cluster: grove-local, user: $SA, namespace: $NS}
current-context: $SA
EOF
  chmod 600 "$STATE/kubeconfig.tmp"
  mv "$STATE/kubeconfig.tmp" "$STATE/kubeconfig"
}

cmd_install() {
  mkdir -p "$STATE"
  build
  install_crds_and_rbac
  make_certs
  install_webhooks
  write_config
  write_kubeconfig
  log "LeaderWorkerSet $LWS_VERSION installed; webhooks at https://127.0.0.1:$WEBHOOK_PORT"
}

pid_of() { [ -f "$DIR/pids/$NAME" ] && cut -d' ' -f1 < "$DIR/pids/$NAME"; }

# running PID succeeds while PID is alive and runs LWS's binary (a recycled
# pid is never taken for ours).
running() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
  local exe; exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  [ "${exe% (deleted)}" = "$(readlink -f "$BIN")" ]
}

cmd_start() {
  [ -f "$STATE/kubeconfig" ] || die "LWS is not installed in $DIR (peer.sh install first)"
  local pid; pid=$(pid_of || true)
  if running "$pid"; then log "$NAME already running (pid $pid)"; return 0; fi
  mkdir -p "$DIR/logs" "$DIR/pids"
  printf '\n==== %s starting %s\n' "$(date -u +%FT%TZ)" "$NAME" >> "$DIR/logs/$NAME.log"
  KUBECONFIG=$STATE/kubeconfig setsid "$BIN" --config="$STATE/config.yaml" --zap-log-level=2 \
    </dev/null >> "$DIR/logs/$NAME.log" 2>&1 &
  echo "$! $BIN" > "$DIR/pids/$NAME"
  pid=$!
  local deadline=$(( $(date +%s) + 90 ))
  # Ready once its health probe answers and its webhook server accepts TLS
  # with the configured CA.
  until curl -sf "http://127.0.0.1:$HEALTH_PORT/readyz" >/dev/null 2>&1 &&
      curl -s -o /dev/null --cacert "$STATE/certs/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { tail -n 25 "$DIR/logs/$NAME.log" >&2; die "$NAME exited"; }
    [ "$(date +%s)" -lt "$deadline" ] || { tail -n 25 "$DIR/logs/$NAME.log" >&2; die "$NAME did not become ready"; }
    sleep 0.25
  done
  log "started $NAME (pid $pid, log $DIR/logs/$NAME.log)"
}

cmd_stop() {
  local pid; pid=$(pid_of || true)
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    log "stopped $NAME (pid $pid)"
  fi
  rm -f "$DIR/pids/$NAME"
}

case ${1:-} in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
