# Kubeglass. The README explains each command.
.PHONY: demo serve install dist test check e2e e2e-down bench bench-app bootstrap app cluster-up cluster-down cluster-reset

demo:          ## build everything, start cluster + demo workload + the launcher, print the URL
	@bash hack/demo.sh

serve:         ## build the app and the launcher, run `kubectl glass` for your current context (ARGS="--context c")
	@ARGS="$(ARGS)" bash hack/serve.sh

install:       ## build kubectl-glass (the app inside) into $(PREFIX)/bin, default ~/.local/bin
	@bash hack/install.sh

dist:          ## a release: release/kubectl-glass-<version>-linux-amd64.tar.gz, its SHA-256, and plugins/glass.yaml for krew
	@bash hack/dist.sh

test:          ## every test: lints, unit, in-browser and end-to-end
	@bash hack/test.sh

e2e:           ## one end-to-end file against a test cluster kept running: make e2e FILE=e2e/tests/edit.test.mjs [NAME=pattern]
	@bash hack/e2e.sh $(FILE) $(if $(NAME),--test-name-pattern="$(NAME)")

e2e-down:      ## stop the test cluster make e2e keeps running
	@bash hack/e2e.sh down

check:         ## no cluster, no browser: fmt, clippy, the docs and size checks, the native tests (minutes)
	@bash hack/check.sh

bench:         ## measurements (printed; docs/benchmarks.md records them)
	@bash hack/bench.sh

bench-app:     ## the app in Chromium against the demo cluster: cold start, a table of BENCH_PODS pods (memory per row), the event stream
	@bash hack/bench-app.sh

bootstrap:     ## install the toolchain (idempotent)
	@bash hack/bootstrap.sh

app:           ## build the app into dist/
	@bash hack/build-app.sh

cluster-up:    ## start the local cluster in the background
	@bash hack/cluster.sh up

cluster-down:  ## stop the local cluster
	@bash hack/cluster.sh down

cluster-reset: ## stop the local cluster and delete its data
	@bash hack/cluster.sh reset
