# Rolling-update benchmark on the local cluster (see docs/dev/benchmarks.md).
BENCH_UPDATE_FLAGS ?=

##@ Benchmarks
.PHONY: bench-update
bench-update: ## Updates on the local cluster: a 100-replica PodCliqueSet (2 cliques x 2 pods) created, then updated to a new image, once per strategy (RollingRecreate, then Coherent) in the same run.
	$(LOCAL_CLUSTER) up --nodes $(NODES)
	cd test && go run ./bench/update $(BENCH_UPDATE_FLAGS)
