# provider-git — every set-up step a fresh machine needs is a target here.
#   make run    the provider on an embedded default: local control plane + local Git server
#   make test   hygiene (gofmt, golangci-lint with go vet's analyzers, stale generated files) and every test
#   make unit   the edit-and-test loop: every test that needs no control plane, Git server or ./bin
#   make bench  the benchmarks, printed side by side against their baselines

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
export GOFLAGS := -modcacherw
export GOTOOLCHAIN := local

LOCALBIN              ?= $(CURDIR)/bin
ENVTEST_K8S_VERSION   ?= 1.37.2
ENVTEST_ETCD_VERSION  ?= 3.6.16
SETUP_ENVTEST_VERSION ?= v0.25.1
SETUP_ENVTEST         ?= $(LOCALBIN)/setup-envtest
# Crossplane's own programs, each pinned in its module under cluster/tools:
# the CLI (xpkg build, composition render, resource validate), core (the
# control plane the package is installed into, and the engine render runs)
# and the composition function the examples use.
CROSSPLANE_CLI        ?= $(LOCALBIN)/crossplane
CROSSPLANE_CORE       ?= $(LOCALBIN)/crossplane-core
FUNCTION_PT           ?= $(LOCALBIN)/function-patch-and-transform
# Kubernetes' garbage collector alone (cluster/tools/garbage-collector), which
# deletes what a deleted composite resource composed; envtest runs no
# controller manager.
GARBAGE_COLLECTOR     ?= $(LOCALBIN)/garbage-collector
# The real forge the pull request tests run against (internal/testharness/testenv.StartGitea).
GITEA_VERSION         ?= 1.26.0
GITEA                 ?= $(LOCALBIN)/gitea
# Forgejo, the same tests' second forge (make test-forgejo, not make test).
# The module proxy has no Forgejo release: a snapshot of its main branch by
# pseudo-version, and the version that build reports (Forgejo 10's
# development line; cluster/local/forgejo.sh).
FORGEJO_MODULE_VERSION ?= v1.21.0-rc0.0.20241219112042-456d05998231
FORGEJO_VERSION       ?= 10.0.0-dev-456d05998231
FORGEJO               ?= $(LOCALBIN)/forgejo
# The runtime image and the package: their platforms, the repository and tag
# recorded in the image tarballs, and where they land.
IMAGE_PLATFORMS       ?= linux/amd64 linux/arm64
IMAGE_REPOSITORY      ?= xpkg.crossplane.io/crossplane-contrib/provider-git
VERSION               ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null || echo v0.0.0-$$(git rev-parse --short HEAD 2>/dev/null || echo dev))
OUTPUT                ?= _output
GOLANGCI_LINT         ?= $(LOCALBIN)/golangci-lint
# vet, lint, the image and the tests' provider binary all compile as the
# image does (static, trimmed paths): one compile of every dependency serves
# them all, where each build configuration costs minutes on a cold cache.
STATIC_FLAGS          := -trimpath
# make test compiles the tests as lint and the image compile the provider
# (static, trimmed paths), so one compile of every dependency serves all
# three: the race detector's own build of the ~900 packages the tests import
# was about a fifth of a cold run's CPU, and its runtime costs 1.2-1.5x in the
# end-to-end packages, whose CPU is mostly the API servers, Git and Gitea it
# does not instrument. `make test-race` runs every test under it.
# -vet=off: lint's govet runs go vet's analyzers already.
# -ldflags='-s -w': linking ~50 test binaries of 70-130 MB each is minutes of
# CPU; without symbol table and DWARF each link costs a third less (stack
# traces keep their files and lines).
# -p: a test binary holds one of go test's slots while it runs, and the
# end-to-end packages spend much of theirs waiting on a control plane, Git
# servers and forges, so more of them run at once than there are cores. Not
# many more: what a package does while it waits (the provider's polls every
# 2 s, the tests' own, the API server's) grows with how long it waits, so
# each package past what two cores keep busy costs CPU. Warm make test, two
# idle cores, back to back: 3 386 s (572 CPU-s), 4 332 s (565), 5 330 s
# (607), 6 349 s (663).
GO_TEST_PARALLEL      ?= 4
GO_TEST_TIMEOUT       ?= 40m
GO_TEST_BUILD_FLAGS   ?= -vet=off -ldflags='-s -w'
GO_TEST_FLAGS         ?= -count=1 -timeout=$(GO_TEST_TIMEOUT) -p $(GO_TEST_PARALLEL) $(GO_TEST_BUILD_FLAGS)
GO_TEST_ENV           := CGO_ENABLED=0 GOFLAGS="$(GOFLAGS) $(STATIC_FLAGS)"
# make test's processes (the compiler and linker, the test binaries and the
# API servers, etcd and Gitea they start) collect garbage at four times the
# default heap growth: about a sixth less CPU in the end-to-end packages,
# whose API servers spend about 40% of the tests' CPU, for a peak of about
# 6 GiB in use on the machine. Not in make bench, whose figures are the
# provider's own at the default.
GO_TEST_GOGC          ?= 400

