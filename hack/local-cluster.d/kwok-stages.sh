#!/usr/bin/env bash
# Writes kwok's configuration: the standard "fast" stages (node initialize,
# node heartbeat with lease, pod ready, pod complete, pod delete) from the kwok
# module source in the Go module cache, plus pod-ready-again (kwok refuses to
# start without stages), and the number of pod workers.
# Usage: kwok-stages.sh OUTFILE KWOK_VERSION
set -euo pipefail
OUT=${1:?usage: kwok-stages.sh OUTFILE KWOK_VERSION}; V=${2:?}
D="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$V"
if [ ! -d "$D/kustomize/stage" ]; then
  # The module is normally in the cache because hack/control-plane.sh built kwok from it.
  D=$(cd "$(mktemp -d)" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kwok@$V" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
fi
tmp="$OUT.tmp"; : > "$tmp"
for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
         pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
  echo '---' >> "$tmp"; cat "$D/kustomize/stage/$f" >> "$tmp"
done
# pod-ready-again: a Running pod whose Ready condition someone turned off
# (the node lifecycle controller does, for every pod of a node whose lease
# went stale) is Ready again, as a live kubelet would report it. kwok's
# pod-ready stage only matches Pending pods, so without this a short
# control-plane outage would leave pods NotReady for good.
cat >> "$tmp" <<'STAGE'
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready-again
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values:
      - 'True'
  next:
    statusTemplate: |
      {{ $now := Now }}

      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
STAGE
# kwok plays each pod's stages (Running, terminated) four at a time by
# default, so its throughput is 4 / API latency: at 10k pods on a busy API
# server that was about 6 pods a second, and its queue of terminations from
# one run still delayed the next run's pods 20 minutes later. A node's kubelet
# works on its own pods independently of the other nodes', so the fake nodes
# get more workers. A configuration file is not defaulted, so every option
# that has a default is given (kwok v0.8.0's defaults, but the pod workers).
cat >> "$tmp" <<'CONFIG'
---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: 10.0.0.0/24
  enableDebuggingHandlers: true
  enableContentionProfiling: false
  enableProfilingHandler: true
  podPlayStageParallelism: 32
  nodePlayStageParallelism: 4
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 1
  enablePodsOnNodeSyncListPager: true
  enablePodsOnNodeSyncStreamWatch: false
CONFIG
mv "$tmp" "$OUT"
