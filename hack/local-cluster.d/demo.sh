#!/usr/bin/env bash
# make demo: brings the local cluster up, applies a tutorial sample and waits
# until every pod of it is Running on a kwok fake node, then shows the objects
# Grove created and the commands to try next.
# Usage: demo.sh SAMPLE.yaml   (env: NODES, default 40; DEMO_TIMEOUT seconds, default 120)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SAMPLE=${1:?usage: demo.sh SAMPLE.yaml}
[ -f "$SAMPLE" ] || SAMPLE=$ROOT/$SAMPLE
[ -f "$SAMPLE" ] || { echo "demo: no such sample: $1" >&2; exit 1; }
DIR=${GROVE_LOCAL_DIR:-$ROOT/.local-cluster}
source "$ROOT/hack/versions.sh"
K="$ROOT/bin/k8s-$K8S_VERSION/kubectl --kubeconfig=$DIR/kubeconfig"
log() { printf '[demo] %s\n' "$*" >&2; }
T0=$(date +%s)

"$ROOT/hack/local-cluster" up --nodes "${NODES:-40}"

NAME=$($K create --dry-run=client -f "$SAMPLE" -o jsonpath='{.metadata.name}')
log "applying $SAMPLE (PodCliqueSet $NAME)"
$K apply -f "$SAMPLE" >/dev/null
SEL=app.kubernetes.io/part-of=$NAME

# All pods are Running once the pods on fake nodes match the PodCliques' replicas.
deadline=$(( $(date +%s) + ${DEMO_TIMEOUT:-120} )); want=0; have=0
while :; do
  want=$($K get pclq -l "$SEL" -o jsonpath='{range .items[*]}{.spec.replicas}{"\n"}{end}' | awk '{s += $1} END {print s + 0}')
  have=$($K get pods -l "$SEL" --field-selector=status.phase=Running -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c '^fake-node-' || true)
  if [ "$want" -gt 0 ] && [ "$have" = "$want" ]; then break; fi
  if [ "$(date +%s)" -gt "$deadline" ]; then
    log "timed out: $have of $want pods Running on fake nodes"
    $K get pcs,pcsg,pclq,pg,pods -o wide -l "$SEL" || true
    $K get events --sort-by=.lastTimestamp | tail -n 20 || true
    log "logs: $DIR/logs/"
    exit 1
  fi
  sleep 1
done
log "all $want pods of $NAME Running on fake nodes ($(( $(date +%s) - T0 ))s in total)"
echo
$K get pcs,pcsg,pclq,pg,pods -o wide
cat <<EOT

Next, try (kubectl is $ROOT/bin/k8s-$K8S_VERSION/kubectl):
  export KUBECONFIG=$DIR/kubeconfig
  kubectl get pods -l $SEL -o wide
  kubectl scale pcs $NAME --replicas=2                      # a second replica of the whole system
EOT
first_pcsg=$($K get pcsg -l "$SEL" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
first_pclq=$($K get pclq -l "$SEL" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
[ -z "$first_pcsg" ] || echo "  kubectl scale pcsg $first_pcsg --replicas=3   # one more multi-node instance"
[ -z "$first_pclq" ] || echo "  kubectl scale pclq $first_pclq --replicas=3   # scale one PodClique"
cat <<EOT
  kubectl get pg                                                # the PodGangs grove-scheduler placed
  kubectl delete pcs $NAME                                  # the garbage collector removes everything
  kubectl apply -f samples/user-guide/01_core-concepts/     # all five tutorial examples
  hack/local-cluster status                                     # component health; logs in $DIR/logs
  make demo-down                                                # stop everything and delete the state
EOT
