package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/handlers"
)

// errHelp is returned after -h printed the flags.
var errHelp = errors.New("help requested")

// option is one setting: a flag and the environment variable behind it.
type option struct {
	flag, env, def, help string
}

// dataDirOption is shared by "serve" and "keys".
func dataDirOption() option {
	return option{"data-dir", "MOLGRAPH_DATA_DIR", "./data", "data directory: graph, blobs, keys.json, bootstrap-key"}
}

func serveOptions() []option {
	return append([]option{
		{"addr", "MOLGRAPH_ADDR", ":8080", "listen address (host:port)"},
		dataDirOption(),
		{"base-iri", "MOLGRAPH_BASE_IRI", "http://localhost:8080/", "base of resource IRIs (<base>id/<kind>/<id>) and problem types"},
		{"store", "MOLGRAPH_STORE", "badger", "graph backend: badger (native quad store, <data-dir>/quads) or memory"},
		{"sync-writes", "MOLGRAPH_SYNC_WRITES", "true", "make every acknowledged write durable against power loss: fsync before the reply, one fsync shared by concurrent writes (group commit); false: a reply survives kill -9, not a power loss"},
		{"min-free-disk", "MOLGRAPH_MIN_FREE_DISK", "1GiB", "free space kept on the data directory's file system; below it writes answer 507 insufficient_storage and /readyz 503"},
		{"columns-max-triples", "MOLGRAPH_COLUMNS_MAX_TRIPLES", "33554432", "largest store (quads) whose triples the badger store also keeps as in-memory id columns for SPARQL scans (16 bytes a triple, rebuilt after commits); 0: none"},
		{"blob-gc-interval", "MOLGRAPH_BLOB_GC_INTERVAL", "10m", "how often unreferenced blobs and the spools of ended batch jobs are deleted (also at start and after each batch job)"},
		{"blob-gc-grace", "MOLGRAPH_BLOB_GC_GRACE", "1h", "age under which an unreferenced blob is kept (a commit referencing it may be in flight)"},
		{"max-body", "MOLGRAPH_MAX_BODY", "64MiB", "largest request body (bytes; KiB/MiB/GiB or kB/MB/GB suffixes)"},
		{"max-json-body", "MOLGRAPH_MAX_JSON_BODY", "1MiB", "largest JSON request body"},
		{"read-header-timeout", "MOLGRAPH_READ_HEADER_TIMEOUT", "10s", "time to read request headers"},
		{"read-timeout", "MOLGRAPH_READ_TIMEOUT", "5m", "time to read a whole request, body included"},
		{"write-timeout", "MOLGRAPH_WRITE_TIMEOUT", "10m", "time to write a response (bounds exports)"},
		{"idle-timeout", "MOLGRAPH_IDLE_TIMEOUT", "2m", "keep-alive idle time"},
		{"shutdown-timeout", "MOLGRAPH_SHUTDOWN_TIMEOUT", "30s", "grace period for in-flight requests on SIGTERM/SIGINT"},
		{"sparql-timeout", "MOLGRAPH_SPARQL_TIMEOUT", "30s", "longest SPARQL query (evaluation and serialization); past it: 503 query_timeout"},
		{"structure-search", "MOLGRAPH_STRUCTURE_SEARCH", "true", "structure search: fingerprints and pickles computed and stored at registration, the search index loaded at start (rebuilt from the graph for molecules registered without); false: none of it, and the search routes, GraphQL search arguments and SPARQL search procedures answer 501 search_disabled"},
		{"search-timeout", "MOLGRAPH_SEARCH_TIMEOUT", "30s", "synchronous structure-search budget: past it /v1/molecules/search goes on as a search job (202), GraphQL and SPARQL searches answer 503 timeout"},
		{"search-job-timeout", "MOLGRAPH_SEARCH_JOB_TIMEOUT", "10m", "longest structure search job (/v1/molecules/search/jobs/{id}); past it the job fails with 503 timeout"},
		{"search-cache-molecules", "MOLGRAPH_SEARCH_CACHE_MOLECULES", "50000", "molecules substructure search keeps in memory as RDKit molecules (about 13 KB each for drug-like ones); the others are read from the store and unpickled per search"},
		{"sparql-max-rows", "MOLGRAPH_SPARQL_MAX_ROWS", "100000", "most solutions (SELECT) or triples (CONSTRUCT) per SPARQL answer; past it: 400 row_limit_exceeded"},
		{"sparql-max-query", "MOLGRAPH_SPARQL_MAX_QUERY", "1MiB", "longest SPARQL query text, checked before parsing; past it: 413 query_too_large"},
		{"sparql-max-memory", "MOLGRAPH_SPARQL_MAX_MEMORY", "256MiB", "memory budget of one SPARQL query (ORDER BY, GROUP BY, DISTINCT, sub-queries, CONSTRUCT results, path searches); past it: 400 query_memory_exceeded"},
		{"sparql-max-literal", "MOLGRAPH_SPARQL_MAX_LITERAL", "1MiB", "longest string a SPARQL function or GROUP_CONCAT may build (and decimal size in digits); past it the expression is unbound (false in FILTER)"},
		{"sparql-helpers", "MOLGRAPH_SPARQL_HELPERS", "0", "spare workers that SPARQL queries share to run a large star (a BGP's leading scan past 8,192 triples) on more than one core, borrowed only while free, so one query uses at most 1+N cores; -1: one less than the CPUs; 0: none (the default until a quiet run shows a gain: on the shared build machine it did not pay)"},
		{"graphql-max-depth", "MOLGRAPH_GRAPHQL_MAX_DEPTH", "10", "deepest GraphQL field nesting"},
		{"graphql-max-cost", "MOLGRAPH_GRAPHQL_MAX_COST", "10000", "largest estimated GraphQL cost (fields, multiplied by page sizes)"},
		{"graphql-max-tokens", "MOLGRAPH_GRAPHQL_MAX_TOKENS", "10000", "most lexical tokens in a GraphQL query, checked while parsing; past it: 400 query_too_complex"},
		{"graphql-max-selections", "MOLGRAPH_GRAPHQL_MAX_SELECTIONS", "2000", "most selections in a GraphQL query (fragments counted where spread), checked before validation; past it: 400 query_too_complex"},
		{"chem-workers", "MOLGRAPH_CHEM_WORKERS", "0", "RDKit worker threads (0: one per CPU)"},
		{"procs-per-cpu", "MOLGRAPH_PROCS_PER_CPU", "2", "Go processors (GOMAXPROCS) per CPU once the server is wired (1-16; GOMAXPROCS in the environment wins): with more than one, a request's goroutine gets a processor while commits, Badger compactions, GC and the RDKit threads hold the others, and the kernel shares the CPUs"},
		{"chem-nice", "MOLGRAPH_CHEM_NICE", "10", "nice value of the RDKit worker threads (0-19; 0: the process's): batch chemistry yields the CPU to the threads serving requests"},
		{"chem-3d-max-heavy-atoms", "MOLGRAPH_CHEM_3D_MAX_HEAVY_ATOMS", "100", "most heavy atoms of a molecule given a 3D conformer; past it: 422 too_large_for_3d"},
		{"chem-3d-max-rotatable-bonds", "MOLGRAPH_CHEM_3D_MAX_ROTATABLE_BONDS", "30", "most rotatable bonds of a molecule given a 3D conformer; past it: 422 too_large_for_3d"},
		{"chem-3d-max-attempts", "MOLGRAPH_CHEM_3D_MAX_ATTEMPTS", "200", "ETKDG attempts per conformer (RDKit maxIterations); none succeeding: 2D coordinates and an embed_failed warning"},
		{"chem-3d-mmff-iters", "MOLGRAPH_CHEM_3D_MMFF_ITERS", "2000", "MMFF94 iterations per conformer (RDKit maxIters)"},
		{"chem-3d-timeout", "MOLGRAPH_CHEM_3D_TIMEOUT", "20s", "longest 3D embedding; past it the embedding is stopped: 503 embedding_timeout"},
		{"chem-3d-workers", "MOLGRAPH_CHEM_3D_WORKERS", "0", "3D embeddings at once, apart from the chem workers (0: one per CPU)"},
		{"chem-3d-mode", "MOLGRAPH_CHEM_3D_MODE", "process", "where embeddings run: process (helper processes, killed on cancel or timeout) or threads (in-process; RDKit cannot be stopped inside one ETKDG attempt)"},
		{"chem-3d-memory", "MOLGRAPH_CHEM_3D_MEMORY", "1GiB", "address space a 3D helper process may add to its own at start (RLIMIT_AS)"},
		{"chem-2d-max-heavy-atoms", "MOLGRAPH_CHEM_2D_MAX_HEAVY_ATOMS", "300", "most heavy atoms of a molecule whose 2D coordinates GET .../structure computes on request; past it: 422 too_large_for_2d"},
		{"job-workers", "MOLGRAPH_JOB_WORKERS", "1", "jobs of each class (batch uploads, docking) run at once; each class has its own pool, and a job uses all chem workers or vina processes"},
		{"rate-limit", "MOLGRAPH_RATE_LIMIT", strconv.FormatFloat(admission.DefaultLimits().Rate, 'f', -1, 64), "sustained requests per second of one API key (token bucket; 0: off); past it: 429 rate_limited"},
		{"rate-burst", "MOLGRAPH_RATE_BURST", strconv.Itoa(admission.DefaultLimits().Burst), "token bucket size per API key: requests a quiet key may send at once (0: two seconds' worth)"},
		{"max-in-flight", "MOLGRAPH_MAX_IN_FLIGHT", admission.FormatInFlight(admission.DefaultLimits().InFlight), "requests served at once per route class, CLASS=N,... (N=0: no cap); past it they wait up to --admission-wait, then: 503 busy"},
		{"admission-wait", "MOLGRAPH_ADMISSION_WAIT", admission.DefaultLimits().Wait.String(), "longest wait for a place in a full route class (0: none)"},
		{"max-jobs-per-key", "MOLGRAPH_MAX_JOBS_PER_KEY", "16", "queued or running jobs (batch, docking) of one API key (0: no cap); past it: 429 too_many_jobs"},
		{"max-jobs", "MOLGRAPH_MAX_JOBS", "256", "queued or running jobs of the whole service (0: no cap); past it: 429 too_many_jobs"},
		{"batch-max-records", "MOLGRAPH_BATCH_MAX_RECORDS", "100000", "most records in one batch upload; past it: 413 batch_too_large"},
		{"tmp-dir", "MOLGRAPH_TMP_DIR", "", "working directories of vina and obabel runs (default <data-dir>/tmp); what dead processes left there is removed at start"},
		{"batch-max-upload-bytes", "MOLGRAPH_BATCH_MAX_UPLOAD_BYTES", "512MiB", "largest batch upload file after gunzip, counted while reading; past it: 413 upload_too_large"},
		{"batch-max-spool-bytes", "MOLGRAPH_BATCH_MAX_SPOOL_BYTES", "576MiB", "largest spool (the upload's records as JSON lines) written to the data directory; past it: 413 upload_too_large"},
		{"batch-max-smiles-line", "MOLGRAPH_BATCH_MAX_SMILES_LINE", "64KiB", "longest line of a SMILES or InChI batch file; past it the upload is refused: 413 record_too_large"},
		{"batch-max-sd-record", "MOLGRAPH_BATCH_MAX_SD_RECORD", "1MiB", "largest record of an SD batch file; past it the upload is refused: 413 record_too_large"},
		{"vina-workers", "MOLGRAPH_VINA_WORKERS", "0", "vina processes of one docking job at once (0: one per CPU)"},
		{"vina-timeout", "MOLGRAPH_VINA_TIMEOUT", "30m", "longest vina run for one ligand; past it the ligand fails (time limit exceeded) and the job goes on"},
		{"log-level", "MOLGRAPH_LOG_LEVEL", "info", "debug, info, warn or error"},
		{"log-format", "MOLGRAPH_LOG_FORMAT", "json", "json or text (logs go to stderr)"},
	}, natsServeOptions()...)
}

