# End-to-end benchmark on a local cluster of its own (see docs/dev/benchmarks.md).
BENCH_E2E_DIR ?= $(ROOT)/.local-cluster-bench
BENCH_E2E_NODES ?= 100
BENCH_E2E_FLAGS ?=
# The 10k-pod scale runs: one PodCliqueSet of 5000 × 2, then 100 sets of
# 50 × 2, each next to its own 10k-pod raw loop, on 500 fake nodes. Operator
# and scheduler are restarted between the two so that each run's peak memory
# is its own.
BENCH_E2E_10K_NODES ?= 500
BENCH_E2E_10K_FLAGS ?= -timeout 60m

##@ Benchmarks
.PHONY: bench-e2e
bench-e2e: control-plane ## A 1000-pod PodCliqueSet (500 x 2) apply -> Running -> deleted on a local cluster with 100 fake nodes, next to a raw client-go pod loop and a gated, scheduled one, same run.
	@rc=0; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) GROVE_LOCAL_PORT_BASE=$${GROVE_LOCAL_PORT_BASE:-30000} $(LOCAL_CLUSTER) up --nodes $(BENCH_E2E_NODES) && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e $(BENCH_E2E_FLAGS) ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) down --purge; exit $$rc

.PHONY: bench-e2e-10k
bench-e2e-10k: control-plane ## The 10k-pod scale: one PodCliqueSet of 5000 x 2, then 100 PodCliqueSets of 50 x 2, on 500 fake nodes; each next to a 10k-pod raw loop; CPU and peak memory of operator, scheduler, API server.
	@rc=0; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) GROVE_LOCAL_PORT_BASE=$${GROVE_LOCAL_PORT_BASE:-30000} $(LOCAL_CLUSTER) up --nodes $(BENCH_E2E_10K_NODES) && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e -replicas 5000 $(BENCH_E2E_10K_FLAGS) ) && \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) restart grove-operator && \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) restart grove-scheduler && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e -replicas 5000 -sets 100 $(BENCH_E2E_10K_FLAGS) ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) down --purge; exit $$rc
