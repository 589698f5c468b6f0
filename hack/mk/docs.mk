# Documentation checks and generated reference pages (see docs/README.md).

##@ Documentation
.PHONY: verify-docs-links
verify-docs-links: ## Fail when a relative link or #anchor in README.md or docs/ points at nothing.
	cd test && go run ./docs/cmd/check-doc-links -root $(ROOT)

# Part of every static check.
verify: verify-docs-links

# The generated reference pages are part of the generated-code check.
verify-generate: verify-generate-docs
.PHONY: verify-generate-docs
verify-generate-docs: generate
	@git diff --exit-code --stat -- docs/reference || { echo "docs/reference is stale: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- docs/reference)" || { git status --porcelain -- docs/reference; echo "untracked generated docs: run 'make generate' and commit"; exit 1; }