// settings are parsed option values, by flag name.
type settings struct {
	vals map[string]string
	src  map[string]string // where each value came from, for error messages
}

// parseOptions parses args against opts: flag value, else environment
// variable, else default. It returns the remaining positional arguments.
func parseOptions(name string, opts []option, extra func(*flag.FlagSet), args []string, stderr io.Writer, getenv env) (settings, []string, error) {
	fs := flag.NewFlagSet("molgraph "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	ptrs := map[string]*string{}
	for _, o := range opts {
		ptrs[o.flag] = fs.String(o.flag, o.def, fmt.Sprintf("%s (env %s)", o.help, o.env))
	}
	if extra != nil {
		extra(fs)
	}
	// Flags may come before and after positional arguments.
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return settings{}, nil, errHelp
			}
			return settings{}, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	s := settings{vals: map[string]string{}, src: map[string]string{}}
	for _, o := range opts {
		v, src := *ptrs[o.flag], "flag --"+o.flag
		if !set[o.flag] {
			if ev, ok := getenv(o.env); ok && ev != "" {
				v, src = ev, o.env
			} else {
				src = "default of --" + o.flag
			}
		}
		s.vals[o.flag], s.src[o.flag] = v, src
	}
	return s, rest, nil
}

func (s settings) str(name string) string { return s.vals[name] }

