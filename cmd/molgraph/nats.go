package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/jsq"
	"github.com/molgraph/molgraph/jobs/work"
)

// natsClientOptions are the NATS options of serve, worker and workers.
func natsClientOptions(urlDefault string) []option {
	return []option{
		{"nats-url", "MOLGRAPH_NATS_URL", urlDefault, "NATS servers (comma-separated nats:// or tls:// URLs); serve: embedded runs a server inside the process"},
		{"nats-creds", "MOLGRAPH_NATS_CREDS", "none", "NATS credentials: an nkey seed file (the workers' one serve generates, least privileges) or a .creds file; required off loopback"},
		{"nats-tls-ca", "MOLGRAPH_NATS_TLS_CA", "none", "CA certificate (PEM) the NATS servers' certificates are checked against"},
		{"nats-deployment", "MOLGRAPH_NATS_DEPLOYMENT", "molgraph", "deployment id: the prefix of the streams and subjects, so deployments sharing a NATS cluster stay apart"},
		{"nats-ack-wait", "MOLGRAPH_NATS_ACK_WAIT", "60s", "a unit whose worker stops sending heartbeats is given to another worker after this"},
	}
}

// natsServeOptions are serve's options of the queue.
func natsServeOptions() []option {
	return append([]option{
		{"queue", "MOLGRAPH_QUEUE", "local", "where docking units and the chemistry of batch uploads run: local (in this process) or nats (NATS JetStream workers: molgraph worker)"},
		{"nats-listen", "MOLGRAPH_NATS_LISTEN", "127.0.0.1:4222", "client listener of the embedded NATS server (none: in-process only); off loopback it needs --nats-tls-cert and --nats-tls-key"},
		{"nats-tls-cert", "MOLGRAPH_NATS_TLS_CERT", "none", "TLS certificate (PEM) of the embedded NATS server's listener"},
		{"nats-tls-key", "MOLGRAPH_NATS_TLS_KEY", "none", "TLS key (PEM) of the embedded NATS server's listener"},
		{"nats-replicas", "MOLGRAPH_NATS_REPLICAS", "0", "replicas of the NATS streams (0: 1 with the embedded server, 3 on a cluster)"},
		{"local-slots", "MOLGRAPH_LOCAL_SLOTS", "-1", "with --queue nats: vina processes serve runs itself as a worker (-1: --vina-workers, 0: none, coordinator only: no docking nor batch chemistry of its own)"},
	}, natsClientOptions("embedded")...)
}

type natsConfig struct {
	url, creds, tlsCA, deployment string
	ackWait                       time.Duration
	// serve only
	queue, listen, tlsCert, tlsKey string
	replicas, localSlots           int
}

func optional(s settings, name string) string {
	if v := strings.TrimSpace(s.str(name)); v != "none" {
		return v
	}
	return ""
}

func loadNATS(s settings, serve bool) (natsConfig, error) {
	c := natsConfig{url: strings.TrimSpace(s.str("nats-url")), creds: optional(s, "nats-creds"), tlsCA: optional(s, "nats-tls-ca"),
		deployment: strings.TrimSpace(s.str("nats-deployment"))}
	var errs []error
	var e error
	c.ackWait, e = s.duration("nats-ack-wait")
	errs = append(errs, e)
	errs = append(errs, checkDeployment(s, c.deployment))
	if serve {
		c.queue, e = s.oneOf("queue", "local", "nats")
		errs = append(errs, e)
		c.listen, c.tlsCert, c.tlsKey = strings.TrimSpace(s.str("nats-listen")), optional(s, "nats-tls-cert"), optional(s, "nats-tls-key")
		c.replicas, e = s.nonNegativeInt("nats-replicas")
		errs = append(errs, e)
		var n int64
		if _, err := fmt.Sscan(strings.TrimSpace(s.str("local-slots")), &n); err != nil || n < -1 || n > 4096 {
			errs = append(errs, fmt.Errorf("%w: %s: %q is not a number of slots (-1 to 4096)", errUsage, s.src["local-slots"], s.str("local-slots")))
		}
		c.localSlots = int(n)
		if (c.tlsCert == "") != (c.tlsKey == "") {
			errs = append(errs, fmt.Errorf("%w: --nats-tls-cert and --nats-tls-key go together", errUsage))
		}
	} else if c.url == "" || c.url == "embedded" {
		errs = append(errs, fmt.Errorf("%w: %s: the URL of the NATS servers is required", errUsage, s.src["nats-url"]))
	}
	return c, errors.Join(errs...)
}

