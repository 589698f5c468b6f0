# grove-scheduler benchmark (see docs/benchmarks.md, "Scheduler").
BENCH_SCHEDULER_FLAGS ?=

##@ Benchmarks
.PHONY: bench-scheduler
bench-scheduler: control-plane ## Scheduler throughput on envtest + 500 fake nodes: stock kube-scheduler vs grove-scheduler, 5000 plain pods and 1000 5-pod gangs, same run.
	@mkdir -p bin
	cd scheduler && go run ./test/bench $(BENCH_SCHEDULER_FLAGS) 2> $(ROOT)/bin/bench-scheduler.log
	@echo "scheduler logs: bin/bench-scheduler.log"
