# Grove — build, generate, test.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(shell pwd)
ENVTEST_ASSETS := $(ROOT)/bin/envtest
MODULES := api operator scheduler initc test
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
GO_TEST_FLAGS ?= -count=1
export KUBEBUILDER_ASSETS := $(ENVTEST_ASSETS)

##@ General
.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-22s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development
.PHONY: generate
generate: ## Generate deepcopy, CRDs, clientset, listers, informers and apply configurations.
	hack/generate.sh

.PHONY: manifests
manifests: generate ## Generate CRD manifests (same run as generate).

.PHONY: verify-generate
verify-generate: generate ## Fail when generated code is stale.
	@git diff --exit-code --stat -- api charts operator/test/backendcrds || { echo "generated code is stale: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- api charts operator/test/backendcrds)" || { git status --porcelain -- api charts operator/test/backendcrds; echo "untracked generated files: run 'make generate' and commit"; exit 1; }

.PHONY: fmt
fmt: ## gofmt every module.
	gofmt -l -w $(MODULES)

.PHONY: vet
vet: ## go vet every module (make verify gets the same analyzers from golangci-lint's govet).
	go vet $(addsuffix /...,$(addprefix ./,$(MODULES)))

.PHONY: verify-fmt
verify-fmt: ## Fail when gofmt would change a file.
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

.PHONY: lint
lint: ## Run golangci-lint and the Kube API Linter (.golangci.yml) over every module.
	hack/lint.sh

.PHONY: verify
# No separate go vet: golangci-lint's govet runs every analyzer go vet runs
# (plus nilness and unusedwrite), and over the e2e and faults build tags too;
# go vet on top of it analysed every dependency a second time (324 CPU seconds
# with warm export data).
verify: verify-fmt lint verify-api-standalone verify-chart ## Every static check: gofmt, the linters (go vet's analyzers among them), the api module standing alone, the Helm chart.

.PHONY: verify-chart
verify-chart: ## Lint the Helm chart and render it in auto and manual certificate modes.
	hack/verify-chart.sh

.PHONY: verify-api-standalone
verify-api-standalone: ## Check the api module builds alone and pulls in neither controller-runtime nor k8s.io/kubernetes.
	cd api && GOWORK=off go build ./...
	@cd api && if GOWORK=off go list -m all | grep -E '^(sigs.k8s.io/controller-runtime|k8s.io/kubernetes) '; then echo "api module must not depend on these"; exit 1; fi; echo "api module stands alone"

##@ Build
.PHONY: control-plane
control-plane: ## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok and helm into bin/ (cached by version).
	hack/control-plane.sh

.PHONY: build
build: ## Build grove-operator, grove-scheduler, grove-initc and the kubectl plugin kubectl-grove into bin/.
	go build -ldflags "-X github.com/grove-project/grove/operator/internal/version.gitVersion=$(VERSION)" -o bin/grove-operator ./operator/cmd/grove-operator
	go build -ldflags "-X main.version=$(VERSION)" -o bin/grove-scheduler ./scheduler/cmd/grove-scheduler
	go build -ldflags "-X github.com/grove-project/grove/initc/internal/command.version=$(VERSION)" -o bin/grove-initc ./initc/cmd/grove-initc
	go build -o bin/kubectl-grove ./api/cmd/kubectl-grove

##@ Test
.PHONY: test
test: test-go test-release e2e-ci ## Run every test: unit tests, envtest suites, the image and release tests, then the end-to-end suite on the local cluster.

.PHONY: test-go
test-go: control-plane ## Run the unit tests and envtest suites of every module.
	go test $(GO_TEST_FLAGS) $(addsuffix /...,$(addprefix ./,$(MODULES)))

.PHONY: bench
bench: bench-operator bench-scheduler ## Run every benchmark (results in docs/dev/benchmarks.md).

# Each area keeps its own targets (benchmarks, local cluster, e2e) in hack/mk/.
-include hack/mk/*.mk
