# perm-peer — the two commands a new user runs are `make demo` and `make test`.
GO      ?= go
BIN     := bin/perm-peer
FUZZTIME ?= 2m

.PHONY: build test demo lint bench bench-micro fuzz schemas clients hosts conformance deps

# CGO_ENABLED=0: a static binary. net/http (the judge client) would otherwise
# pull in the cgo DNS resolver and libc, and the dynamic loader costs ~1 ms
# of every cold start (docs/PERFORMANCE.md).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/perm-peer

deps:
	$(GO) mod download

demo: build
	./$(BIN) demo

# test: vet, the race-enabled unit/e2e tests, the conformance vectors, the real
# editor clients, the real agent hosts (conformance/hosts), the gate corpus, short fuzz runs.
test: deps build
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory conformance
	$(MAKE) --no-print-directory clients
	$(MAKE) --no-print-directory hosts
	./$(BIN) eval testdata/corpus/sample.jsonl > /dev/null
	./$(BIN) eval testdata/corpus/gate.jsonl
	$(MAKE) --no-print-directory fuzz FUZZTIME=10000x

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
FUZZ_TARGETS += store:FuzzCanonicalRecord
FUZZ_TARGETS += store:FuzzCanonicalJSON
FUZZ_TARGETS += peer/acpproxy:FuzzEnvelope
FUZZ_TARGETS += store:FuzzDirectRecord
FUZZ_TARGETS += gate:FuzzPolicyText
FUZZ_TARGETS += gate/internal/argv:FuzzParse

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) ./$$pkg/ ; \
	done

# conformance: the wire vectors against our binary, over both framings.
conformance: build
	./$(BIN) conformance -- $(abspath $(BIN))

# clients: real editor clients (vscode-jsonrpc, @agentclientprotocol/sdk) against the binary; Node 20+.
clients: build
	cd conformance/clients && npm ci --no-audit --no-fund && PERM_PEER_BIN=$(abspath $(BIN)) npm test

# hosts: real agent hosts from npm (Claude Code, claude-agent-acp, ACP SDK
# agents) guarded by the binary, against a scripted model on loopback.
hosts: build
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

bench-micro:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

schemas:
	$(GO) run ./cmd/perm-peer schemas --out schemas
