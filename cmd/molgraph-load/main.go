// Command molgraph-load is molgraph's load generator (make bench-load,
// issue 15): it starts "molgraph serve" on loopback with a fresh data
// directory (or uses a running server), gives each client its own API key,
// and runs a mixed workload for a fixed time: reads (GET a molecule, list
// molecules, small SPARQL and GraphQL queries), writes (POST /v1/molecules
// with real drug-like SMILES) and small batch uploads (10-100 records).
//
// A 429 or a 503 with Retry-After is the service's admission control
// working, not an error: it is counted on its own and the request is
// retried after Retry-After. Errors are transport failures, other 5xx and
// unexpected statuses; a 4xx refusing a corpus record (422) is counted as
// rejected. After the run every acknowledged write (201/200 molecule,
// 202 batch job) is read back: a molecule that is not there, or a batch job
// that does not finish with every record processed, is a lost write.
//
// It prints, per kind of request, the counts, errors and p50/p95/p99/max
// latency of the answered requests, the same percentiles as the server's
// access log measured them (the handler's time; when it started the
// server), the time of the same answers outside the handler (matched by
// the X-Request-Id each request carries: sent to handler start, handler end
// to answer read), the CPU the generator and the server used, the batch
// queue depth seen in /metrics during the run, and the load average; it
// exits 1 when there were errors or lost writes.
//
// Usage:
//
//	molgraph-load [-binary bin/molgraph] [-duration 60s] [-clients 64] [-mix get=30,...] [-server-env K=V,...]
//	molgraph-load -server http://host:8080/ -key ADMIN_KEY ...
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/molgraph/molgraph/internal/servechild"
)

// kinds of request, in the order they are reported.
var kinds = []string{"get", "list", "sparql", "graphql", "write", "batch"}

// readKinds are the kinds the read-latency target applies to.
var readKinds = []string{"get", "list", "sparql", "graphql"}

// defaultCorpora are real molecules from Debian's rdkit-data: ChEMBL
// compounds of one series (drug-like) and the NCI sample.
const defaultCorpora = "/usr/share/RDKit/Contrib/FreeWilson/data/CHEMBL2321810.smi,/usr/share/RDKit/Data/NCI/first_5K.smi"

type config struct {
	binary, server, key string
	duration, drain     time.Duration
	clients             int
	mix                 map[string]int
	corpora             []string
	batchMin, batchMax  int
	seed                uint64
	readP99, writeP99   time.Duration
	serverEnv           []string
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "molgraph-load:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "molgraph-load:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("molgraph-load", flag.ContinueOnError)
	fs.StringVar(&c.binary, "binary", "bin/molgraph", "molgraph binary to start (ignored with -server)")
	fs.StringVar(&c.server, "server", "", "base URL of a running server (default: start one on loopback with a temporary data dir)")
	fs.StringVar(&c.key, "key", os.Getenv("MOLGRAPH_API_KEY"), "admin key of the running server (with -server)")
	fs.DurationVar(&c.duration, "duration", 60*time.Second, "how long the clients run")
	fs.DurationVar(&c.drain, "drain", 3*time.Minute, "how long to wait after the run for the accepted batch jobs to finish")
	fs.IntVar(&c.clients, "clients", 64, "concurrent clients, each with its own API key")
	mix := fs.String("mix", "get=30,list=10,sparql=10,graphql=10,write=35,batch=5", "weights of the kinds of request")
	corpora := fs.String("smiles", defaultCorpora, "comma-separated SMILES files (SMILES [name] per line) the writes and batches take molecules from")
	fs.IntVar(&c.batchMin, "batch-min", 10, "fewest records of a batch upload")
	fs.IntVar(&c.batchMax, "batch-max", 100, "most records of a batch upload")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed of the workload")
	fs.DurationVar(&c.readP99, "read-p99", 100*time.Millisecond, "target p99 of reads (reported, not enforced)")
	fs.DurationVar(&c.writeP99, "write-p99", time.Second, "target p99 of writes and batch submissions (reported, not enforced)")
	serverEnv := fs.String("server-env", "", "comma-separated KEY=VALUE settings of the started server's environment (MOLGRAPH_CHEM_NICE=19,GOGC=200): set after this process started, so they do not change the generator")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, kv := range strings.Split(*serverEnv, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return c, fmt.Errorf("-server-env: %q is not KEY=VALUE", kv)
		}
		c.serverEnv = append(c.serverEnv, kv)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.clients < 1 || c.duration <= 0 || c.batchMin < 1 || c.batchMax < c.batchMin {
		return c, errors.New("-clients, -duration, -batch-min and -batch-max must be positive, batch-min <= batch-max")
	}
	c.mix = map[string]int{}
	for _, kv := range strings.Split(*mix, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 || !slices.Contains(kinds, k) {
			return c, fmt.Errorf("-mix: %q is not KIND=WEIGHT with KIND one of %v", kv, kinds)
		}
		c.mix[k] = n
	}
	c.corpora = strings.Split(*corpora, ",")
	if c.server != "" {
		if u, err := url.Parse(c.server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("-server %q is not an http(s) URL", c.server)
		}
	}
	if c.server != "" && c.key == "" {
		return c, errors.New("-server needs -key (or MOLGRAPH_API_KEY): an admin key to create the clients' keys")
	}
	return c, nil
}

