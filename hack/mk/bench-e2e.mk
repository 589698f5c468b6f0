# End-to-end benchmark on a local cluster of its own (see docs/benchmarks.md).
BENCH_E2E_DIR ?= $(ROOT)/.local-cluster-bench
BENCH_E2E_NODES ?= 100
BENCH_E2E_FLAGS ?=

##@ Benchmarks
.PHONY: bench-e2e
bench-e2e: control-plane ## A 1000-pod PodCliqueSet (500 x 2) apply -> Running -> deleted on a local cluster with 100 fake nodes, next to a raw client-go pod loop, same run.
	@rc=0; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) GROVE_LOCAL_PORT_BASE=$${GROVE_LOCAL_PORT_BASE:-30000} $(LOCAL_CLUSTER) up --nodes $(BENCH_E2E_NODES) && \
	( cd test && GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) go run ./bench/e2e $(BENCH_E2E_FLAGS) ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(BENCH_E2E_DIR) $(LOCAL_CLUSTER) down --purge; exit $$rc