// checkDeployment rejects a deployment id that is not one subject token.
func checkDeployment(s settings, dep string) error {
	if dep == "" || strings.ContainsAny(dep, ". *>\t\n") {
		return fmt.Errorf("%w: %s: %q is not a deployment id (letters, digits, - and _)", errUsage, s.src["nats-deployment"], dep)
	}
	return nil
}

func (c natsConfig) jsq(replicas int) jsq.Config {
	// An outcome fetched by a coordinator that died is delivered again
	// after ResultAckWait: twice the unit's ack wait.
	return jsq.Config{Deployment: c.deployment, Replicas: replicas, Options: queue.Options{AckWait: c.ackWait},
		ResultAckWait: 2 * c.ackWait}
}

// credsOption is the nats.Option of a credentials file: a .creds file
// (JWT and seed) or a bare nkey seed.
func credsOption(path string) (nats.Option, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("nats credentials: %w", err)
	}
	if strings.Contains(string(data), "BEGIN NATS USER JWT") {
		return nats.UserCredentials(path), nil
	}
	return nats.NkeyOptionFromSeed(path)
}

// natsConnect connects to the servers of c.url. Off loopback it requires
// credentials and TLS (a tls:// URL or a CA file): receptors and ligands
// are customers' data. extra: more options (a worker's inbox prefix).
func natsConnect(c natsConfig, name string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("NATS disconnected", "error", err) }),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("NATS reconnected", "server", nc.ConnectedUrlRedacted()) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			// A denied subject (permissions) arrives here only.
			log.Warn("NATS error", "error", err)
		})}
	opts = append(opts, extra...)
	remote, tlsURL := false, false
	for _, u := range strings.Split(c.url, ",") {
		pu, err := url.Parse(strings.TrimSpace(u))
		if err != nil || pu.Host == "" {
			return nil, fmt.Errorf("%w: NATS URL %q", errUsage, u)
		}
		if !jsq.IsLoopback(pu.Hostname()) {
			remote = true
		}
		tlsURL = tlsURL || pu.Scheme == "tls"
	}
	if c.creds != "" {
		o, err := credsOption(c.creds)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if c.tlsCA != "" {
		opts = append(opts, nats.RootCAs(c.tlsCA))
	}
	if remote && (c.creds == "" || (!tlsURL && c.tlsCA == "")) {
		return nil, fmt.Errorf("%w: NATS servers off loopback need --nats-creds and TLS (tls:// URLs or --nats-tls-ca)", errUsage)
	}
	return nats.Connect(c.url, opts...)
}

// workerInbox is the inbox prefix of the worker and workers commands: the
// only inboxes the workers' permissions let them subscribe to.
func workerInbox(c natsConfig) nats.Option {
	return nats.CustomInboxPrefix(jsq.WorkerInbox(c.deployment))
}

// embeddedSeedFile is where serve keeps the nkey seed of its embedded
// server's worker user (workers connect with it: --nats-creds; the
// permissions of jsq.WorkerPermissions). serve itself connects in process
// as a second user whose key never leaves its memory. Before session 13
// this seed was serve's too: the same file stays the workers' seed.
func embeddedSeedFile(dataDir string) string { return filepath.Join(dataDir, "nats", "worker.nk") }

// embeddedUser returns the public key of the embedded server's user,
// generating the seed on first use and printing where it is, once (like
// the bootstrap API key).
func embeddedUser(dataDir string, stdout io.Writer) (string, error) {
	path := embeddedSeedFile(dataDir)
	seed, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return "", err
		}
		if seed, err = kp.Seed(); err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, append(seed, '\n'), 0o600); err != nil {
			return "", err
		}
		fmt.Fprintf(stdout, "NATS worker credentials (nkey seed) written to %s (shown once; copy the file to the worker machines):\n%s\n", path, seed)
	} else if err != nil {
		return "", err
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(seed))))
	if err != nil {
		return "", fmt.Errorf("nats seed %s: %w", path, err)
	}
	return kp.PublicKey()
}

