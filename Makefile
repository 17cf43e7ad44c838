# molgraph — the Makefile is what CI runs (.ci/run calls `make test`).
# Every target installs what is missing first: Debian packages through apt,
# Go modules through the module proxy.

GO       ?= go
BIN      := bin/molgraph
ADDR     ?= :8080
DATA     ?= ./data
FUZZTIME ?= 20s
# Debian packages the build and the tests use: RDKit, InChI and jemalloc
# (the C allocator, see chem/cgo.go) for package chem (cgo), Vina, Open Babel and PDB2PQR with PROPKA for docking, rapper to check our Turtle,
# RDKit's Python bindings (with numpy) as an independent reference in tests,
# Psi4 to make fresh logs for the Psi4 parser's tests, and real SPARQL
# clients (SPARQLWrapper, rdflib, roqet) for the endpoint's tests, and
# headless Chromium to drive the query page once.
APT_PKGS := build-essential librdkit-dev libinchi-dev libjemalloc-dev libboost-dev autodock-vina openbabel pdb2pqr python3-propka raptor2-utils python3-rdkit psi4 nwchem xtb python3-cclib \
            python3-rdflib python3-sparqlwrapper rasqal-utils rdkit-data chromium
APT_PKGS += plip  # docking/interact cross-checks its interactions against plip 2.2.2
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# npm reference tools, installed outside the repo: shacl-engine cross-checks
# our SHACL validator (shapes/crosscheck_test.go), Oxigraph is the SPARQL
# benchmark's yardstick (queries/sparql/oxigraph_bench_test.go).
SHACL_ENGINE := $(HOME)/.cache/molgraph/shacl-engine
OXIGRAPH     := $(HOME)/.cache/molgraph/oxigraph

.PHONY: all deps build run test test-race test-scale bench bench-batch bench-docking bench-scale bench-scale-batch bench-receptor-routes bench-load bench-search bench-sparql fuzz vet fmt clean

all: build

