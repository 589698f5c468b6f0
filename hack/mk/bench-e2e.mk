# End-to-end benchmark on a local cluster of its own (see docs/dev/benchmarks.md).
BENCH_E2E_DIR ?= $(ROOT)/.local-cluster-bench
BENCH_E2E_NODES ?= 100
BENCH_E2E_FLAGS ?=
# Rounds of the whole measurement (raw loop, Grove, the peer, gated loop),
# and the peer measured beside Grove in each: lws (LeaderWorkerSet, built
# from the Go module proxy by test/bench/lws/peer.sh), or empty for none.
BENCH_E2E_ROUNDS ?= 3
BENCH_E2E_PEER ?= lws
# kube-controller-manager creates the peer's pods (StatefulSets) and deletes
# both sides' children (garbage collector); kube-scheduler places the peer's
# pods. Both run with the client QPS and burst of grove-operator and
# grove-scheduler (the chart's 500/1000), for Grove's run and the peer's alike.
BENCH_E2E_CLUSTER_ENV = GROVE_LOCAL_KCM_ARGS="--kube-api-qps=500 --kube-api-burst=1000" \
	GROVE_LOCAL_KUBE_SCHEDULER_ARGS="--kube-api-qps=500 --kube-api-burst=1000"
# The 10k-pod scale runs: one PodCliqueSet of 5000 × 2 beside the peer's
# 5000 groups of 2, then 100 sets of 50 × 2, each next to its own 10k-pod raw
# loop, on 500 fake nodes. Operator and scheduler are restarted between the
# two so that each run's peak memory is its own. -timeout bounds a round.
BENCH_E2E_10K_NODES ?= 500
BENCH_E2E_10K_FLAGS ?= -timeout 90m

##@ Benchmarks
.PHONY: bench-e2e
bench-e2e: control-plane ## A 1000-pod PodCliqueSet (500 x 2) apply -> Running -> deleted on a local cluster with 100 fake nodes, next to a raw client-go pod loop, a gated one and LeaderWorkerSet's 500 x 2; BENCH_E2E_ROUNDS rounds.
	@rc=0; \
	$(BENCH_E2E_CLUSTER_ENV) GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) GROVE_LOCAL_PORT_BASE=$${GROVE_LOCAL_PORT_BASE:-30000} $(LOCAL_CLUSTER) up --nodes $(BENCH_E2E_NODES) && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e -rounds $(BENCH_E2E_ROUNDS) -peer=$(BENCH_E2E_PEER) $(BENCH_E2E_FLAGS) ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) test/bench/lws/peer.sh stop 2>/dev/null; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) down --purge; exit $$rc

.PHONY: bench-e2e-10k
bench-e2e-10k: control-plane ## The 10k-pod scale: one PodCliqueSet of 5000 x 2 beside LeaderWorkerSet's 5000 x 2, then 100 PodCliqueSets of 50 x 2, on 500 fake nodes; each next to a 10k-pod raw loop; CPU and peak memory of operator, scheduler, API server.
	@rc=0; \
	$(BENCH_E2E_CLUSTER_ENV) GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) GROVE_LOCAL_PORT_BASE=$${GROVE_LOCAL_PORT_BASE:-30000} $(LOCAL_CLUSTER) up --nodes $(BENCH_E2E_10K_NODES) && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e -replicas 5000 -peer=$(BENCH_E2E_PEER) $(BENCH_E2E_10K_FLAGS) ) && \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) restart grove-operator && \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) restart grove-scheduler && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e -replicas 5000 -sets 100 $(BENCH_E2E_10K_FLAGS) ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) test/bench/lws/peer.sh stop 2>/dev/null; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) down --purge; exit $$rc