// natsQueue starts the coordinator's queue for serve --queue nats: the
// embedded server (or a connection to c.url), the streams, and the
// connection the in-process worker slots use. stop closes them.
func natsQueue(ctx context.Context, c natsConfig, dataDir string, stdout io.Writer, log *slog.Logger) (q *jsq.Queue, nc *nats.Conn, stop func(), err error) {
	var srv *natsserver.Server
	replicas := c.replicas
	if c.url == "embedded" || c.url == "" {
		pub, err := embeddedUser(dataDir, stdout)
		if err != nil {
			return nil, nil, nil, err
		}
		var tc *tls.Config
		if c.tlsCert != "" {
			cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("nats TLS: %w", err)
			}
			tc = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		}
		coord, coordOpt, err := jsq.NewCoordinator()
		if err != nil {
			return nil, nil, nil, err
		}
		perms := jsq.WorkerPermissions(c.deployment)
		srv, err = jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: filepath.Join(dataDir, "jetstream"), Listen: c.listen,
			Users: []jsq.User{coord, {Nkey: pub, Permissions: &perms}}, TLS: tc})
		if err != nil {
			return nil, nil, nil, err
		}
		if nc, err = jsq.ConnectInProcess(srv, "molgraph-serve", coordOpt); err != nil {
			srv.Shutdown()
			return nil, nil, nil, err
		}
		if replicas == 0 {
			replicas = 1
		}
		log.Info("embedded NATS server started", "listen", c.listen, "store", filepath.Join(dataDir, "jetstream"))
	} else {
		if nc, err = natsConnect(c, "molgraph-serve", log); err != nil {
			return nil, nil, nil, err
		}
		if replicas == 0 {
			replicas = 3
		}
	}
	cfg := c.jsq(replicas)
	cfg.Logger = log
	if q, err = jsq.New(ctx, nc, cfg); err != nil {
		nc.Close()
		if srv != nil {
			srv.Shutdown()
		}
		return nil, nil, nil, err
	}
	return q, nc, func() {
		q.Close()
		nc.Close()
		if srv != nil {
			srv.Shutdown()
			srv.WaitForShutdown()
		}
	}, nil
}

// checkTLSCA fails early on an unreadable CA file.
func checkTLSCA(path string) error {
	if path == "" {
		return nil
	}
	pem, err := os.ReadFile(path)
	if err == nil && !x509.NewCertPool().AppendCertsFromPEM(pem) {
		err = errors.New("no certificate in it")
	}
	if err != nil {
		return fmt.Errorf("%w: --nats-tls-ca %s: %v", errUsage, path, err)
	}
	return nil
}

// dockQueue is the queue of the docking and batch tasks in serve --queue
// nats, with the worker slots serve runs itself.
type dockQueue struct {
	q       *jsq.Queue
	nc      *nats.Conn
	cancels []context.CancelFunc // of the local worker slots (serve)
	wg      sync.WaitGroup
}

// wire points the docking task's options at the queue and starts the
// local worker slots (--local-slots).
func (d *dockQueue) wire(opt *jobsdocking.Options, vina *docking.Vina, pool *chem.Pool, cfg serveConfig, log *slog.Logger) {
	c := cfg.nats.jsq(0)
	inputs := &jsq.Inputs{NC: d.nc, Config: c}
	engine := work.Engine(version, chem.RDKitVersion(), vina.Version())
	opt.Queue, opt.Inputs, opt.Engine, opt.Stall, opt.Logger = d.q, inputs, engine, 3*cfg.nats.ackWait, log
	slots := cfg.nats.localSlots
	if slots < 0 {
		slots = cfg.vinaWorkers
		if slots == 0 {
			slots = runtime.NumCPU()
		}
	}
	log.Info("docking on NATS workers", "engine", engine, "local_slots", slots)
	if slots == 0 {
		return
	}
	host, _ := os.Hostname()
	d.serve(&jsq.Worker{NC: d.nc, Config: c, Name: "serve-" + host, Host: host, Slots: slots, Engine: engine,
		Drain: cfg.shutdownTimeout,
		Exec:  map[string]queue.Executor{work.KindDock: work.DockExecutor(&work.Docker{Vina: vina, Pool: pool, Worker: "serve-" + host, Host: host}, inputs)}}, log)
}

// chemUnitSlots is how many chemistry units a worker runs at once: each
// keeps the chem pool busy on its own (ChemExecutor runs twice the pool's
// threads at a time), the second one's records wait while the first
// unit's outcome travels.
const chemUnitSlots = 2

// wireBatch points the batch task's options at the queue (the chemistry
// of batch uploads runs on workers, the commits here) and, unless
// --local-slots is 0, runs chemistry units on serve's own chem pool too.
func (d *dockQueue) wireBatch(opt *batch.TaskOptions, pool *chem.Pool, cfg serveConfig, log *slog.Logger) {
	engine := work.ChemEngine(version, chem.RDKitVersion())
	opt.Queue, opt.Engine, opt.Stall, opt.Logger = d.q, engine, 3*cfg.nats.ackWait, log
	log.Info("batch chemistry on NATS workers", "engine", engine, "local", cfg.nats.localSlots != 0)
	if cfg.nats.localSlots == 0 {
		return
	}
	host, _ := os.Hostname()
	d.serve(&jsq.Worker{NC: d.nc, Config: cfg.nats.jsq(0), Name: "serve-" + host + "-chem", Host: host, Slots: chemUnitSlots,
		Engine: engine, Drain: cfg.shutdownTimeout,
		Exec: map[string]queue.Executor{work.KindChem: backgroundChem(work.ChemExecutor(pool, 2*pool.Workers()))}}, log)
}

