package handlers

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/queries/sparql"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus collectors, in a registry of its own
// (no global default registry).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	// rejections counts admission refusals (429 and 503) by reason and
	// route class.
	rejections *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "molgraph_http_requests_total",
			Help: "HTTP requests by method, route pattern and status code.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "molgraph_http_request_duration_seconds",
			Help:    "HTTP request latency by method and route pattern.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "molgraph_http_requests_in_flight",
			Help: "HTTP requests being served.",
		}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "molgraph_admission_rejections_total",
			Help: "Requests refused by admission control, by reason (rate: 429 rate_limited; jobs_per_key, jobs_total: 429 too_many_jobs; class_full, wait_timeout, key_share: 503 busy) and route class.",
		}, []string{"reason", "class"}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.inFlight, m.rejections,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	switch method { // bound the label: clients may send any token
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "other"
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(d.Seconds())
}

// limit is one configured limit as /metrics reports it.
type limit struct {
	name, help string
	labels     prometheus.Labels
	value      float64
}

// limits lists the server's limits (0 where a limit is off): the gauges
// molgraph_limit_* of /metrics and the x-molgraph-limits of the OpenAPI
// document. Add a limit here and both show it.
func (s *Server) limits() []limit {
	q, gl := s.cfg.Query.withDefaults(), s.cfg.GraphQL.withDefaults()
	out := []limit{
		{name: "body_bytes", help: "Largest request body (413 body_too_large).", value: float64(s.cfg.MaxBodyBytes)},
		{name: "json_body_bytes", help: "Largest JSON request body (413 body_too_large).", value: float64(s.cfg.MaxJSONBytes)},
		{name: "sparql_timeout_seconds", help: "Longest SPARQL query (503 query_timeout).", value: q.SPARQLTimeout.Seconds()},
		{name: "sparql_max_rows", help: "Most solutions or triples of one SPARQL answer (400 row_limit_exceeded).", value: float64(q.SPARQLMaxRows)},
		{name: "sparql_max_query_bytes", help: "Longest SPARQL query text (413).", value: float64(q.SPARQLMaxQuery)},
		{name: "sparql_max_depth", help: "Deepest SPARQL nesting (400 malformed_query).", value: float64(sparql.MaxDepth)},
		{name: "sparql_max_patterns", help: "Most triple patterns and graph-pattern operators in one SPARQL query (400 malformed_query).", value: float64(sparql.MaxPatterns)},
		{name: "sparql_max_memory_bytes", help: "Memory budget of one SPARQL query's tables (400 query_memory_exceeded).", value: float64(sparqlMaxMemory(q.SPARQLMaxMemory))},
		{name: "sparql_max_literal_bytes", help: "Longest literal a SPARQL function or GROUP_CONCAT may build (longer: unbound).", value: float64(sparqlMaxLiteral(q.SPARQLMaxLiteral))},
		{name: "graphql_max_depth", help: "Deepest GraphQL selection nesting (400).", value: float64(q.GraphQLMaxDepth)},
		{name: "graphql_max_cost", help: "Largest estimated GraphQL cost (400).", value: float64(q.GraphQLMaxCost)},
		{name: "graphql_max_tokens", help: "Most lexical tokens of a GraphQL query (400 query_too_complex).", value: float64(gl.MaxTokens)},
		{name: "graphql_max_selections", help: "Most selections of a GraphQL query, fragments counted where spread (400 query_too_complex).", value: float64(gl.MaxSelections)},
		{name: "graphql_max_fields_per_name", help: "Most GraphQL fields under one response name in one selection (400 query_too_complex).", value: float64(gl.MaxFieldsPerName)},
		{name: "graphql_max_fragment_spreads", help: "Most distinct GraphQL fragments spread into one selection (400 query_too_complex).", value: float64(gl.MaxFragmentSpreads)},
		{name: "json_max_depth", help: "Deepest nesting of a JSON request body (400 invalid_request).", value: MaxJSONDepth},
		{name: "chem_max_path_work", help: "Most work enumerating a molecule's or query's paths of up to 5 bonds (sum of their end atoms' degrees): " +
			"a graph bonded more densely is 422 invalid_molecule (invalid_query for a search query).", value: chem.MaxPathWork},
		{name: "search_query_max_nesting", help: "Deepest parenthesis nesting of a SMILES or SMARTS search query (422 invalid_query).", value: chem.MaxQueryNesting},
	}
	out = append(out,
		limit{name: "receptor_min_ph", help: "Lowest ph of a receptor upload (400 invalid_request naming ph).", value: docking.MinPH},
		limit{name: "receptor_max_ph", help: "Highest ph of a receptor upload (400 invalid_request naming ph).", value: docking.MaxPH},
		limit{name: "receptor_max_prepared_atoms", help: "Most atoms of a PDB receptor upload left to prepare after waters and hetero groups go (422 invalid_receptor; a PDBQT may have receptor_max_atoms).",
			value: docking.MaxPreparedAtoms},
		limit{name: "receptor_max_atoms", help: "Most atoms of a receptor (422 invalid_receptor).", value: docking.MaxReceptorAtoms},
		limit{name: "docking_max_box_edge", help: "Longest edge of a docking box, Å (400 invalid_request naming box).", value: docking.MaxBoxSize},
		limit{name: "docking_max_box_volume", help: "Largest docking box volume, Å³ (400 invalid_request naming box; vina's memory grows with it).", value: docking.MaxBoxVolume})
	if s.cfg.Molecules.MaxBatchRecords > 0 {
		out = append(out, limit{name: "batch_max_records", help: "Most records in one batch upload (413 batch_too_large).",
			value: float64(s.cfg.Molecules.MaxBatchRecords)})
	}
	if t := s.cfg.Docking.Task; t != nil {
		o := t.Options()
		out = append(out,
			limit{name: "vina_workers", help: "Vina processes of one docking job at once.", value: float64(o.Workers)},
			limit{name: "vina_ligand_timeout_seconds", help: "Longest vina run for one ligand; past it the ligand fails (time limit exceeded).",
				value: o.LigandTimeout.Seconds()})
		out = append(out, rescoreLimits()...)
	}
	if reg := s.cfg.Molecules.Registry; reg != nil && reg.Pool() != nil {
		e := reg.Pool().EmbedLimits()
		out = append(out,
			limit{name: "3d_max_heavy_atoms", help: "Most heavy atoms of a molecule given a 3D conformer (422 too_large_for_3d).", value: float64(e.MaxHeavyAtoms)},
			limit{name: "3d_max_rotatable_bonds", help: "Most rotatable bonds of a molecule given a 3D conformer (422 too_large_for_3d).", value: float64(e.MaxRotatableBonds)},
			limit{name: "3d_max_attempts", help: "ETKDG attempts per conformer (RDKit maxIterations); none succeeding: embed_failed warning.", value: float64(e.MaxAttempts)},
			limit{name: "3d_mmff_max_iters", help: "MMFF94 iterations per conformer (RDKit maxIters).", value: float64(e.MMFFMaxIters)},
			limit{name: "3d_timeout_seconds", help: "Longest 3D embedding; past it the embedding is stopped (503 embedding_timeout).", value: e.Timeout.Seconds()},
			limit{name: "3d_workers", help: "3D embeddings at once, apart from the registration workers.", value: float64(e.Workers)},
			limit{name: "2d_max_heavy_atoms", help: "Most heavy atoms of a molecule whose 2D coordinates GET .../structure computes (422 too_large_for_2d).",
				value: float64(reg.Pool().Max2DHeavyAtoms())})
		out = append(out, depictLimits()...)
	}
	var al admission.Limits
	if s.cfg.Admission != nil {
		al = s.cfg.Admission.Limits()
	}
	out = append(out,
		limit{name: "rate_per_key_per_second", help: "Sustained requests per second of one API key (429 rate_limited; 0: off).", value: al.Rate},
		limit{name: "rate_burst_per_key", help: "Token bucket size of one API key: requests a quiet key may send at once.", value: float64(al.Burst)},
		limit{name: "admission_wait_seconds", help: "Longest wait for a place in a full route class before 503 busy.", value: al.Wait.Seconds()},
	)
	for _, c := range admission.Capped() {
		n := al.InFlight[c]
		out = append(out,
			limit{name: "in_flight", help: "Requests of a route class served at once (0: no cap); past it they wait (503 busy).",
				labels: prometheus.Labels{"class": string(c)}, value: float64(n)},
			limit{name: "waiting", help: "Requests of a route class that may wait for a place; past it 503 busy at once.",
				labels: prometheus.Labels{"class": string(c)}, value: float64(admission.WaitingFactor * n)},
			limit{name: "in_flight_per_key", help: "Places of a route class one API key may hold (half the class's, rounded up); past it the key's requests wait, then 503 busy.",
				labels: prometheus.Labels{"class": string(c)}, value: float64(admission.KeyShare(n))})
	}
	for _, runner := range s.runners() {
		jl := runner.Limits()
		out = append(out,
			limit{name: "jobs_unfinished_per_key", help: "Queued or running jobs of one API key (429 too_many_jobs; 0: no cap).", value: float64(jl.MaxUnfinishedPerOwner)},
			limit{name: "jobs_unfinished", help: "Queued or running jobs of the whole service (429 too_many_jobs; 0: no cap).", value: float64(jl.MaxUnfinished)})
		for _, c := range slices.Sorted(maps.Keys(jl.Workers)) {
			out = append(out, limit{name: "job_workers", help: "Jobs of one class run at once (each class has its own pool).",
				labels: prometheus.Labels{"class": classLabel(c)}, value: float64(jl.Workers[c])})
		}
	}
	return out
}

