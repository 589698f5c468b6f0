# Local cluster, demo and end-to-end suite (see docs/dev/local-cluster.md).
LOCAL_CLUSTER := hack/local-cluster
GROVE_LOCAL_DIR ?= $(ROOT)/.local-cluster
export GROVE_LOCAL_DIR
LOCAL_KUBECTL := $(ROOT)/bin/k8s-$(shell . $(ROOT)/hack/versions.sh && echo $$K8S_VERSION)/kubectl
NODES ?= 40
DEMO_SAMPLE ?= samples/user-guide/01_core-concepts/multi-node-disaggregated.yaml
E2E_FLAGS ?=

##@ Local cluster
.PHONY: local-cluster-up
local-cluster-up: ## Start the local cluster (etcd, apiserver, KCM, kwok with NODES fake nodes, grove-scheduler, grove-operator).
	$(LOCAL_CLUSTER) up --nodes $(NODES)

.PHONY: local-cluster-down
local-cluster-down: ## Stop the local cluster's processes (state stays in .local-cluster/).
	$(LOCAL_CLUSTER) down

.PHONY: local-cluster-status
local-cluster-status: ## Show each local cluster component's health (exit 0 only when all are healthy).
	$(LOCAL_CLUSTER) status

.PHONY: demo
demo: ## Start the local cluster and deploy a tutorial sample on fake nodes (DEMO_SAMPLE=...).
	hack/local-cluster.d/demo.sh $(DEMO_SAMPLE)

.PHONY: demo-down
demo-down: ## Stop the local cluster and delete its state.
	$(LOCAL_CLUSTER) down --purge

.PHONY: e2e
e2e: ## Run the end-to-end suite against the local cluster (brought up, or updated to the checkout's binaries, first).
	$(LOCAL_CLUSTER) up --nodes $(NODES)
	cd test && go test -v -tags e2e -count=1 -timeout 30m ./e2e -args -ginkgo.v $(E2E_FLAGS)

.PHONY: e2e-ci
e2e-ci: ## As e2e, then stop the cluster whatever the outcome (logs and diagnostics stay in .local-cluster/); a failed run ends with each failed spec's digest.
	@rc=0; mkdir -p $(GROVE_LOCAL_DIR); touch $(GROVE_LOCAL_DIR)/e2e-ci.start; \
	$(MAKE) --no-print-directory e2e || rc=$$?; $(LOCAL_CLUSTER) down; \
	if [ $$rc -ne 0 ]; then \
	  find $(GROVE_LOCAL_DIR)/e2e-diagnostics -name digest.txt -newer $(GROVE_LOCAL_DIR)/e2e-ci.start 2>/dev/null | \
	    while read -r f; do echo "===== $$f"; head -c 12000 "$$f"; echo; done; \
	fi; exit $$rc

# Chart upgrade: a fresh cluster gets the chart of UPGRADE_FROM (a commit), is
# upgraded to the checkout's chart (helm upgrade --take-ownership: the CRDs are
# templates, and helm adopts those an older chart's crds/ installed) and runs
# the e2e suite (docs/installation.md, "Upgrade").
UPGRADE_FROM ?= HEAD~1
UPGRADE_DIR ?= $(ROOT)/.local-cluster-upgrade

.PHONY: e2e-upgrade
e2e-upgrade: ## Fresh cluster in UPGRADE_DIR with the chart of commit UPGRADE_FROM, helm upgrade to the checkout's chart, then the e2e suite; the cluster is stopped afterwards (logs stay in UPGRADE_DIR/cluster).
	@rc=0; rm -rf $(UPGRADE_DIR); mkdir -p $(UPGRADE_DIR)/previous; \
	git archive $(UPGRADE_FROM) charts/grove | tar -x -C $(UPGRADE_DIR)/previous && \
	GROVE_LOCAL_DIR=$(UPGRADE_DIR)/cluster GROVE_LOCAL_CHART=$(UPGRADE_DIR)/previous/charts/grove $(LOCAL_CLUSTER) up --nodes $(NODES) --without operator,scheduler && \
	$(MAKE) --no-print-directory e2e GROVE_LOCAL_DIR=$(UPGRADE_DIR)/cluster || rc=$$?; \
	GROVE_LOCAL_DIR=$(UPGRADE_DIR)/cluster $(LOCAL_CLUSTER) down; rm -rf $(UPGRADE_DIR)/previous; exit $$rc

# Fault suite (test/faults, docs/dev/testing.md): ROUNDS per fault, FAULTS to kill,
# SEED to replay a run (0 draws one), PODS in the PodCliqueSet once created.
ROUNDS ?= 5
FAULTS ?= kube-apiserver,etcd,grove-operator,grove-scheduler,kube-controller-manager
SEED ?= 0
PODS ?= 200

# The run may take up to 4 minutes a round (a round at 200 pods takes about one):
# both go test's and Ginkgo's own suite timeout (1 h unless set) follow it.
FAULTS_TIMEOUT = $$(( $(ROUNDS) * $(words $(subst $(comma), ,$(FAULTS))) * 4 + 20 ))m
comma := ,

.PHONY: e2e-faults
e2e-faults: ## Kill -9 and restart each of FAULTS mid-work, ROUNDS times, and check Grove's invariants (SEED replays, PODS sizes).
	$(LOCAL_CLUSTER) up --nodes $(NODES)
	cd test && go test -v -tags faults -count=1 -timeout $(FAULTS_TIMEOUT) ./faults -args -ginkgo.v \
		-ginkgo.timeout=$(FAULTS_TIMEOUT) \
		-faults.rounds=$(ROUNDS) -faults.faults=$(FAULTS) -faults.seed=$(SEED) -faults.pods=$(PODS)

.PHONY: e2e-faults-ci
e2e-faults-ci: ## As e2e-faults, then stop the cluster whatever the outcome (results and diagnostics stay in .local-cluster/).
	@rc=0; $(MAKE) --no-print-directory e2e-faults || rc=$$?; $(LOCAL_CLUSTER) down; exit $$rc
