package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/jsq"
	"github.com/molgraph/molgraph/jobs/work"
)

func workerOptions() []option {
	return append([]option{
		{"slots", "MOLGRAPH_WORKER_SLOTS", "0", "docking units run at once, one vina process (--cpu 1) each (0: one per CPU); chemistry units run on the --chem-workers threads"},
		{"kinds", "MOLGRAPH_WORKER_KINDS", "dock,chem", "kinds of units this worker runs: dock (needs vina), chem (the chemistry of batch uploads)"},
		{"work-dir", "MOLGRAPH_WORKER_WORK_DIR", "./molgraph-worker", "vina working directories and the receptor cache"},
		{"vina", "MOLGRAPH_WORKER_VINA", "vina", "the vina binary (a name on PATH or a path)"},
		{"chem-workers", "MOLGRAPH_WORKER_CHEM_WORKERS", "0", "RDKit threads preparing ligands and batch records (0: one per CPU)"},
		{"drain-timeout", "MOLGRAPH_WORKER_DRAIN_TIMEOUT", "2m", "on SIGTERM, how long running units may finish before they are handed back"},
		{"name", "MOLGRAPH_WORKER_NAME", "", "this worker's name (default host-pid)"},
		{"log-level", "MOLGRAPH_LOG_LEVEL", "info", "debug, info, warn or error"},
		{"log-format", "MOLGRAPH_LOG_FORMAT", "json", "json or text (logs go to stderr)"},
	}, natsClientOptions("")...)
}

// workerCmd is "molgraph worker": it docks units and runs the chemistry
// of batch records from NATS JetStream with no access to the graph, until
// SIGTERM (then it drains).
func workerCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	var printPerms bool
	s, rest, err := parseOptions("worker", workerOptions(), func(fs *flag.FlagSet) {
		fs.BoolVar(&printPerms, "print-permissions", false,
			"print the NATS permissions a worker of --nats-deployment needs (JSON: the permissions block of a nats-server user) and exit")
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	}
	if printPerms {
		return printWorkerPermissions(s, stdout)
	}
	nc, err := loadNATS(s, false)
	if err != nil {
		return err
	}
	if err := checkTLSCA(nc.tlsCA); err != nil {
		return err
	}
	slots, err := s.nonNegativeInt("slots")
	if err != nil {
		return err
	}
	if slots == 0 {
		slots = runtime.NumCPU()
	}
	chemWorkers, err := s.nonNegativeInt("chem-workers")
	if err != nil {
		return err
	}
	drain, err := s.duration("drain-timeout")
	if err != nil {
		return err
	}
	kinds := map[string]bool{}
	for _, k := range strings.Split(s.str("kinds"), ",") {
		if k = strings.TrimSpace(k); k != work.KindDock && k != work.KindChem {
			return fmt.Errorf("%w: --kinds: %q is not a kind this worker runs (dock, chem)", errUsage, k)
		}
		kinds[k] = true
	}
	var sc serveConfig
	if sc.logFormat, err = s.oneOf("log-format", "json", "text"); err != nil {
		return err
	}
	if err := sc.logLevel.UnmarshalText([]byte(s.str("log-level"))); err != nil {
		return fmt.Errorf("%w: --log-level %q", errUsage, s.str("log-level"))
	}
	log := newLogger(stderr, sc)
	host, _ := os.Hostname()
	name := s.str("name")
	if name == "" {
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	dir, err := filepath.Abs(s.str("work-dir"))
	if err != nil {
		return err
	}
	tmp, swept, err := subproc.OpenTempDirs(filepath.Join(dir, "tmp"))
	if err != nil {
		return err
	}
	if swept > 0 {
		log.Info("removed temporary directories left by dead processes", "removed", swept)
	}
	pool, err := chem.New(chem.Options{Workers: chemWorkers})
	if err != nil {
		return fmt.Errorf("chem pool: %w", err)
	}
	defer pool.Close()
	conn, err := natsConnect(nc, "molgraph-worker "+name, log, workerInbox(nc))
	if err != nil {
		return err
	}
	defer conn.Close()
	cfg := nc.jsq(0)
	cfg.Logger = log
	// One jsq.Worker per kind: each kind has its own engine fingerprint
	// (chemistry units do not depend on vina) and its own slots.
	var ws []*jsq.Worker
	if kinds[work.KindDock] {
		vina, err := docking.NewVina(ctx, s.str("vina"))
		if err != nil {
			return fmt.Errorf("vina: %w", err)
		}
		vina = vina.WithTempDirs(tmp)
		inputs := &jsq.Inputs{NC: conn, Config: cfg, CacheDir: filepath.Join(dir, "inputs")}
		d := &work.Docker{Vina: vina, Pool: pool, Worker: name, Host: host}
		ws = append(ws, &jsq.Worker{NC: conn, Config: cfg, Name: name, Host: host, Slots: slots, Engine: work.Engine(version, chem.RDKitVersion(), vina.Version()),
			Drain: drain, Exec: map[string]queue.Executor{work.KindDock: work.DockExecutor(d, inputs)}})
	}
	if kinds[work.KindChem] {
		cname := name
		if kinds[work.KindDock] {
			cname += "-chem"
		}
		ws = append(ws, &jsq.Worker{NC: conn, Config: cfg, Name: cname, Host: host, Slots: chemUnitSlots, Engine: work.ChemEngine(version, chem.RDKitVersion()),
			Drain: drain, Exec: map[string]queue.Executor{work.KindChem: work.ChemExecutor(pool, 2*pool.Workers())}})
	}
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		kind := ""
		for k := range w.Exec {
			kind = k
		}
		log.Info("worker started", "name", w.Name, "kind", kind, "slots", w.Slots, "engine", w.Engine, "nats", conn.ConnectedUrlRedacted())
		fmt.Fprintf(stdout, "worker %s: %s, %d slots, engine %s\n", w.Name, kind, w.Slots, w.Engine)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.Serve(ctx)
		}()
	}
	wg.Wait()
	for _, w := range ws {
		log.Info("worker stopped", "name", w.Name, "units_done", w.Done())
	}
	return errors.Join(errs...)
}

// printWorkerPermissions prints the permissions block of the workers'
// NATS user for an operator's nats-server configuration (the same list the
// embedded server gives its worker user) and the inbox prefix it assumes.
func printWorkerPermissions(s settings, stdout io.Writer) error {
	dep := strings.TrimSpace(s.str("nats-deployment"))
	if err := checkDeployment(s, dep); err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsq.WorkerPermissions(dep))
}

// workersCmd is "molgraph workers": the live workers and the queued and
// in-flight units of a deployment, as JSON.
func workersCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	s, rest, err := parseOptions("workers", natsClientOptions(""), nil, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	}
	nc, err := loadNATS(s, false)
	if err != nil {
		return err
	}
	conn, err := natsConnect(nc, "molgraph-workers", newLogger(io.Discard, serveConfig{}), workerInbox(nc))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	st, err := jsq.Status(ctx, conn, nc.jsq(0))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}