// apiKey is --key, else the bootstrap key in the data directory ("" if
// neither).
func (s settings) apiKey() string {
	if key := s.str("key"); key != "" {
		return key
	}
	if b, err := os.ReadFile(filepath.Join(s.str("data-dir"), "bootstrap-key")); err == nil {
		return strings.TrimSpace(string(b))
	}
	return ""
}

func (s settings) bytes(name string) (int64, error) {
	n, err := humanize.ParseBytes(s.vals[name])
	if err != nil || n == 0 || n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %s: %q is not a positive size such as 64MiB", errUsage, s.src[name], s.vals[name])
	}
	return int64(n), nil
}

func (s settings) duration(name string) (time.Duration, error) {
	d, err := time.ParseDuration(s.vals[name])
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: %s: %q is not a positive duration such as 30s", errUsage, s.src[name], s.vals[name])
	}
	return d, nil
}

func (s settings) positiveInt(name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s.vals[name]))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s: %q is not a positive integer", errUsage, s.src[name], s.vals[name])
	}
	return n, nil
}

func (s settings) nonNegativeInt(name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s.vals[name]))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s: %q is not an integer >= 0", errUsage, s.src[name], s.vals[name])
	}
	return n, nil
}

// admissionLimits are the token buckets and class caps of the config.
func (c serveConfig) admissionLimits() admission.Limits {
	inFlight, _ := admission.ParseInFlight(c.maxInFlight, nil) // checked by loadServeConfig
	return admission.Limits{Rate: c.rateLimit, Burst: c.rateBurst, InFlight: inFlight, Wait: c.admissionWait}
}