// run starts (or finds) the server, runs the clients, checks the writes
// and prints the report. ok is false when there were errors or lost
// writes.
func run(ctx context.Context, cfg config, out io.Writer) (ok bool, err error) {
	smiles, err := readCorpora(cfg.corpora)
	if err != nil {
		return false, err
	}
	base, adminKey := cfg.server, cfg.key
	var logPath string
	serverPid := 0
	if base == "" {
		// The child inherits the environment; the Go runtime of this
		// process read its own (GOMAXPROCS, GOGC) at start.
		for _, kv := range cfg.serverEnv {
			k, v, _ := strings.Cut(kv, "=")
			if err := os.Setenv(k, v); err != nil {
				return false, err
			}
		}
		srv, err := startServer(ctx, cfg.binary)
		if err != nil {
			return false, err
		}
		defer srv.stop(out)
		base, adminKey, logPath, serverPid = srv.Base, srv.Key, srv.LogPath, srv.Pid()
		fmt.Fprintf(out, "molgraph-load: started %s serve on %s (data dir %s, log %s; environment %s)\n", cfg.binary, base, srv.dir, srv.LogPath, strings.Join(cfg.serverEnv, ","))
	}
	base = strings.TrimSuffix(base, "/")
	httpc := &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 2 * cfg.clients, MaxIdleConnsPerHost: 2 * cfg.clients, IdleConnTimeout: time.Minute},
	}
	l := &loadRun{cfg: cfg, base: base, http: httpc, smiles: smiles}
	if err := l.setup(ctx, adminKey); err != nil {
		return false, err
	}
	load0 := loadAvg()
	fmt.Fprintf(out, "molgraph-load: %d clients for %s, mix %s, %d molecules in the corpus; load average %s\n",
		cfg.clients, cfg.duration, mixString(cfg.mix), len(smiles), load0)

	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var queue queueWatch
	go queue.watch(runCtx, l)
	cpu0 := cpuTimes(serverPid)
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]*clientStats, cfg.clients)
	for i := range cfg.clients {
		results[i] = newClientStats()
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.client(runCtx, i, results[i])
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1 := cpuTimes(serverPid)
	loadEnd := loadAvg()

	total := newClientStats()
	for _, r := range results {
		total.merge(r)
	}
	// Read every acknowledged write back.
	drainStart := time.Now()
	lost, lostDetail, batchRecords, drainErr := l.verify(ctx, total)
	drained := time.Since(drainStart)
	queueEnd := l.queueDepth(ctx)

	// The report.
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tok\t429\t503\trejected\terrors\tp50\tp95\tp99\tmax\t")
	var requests, errorsN int
	var readP99, writeP99 time.Duration
	for _, k := range kinds {
		s := total.kinds[k]
		requests += s.ok + s.rejected + s.errors
		errorsN += s.errors
		p50, p95, p99, pmax := percentiles(s.lat)
		if slices.Contains(readKinds, k) {
			readP99 = max(readP99, p99)
		} else {
			writeP99 = max(writeP99, p99)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", k, s.ok, s.limited, s.busy, s.rejected, s.errors,
			ms(p50), ms(p95), ms(p99), ms(pmax))
	}
	tw.Flush()
	if logPath != "" {
		if err := serverSide(out, logPath, start, start.Add(elapsed), total.spans); err != nil {
			fmt.Fprintf(out, "server side: %v\n", err)
		}
	}
	fmt.Fprintf(out, "\n%d answered requests in %s (%.0f/s); %d errors; load average at the end %s\n",
		requests, elapsed.Round(time.Millisecond), float64(requests)/elapsed.Seconds(), errorsN, loadEnd)
	for _, k := range kinds {
		for _, e := range total.kinds[k].samples {
			fmt.Fprintf(out, "  %s error: %s\n", k, e)
		}
		for _, e := range total.kinds[k].rejectedSamples {
			fmt.Fprintf(out, "  %s rejected: %s\n", k, e)
		}
	}
	fmt.Fprintln(out, cpu1.sub(cpu0).report(elapsed))
	fmt.Fprintf(out, "writes: %d molecules and %d batch jobs (%d records) acknowledged; lost writes: %d (checked in %s)\n",
		len(total.molecules), len(total.batches), batchRecords, lost, drained.Round(time.Millisecond))
	for _, d := range lostDetail {
		fmt.Fprintf(out, "  lost: %s\n", d)
	}
	if drainErr != nil {
		fmt.Fprintf(out, "  %v\n", drainErr)
	}
	fmt.Fprintf(out, "batch queue depth (molgraph_jobs_queued, batch): max %d during the run, %s at the end\n", queue.max.Load(), queueEnd)
	check := func(good bool) string {
		if good {
			return "ok"
		}
		return "MISSED"
	}
	fmt.Fprintf(out, "targets: errors 0: %s; lost writes 0: %s; reads p99 %s <= %s: %s; writes p99 %s <= %s: %s\n",
		check(errorsN == 0), check(lost == 0 && drainErr == nil),
		ms(readP99), ms(cfg.readP99), check(readP99 <= cfg.readP99),
		ms(writeP99), ms(cfg.writeP99), check(writeP99 <= cfg.writeP99))
	return errorsN == 0 && lost == 0 && drainErr == nil, nil
}

