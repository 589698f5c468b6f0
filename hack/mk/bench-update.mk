# Rolling-update benchmark on the local cluster (see docs/dev/benchmarks.md).
BENCH_UPDATE_FLAGS ?=

##@ Benchmarks
.PHONY: bench-update
bench-update: ## Rolling update on the local cluster: a 100-replica PodCliqueSet (2 cliques x 2 pods) created, then rolled to a new image; both times from the same run.
	$(LOCAL_CLUSTER) up --nodes $(NODES)
	cd test && go run ./bench/update $(BENCH_UPDATE_FLAGS)
