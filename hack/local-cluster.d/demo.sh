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
first_pcsg=$($K get pcsg -l "$SEL" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
# The PodClique with the most replicas makes the most telling scaling example.
big_pclq=$($K get pclq -l "$SEL" -o jsonpath='{range .items[*]}{.spec.replicas} {.metadata.name}{"\n"}{end}' | sort -rn | awk 'NR == 1 {print $2}')
cat <<EOT

Next, try (kubectl is $ROOT/bin/k8s-$K8S_VERSION/kubectl):
  export KUBECONFIG=$DIR/kubeconfig
  kubectl get pods -l $SEL -o wide
  # a second replica of the whole system:
  kubectl scale pcs $NAME --replicas=2
EOT
[ -z "$first_pcsg" ] || printf '  # one more multi-node instance:\n  kubectl scale pcsg %s --replicas=3\n' "$first_pcsg"
[ -z "$big_pclq" ] || printf '  # scale one PodClique:\n  kubectl scale pclq %s --replicas=5\n' "$big_pclq"
cat <<EOT
  # the PodGangs grove-scheduler placed:
  kubectl get pg
  # delete it; Grove and the garbage collector remove everything it created:
  kubectl delete pcs $NAME
  # all five tutorial examples:
  kubectl apply -f samples/user-guide/01_core-concepts/
  # component health (logs in $DIR/logs):
  hack/local-cluster status
  # stop everything and delete the state:
  make demo-down
EOT