.PHONY: all
all: build

.PHONY: build
build:
	CGO_ENABLED=0 go build -trimpath -o $(LOCALBIN)/provider ./cmd/provider

# System packages the tests run: git (http-backend, upload/receive-pack) and
# sshd (the SSH Git server). Installed only when missing, and only as root
# (CI runs as root; a developer without root installs them by hand).
.PHONY: system-deps
system-deps:
	@missing=""; \
	command -v git >/dev/null || missing="$$missing git"; \
	[ -x /usr/sbin/sshd ] || missing="$$missing openssh-server"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "please install:$$missing" >&2; exit 1; fi; \
	fi

# The linter is pinned in its own module (cluster/tools/golangci-lint/go.mod) so its many
# dependencies never change what the provider links.
$(GOLANGCI_LINT): cluster/tools/golangci-lint/go.mod cluster/tools/golangci-lint/go.sum
	cd cluster/tools/golangci-lint && go build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# --allow-parallel-runners: a second checkout's make test (a clone beside
# the working tree) lints alongside another lint instead of failing.
.PHONY: lint
lint: $(GOLANGCI_LINT)
	CGO_ENABLED=0 GOFLAGS="$(GOFLAGS) $(STATIC_FLAGS)" $(GOLANGCI_LINT) run --allow-parallel-runners ./...

$(CROSSPLANE_CLI): cluster/tools/crossplane-cli/go.mod cluster/tools/crossplane-cli/go.sum
	cd cluster/tools/crossplane-cli && go build -trimpath -o $@ github.com/crossplane/cli/v2/cmd/crossplane

# Core learns its version from the linker, as its release build sets it (it
# checks packages' Crossplane version constraints against it). Its own CRDs
# come with it, from its module: the end-to-end tests install them and
# `crossplane resource validate` reads them instead of downloading the image.
$(CROSSPLANE_CORE): cluster/tools/crossplane-core/go.mod cluster/tools/crossplane-core/go.sum
	cd cluster/tools/crossplane-core && \
	  v=$$(go list -m -f '{{.Version}}' github.com/crossplane/crossplane/v2) && \
	  go build -trimpath -ldflags "-X github.com/crossplane/crossplane-runtime/v2/pkg/version.version=$$v" \
	    -o $@ github.com/crossplane/crossplane/v2/cmd/crossplane && \
	  rm -rf $(LOCALBIN)/crossplane-crds && \
	  cp -R "$$(go list -m -f '{{.Dir}}' github.com/crossplane/crossplane/v2)/cluster/crds" $(LOCALBIN)/crossplane-crds && \
	  chmod -R u+w $(LOCALBIN)/crossplane-crds

# The function's package metadata comes with it: the end-to-end tests install
# it as a Function package, as users do.
$(FUNCTION_PT): cluster/tools/function-patch-and-transform/go.mod cluster/tools/function-patch-and-transform/go.sum
	cd cluster/tools/function-patch-and-transform && go build -trimpath -o $@ github.com/crossplane-contrib/function-patch-and-transform && \
	  rm -rf $@-package && \
	  cp -R "$$(go list -m -f '{{.Dir}}' github.com/crossplane-contrib/function-patch-and-transform)/package" $@-package && \
	  chmod -R u+w $@-package