// routeKinds maps the access log's "METHOD route" to the kind of request.
var routeKinds = map[string]string{
	"GET /v1/molecules/{id}":   "get",
	"GET /v1/molecules":        "list",
	"POST /v1/sparql":          "sparql",
	"POST /v1/graphql":         "graphql",
	"POST /v1/molecules":       "write",
	"POST /v1/molecules/batch": "batch",
}

// serverSide prints the latency of the answered requests as the server's
// access log measured it (from the request's headers read to its answer
// written), per kind, for the requests that ended between from and to. The
// difference to the client's figures is time outside the handlers: the
// connection waiting to be read, goroutines waiting for a CPU (the server's
// or the generator's), the loopback.
func serverSide(out io.Writer, logPath string, from, to time.Time, spans []span) error {
	byID := make(map[string]span, len(spans))
	for _, sp := range spans {
		byID[sp.id] = sp
	}
	before, after := map[string][]time.Duration{}, map[string][]time.Duration{}
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	lat := map[string][]time.Duration{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Time       time.Time `json:"time"`
			Msg        string    `json:"msg"`
			Method     string    `json:"method"`
			Route      string    `json:"route"`
			Status     int       `json:"status"`
			DurationMS float64   `json:"duration_ms"`
			RequestID  string    `json:"request_id"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Msg != "request" || e.Time.Before(from) || e.Time.After(to) {
			continue
		}
		k, ok := routeKinds[e.Method+" "+e.Route]
		if !ok || (e.Status >= 300 && e.Status != http.StatusUnprocessableEntity) {
			continue
		}
		d := time.Duration(e.DurationMS * float64(time.Millisecond))
		lat[k] = append(lat[k], d)
		if sp, ok := byID[e.RequestID]; ok {
			// The log record's time is taken as the handler returns.
			before[k] = append(before[k], e.Time.Add(-d).Sub(sp.sent))
			after[k] = append(after[k], sp.received.Sub(e.Time))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nserver side (access log: handler time of the same answers, headers read to answer written):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tanswers\tp50\tp95\tp99\tmax\t")
	for _, k := range kinds {
		p50, p95, p99, pmax := percentiles(lat[k])
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t\n", k, len(lat[k]), ms(p50), ms(p95), ms(p99), ms(pmax))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The same answers matched by X-Request-Id: the time before the
	// handler (request sent by the client to handler started: the
	// client's and the server's scheduling, the loopback, reading the
	// headers) and after it (handler returned to answer read by the
	// client: writing the access log and the answer, the client waking).
	fmt.Fprintln(out, "\noutside the handler (same answers by X-Request-Id; before: sent to handler start, after: handler end to answer read):")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tmatched\tbefore p50\tp95\tp99\tafter p50\tp95\tp99\t")
	for _, k := range kinds {
		b50, b95, b99, _ := percentiles(before[k])
		a50, a95, a99, _ := percentiles(after[k])
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k, len(before[k]), msSigned(b50), msSigned(b95), msSigned(b99), msSigned(a50), msSigned(a95), msSigned(a99))
	}
	return tw.Flush()
}

// msSigned is ms for a difference of two clocks' readings, which may be
// zero or (by clock granularity) slightly negative.
func msSigned(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
}

// loadRun is the shared state of the clients.
type loadRun struct {
	cfg    config
	base   string
	http   *http.Client
	smiles []string
	next   atomic.Int64 // the next corpus molecule to write
	keys   []string     // one per client

	mu   sync.Mutex
	ids  []string // molecule ids known to exist (seeded and written)
	iris []string // their IRIs
}

// setup creates a read+write key per client and seeds molecules to read.
func (l *loadRun) setup(ctx context.Context, adminKey string) error {
	for i := range l.cfg.clients {
		body := fmt.Sprintf(`{"name": "load-%d-%d", "scopes": ["read", "write"]}`, time.Now().Unix(), i)
		resp, data, err := l.do(ctx, adminKey, "POST", "/v1/keys", "application/json", strings.NewReader(body))
		if err != nil {
			return fmt.Errorf("create key: %w", err)
		}
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("create key: %d %s", resp.StatusCode, data)
		}
		var k struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(data, &k); err != nil || k.Token == "" {
			return fmt.Errorf("create key: no token in %s", data)
		}
		l.keys = append(l.keys, k.Token)
	}
	for range 20 {
		m, status, err := l.postMolecule(ctx, l.keys[0])
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if status == http.StatusCreated || status == http.StatusOK {
			l.addID(m.ID, m.IRI)
		}
	}
	if len(l.ids) == 0 {
		return errors.New("seed: no molecule could be registered")
	}
	return nil
}

func (l *loadRun) addID(id, iri string) {
	l.mu.Lock()
	l.ids = append(l.ids, id)
	l.iris = append(l.iris, iri)
	l.mu.Unlock()
}

// randomID is a known molecule's id and IRI.
func (l *loadRun) randomID(r *rand.Rand) (id, iri string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := r.IntN(len(l.ids))
	return l.ids[i], l.iris[i]
}

// do sends one request with key and reads the answer.
func (l *loadRun) do(ctx context.Context, key, method, path, ctype string, body io.Reader) (*http.Response, []byte, error) {
	return l.doID(ctx, key, "", method, path, ctype, body)
}

// doID is do with an X-Request-Id (none if id is "").
func (l *loadRun) doID(ctx context.Context, key, id, method, path, ctype string, body io.Reader) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, l.base+path, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// doRetry is do for the checks after the run: a 429 or a 503 with
// Retry-After is waited out (up to 20 times) instead of returned.
func (l *loadRun) doRetry(ctx context.Context, key, method, path string) (*http.Response, []byte, error) {
	for try := 0; ; try++ {
		resp, data, err := l.do(ctx, key, method, path, "", nil)
		if err != nil || try == 20 || resp.Header.Get("Retry-After") == "" ||
			(resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
			return resp, data, err
		}
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(time.Duration(max(secs, 0))*time.Second + 100*time.Millisecond):
		}
	}
}

// nextSMILES is the next corpus molecule (in order, so that most writes
// are new molecules; the corpus is reused when exhausted).
func (l *loadRun) nextSMILES() string {
	return l.smiles[int(l.next.Add(1)-1)%len(l.smiles)]
}

// molecule is the part of a Molecule the load run keeps.
type molecule struct {
	ID  string `json:"id"`
	IRI string `json:"iri"`
}

func (l *loadRun) postMolecule(ctx context.Context, key string) (m molecule, status int, err error) {
	b, _ := json.Marshal(map[string]any{"format": "smiles", "content": l.nextSMILES()})
	resp, data, err := l.do(ctx, key, "POST", "/v1/molecules", "application/json", bytes.NewReader(b))
	if err != nil {
		return m, 0, err
	}
	json.Unmarshal(data, &m)
	return m, resp.StatusCode, nil
}

// clientStats are one client's observations (merged after the run).
type clientStats struct {
	kinds     map[string]*kindStats
	molecules []string // acknowledged molecule ids
	batches   []batchSubmit
	spans     []span
}

// span is when an answered request was sent and its answer read (wall
// clock, to compare with the server's log).
type span struct {
	id, kind       string
	sent, received time.Time
}

type batchSubmit struct {
	id      string
	records int
}

type kindStats struct {
	ok, limited, busy, rejected, errors int
	lat                                 []time.Duration
	samples, rejectedSamples            []string // the first few
}

func newClientStats() *clientStats {
	c := &clientStats{kinds: map[string]*kindStats{}}
	for _, k := range kinds {
		c.kinds[k] = &kindStats{}
	}
	return c
}

func (c *clientStats) merge(o *clientStats) {
	for k, s := range o.kinds {
		t := c.kinds[k]
		t.ok += s.ok
		t.limited += s.limited
		t.busy += s.busy
		t.rejected += s.rejected
		t.errors += s.errors
		t.lat = append(t.lat, s.lat...)
		t.samples = appendSample(t.samples, s.samples...)
		t.rejectedSamples = appendSample(t.rejectedSamples, s.rejectedSamples...)
	}
	c.molecules = append(c.molecules, o.molecules...)
	c.batches = append(c.batches, o.batches...)
	c.spans = append(c.spans, o.spans...)
}

func appendSample(to []string, s ...string) []string {
	for _, x := range s {
		if len(to) < 3 {
			to = append(to, x)
		}
	}
	return to
}

// client runs requests of random kinds until ctx ends.
func (l *loadRun) client(ctx context.Context, i int, st *clientStats) {
	r := rand.New(rand.NewPCG(l.cfg.seed, uint64(i)))
	key := l.keys[i]
	var weights int
	for _, k := range kinds {
		weights += l.cfg.mix[k]
	}
	for ctx.Err() == nil {
		n := r.IntN(max(weights, 1))
		kind := kinds[0]
		for _, k := range kinds {
			if n < l.cfg.mix[k] {
				kind = k
				break
			}
			n -= l.cfg.mix[k]
		}
		l.one(ctx, r, key, kind, st)
	}
}

// one sends one request of kind, retrying after a 429 or 503 with
// Retry-After, and records the answer.
func (l *loadRun) one(ctx context.Context, r *rand.Rand, key, kind string, st *clientStats) {
	ks := st.kinds[kind]
	method, path, ctype, body, records := l.request(r, kind)
	for {
		id := fmt.Sprintf("load-%016x", r.Uint64())
		t0 := time.Now()
		resp, data, err := l.doID(ctx, key, id, method, path, ctype, bytes.NewReader(body))
		took := time.Since(t0)
		sp := span{id: id, kind: kind, sent: t0.Round(0), received: t0.Round(0).Add(took)}
		if ctx.Err() != nil {
			return // the run ended; an unanswered request is not counted
		}
		if err != nil {
			ks.errors++
			ks.samples = appendSample(ks.samples, err.Error())
			return
		}
		status := resp.StatusCode
		if ra := resp.Header.Get("Retry-After"); (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && ra != "" {
			if status == http.StatusTooManyRequests {
				ks.limited++
			} else {
				ks.busy++
			}
			secs, _ := strconv.Atoi(ra)
			wait := time.Duration(max(secs, 0))*time.Second + time.Duration(r.IntN(250))*time.Millisecond
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		switch {
		case status >= 200 && status < 300:
			ks.ok++
			ks.lat = append(ks.lat, took)
			st.spans = append(st.spans, sp)
			l.record(kind, status, data, records, st)
		case status == http.StatusUnprocessableEntity && (kind == "write" || kind == "batch"):
			// A corpus molecule the service refuses (a valid answer).
			ks.rejected++
			ks.lat = append(ks.lat, took)
			st.spans = append(st.spans, sp)
			ks.rejectedSamples = appendSample(ks.rejectedSamples, fmt.Sprintf("%s: %d %s", path, status, trim(data)))
		default:
			ks.errors++
			ks.samples = appendSample(ks.samples, fmt.Sprintf("%s %s: %d %s", method, path, status, trim(data)))
		}
		return
	}
}

// request builds a request of kind.
func (l *loadRun) request(r *rand.Rand, kind string) (method, path, ctype string, body []byte, records int) {
	switch kind {
	case "get":
		id, _ := l.randomID(r)
		return "GET", "/v1/molecules/" + id, "", nil, 0
	case "list":
		return "GET", fmt.Sprintf("/v1/molecules?limit=%d", 10+r.IntN(41)), "", nil, 0
	case "sparql":
		_, iri := l.randomID(r)
		q := strings.ReplaceAll(sparqlQueries[r.IntN(len(sparqlQueries))], "$IRI", iri)
		return "POST", "/v1/sparql", "application/sparql-query", []byte(q), 0
	case "graphql":
		var b []byte
		if r.IntN(2) == 0 {
			b, _ = json.Marshal(map[string]any{"query": `{ molecules(first: 10) { nodes { id smiles mw } } }`})
		} else {
			id, _ := l.randomID(r)
			b, _ = json.Marshal(map[string]any{"query": `query($id: ID!) { molecule(id: $id) { id smiles inchiKey mw logp } }`,
				"variables": map[string]any{"id": id}})
		}
		return "POST", "/v1/graphql", "application/json", b, 0
	case "write":
		b, _ := json.Marshal(map[string]any{"format": "smiles", "content": l.nextSMILES()})
		return "POST", "/v1/molecules", "application/json", b, 0
	case "batch":
		n := l.cfg.batchMin + r.IntN(l.cfg.batchMax-l.cfg.batchMin+1)
		var b bytes.Buffer
		for j := range n {
			fmt.Fprintf(&b, "%s load-%d\n", l.nextSMILES(), j)
		}
		return "POST", "/v1/molecules/batch", "text/plain", b.Bytes(), n
	}
	panic("unknown kind " + kind)
}

// sparqlQueries are small queries of the kind a client sends ($IRI: a
// known molecule's IRI).
var sparqlQueries = []string{
	`PREFIX mg: <https://w3id.org/molgraph/vocab#>
SELECT ?m WHERE { ?m a mg:Molecule } LIMIT 10`,
	`SELECT ?p ?o WHERE { <$IRI> ?p ?o } LIMIT 50`,
	`PREFIX mg: <https://w3id.org/molgraph/vocab#>
SELECT ?m ?w WHERE { ?m a mg:Molecule ; ?p ?w . FILTER(isNumeric(?w) && ?w > 300) } LIMIT 10`,
	`ASK { ?s ?p ?o }`,
}

// record keeps what a successful write acknowledged.
func (l *loadRun) record(kind string, status int, data []byte, records int, st *clientStats) {
	switch kind {
	case "write":
		var m molecule
		if json.Unmarshal(data, &m) == nil && m.ID != "" {
			st.molecules = append(st.molecules, m.ID)
			l.addID(m.ID, m.IRI)
		}
	case "batch":
		var j struct {
			JobID string `json:"job_id"`
		}
		if status == http.StatusAccepted && json.Unmarshal(data, &j) == nil && j.JobID != "" {
			st.batches = append(st.batches, batchSubmit{j.JobID, records})
		}
	}
}

// verify reads every acknowledged write back: each molecule must be there,
// each batch job must finish with every record processed.
func (l *loadRun) verify(ctx context.Context, st *clientStats) (lost int, detail []string, records int, err error) {
	var mu sync.Mutex
	fail := func(s string) {
		mu.Lock()
		lost++
		if len(detail) < 10 {
			detail = append(detail, s)
		}
		mu.Unlock()
	}
	work := make(chan func(key string), 64)
	var wg sync.WaitGroup
	// Eight readers, each with its own client's key (one key alone would
	// meet its rate limit).
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := l.keys[w%len(l.keys)]
			for f := range work {
				f(key)
			}
		}()
	}
	for _, id := range st.molecules {
		work <- func(key string) {
			resp, data, err := l.doRetry(ctx, key, "GET", "/v1/molecules/"+id)
			if err != nil || resp.StatusCode != http.StatusOK {
				fail(fmt.Sprintf("molecule %s: %v %s", id, statusOf(resp, err), trim(data)))
			}
		}
	}
	deadline := time.Now().Add(l.cfg.drain)
	for _, b := range st.batches {
		records += b.records
		work <- func(key string) {
			for {
				resp, data, err := l.doRetry(ctx, key, "GET", "/v1/molecules/batch/"+b.id)
				if err != nil || resp.StatusCode != http.StatusOK {
					fail(fmt.Sprintf("batch %s: %v %s", b.id, statusOf(resp, err), trim(data)))
					return
				}
				var j struct {
					Status                                      string
					Total, Processed, Created, Existing, Failed int
				}
				json.Unmarshal(data, &j)
				switch j.Status {
				case "succeeded":
					if j.Total != b.records || j.Processed != j.Total || j.Created+j.Existing+j.Failed != j.Total {
						fail(fmt.Sprintf("batch %s: %d records sent, %s", b.id, b.records, trim(data)))
					}
					return
				case "failed", "cancelled":
					fail(fmt.Sprintf("batch %s ended %s: %s", b.id, j.Status, trim(data)))
					return
				}
				if time.Now().After(deadline) {
					fail(fmt.Sprintf("batch %s not finished %s after the run: %s", b.id, l.cfg.drain, trim(data)))
					return
				}
				time.Sleep(250 * time.Millisecond)
			}
		}
	}
	close(work)
	wg.Wait()
	return lost, detail, records, ctx.Err()
}

func statusOf(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return strconv.Itoa(resp.StatusCode)
}

func trim(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// queueWatch records the deepest batch queue seen in /metrics.
type queueWatch struct{ max atomic.Int64 }

func (q *queueWatch) watch(ctx context.Context, l *loadRun) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, ok := l.queued(ctx); ok && n > q.max.Load() {
			q.max.Store(n)
		}
	}
}

func (l *loadRun) queueDepth(ctx context.Context) string {
	if n, ok := l.queued(ctx); ok {
		return strconv.FormatInt(n, 10)
	}
	return "unknown"
}

// queued reads molgraph_jobs_queued{class="BatchUploadJob"} from /metrics.
func (l *loadRun) queued(ctx context.Context) (int64, bool) {
	resp, data, err := l.doRetry(ctx, l.keys[len(l.keys)-1], "GET", "/metrics")
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, "molgraph_jobs_queued{") && strings.Contains(line, `class="BatchUploadJob"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			return int64(v), err == nil
		}
	}
	return 0, false
}

