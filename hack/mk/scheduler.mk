# grove-scheduler benchmark (see docs/dev/benchmarks.md, "Scheduler").
BENCH_SCHEDULER_FLAGS ?=
BENCH_TOPOLOGY_FLAGS ?=

##@ Benchmarks
.PHONY: bench-scheduler
bench-scheduler: control-plane ## Scheduler throughput on envtest + 500 fake nodes, same run: 5000 plain pods (stock kube-scheduler vs grove-scheduler); 1000 5-pod gangs (grove-scheduler vs kube-scheduler v1.37.2's Workload API gangs, and stock without gangs).
	@mkdir -p bin
	cd scheduler && go run ./test/bench $(BENCH_SCHEDULER_FLAGS) 2> $(ROOT)/bin/bench-scheduler.log
	@echo "scheduler logs: bin/bench-scheduler.log"

.PHONY: bench-topology
bench-topology: control-plane ## Topology-aware placement on envtest + 1000 fake nodes, grove-scheduler vs kube-scheduler v1.37.2's Workload API gangs (TopologyAwareWorkloadScheduling), same run: a 512-pod gang with a required block; 1000 8-pod gangs with no constraint, a required rack and a preferred rack.
	@mkdir -p bin
	cd scheduler && go run ./test/bench/topology $(BENCH_TOPOLOGY_FLAGS) 2> $(ROOT)/bin/bench-topology.log
	@echo "scheduler logs: bin/bench-topology.log"