# Our own main around Kubernetes' garbage collector, not all of
# kube-controller-manager: of its packages only 66 are not already compiled
# for kube-apiserver, against kube-controller-manager's 369. Built like
# kube-apiserver in cluster/local/envtest-bins.sh (same versions and flags, so
# the packages they share come from the build cache).
$(GARBAGE_COLLECTOR): cluster/tools/garbage-collector/go.mod cluster/tools/garbage-collector/go.sum cluster/tools/garbage-collector/main.go
	cd cluster/tools/garbage-collector && CGO_ENABLED=0 go build -trimpath \
	  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=v$(ENVTEST_K8S_VERSION) -X k8s.io/component-base/version.gitTreeState=clean" \
	  -o $@ .

# What internal/testharness/crossplanetest runs: Crossplane's programs and the garbage collector.
.PHONY: crossplane-tools
crossplane-tools: $(CROSSPLANE_CLI) $(CROSSPLANE_CORE) $(FUNCTION_PT) $(GARBAGE_COLLECTOR)

# Gitea from the Go module proxy (cluster/local/gitea.sh: minutes cold, with
# CGO for its sqlite). The empty stamp names the version: a new GITEA_VERSION
# makes a newer stamp and so a rebuild; a warm machine does nothing.
$(GITEA): $(LOCALBIN)/.gitea-$(GITEA_VERSION).stamp
	cluster/local/gitea.sh $(GITEA_VERSION) $(LOCALBIN)

$(LOCALBIN)/.gitea-$(GITEA_VERSION).stamp:
	@mkdir -p $(LOCALBIN) && touch $@

# Forgejo the same way (cluster/local/forgejo.sh), stamped by its module
# version. Not a prerequisite of make test: see test-forgejo.
$(FORGEJO): $(LOCALBIN)/.forgejo-$(FORGEJO_MODULE_VERSION).stamp
	cluster/local/forgejo.sh $(FORGEJO_MODULE_VERSION) $(FORGEJO_VERSION) $(LOCALBIN)

$(LOCALBIN)/.forgejo-$(FORGEJO_MODULE_VERSION).stamp:
	@mkdir -p $(LOCALBIN) && touch $@

# The forges the pull request tests run: Gitea (GitHub and GitLab are fakes).
.PHONY: forge-tools
forge-tools: $(GITEA)