func percentiles(d []time.Duration) (p50, p95, p99, pmax time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	return at(0.50), at(0.95), at(0.99), d[len(d)-1]
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
}

func mixString(m map[string]int) string {
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// readCorpora reads the first field of every line of the SMILES files.
func readCorpora(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		f, err := os.Open(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("SMILES corpus: %w (Debian package rdkit-data, or -smiles)", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) == 0 || strings.HasPrefix(fs[0], "#") || strings.EqualFold(fs[0], "smiles") || seen[fs[0]] {
				continue
			}
			seen[fs[0]] = true
			out = append(out, fs[0])
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the SMILES corpus is empty")
	}
	return out, nil
}

// server is a molgraph serve process started for the run, with its own
// temporary directory.
type server struct {
	*servechild.Server
	dir string
}

// startServer starts binary serve on a free loopback port with a fresh
// data directory and waits for /readyz; the generated bootstrap key is the
// admin key.
func startServer(ctx context.Context, binary string) (*server, error) {
	dir, err := os.MkdirTemp("", "molgraph-load-")
	if err != nil {
		return nil, err
	}
	srv, err := servechild.Start(ctx, binary, filepath.Join(dir, "data"), filepath.Join(dir, "server.log"), 2*time.Minute,
		func(addr string) []string { return []string{"--base-iri", "http://" + addr + "/"} })
	if err != nil {
		return nil, err
	}
	return &server{Server: srv, dir: dir}, nil
}

// stop interrupts the server (a clean shutdown), kills it after 30 s,
// and removes its directory unless it did not exit cleanly (the log is
// kept then).
func (s *server) stop(out io.Writer) {
	if s.Stop(out, 30*time.Second) == nil {
		os.RemoveAll(s.dir)
	}
}

// cpuUse is the CPU time used so far by this process (the generator) and
// by the server it started (zero without one).
type cpuUse struct{ generator, server time.Duration }

// cpuTimes reads this process's CPU time (getrusage) and the server's
// (utime+stime of /proc/<pid>/stat, Linux; zero elsewhere or for pid 0).
func cpuTimes(serverPid int) cpuUse {
	var c cpuUse
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.generator = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if serverPid > 0 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", serverPid)); err == nil {
			// Fields after the command (which may hold spaces) start at
			// the last ')': state is field 3, utime 14, stime 15.
			if i := bytes.LastIndexByte(b, ')'); i >= 0 {
				f := strings.Fields(string(b[i+1:]))
				if len(f) > 12 {
					ut, _ := strconv.ParseInt(f[11], 10, 64)
					st, _ := strconv.ParseInt(f[12], 10, 64)
					// USER_HZ is 100 on every Linux the project runs on.
					c.server = time.Duration(ut+st) * 10 * time.Millisecond
				}
			}
		}
	}
	return c
}

func (c cpuUse) sub(o cpuUse) cpuUse { return cpuUse{c.generator - o.generator, c.server - o.server} }

// report says how many cores the generator and the server used during
// the run: on a machine of few cores, the generator's share is CPU the
// server did not have.
func (c cpuUse) report(elapsed time.Duration) string {
	cores := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds()/elapsed.Seconds(), 'f', 2, 64) }
	s := fmt.Sprintf("CPU during the run: generator %s (%s cores)", c.generator.Round(10*time.Millisecond), cores(c.generator))
	if c.server > 0 {
		s += fmt.Sprintf(", server %s (%s cores)", c.server.Round(10*time.Millisecond), cores(c.server))
	}
	return s
}
