# perm-peer — the two commands a new user runs are `make demo` and `make test`.
GO      ?= go
BIN     := bin/perm-peer
FUZZTIME ?= 10s

.PHONY: build test demo lint bench fuzz schemas clients deps

build:
	$(GO) build -o $(BIN) ./cmd/perm-peer

deps:
	$(GO) mod download

demo: build
	./$(BIN) demo

# test: vet, the race-enabled unit/e2e tests, the gate corpus, short fuzz runs.
test: deps build
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	./$(BIN) eval testdata/corpus/sample.jsonl > /dev/null
	./$(BIN) eval testdata/corpus/gate.jsonl
	$(MAKE) fuzz FUZZTIME=5s

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzStream$$' -fuzztime=$(FUZZTIME) ./peer/

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

schemas:
	$(GO) run ./cmd/perm-peer schemas --out schemas