# The runtime image, without a container daemon or a base image: a static
# provider binary per platform (cgo off, or a FROM-scratch image cannot run
# it), then cluster/image writes one tarball per platform and an OCI layout
# of the multi-platform index under $(OUTPUT)/image.
.PHONY: image
image:
	@for p in $(IMAGE_PLATFORMS); do \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} go build $(STATIC_FLAGS) -ldflags='-s -w' -o $(OUTPUT)/bin/$${p/\//_}/provider ./cmd/provider; \
	done
	go run ./cluster/image -repository $(IMAGE_REPOSITORY) -tag $(VERSION) -output $(OUTPUT)/image \
	  $(foreach p,$(IMAGE_PLATFORMS),-binary $(p)=$(OUTPUT)/bin/$(subst /,_,$(p))/provider)

# The Crossplane package, one per platform, each with its runtime image
# embedded. `crossplane xpkg push -f <all of them> <ref>` pushes them as one
# multi-platform package.
.PHONY: xpkg
xpkg: image $(CROSSPLANE_CLI)
	@mkdir -p $(OUTPUT)/xpkg
	@for p in $(IMAGE_PLATFORMS); do \
	  $(CROSSPLANE_CLI) xpkg build --package-root=package --examples-root=examples \
	    --embed-runtime-image-tarball=$(OUTPUT)/image/$${p/\//_}.tar -o $(OUTPUT)/xpkg/provider-git-$${p/\//_}.xpkg; \
	  ls -l $(OUTPUT)/xpkg/provider-git-$${p/\//_}.xpkg; \
	done

$(SETUP_ENVTEST):
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-runtime/tools/setup-envtest@$(SETUP_ENVTEST_VERSION)

# The conventional path first (setup-envtest's download); with no route to its
# index, build kube-apiserver and etcd from the Go module proxy and sideload
# them into the same store under ./bin, where later runs find them at once.
.PHONY: setup-envtest
setup-envtest: $(SETUP_ENVTEST)
	@$(SETUP_ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -p path >/dev/null 2>&1 || { \
	  echo "setup-envtest: download unavailable, building envtest $(ENVTEST_K8S_VERSION) from the Go module proxy (5-10 min cold)"; \
	  tmp=$$(mktemp -d) && WORK=$$tmp/work cluster/local/envtest-bins.sh $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION) $$tmp/bin && \
	  tar -C $$tmp/bin -cf - . | gzip -1 | $(SETUP_ENVTEST) sideload $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) && \
	  chmod -R u+w $$tmp && rm -rf $$tmp; }

KUBEBUILDER_ASSETS = $(shell $(SETUP_ENVTEST) use -i $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -p path 2>/dev/null)

GENERATED = find apis internal package -name 'zz_generated*.go' -o -path '*/crds/*.yaml' | LC_ALL=C sort | xargs sha256sum

.PHONY: generate
generate:
	go generate -tags generate ./...

# Everything generation reads or writes: the API types, the test kind, the
# CRDs, and the generators' versions (go.mod). A check that passed on exactly
# these bytes is recorded in ./bin, so a warm make test skips the ~12 s of
# regenerating what it regenerated before; a fresh clone always checks.
GENERATE_INPUTS = find apis internal/testharness/testkind package go.mod go.sum -type f | LC_ALL=C sort | xargs sha256sum | sha256sum
GENERATE_STAMP  = $(LOCALBIN)/.generate-checked

# Regenerates in place and fails if anything changed, so a change to the
# types that was not followed by `make generate` cannot pass the tests.
.PHONY: check-generate
check-generate:
	@inputs=$$($(GENERATE_INPUTS)); \
	if [ -f $(GENERATE_STAMP) ] && [ "$$(cat $(GENERATE_STAMP))" = "$$inputs" ]; then \
	  echo "check-generate: generated files checked before at these inputs"; exit 0; fi; \
	before=$$($(GENERATED)); $(MAKE) --no-print-directory generate; after=$$($(GENERATED)); \
	if [ "$$before" != "$$after" ]; then \
	  diff <(echo "$$before") <(echo "$$after") || true; \
	  echo "generated files were stale: run 'make generate' and commit the result" >&2; exit 1; fi; \
	mkdir -p $(LOCALBIN) && echo "$$inputs" > $(GENERATE_STAMP)

.PHONY: fmt-check
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt wants to rewrite:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet:
	CGO_ENABLED=0 go vet $(STATIC_FLAGS) ./...

# A short run of every fuzz target on top of its seed corpus (the seeds run
# with the tests too); FUZZ_TIME=2000000x for a real search. A count, not a
# duration: in Go 1.26 a duration that runs out while a worker is mid-input
# can fail a clean run with "context deadline exceeded", and under CI's load
# it does.
FUZZ_TIME ?= 5000x
FUZZ_TARGETS = ./internal/validate:FuzzPathAgreesWithCRD ./internal/validate:FuzzBranchAgreesWithCRD \
	./internal/manifest:FuzzRender ./internal/reconciler/message:FuzzMessage ./internal/git:FuzzCommitMessageTrailers ./internal/encrypt:FuzzSealRoundTrip ./internal/forge/events:FuzzParse

.PHONY: fuzz
fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t#*:} ($(FUZZ_TIME))"; \
	  out=$$(go test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZ_TIME) "$${t%%:*}" 2>&1) || { echo "$$out"; exit 1; }; \
	done

# Every test package with its set, none or processes: whether its test binary
# links internal/localenv, which starts every server and program a test runs.
# One go list serves both sets; TEST_SET reads one of them back.
TEST_PACKAGES = go list -test -f '{{if .ForTest}}{{else}}{{.ImportPath}} {{range .Deps}}{{if eq . "$(MODULE)/internal/localenv"}}processes{{end}}{{end}}{{end}}' ./... | \
	awk '$$1 ~ /\.test$$/ { p = substr($$1, 1, length($$1) - 5); print (($$2 == "processes" || p == "$(MODULE)/internal/localenv") ? "processes" : "none"), p }'
TEST_SET = awk -v want=$(1) '$$1 == want { print $$2 }' $(OUTPUT)/test-packages
MODULE = github.com/crossplane-contrib/provider-git

# The packages whose tests start no process are run as make unit runs them:
# go test's own cache reruns one when it, a dependency, or a file or variable
# its tests read changed. Every other package runs each time (-count=1): what
# it runs (./bin, git, Gitea) is outside what go test tracks. The tests that
# run the provider's own binary take the one test-xpkg built for the image
# (testenv.ProviderBinaryEnv) rather than each linking its own. The seed
# corpus of every fuzz target runs with the tests; the search itself is
# `make fuzz`, which a release runs. `make vet` is not a step: lint's govet
# runs go vet's analyzers.
.PHONY: test
test: system-deps test-tools check-generate fmt-check lint test-xpkg
	@mkdir -p $(OUTPUT) && $(GO_TEST_ENV) $(TEST_PACKAGES) > $(OUTPUT)/test-packages
	$(GO_TEST_ENV) go test $(filter-out -count=1,$(GO_TEST_FLAGS)) $$($(call TEST_SET,none))
	$(GO_TEST_ENV) GOGC=$(GO_TEST_GOGC) KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" \
	  PROVIDER_GIT_BINARY=$(CURDIR)/$(OUTPUT)/bin/linux_$$(go env GOARCH)/provider \
	  cluster/local/test-binaries.sh $(OUTPUT)/tests $(GO_TEST_PARALLEL) $(GO_TEST_TIMEOUT) $(GO_TEST_BUILD_FLAGS) -- $$($(call TEST_SET,processes))

# Every test under the race detector (cgo on, its own compile of every
# dependency): run it for a change to the engine's or a controller's
# concurrency; it takes about twice make test's CPU.
.PHONY: test-race
test-race: system-deps test-tools
	KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" go test -count=1 -race -timeout=60m -p $(GO_TEST_PARALLEL) ./...

# Every program the tests run, built in two lanes at once: Gitea shares no
# package with the others, and on two cores its cgo compile and downloads
# overlap the other lane's links and downloads. The Kubernetes and Crossplane
# builds stay in one lane: they share packages that two concurrent go
# commands would each compile.
.PHONY: test-tools
test-tools:
	@$(MAKE) --no-print-directory -j2 --output-sync=recurse forge-tools cluster-tools

.PHONY: cluster-tools
cluster-tools:
	@$(MAKE) --no-print-directory -j1 setup-envtest crossplane-tools $(GOLANGCI_LINT)

# The install test runs the package of this machine's platform only: every
# other platform's binary is a release's cost (`make xpkg`), not a test's.
.PHONY: test-xpkg
test-xpkg:
	$(MAKE) --no-print-directory xpkg IMAGE_PLATFORMS=linux/$$(go env GOARCH)

# Everything -short keeps: no control plane, Git server or tool from ./bin
# (testenv.Integration skips those), no race detector, cached results reused.
.PHONY: unit
unit:
	$(GO_TEST_ENV) go test -short -ldflags='-s -w' ./...

# The tests of Gitea's API against Forgejo as well: builds ./bin/forgejo
# (minutes of CPU cold, more than make test can spare: docs/development.md)
# and runs the Forgejo rows of the tests that take testenv.GiteaForges, a
# missing Forgejo failing them rather than skipping.
FORGEJO_TESTS    ?= TestGitea|TestGiteaPages|TestPullRequestOnGitea|TestPullRequestFollowsItsHeadOnGitea
FORGEJO_PACKAGES ?= ./internal/testharness/testenv ./internal/forge/gitea ./internal/testharness/e2e/pullrequest/gitea
.PHONY: test-forgejo
test-forgejo: system-deps setup-envtest $(FORGEJO)
	PROVIDER_GIT_FORGEJO=1 $(GO_TEST_ENV) KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" \
	  go test $(GO_TEST_FLAGS) -run '^($(FORGEJO_TESTS))$$/Forgejo' $(FORGEJO_PACKAGES)

# BenchmarkForgeEventsMergeXRReady (internal/testharness/crossplanetest)
# runs the package in real Crossplane: it needs the xpkg and Crossplane's
# programs, as the install test does.
.PHONY: bench
bench: system-deps setup-envtest forge-tools crossplane-tools test-xpkg
	$(GO_TEST_ENV) KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" go test -count=1 -timeout=60m -run '^$$' -bench . -benchtime=1x ./...

# The embedded default: a local control plane and a local Git server, the
# CRDs and examples applied, the provider running, commits printed as they land.
.PHONY: run
run: system-deps setup-envtest
	KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" go run ./cmd/local

.PHONY: clean
clean:
	chmod -R u+w $(LOCALBIN) 2>/dev/null || true
	rm -rf $(LOCALBIN) _output
