# Upgrade without a rollout (issue 38): the operator of UPGRADE_FROM runs a
# PodCliqueSet, the checkout's takes it over; pod names and UIDs must not change.
.PHONY: e2e-upgrade-pods
e2e-upgrade-pods: ## The operator of UPGRADE_FROM runs a PodCliqueSet, the checkout's chart and operator take it over: fails if a pod is replaced (hack/e2e-upgrade-pods).
	hack/e2e-upgrade-pods $(UPGRADE_FROM)
