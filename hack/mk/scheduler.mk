# grove-scheduler benchmark (see docs/dev/benchmarks.md, "Scheduler").
BENCH_SCHEDULER_FLAGS ?=
BENCH_TOPOLOGY_FLAGS ?=

##@ Benchmarks
.PHONY: bench-scheduler
bench-scheduler: control-plane ## Scheduler throughput on envtest + 500 fake nodes, same run: 5000 plain pods (stock kube-scheduler vs grove-scheduler); 1000 5-pod gangs (grove-scheduler vs kube-scheduler v1.37.2's Workload API gangs, and stock without gangs).
	@mkdir -p bin
	cd scheduler && go run ./test/bench $(BENCH_SCHEDULER_FLAGS) 2> $(ROOT)/bin/bench-scheduler.log
	@echo "scheduler logs: bin/bench-scheduler.log"

# The overload case: kube-apiserver admits BENCH_OVERLOAD_INFLIGHT requests at
# once (half of them mutating) instead of 400 and fails those it has not
# answered within BENCH_OVERLOAD_TIMEOUT (60s by default) with a timeout.
BENCH_OVERLOAD_INFLIGHT ?= 6
BENCH_OVERLOAD_TIMEOUT ?= 5s

.PHONY: bench-scheduler-overload
bench-scheduler-overload: control-plane ## 1000 5-pod gangs on an overloaded kube-apiserver (BENCH_OVERLOAD_INFLIGHT requests in flight, BENCH_OVERLOAD_TIMEOUT request timeout), grove-scheduler with kube-scheduler's DefaultBinder vs its own binder, same run.
	@mkdir -p bin
	cd scheduler && go run ./test/bench -apiserver-max-inflight $(BENCH_OVERLOAD_INFLIGHT) -apiserver-request-timeout $(BENCH_OVERLOAD_TIMEOUT) $(BENCH_SCHEDULER_FLAGS) 2> $(ROOT)/bin/bench-scheduler-overload.log
	@echo "scheduler logs: bin/bench-scheduler-overload.log"

.PHONY: bench-topology
bench-topology: control-plane ## Topology-aware placement on envtest + 1000 fake nodes, grove-scheduler vs kube-scheduler v1.37.2's Workload API gangs (TopologyAwareWorkloadScheduling), same run: a 512-pod gang with a required block; 1000 8-pod gangs with no constraint, a required rack and a preferred rack.
	@mkdir -p bin
	cd scheduler && go run ./test/bench/topology $(BENCH_TOPOLOGY_FLAGS) 2> $(ROOT)/bin/bench-topology.log
	@echo "scheduler logs: bin/bench-topology.log"

# Competing gangs (test/e2e/gangsrace_test.go): ROUNDS rounds per scheduler,
# 10 unless given on the command line. Both schedulers race in the same round,
# each on its own 10 gang-pool nodes.
GANGS_RACE_ROUNDS = $(if $(filter command line environment,$(origin ROUNDS)),$(ROUNDS),10)
GANGS_RACE_TIMEOUT = $$(( $(GANGS_RACE_ROUNDS) * 2 + 10 ))m

##@ Local cluster
.PHONY: e2e-gangs-race
e2e-gangs-race: ## Competing gangs on the local cluster: 3 gangs that cannot all fit, created at once, ROUNDS rounds (default 10) with grove-scheduler and with kube-scheduler's Workload API; every round must end with each gang fully bound or not at all.
	$(LOCAL_CLUSTER) up --nodes $(NODES)
	cd test && E2E_GANGS_RACE_ROUNDS=$(GANGS_RACE_ROUNDS) go test -v -tags e2e -count=1 -timeout $(GANGS_RACE_TIMEOUT) ./e2e -args -ginkgo.v \
		-ginkgo.timeout=$(GANGS_RACE_TIMEOUT) -ginkgo.focus='Competing gangs'

.PHONY: e2e-gangs-race-100
e2e-gangs-race-100: ## e2e-gangs-race with 100 rounds per scheduler.
	$(MAKE) --no-print-directory e2e-gangs-race ROUNDS=100

.PHONY: bench-search-devices
bench-search-devices: ## The placement search's cost for one gang with DRA claims vs the same gang with an extended resource, same run (Go benchmark, 500 nodes of 8 GPUs; fits and does not fit).
	cd scheduler && go test -run '^$$' -bench BenchmarkSearchDevices -benchmem -count 5 ./pkg/gang/core