// runners are the distinct job runners the server submits to.
func (s *Server) runners() []*jobs.Runner {
	var out []*jobs.Runner
	for _, r := range []*jobs.Runner{s.cfg.Molecules.Jobs, s.cfg.Docking.Jobs} {
		if r != nil && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// classLabel is the local name of a job class IRI (BatchUploadJob).
func classLabel(c quad.IRI) string {
	s := string(c)
	return s[strings.LastIndexAny(s, "#/")+1:]
}

// registerLimits adds the limits (constant gauges molgraph_limit_<name>)
// and the admission state (requests in flight and waiting per route class,
// jobs queued and running per job class, read at each scrape).
func (m *metrics) registerLimits(s *Server) {
	for _, l := range s.limits() {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "molgraph_limit_" + l.name, Help: l.help, ConstLabels: l.labels})
		g.Set(l.value)
		m.reg.MustRegister(g)
	}
	if c := s.cfg.Admission; c != nil {
		for _, cl := range admission.Capped() {
			labels := prometheus.Labels{"class": string(cl)}
			m.reg.MustRegister(
				prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_admission_in_flight",
					Help: "Requests of a route class holding a place now.", ConstLabels: labels},
					func() float64 { return float64(c.InFlight(cl)) }),
				prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_admission_waiting",
					Help: "Requests of a route class waiting for a place now.", ConstLabels: labels},
					func() float64 { return float64(c.Waiting(cl)) }))
		}
	}
	if reg := s.cfg.Molecules.Registry; reg != nil && reg.Pool() != nil {
		pool := reg.Pool()
		for outcome, get := range map[string]func(chem.EmbedStats) int64{
			"embedded": func(e chem.EmbedStats) int64 { return e.Embedded }, "failed": func(e chem.EmbedStats) int64 { return e.Failed },
			"refused": func(e chem.EmbedStats) int64 { return e.Refused }, "timed_out": func(e chem.EmbedStats) int64 { return e.TimedOut },
			"cancelled": func(e chem.EmbedStats) int64 { return e.Cancelled },
		} {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "molgraph_chem_3d_embeddings_total",
				Help: "3D embeddings by outcome (refused: over the 3D budget, nothing computed).", ConstLabels: prometheus.Labels{"outcome": outcome}},
				func() float64 { return float64(get(pool.EmbedStats())) }))
		}
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_chem_3d_running", Help: "3D embeddings running now."},
			func() float64 { return float64(pool.EmbedStats().Running) }))
	}
	for _, runner := range s.runners() {
		for class := range runner.Limits().Workers {
			labels := prometheus.Labels{"class": classLabel(class)}
			m.reg.MustRegister(
				prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_jobs_queued",
					Help: "Jobs of a class waiting for a worker of their pool.", ConstLabels: labels},
					func() float64 { return float64(runner.Stats()[class].Queued) }),
				prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "molgraph_jobs_running",
					Help: "Jobs of a class running now.", ConstLabels: labels},
					func() float64 { return float64(runner.Stats()[class].Running) }))
		}
	}
}
