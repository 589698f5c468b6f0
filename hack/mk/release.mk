# Images and releases (docs/dev/release.md). The tool is a module of its own
# (hack/tools-release, outside go.work) so that go-containerregistry never
# enters the shipped modules' dependency graph.
RELEASE_TOOL := $(ROOT)/bin/grove-release
IMAGES_DIR ?= $(ROOT)/bin/images
RELEASE_DIR ?= $(ROOT)/bin/release
# The commit the images are built from and its time: every timestamp in the
# images is the commit time, so one commit gives the same digests.
GIT_REVISION = $(shell git rev-parse HEAD)
GIT_COMMIT_TIME = $(shell git log -1 --format=%cI)

.PHONY: release-tool
release-tool:
	@mkdir -p $(ROOT)/bin
	@cd hack/tools-release && GOWORK=off go build -o $(RELEASE_TOOL) ./cmd/grove-release

##@ Release
.PHONY: images
images: release-tool ## Build the grove-operator, grove-scheduler and grove-initc images (linux/amd64 + linux/arm64) into bin/images/<name>.tar (OCI layout archives) and print each index digest.
	$(RELEASE_TOOL) images --repo-root $(ROOT) --version $(VERSION) --revision $(GIT_REVISION) --created $(GIT_COMMIT_TIME) --out $(IMAGES_DIR)

.PHONY: test-release
test-release: ## Test the image and release tool: builds the images twice and compares digests, prints and checks each image's config.
	HELM=$$(hack/helm.sh) && cd hack/tools-release && HELM=$$HELM GOWORK=off go test $(GO_TEST_FLAGS) -v -timeout 40m ./... 2>&1 | grep -v -E '^=== (RUN|PAUSE|CONT)'

# Where the release's images are published: the packaged chart names
# $(RELEASE_REGISTRY)/grove-{operator,scheduler,initc}.
RELEASE_REGISTRY ?= ghcr.io/grove-project

.PHONY: release-dry-run
release-dry-run: release-tool ## Everything a release publishes, in bin/release/, without pushing (VERSION=vX.Y.Z): image archives, the chart .tgz with the images' digests, install.yaml, SBOM, SHA256SUMS.
	$(RELEASE_TOOL) release --repo-root $(ROOT) --version $(VERSION) --revision $(GIT_REVISION) --created $(GIT_COMMIT_TIME) \
		--images $(IMAGES_DIR) --out $(RELEASE_DIR) --registry $(RELEASE_REGISTRY) --helm $$(hack/helm.sh)

# The end-to-end subset on components run from their images: a release dry
# run at E2E_IMAGES_VERSION, a cluster of its own that installs the packaged
# chart and runs grove-operator and grove-scheduler from the images under
# podman, then the specs of E2E_IMAGES_FOCUS: create and scale, a gang
# scheduled all at once, grove-initc's image run with the injected arguments.
# The cluster is made afresh each run; its logs stay until the next.
E2E_IMAGES_VERSION ?= v0.0.0-e2e
E2E_IMAGES_DIR ?= $(ROOT)/.local-cluster-images
E2E_IMAGES_FOCUS ?= Example 1:|GS1:|IMG1:|IMG2:

.PHONY: e2e-images
e2e-images: ## Release dry run, then a local cluster (E2E_IMAGES_DIR) installing the packaged chart with grove-operator and grove-scheduler run from their images (podman), the E2E_IMAGES_FOCUS specs, and the cluster stopped.
	@rc=0; rm -rf $(E2E_IMAGES_DIR)/cluster; \
	$(MAKE) --no-print-directory release-dry-run VERSION=$(E2E_IMAGES_VERSION) IMAGES_DIR=$(E2E_IMAGES_DIR)/images RELEASE_DIR=$(E2E_IMAGES_DIR)/release && \
	GROVE_LOCAL_DIR=$(E2E_IMAGES_DIR)/cluster GROVE_LOCAL_CHART=$(E2E_IMAGES_DIR)/release/grove-$(patsubst v%,%,$(E2E_IMAGES_VERSION)).tgz \
		$(LOCAL_CLUSTER) up --nodes $(NODES) --from-images $(E2E_IMAGES_DIR)/release && \
	( cd test && GROVE_LOCAL_DIR=$(E2E_IMAGES_DIR)/cluster go test -v -tags e2e -count=1 -timeout 14m ./e2e -args -ginkgo.v -ginkgo.focus='$(E2E_IMAGES_FOCUS)' ) || rc=$$?; \
	GROVE_LOCAL_DIR=$(E2E_IMAGES_DIR)/cluster $(LOCAL_CLUSTER) down; exit $$rc
