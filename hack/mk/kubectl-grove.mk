# kubectl grove, the kubectl plugin (docs/kubectl-grove.md).

##@ kubectl plugin
.PHONY: kubectl-grove
kubectl-grove: ## Build the kubectl plugin into bin/kubectl-grove (make build builds it too).
	go build -o bin/kubectl-grove ./api/cmd/kubectl-grove

.PHONY: krew-package
krew-package: ## Build kubectl-grove archives for every Krew platform and the Krew manifest into bin/krew/ (VERSION, KREW_BASE_URL, KREW_PLATFORMS).
	hack/krew/package.sh
