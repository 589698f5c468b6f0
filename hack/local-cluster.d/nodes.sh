#!/usr/bin/env bash
# Prints N kwok fake Nodes as YAML. Every node carries the tutorial's taint
# fake-node=true:NoSchedule and topology labels (5 hosts per rack, 2 racks per
# block, 2 blocks per zone):
#   topology.kubernetes.io/zone  zone-<z>
#   example.com/block            block-<b>
#   example.com/rack             rack-<r>
#   kubernetes.io/hostname       fake-node-<nnn>
# Usage: nodes.sh N CPU MEMORY PODS
set -euo pipefail
N=${1:?usage: nodes.sh N CPU MEMORY PODS}; CPU=${2:?}; MEM=${3:?}; PODS=${4:?}
for ((i = 1; i <= N; i++)); do
  name=$(printf 'fake-node-%03d' "$i")
  rack=$(( (i - 1) / 5 )); block=$(( rack / 2 )); zone=$(( block / 2 ))
  cat <<Y
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    type: kwok
    topology.kubernetes.io/zone: zone-$zone
    example.com/block: block-$block
    example.com/rack: rack-$rack
spec:
  taints:
  - {key: fake-node, value: "true", effect: NoSchedule}
status:
  allocatable: {cpu: "$CPU", memory: "$MEM", pods: "$PODS"}
  capacity: {cpu: "$CPU", memory: "$MEM", pods: "$PODS"}
  nodeInfo: {architecture: amd64, operatingSystem: linux, kubeletVersion: fake, kubeProxyVersion: fake}
  phase: Running
Y
done