func (s settings) boolean(name string) (bool, error) {
	switch strings.ToLower(s.vals[name]) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off", "":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s: %q is not a boolean", errUsage, s.src[name], s.vals[name])
}

func (s settings) oneOf(name string, allowed ...string) (string, error) {
	v := strings.ToLower(s.vals[name])
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("%w: %s: %q is not one of %s", errUsage, s.src[name], s.vals[name], strings.Join(allowed, ", "))
}

// serveConfig is the typed configuration of "serve".
type serveConfig struct {
	addr, dataDir, baseIRI, store  string
	syncWrites                     bool
	maxBody, maxJSONBody           int64
	readHeaderTimeout, readTimeout time.Duration
	writeTimeout, idleTimeout      time.Duration
	shutdownTimeout                time.Duration
	sparqlTimeout                  time.Duration
	structureSearch                bool
	searchTimeout                  time.Duration
	searchJobTimeout               time.Duration
	searchCacheMolecules           int
	sparqlMaxRows                  int
	sparqlMaxQuery                 int64
	sparqlMaxLiteral               int64
	sparqlMaxMemory                int64
	sparqlHelpers                  int // -1: runtime.NumCPU()-1
	graphqlMaxDepth                int
	graphqlMaxCost                 int
	graphqlMaxTokens               int
	graphqlMaxSelections           int
	chemWorkers, jobWorkers        int
	chemNice                       int
	procsPerCPU                    int
	chem3D                         chem3DConfig
	batchMaxRecords                int
	rateLimit                      float64
	rateBurst                      int
	maxInFlight                    string // CLASS=N,... (admission.ParseInFlight)
	admissionWait                  time.Duration
	maxJobsPerKey, maxJobs         int
	minFreeDisk                    int64
	columnsMaxTriples              int
	blobGCInterval, blobGCGrace    time.Duration
	uploads                        handlers.UploadLimits
	logLevel                       slog.Level
	logFormat                      string
	apiKey                         string // MOLGRAPH_API_KEY, env only
	tmpDir                         string
	vinaWorkers                    int
	vinaTimeout                    time.Duration
	nats                           natsConfig // --queue and the NATS options (nats.go)
}

