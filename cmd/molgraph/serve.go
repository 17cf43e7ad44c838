package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/handlers"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/xtb"
	"github.com/molgraph/molgraph/queries/sparql"
	"github.com/molgraph/molgraph/search"
	"github.com/molgraph/molgraph/shapes"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// serve runs the HTTP service until ctx is cancelled (SIGINT/SIGTERM),
// then shuts down cleanly: /readyz turns 503, in-flight requests get
// shutdown-timeout to finish, the store is closed.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	cfg, err := loadServeConfig(args, stderr, getenv)
	if err != nil {
		return err
	}
	// Log records are written from a goroutine (logwriter.go): a request
	// must not wait for the disk to take its access-log line.
	// The pools sized "one per CPU" (RDKit workers, 3D slots) are sized
	// before GOMAXPROCS is raised (--procs-per-cpu), from the CPUs Go found.
	cpus := runtime.GOMAXPROCS(0)
	if cfg.chemWorkers == 0 {
		cfg.chemWorkers = cpus
	}
	if cfg.chem3D.workers == 0 {
		cfg.chem3D.workers = cpus
	}
	logOut := newAsyncWriter(stderr)
	defer logOut.Close()
	log := newLogger(logOut, cfg)

	keys, err := auth.Open(cfg.dataDir, auth.Options{})
	if err != nil {
		return err
	}
	if err := bootstrapKey(keys, cfg.apiKey, cfg.baseIRI, stdout, log); err != nil {
		return err
	}

	store, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the graph store", "error", err)
		}
	}()

	// Subprocess working directories: those of dead processes (kill -9)
	// are removed now; each run removes its own.
	tmp, swept, err := subproc.OpenTempDirs(cfg.tmpDir)
	if err != nil {
		return err
	}
	if swept > 0 {
		log.Info("removed temporary directories left by dead processes", "dir", tmp.Root(), "removed", swept)
	}
	// --queue nats: docking units go to NATS JetStream workers.
	var dq *dockQueue
	if cfg.nats.queue == "nats" {
		q, nc, stopQueue, err := natsQueue(ctx, cfg.nats, cfg.dataDir, stdout, log)
		if err != nil {
			return err
		}
		dq = &dockQueue{q: q, nc: nc}
		defer stopQueue()
		defer dq.stop()
	}
	mols, dock, closeMolecules, err := moleculeServices(cfg, store, tmp, dq, log)
	if err != nil {
		return err
	}
	defer closeMolecules()
	// The structure-search index: loaded (or rebuilt) from the store's side
	// keyspace, then kept up to date by every commit (package search).
	// Without structure search (--structure-search=false) there is none,
	// and the registry computes no fingerprints (moleculeServices).
	var idx *search.Index
	var searchJobs *search.Jobs
	var procs sparql.Procedures
	if cfg.structureSearch {
		idx, err = search.Open(ctx, store, mols.Registry.Pool(), cfg.baseIRI, search.Options{
			CacheMolecules: cfg.searchCacheMolecules,
			Logf:           func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }})
		if err != nil {
			return err
		}
		defer idx.Close()
		// Searches that outlive their request (202 and a search job).
		searchJobs = search.NewJobs(idx.Search, search.JobOptions{Timeout: cfg.searchJobTimeout})
		defer searchJobs.Close()
		procs = idx.Procedures()
	} else {
		log.Info("structure search disabled (--structure-search=false): no fingerprints at registration, search answers 501")
	}
	// Unreferenced blobs and the spools of ended batch jobs: collected now,
	// every blob-gc-interval and after each batch job.
	gc := graph.NewBlobCollector(store.Blobs(), func(ctx context.Context) (graph.BlobUses, error) {
		return batch.BlobUses(ctx, store)
	}, graph.CollectorOptions{Interval: cfg.blobGCInterval, Grace: cfg.blobGCGrace, Logger: log})
	if err := gc.Start(); err != nil {
		log.Error("blob collection at start failed", "error", err)
	}
	defer gc.Close()
	if mols.Batch != nil {
		mols.Batch.SetAfterRun(gc.Kick)
	}
	if mols.Jobs != nil {
		// Also a job cancelled while queued, whose Task never ran.
		mols.Jobs.SetOnEnd(func(jobs.Job) { gc.Kick() })
	}
	gate, err := shapes.NewGate()
	if err != nil {
		return err
	}
	adm, err := admission.New(cfg.admissionLimits())
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	h, err := handlers.New(handlers.Config{
		BaseIRI:      cfg.baseIRI,
		MaxBodyBytes: cfg.maxBody,
		MaxJSONBytes: cfg.maxJSONBody,
		Keys:         keys,
		Store:        store,
		Graph:        store,
		QM:           qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}},
		Gate:         gate,
		Molecules:    mols,
		Uploads:      cfg.uploads,
		Docking:      dock,
		TempDirs:     tmp,
		Query: handlers.QueryLimits{SPARQLTimeout: cfg.sparqlTimeout, SPARQLMaxRows: cfg.sparqlMaxRows,
			SPARQLMaxQuery: int(cfg.sparqlMaxQuery), SPARQLMaxLiteral: int(cfg.sparqlMaxLiteral),
			SPARQLMaxMemory: cfg.sparqlMaxMemory,
			GraphQLMaxDepth: cfg.graphqlMaxDepth, GraphQLMaxCost: cfg.graphqlMaxCost},
		GraphQL:          handlers.GraphQLLimits{MaxTokens: cfg.graphqlMaxTokens, MaxSelections: cfg.graphqlMaxSelections},
		Admission:        adm,
		Logger:           log,
		Version:          version,
		Search:           idx,
		SearchTimeout:    cfg.searchTimeout,
		SearchJobs:       searchJobs,
		SearchDisabled:   !cfg.structureSearch,
		SPARQLProcedures: procs,
		SPARQLHelpers:    sparql.NewHelpers(sparqlHelpers(cfg.sparqlHelpers)),
		Collectors:       append(dockingCollectors(dock.Task, dq, cfg), batchCollectors(mols.Batch)...),
	})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		ReadTimeout:       cfg.readTimeout,
		WriteTimeout:      cfg.writeTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// More Go processors than CPUs (--procs-per-cpu): with GOMAXPROCS at
	// the CPU count, a connection's goroutine waited for one of the two
	// processors behind Badger's flushes and compactions, batch commits,
	// the GC's mark worker and the RDKit threads (which take a processor
	// for their Go steps at nice 10): in make bench-load, reads spent p99
	// 40-380 ms between being sent and their handler starting, against a
	// handler time of 5-20 ms. With twice the processors the kernel shares
	// the CPUs among them instead (README, Load). Raised here, after the
	// pools above were sized per CPU; GOMAXPROCS in the environment wins.
	if v, _ := getenv("GOMAXPROCS"); v == "" && cfg.procsPerCPU > 1 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus * cfg.procsPerCPU))
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.dataDir, "store", cfg.store,
		"base_iri", cfg.baseIRI, "version", version)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stopSignals(ctx) // a second signal now kills the process
	log.Info("shutting down", "grace", cfg.shutdownTimeout.String())
	h.BeginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("shutdown complete")
	return nil
}

