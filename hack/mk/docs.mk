# Documentation checks and generated reference pages (see docs/README.md).

##@ Documentation
.PHONY: verify-docs-links
verify-docs-links: ## Fail when a relative link or #anchor in README.md or docs/ points at nothing.
	cd test && go run ./docs/cmd/check-doc-links -root $(ROOT)

# Part of every static check.
verify: verify-docs-links