func loadServeConfig(args []string, stderr io.Writer, getenv env) (serveConfig, error) {
	s, rest, err := parseOptions("serve", serveOptions(), nil, args, stderr, getenv)
	if err != nil {
		return serveConfig{}, err
	}
	if len(rest) > 0 {
		return serveConfig{}, fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	}
	c := serveConfig{addr: s.str("addr"), dataDir: s.str("data-dir"), baseIRI: s.str("base-iri")}
	c.apiKey, _ = getenv("MOLGRAPH_API_KEY")
	if c.dataDir == "" {
		return c, fmt.Errorf("%w: %s is empty", errUsage, s.src["data-dir"])
	}
	if u, err := url.Parse(c.baseIRI); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("%w: %s: %q is not an absolute http(s) URL", errUsage, s.src["base-iri"], c.baseIRI)
	}
	if c.tmpDir = s.str("tmp-dir"); c.tmpDir == "" {
		c.tmpDir = filepath.Join(c.dataDir, "tmp")
	}
	if !strings.HasSuffix(c.baseIRI, "/") {
		c.baseIRI += "/"
	}
	var errs []error
	collect := func(err error) { errs = append(errs, err) }
	var e error
	c.store, e = s.oneOf("store", "badger", "memory")
	collect(e)
	c.syncWrites, e = s.boolean("sync-writes")
	collect(e)
	c.maxBody, e = s.bytes("max-body")
	collect(e)
	c.maxJSONBody, e = s.bytes("max-json-body")
	collect(e)
	c.readHeaderTimeout, e = s.duration("read-header-timeout")
	collect(e)
	c.readTimeout, e = s.duration("read-timeout")
	collect(e)
	c.writeTimeout, e = s.duration("write-timeout")
	collect(e)
	c.idleTimeout, e = s.duration("idle-timeout")
	collect(e)
	c.shutdownTimeout, e = s.duration("shutdown-timeout")
	collect(e)
	c.sparqlTimeout, e = s.duration("sparql-timeout")
	collect(e)
	c.structureSearch, e = s.boolean("structure-search")
	collect(e)
	c.searchTimeout, e = s.duration("search-timeout")
	collect(e)
	c.searchJobTimeout, e = s.duration("search-job-timeout")
	collect(e)
	c.searchCacheMolecules, e = s.nonNegativeInt("search-cache-molecules")
	collect(e)
	c.sparqlMaxRows, e = s.positiveInt("sparql-max-rows")
	collect(e)
	c.sparqlMaxQuery, e = s.bytes("sparql-max-query")
	collect(e)
	c.sparqlMaxLiteral, e = s.bytes("sparql-max-literal")
	collect(e)
	c.sparqlMaxMemory, e = s.bytes("sparql-max-memory")
	collect(e)
	if c.sparqlHelpers, e = strconv.Atoi(strings.TrimSpace(s.str("sparql-helpers"))); e != nil || c.sparqlHelpers < -1 {
		collect(fmt.Errorf("%w: %s: %q is not an integer >= -1", errUsage, s.src["sparql-helpers"], s.str("sparql-helpers")))
	}
	c.graphqlMaxDepth, e = s.positiveInt("graphql-max-depth")
	collect(e)
	c.graphqlMaxCost, e = s.positiveInt("graphql-max-cost")
	collect(e)
	c.graphqlMaxTokens, e = s.positiveInt("graphql-max-tokens")
	collect(e)
	c.graphqlMaxSelections, e = s.positiveInt("graphql-max-selections")
	collect(e)
	if c.chemNice, e = strconv.Atoi(strings.TrimSpace(s.str("chem-nice"))); e != nil || c.chemNice < 0 || c.chemNice > 19 {
		collect(fmt.Errorf("%w: %s: %q is not a nice value 0-19", errUsage, s.src["chem-nice"], s.str("chem-nice")))
	}
	if c.chemWorkers, e = strconv.Atoi(strings.TrimSpace(s.str("chem-workers"))); e != nil || c.chemWorkers < 0 {
		collect(fmt.Errorf("%w: %s: %q is not a number of threads", errUsage, s.src["chem-workers"], s.str("chem-workers")))
	}
	if c.procsPerCPU, e = strconv.Atoi(strings.TrimSpace(s.str("procs-per-cpu"))); e != nil || c.procsPerCPU < 1 || c.procsPerCPU > 16 {
		collect(fmt.Errorf("%w: %s: %q is not a number 1-16", errUsage, s.src["procs-per-cpu"], s.str("procs-per-cpu")))
	}
	c.chem3D, e = loadChem3D(s)
	collect(e)
	c.jobWorkers, e = s.positiveInt("job-workers")
	collect(e)
	c.batchMaxRecords, e = s.positiveInt("batch-max-records")
	collect(e)
	if c.rateLimit, e = strconv.ParseFloat(strings.TrimSpace(s.str("rate-limit")), 64); e != nil || c.rateLimit < 0 || math.IsInf(c.rateLimit, 0) || math.IsNaN(c.rateLimit) {
		collect(fmt.Errorf("%w: %s: %q is not a rate >= 0 (requests per second)", errUsage, s.src["rate-limit"], s.str("rate-limit")))
	}
	c.rateBurst, e = s.nonNegativeInt("rate-burst")
	collect(e)
	c.maxInFlight = s.str("max-in-flight")
	if _, e := admission.ParseInFlight(c.maxInFlight, nil); e != nil {
		collect(fmt.Errorf("%w: %s: %v", errUsage, s.src["max-in-flight"], e))
	}
	if c.admissionWait, e = time.ParseDuration(strings.TrimSpace(s.str("admission-wait"))); e != nil || c.admissionWait < 0 {
		collect(fmt.Errorf("%w: %s: %q is not a duration >= 0 such as 2s", errUsage, s.src["admission-wait"], s.str("admission-wait")))
	}
	c.vinaWorkers, e = s.nonNegativeInt("vina-workers")
	collect(e)
	c.vinaTimeout, e = s.duration("vina-timeout")
	collect(e)
	c.maxJobsPerKey, e = s.nonNegativeInt("max-jobs-per-key")
	collect(e)
	c.maxJobs, e = s.nonNegativeInt("max-jobs")
	collect(e)
	c.columnsMaxTriples, e = s.nonNegativeInt("columns-max-triples")
	collect(e)
	if c.minFreeDisk, e = s.bytes("min-free-disk"); e != nil && strings.TrimSpace(s.str("min-free-disk")) == "0" {
		c.minFreeDisk, e = 0, nil // no reserve
	}
	collect(e)
	c.blobGCInterval, e = s.duration("blob-gc-interval")
	collect(e)
	c.blobGCGrace, e = s.duration("blob-gc-grace")
	collect(e)
	c.uploads.MaxDecompressedBytes, e = s.bytes("batch-max-upload-bytes")
	collect(e)
	c.uploads.MaxSpoolBytes, e = s.bytes("batch-max-spool-bytes")
	collect(e)
	var n int64
	n, e = s.bytes("batch-max-smiles-line")
	c.uploads.MaxSMILESLineBytes = int(n)
	collect(e)
	n, e = s.bytes("batch-max-sd-record")
	c.uploads.MaxSDRecordBytes = int(n)
	collect(e)
	c.logFormat, e = s.oneOf("log-format", "json", "text")
	collect(e)
	c.nats, e = loadNATS(s, true)
	collect(e)
	if err := c.logLevel.UnmarshalText([]byte(s.str("log-level"))); err != nil {
		collect(fmt.Errorf("%w: %s: %q is not one of debug, info, warn, error", errUsage, s.src["log-level"], s.str("log-level")))
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	if c.maxJSONBody > c.maxBody {
		return c, fmt.Errorf("%w: max-json-body (%d) exceeds max-body (%d)", errUsage, c.maxJSONBody, c.maxBody)
	}
	return c, nil
}