// backgroundChem runs exec's chemistry as background work of the chem
// pool (chem.Background): in serve, a request's chemistry goes first, as
// for the in-process batch path.
func backgroundChem(exec queue.Executor) queue.Executor {
	return func(ctx context.Context, u queue.Unit, runs int) ([]byte, error) {
		return exec(chem.Background(ctx), u, runs)
	}
}

// serve runs w until stop.
func (d *dockQueue) serve(w *jsq.Worker, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancels = append(d.cancels, cancel)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := w.Serve(ctx); err != nil {
			log.Error("local worker slots", "worker", w.Name, "error", err)
		}
	}()
}

// stop stops the local worker slots (their units go back to the queue).
func (d *dockQueue) stop() {
	for _, cancel := range d.cancels {
		cancel()
	}
	d.wg.Wait()
}

// batchCollectors are the /metrics of batch jobs' commits: records
// committed, and outcomes of queued chemistry dropped as duplicates.
func batchCollectors(task *batch.Task) []prometheus.Collector {
	if task == nil {
		return nil
	}
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_batch_records_committed_total",
			Help: "Batch upload records committed (items written)."}, func() float64 { return float64(task.Stats().Records) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_batch_duplicates_dropped_total",
			Help: "Chemistry outcomes of batch units dropped because their records were committed already (redeliveries)."},
			func() float64 { return float64(task.Stats().Duplicates) }),
	}
}

// dockingCollectors are the /metrics of the docking commit and, in nats
// mode, of the queue (read at each scrape, bounded by a 2 s timeout).
func dockingCollectors(task *jobsdocking.Task, dq *dockQueue, cfg serveConfig) []prometheus.Collector {
	if task == nil {
		return nil
	}
	cs := []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_outcomes_committed_total",
			Help: "Docking outcomes (poses or failures) committed."}, func() float64 { return float64(task.Stats().Outcomes) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_duplicates_dropped_total",
			Help: "Docking outcomes dropped because their ligand already had one (redelivered units)."},
			func() float64 { return float64(task.Stats().Duplicates) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_group_commits_total",
			Help: "Group commits of docking outcomes."}, func() float64 { return float64(task.Stats().Groups) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_group_commit_seconds_total",
			Help: "Time spent in group commits of docking outcomes."}, func() float64 { return task.Stats().CommitSeconds }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_prep_seconds_total",
			Help: "Wall time vina slots spent preparing ligands (stereoisomers, protonation, embedding, PDBQT) before their vina runs."},
			func() float64 { return task.Stages().PrepSeconds }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_vina_seconds_total",
			Help: "Wall time of the vina runs of docked ligands."}, func() float64 { return task.Stages().VinaSeconds }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_vina_cpu_seconds_total",
			Help: "CPU time (user + system) of the vina runs of docked ligands."}, func() float64 { return task.Stages().VinaCPUSeconds }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_vina_runs_total",
			Help: "Vina runs (one per stereoisomer docked)."}, func() float64 { return float64(task.Stages().VinaRuns) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_post_seconds_total",
			Help: "Wall time of pose reassembly, interactions and pose checks (beside the next vina runs)."},
			func() float64 { return task.Stages().PostSeconds }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_docking_check_cpu_seconds_total",
			Help: "CPU time of the pose checks, as chem reports it."}, func() float64 { return task.Stages().CheckCPUSeconds }),
	}
	if dq == nil {
		return cs
	}
	var mu sync.Mutex
	var last jsq.DeploymentStatus
	var at time.Time
	status := func() jsq.DeploymentStatus {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(at) > time.Second {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if st, err := jsq.Status(ctx, dq.nc, cfg.nats.jsq(0)); err == nil {
				last = st
			}
			cancel()
			at = time.Now()
		}
		return last
	}
	return append(cs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_queue_units_queued",
			Help: "Units on the NATS task stream (waiting or running, not yet acknowledged)."},
			func() float64 { return float64(status().Units.Queued) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_queue_units_in_flight",
			Help: "Units delivered to workers and not yet acknowledged."},
			func() float64 { return float64(status().Units.InFlight) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_queue_outcomes_waiting",
			Help: "Outcomes on the NATS result stream waiting for the commit."},
			func() float64 { return float64(status().Units.Outcomes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_queue_workers",
			Help: "Live workers (their presence refreshed within the TTL)."},
			func() float64 { return float64(len(status().Workers)) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_queue_units_gave_up_total",
			Help: "Units given up after the most deliveries (failure outcomes)."},
			func() float64 { return float64(dq.q.GaveUp()) }),
	)
}