// openStore opens the configured graph backend.
func openStore(cfg serveConfig) (*graph.Store, error) {
	// A soft memory limit of 1 GiB for the Badger backend, unless
	// GOMEMLIMIT sets one: the live heap of a 100,000-molecule batch is
	// some 0.5 GB, and without a limit the garbage collector lets the heap
	// grow to twice that before it returns Badger's finished memtables.
	opt := graph.Options{SyncWrites: cfg.syncWrites, MinFreeBytes: cfg.minFreeDisk, MemoryLimitMB: 1024,
		ColumnsMaxTriples: int64(cfg.columnsMaxTriples)}
	if cfg.columnsMaxTriples == 0 {
		opt.ColumnsMaxTriples = -1 // none
	}
	if cfg.store == "memory" {
		return graph.OpenMemory(opt)
	}
	return graph.Open(cfg.dataDir, opt)
}

// bootstrapKey creates the first admin key on a fresh data directory and
// prints a generated token once.
func bootstrapKey(keys *auth.Keyring, apiKey, baseIRI string, stdout io.Writer, log *slog.Logger) error {
	b, err := keys.Bootstrap(apiKey)
	if err != nil {
		return fmt.Errorf("MOLGRAPH_API_KEY: %w", err)
	}
	switch {
	case b.Created && b.Token != "":
		fmt.Fprintf(stdout, `
================================================================================
molgraph: created the bootstrap admin API key. It is shown only this once:

    %s

It is also saved in %s (mode 0600). Use it as:

    curl -H "Authorization: Bearer $(cat %s)" %sv1/keys

Create narrower keys with "molgraph keys create" or POST /v1/keys.
================================================================================

`, b.Token, b.File, b.File, baseIRI)
		log.Info("bootstrap admin key created", "key_id", b.Key.ID, "file", b.File)
	case b.Created:
		log.Info("bootstrap admin key set from MOLGRAPH_API_KEY", "key_id", b.Key.ID)
	case apiKey != "":
		if _, err := keys.Authenticate(apiKey); err != nil {
			log.Warn("MOLGRAPH_API_KEY is ignored: keys already exist and it is not one of them (or is revoked/expired)",
				"reason", err.Error())
		}
	}
	return nil
}

// sparqlHelpers is the size of the SPARQL queries' pool of spare workers
// for --sparql-helpers n (-1: one less than the CPUs, not GOMAXPROCS,
// which --procs-per-cpu sets above the CPUs).
func sparqlHelpers(n int) int {
	if n < 0 {
		return runtime.NumCPU() - 1
	}
	return n
}
