# grove-operator benchmarks (see docs/dev/benchmarks.md).
BENCH_OPERATOR_FLAGS ?=

##@ Benchmarks
.PHONY: bench-operator
bench-operator: control-plane ## Operator throughput on envtest: a 1000-pod PodCliqueSet (500 x 2) next to a client-go loop creating 1000 pods, same run.
	@mkdir -p bin
	cd operator && go run ./test/bench/operator $(BENCH_OPERATOR_FLAGS) 2> $(ROOT)/bin/bench-operator.log
	@echo "progress and request counts: bin/bench-operator.log"