deps:
	@missing=$$(for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@$(GO) mod download
	@test -d $(SHACL_ENGINE)/node_modules/shacl-engine || ! command -v npm >/dev/null || \
		npm install --silent --no-audit --no-fund --prefix $(SHACL_ENGINE) shacl-engine@1.1.2 rdf-ext@2.6.0 n3@2.13.12
	@test -d $(OXIGRAPH)/node_modules/oxigraph || ! command -v npm >/dev/null || \
		npm install --silent --no-audit --no-fund --prefix $(OXIGRAPH) oxigraph@0.5.11

build: deps
	$(GO) build -o $(BIN) ./cmd/molgraph

run: build
	./$(BIN) serve --addr $(ADDR) --data-dir $(DATA)

vet: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

test: vet
	$(GO) test -timeout 25m ./...
	@$(MAKE) --no-print-directory test-race

# The scale-out process tests (design T2, T3): 3 NATS servers, serve --queue
# nats, worker processes and real vina; CPU-heavy, so not part of test.
test-scale: deps
	MOLGRAPH_SCALE_TESTS=1 $(GO) test -count=1 -timeout 30m -run 'TestScaleOut' -v ./cmd/molgraph/

# The packages with shared state (graph, jobs, queries, handlers) under the
# race detector, on the tests that exercise their concurrency: snapshots and
# group commit, the job runner's pools, caps, cancel and resume, SPARQL
# timeouts and memory budgets, GraphQL, and the server's admission, burst,
# client-abort and cancel paths. About 5 min on this 2-core machine; the
# whole packages under -race take far longer than CI's 30 min (graph's
# tests alone had not finished after 26 min).
test-race: deps
	$(GO) test -race -count=1 -timeout 15m -run 'TestSnapshotIsolation|TestGroupCommitShares' ./graph/quadstore/
	$(GO) test -race -count=1 -timeout 15m -run 'TestRunner|TestCancel' ./jobs/
	$(GO) test -race -count=1 -timeout 15m ./jobs/queue/...
	$(GO) test -race -count=1 -timeout 15m -run 'TestBatchJob|TestBatchCancel|TestBatchResume' ./jobs/batch/
	$(GO) test -race -count=1 -timeout 15m -run 'TestTimeoutAndRowLimit|TestMemoryBudget|TestParallelStar' ./queries/sparql/
	$(GO) test -race -count=1 -timeout 15m ./queries/graphql/
	$(GO) test -race -count=1 -timeout 15m -run 'TestHostileBatchBurst|TestHostileClientDisconnect|TestClientLeavesWhileWaiting|TestSPARQLClientAbort|TestMoleculeStructureAbandoned|TestQueuedJobCaps|TestBatchCancelRoute' ./handlers/

# Benchmarks. The graph store's: writing 1,000,000 quads once per backend,
# each in its own process so that peak RSS is that backend's, then reads on
# the loaded stores (memory and native Badger side by side).
# Then every other package's benchmarks; the QM parsers' with their logs:
# Debian python3-cclib and ours on the same logs in one run (VsCclibLive)
# and 100 MB logs streamed through each parser (BigLog, RSS growth).
bench: deps
	@for b in memory badger; do \
		$(GO) test -run '^$$' -bench "^BenchmarkLoad$$/^$$b$$" -benchtime 1x -timeout 30m ./graph/ | grep -E '^Benchmark|^ok|FAIL'; \
	done
	@for b in memory badger; do \
		$(GO) test -run '^$$' -bench "(ReadGraph|NumericFilter|NumericRange|TwoHop)/^$$b$$" -timeout 60m ./graph/ | grep -E '^Benchmark|^ok|FAIL'; \
	done
	$(GO) test -run '^$$' -bench . -timeout 60m $$($(GO) list ./... | grep -v -e '/graph$$' -e '/queries/sparql$$' -e '/parsers/qm$$')
	$(GO) test -run '^$$' -bench . -v -timeout 30m ./parsers/qm/ | grep -E '^Benchmark|cclib|MB \(|^ok|FAIL'
	$(GO) test -run '^$$' -bench . -benchtime 3x -v -timeout 60m ./queries/sparql/ | grep -v -e '^=== ' -e '^--- '

# 100,000 molecules posted as one batch to a running server, timed from
# POST to succeeded with the server's peak RSS, beside a Python RDKit loop
# (environment: N, WORK, PORT; see the script).
bench-batch: build
	jobs/batch/bench.sh

# A 6-ligand docking job (docking-corpus/ligands/throughput6.smi) through a
# running server beside the same ligands through raw vina with the same
# seeds: wall time, service overhead, CPU use, affinities (see the script).
bench-docking: build
	jobs/docking/bench.sh

# Scale-out docking (design M1, M2): the same job on serve --queue local, and
# on serve --queue nats with 2 and with 1 worker process (1 slot each), side
# by side; NATS overhead and 2-vs-1 speed-up. EXH=8 (default) takes ~10-15
# min on 2 idle cores per round (ROUNDS=1); EXH=1 about a minute.
bench-scale: build
	jobs/queue/bench.sh

# Scale-out batch (design M3): the NCI sample registered by serve --queue
# local and by serve --queue nats (--local-slots 0) with one chemistry
# worker process; wall time and the server's CPU per record. ~1 min a round.
bench-scale-batch: build
	jobs/queue/bench-batch.sh

# The two receptor preparation routes (PDB2PQR+PROPKA at pH 7.4, Open
# Babel alone) side by side on the docking corpus's receptors: crystal-pose
# vina --score_only and redocking (exhaustiveness 8, seed 42) with the top
# pose's RMSD; 8 dockings, ~15 min on 2 idle cores (docking/routes_bench_test.go).
bench-receptor-routes: deps
	MOLGRAPH_BENCH_ROUTES=1 $(GO) test -count=1 -v -timeout 120m -run '^TestReceptorRoutes$$' ./docking/ | grep -v -e '^=== '

# The service under a mixed load on loopback: molgraph serve on a fresh
# data dir, CLIENTS clients (each with its own key) for DURATION: reads
# (molecule, list, SPARQL, GraphQL), writes (POST /v1/molecules with RDKit's
# ChEMBL and NCI SMILES) and batches of 10-100 records; 429/503 with
# Retry-After counted apart and retried. Prints counts, errors, lost writes
# (every acknowledged write read back), p50/p95/p99 per kind, the batch
# queue depth and the load average; fails on errors or lost writes.
# SERVER_ENV: KEY=VALUE,... for the server only (MOLGRAPH_CHEM_NICE=19).
DURATION ?= 60s
CLIENTS  ?= 64
SERVER_ENV ?=
bench-load: build
	$(GO) build -o bin/molgraph-load ./cmd/molgraph-load
	./bin/molgraph-load -binary $(BIN) -duration $(DURATION) -clients $(CLIENTS) -server-env '$(SERVER_ENV)'

# SPARQL side by side with Virtuoso 7 (issue 16; cmd/molgraph-benchsparql):
# N drug-like molecules (bench/druglike.py, default 100,000) registered
# through the API into a cached store (~/.cache/molgraph/bench-sparql),
# exported as N-Quads (quads/s), bulk-loaded into Debian's Virtuoso in a
# temporary directory, then the queries of bench/sparql/*.rq on both over
# HTTP (warm-up, median of 5), answers compared, ratios and their geometric
# mean printed. Virtuoso is installed here only, not for `make test`.
# Environment: N, SEED, BENCH_QUERIES, BENCH_RUNS, BENCH_CONTINUE,
# BENCH_MOLGRAPH + MOLGRAPH_API_KEY, BENCH_VIRTUOSO, BENCH_EXPORT (README).
VIRTUOSO_PKGS := virtuoso-opensource-7
bench-sparql: build
	@missing=$$(for p in $(VIRTUOSO_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	$(GO) build -o bin/molgraph-benchsparql ./cmd/molgraph-benchsparql
	./bin/molgraph-benchsparql -binary $(BIN)

# Structure search side by side with RDKit's Python tools in one run
# (cmd/molgraph-benchsearch): N drug-like molecules (bench/druglike.py,
# default 1,000,000, cached in ~/.cache/molgraph/bench-search), the index
# built directly from their SMILES (no HTTP, no molecule graphs), similarity
# p50/p95 at threshold 0.7 and top-10 beside BulkTanimotoSimilarity, the
# SMARTS of bench/search_queries.txt over the first NSUB (100,000) beside
# SubstructLibrary (one thread, the timing anchor), index bytes per molecule;
# hit counts compared, and where SubstructLibrary's pattern screen drops hits
# (RDKit 2022.09) against unscreened HasSubstructMatch (untimed).
# A second table times bench/search_pains.txt (WEHI's 480 PAINS as RDKit's
# FilterCatalog matches them) as one set against SubstructLibrary, hit
# counts per query compared (RDKit took 71 CPU-s over 100,000, ours 4.5;
# -pains '' skips it).
# SEARCH_FLAGS: e.g. "-similarity=false -match 'N'" (substructure only, the
# queries a regexp matches). Substructure only over 100,000, data cached:
# `make bench-search SEARCH_FLAGS=-similarity=false`, about 2-4 min on a
# quiet machine (keep N_SEARCH at its default: its SMILES file is the cache);
# the whole target about 8 min.
N_SEARCH ?= 1000000
NSUB     ?= 100000
SEARCH_FLAGS ?=
bench-search: deps
	$(GO) build -o bin/molgraph-benchsearch ./cmd/molgraph-benchsearch
	./bin/molgraph-benchsearch -n $(N_SEARCH) -nsub $(NSUB) $(SEARCH_FLAGS)

# Every fuzz target of every package for FUZZTIME each.
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf bin