// chem3DConfig bounds 3D embedding (chem.EmbedOptions).
type chem3DConfig struct {
	maxHeavyAtoms, maxRotatableBonds int
	maxAttempts, mmffIters, workers  int
	timeout                          time.Duration
	mode                             string // "process" or "threads"
	memory                           int64
	max2DHeavyAtoms                  int
}

func loadChem3D(s settings) (chem3DConfig, error) {
	var c chem3DConfig
	var errs []error
	collect := func(err error) { errs = append(errs, err) }
	var e error
	c.maxHeavyAtoms, e = s.positiveInt("chem-3d-max-heavy-atoms")
	collect(e)
	c.maxRotatableBonds, e = s.positiveInt("chem-3d-max-rotatable-bonds")
	collect(e)
	c.maxAttempts, e = s.positiveInt("chem-3d-max-attempts")
	collect(e)
	c.mmffIters, e = s.positiveInt("chem-3d-mmff-iters")
	collect(e)
	c.timeout, e = s.duration("chem-3d-timeout")
	collect(e)
	if c.workers, e = strconv.Atoi(strings.TrimSpace(s.str("chem-3d-workers"))); e != nil || c.workers < 0 {
		collect(fmt.Errorf("%w: %s: %q is not a number of embeddings", errUsage, s.src["chem-3d-workers"], s.str("chem-3d-workers")))
	}
	c.mode, e = s.oneOf("chem-3d-mode", "process", "threads")
	collect(e)
	c.memory, e = s.bytes("chem-3d-memory")
	collect(e)
	c.max2DHeavyAtoms, e = s.positiveInt("chem-2d-max-heavy-atoms")
	collect(e)
	return c, errors.Join(errs...)
}

func newLogger(w io.Writer, c serveConfig) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.logLevel}
	if c.logFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
