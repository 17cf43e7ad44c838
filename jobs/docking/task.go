package docking

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// JobIDPrefix starts every docking job id.
const JobIDPrefix = "dock"

// MaxLigands bounds the ligands of one job. It was 10,000 (API.md) until
// results were paged from the results index (index.go); what bounds it now
// is the job's inputs graph and record (one mg:ligand and one prov:used
// quad per ligand, the record's ligand list: about 25 MB of quads and
// 10 MB of record for 100,000 ligands, read when the job starts, resumes
// and on each status or results request) and the committer's map of
// ligand ids (about 10 MB).
const MaxLigands = 100_000

// Errors of docking job submission, wrapped with the operation.
var (
	// ErrInvalidRequest: a request outside the bounds of API.md (no
	// ligands, duplicates, a bad pocket value or box, parameters).
	ErrInvalidRequest = errors.New("invalid docking request")
	// ErrUnknownReceptor: no receptor with that id.
	ErrUnknownReceptor = errors.New("unknown receptor")
	// ErrUnknownLigands: molecule ids that are not registered (see
	// UnknownLigandsError for the list).
	ErrUnknownLigands = errors.New("unknown ligands")
	// ErrNoPocket: the pocket asked for does not exist on the receptor.
	ErrNoPocket = errors.New("no such pocket")
	// ErrBoxOutsideReceptor: a box that holds no atom of the receptor
	// (vina would "dock" into empty space and report scores near 0).
	ErrBoxOutsideReceptor = errors.New("box holds no receptor atom")
)

// checkBoxOnReceptor refuses a box without a heavy atom of the receptor
// in it.
func (t *Task) checkBoxOnReceptor(ctx context.Context, recIRI quad.IRI, box dk.Box) error {
	_, data, err := t.receptorPDBQT(ctx, recIRI)
	if err != nil {
		return err
	}
	m, err := dk.CheckReceptorPDBQT(data)
	if err != nil {
		return err
	}
	for _, a := range m.Atoms {
		if a.Type != "HD" && a.Type != "H" && box.Contains(a.X, a.Y, a.Z) {
			return nil
		}
	}
	return fmt.Errorf("%w: box centre %v, size %v", ErrBoxOutsideReceptor, box.Center, box.Size)
}

// UnknownLigandsError names the ligand ids that are not registered; it
// matches ErrUnknownLigands.
type UnknownLigandsError struct{ IDs []string }

func (e *UnknownLigandsError) Error() string {
	return fmt.Sprintf("%v: %s", ErrUnknownLigands, strings.Join(e.IDs, ", "))
}

// Unwrap returns ErrUnknownLigands.
func (e *UnknownLigandsError) Unwrap() error { return ErrUnknownLigands }

// Options tune a Task.
type Options struct {
	// Workers is the number of concurrent vina processes of one job (0:
	// NumCPU).
	Workers int
	// LigandTimeout bounds one ligand's vina run; past it the ligand
	// fails with docking.ErrTimeout (0: docking.DefaultLigandTimeout).
	LigandTimeout time.Duration
	// MaxCommitQuads bounds one commit of outcomes (default 20000, the
	// runner's default; give the runner's jobs.Options.MaxCommitQuads).
	MaxCommitQuads int
	// Queue, when set, carries the ligands to workers (`--queue nats`)
	// instead of docking them in this process; Inputs holds the
	// receptors, Engine is the executors' fingerprint, Stall the time
	// without an outcome after which every pending ligand is enqueued
	// again (default 3 minutes). See runQueued.
	Queue  queue.Queue
	Inputs queue.Inputs
	Engine string
	Stall  time.Duration
	Logger *slog.Logger
}

// Task runs docking jobs; it implements jobs.Task.
type Task struct {
	store *graph.Store
	reg   *batch.Registry
	vina  *dk.Vina
	base  string
	opt   Options

	cacheMu sync.Mutex
	cache   []cachedResults // oldest first

	stats  commitStats
	stages work.StageStats // of the local path's executor
}

// NewTask returns the docking task: molecules come from reg, receptors and
// results live in store (the registry's store), vina docks.
func NewTask(reg *batch.Registry, vina *dk.Vina, opt Options) *Task {
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.MaxCommitQuads <= 0 {
		opt.MaxCommitQuads = 20000
	}
	if opt.Stall <= 0 {
		opt.Stall = 3 * time.Minute
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Task{store: reg.Store(), reg: reg, vina: vina, base: reg.Base(), opt: opt}
}

// Options are the task's options, defaults filled in (LigandTimeout 0
// is docking.DefaultLigandTimeout).
func (t *Task) Options() Options {
	o := t.opt
	if o.LigandTimeout == 0 {
		o.LigandTimeout = dk.DefaultLigandTimeout
	}
	return o
}

// Stages says where the time of the ligands docked in this process went
// (the local path; queued units count in their worker): for /metrics.
func (t *Task) Stages() work.Stages { return t.stages.Snapshot() }

// Class is mg:DockingJob.
func (t *Task) Class() quad.IRI { return ontology.DockingJobClass }

// Vina is the engine the task runs.
func (t *Task) Vina() *dk.Vina { return t.vina }

// JobIRI, InputsIRI and ResultIRI name a job's graphs.
func (t *Task) JobIRI(id string) quad.IRI {
	return ontology.ResourceIRI(t.base, ontology.KindDockingJob, id)
}

// InputsIRI is the inputs graph of job j.
func InputsIRI(j quad.IRI) quad.IRI { return quad.IRI(string(j) + "/inputs") }

// ResultIRI is the result node of one ligand (molecule id) of job j: its
// poses are ResultIRI#mode-N, a failure is ResultIRI#failure.
func ResultIRI(j quad.IRI, ligand string) quad.IRI { return quad.IRI(string(j) + "/ligand/" + ligand) }

// ResultsPerGraph is how many ligands share one results graph: ligand i
// (in the job's ligand order) is in graph i / ResultsPerGraph, so listing a
// job's results reads one graph per ResultsPerGraph ligands instead of one
// per ligand, and a graph (rewritten whole by each commit) stays below a
// commit's quad limit (20,000): a pose is 15 quads, up to 16 for its
// checks and verdict, plus one per interaction fingerprint entry
// (docking/interact; 10-20 for a drug-like ligand), so 12 ligands x 20
// modes x (15 + 16 + 30) = 14,640 quads plus the residue nodes and the
// stereoisomer nodes (8 quads each, at most 8 per ligand: 768). It was 32
// before poses carried interactions and checks, then 16; a job resumed
// across such a change puts its remaining ligands in graph
// i / ResultsPerGraph, next to older outcomes, which reading collects all
// the same.
const ResultsPerGraph = 12

// ResultsIRI is results graph k of job j.
func ResultsIRI(j quad.IRI, k int) quad.IRI {
	return quad.IRI(string(j) + "/results/" + strconv.Itoa(k))
}

// LigandResult is one ligand's outcome in a job: its poses (by mode) or its
// failure.
type LigandResult struct {
	Ligand  string // molecule id
	Poses   []ontology.DockingPoseRecord
	Failure *ontology.DockingFailure
	// Isomers are the stereoisomers docked (by index; Poses[i].Isomer
	// names the one the poses are); none in results of older versions.
	Isomers []ontology.DockingIsomer
}

// splitResults groups the quads of a results graph of job j by ligand id:
// the quads of the ligand's result nodes and of the pose files they point
// to.
func splitResults(j quad.IRI, qs []quad.Quad) map[string][]quad.Quad {
	prefix := string(j) + "/ligand/"
	owner := map[quad.Value]string{}
	residues := map[quad.Value]bool{} // shared by the ligands of the graph
	for _, q := range qs {
		s, ok := q.Subject.(quad.IRI)
		if !ok || !strings.HasPrefix(string(s), prefix) {
			continue
		}
		lig, _, ok := strings.Cut(string(s)[len(prefix):], "#")
		if !ok {
			continue
		}
		owner[s] = lig
		if q.Predicate == ontology.MGPoseFile {
			owner[q.Object] = lig
		}
		if ontology.IsInteractionPredicate(q.Predicate) {
			residues[q.Object] = true
		}
	}
	out := map[string][]quad.Quad{}
	var shared []quad.Quad
	for _, q := range qs {
		if lig, ok := owner[q.Subject]; ok {
			out[lig] = append(out[lig], q)
		} else if residues[q.Subject] {
			shared = append(shared, q)
		}
	}
	for lig := range out {
		out[lig] = append(out[lig], shared...)
	}
	return out
}

// readResults reads results graph g (nil if it does not exist yet) and
// decodes its ligands' results.
func (t *Task) readResults(ctx context.Context, j, g quad.IRI) (map[string]LigandResult, error) {
	return t.readSomeResults(ctx, j, g, nil)
}

// readSomeResults is readResults decoding only the ligands in only (all
// when nil): a page needs a few ligands of each graph it reads.
func (t *Task) readSomeResults(ctx context.Context, j, g quad.IRI, only map[string]bool) (map[string]LigandResult, error) {
	// Match, not Graph: the quads need no sorting here.
	var qs []quad.Quad
	err := t.store.Match(ctx, graph.Pattern{Label: g}, func(q quad.Quad) error {
		qs = append(qs, q)
		return nil
	})
	if err != nil || len(qs) == 0 {
		return nil, err
	}
	out := map[string]LigandResult{}
	for lig, lq := range splitResults(j, qs) {
		if only != nil && !only[lig] {
			continue
		}
		poses, failure, err := ontology.DockingResultFromQuads(lq)
		if err != nil {
			return nil, fmt.Errorf("docking job %s: ligand %s: %w", j, lig, err)
		}
		isomers, err := ontology.DockingIsomersFromQuads(lq)
		if err != nil {
			return nil, fmt.Errorf("docking job %s: ligand %s: %w", j, lig, err)
		}
		out[lig] = LigandResult{Ligand: lig, Poses: poses, Failure: failure, Isomers: isomers}
	}
	return out, nil
}

// resultsKey identifies a job's results at one moment: a ligand's outcome
// is committed with the counters and never changes after, so equal
// counters mean equal results.
type resultsKey struct {
	job              quad.IRI
	finished, failed int
}

// resultsCacheSize is how many jobs' results Results keeps, so that paging
// through a large job's results reads them once (at most about 15 MB per
// 10,000 ligands with 9 modes).
const resultsCacheSize = 4

// Results reads the results of every ligand of job rec that has one, in
// ligand order: one graph read per ResultsPerGraph ligands. The last few
// answers are cached under rec's counters. The caller must not modify
// the returned results.
func (t *Task) Results(ctx context.Context, rec ontology.DockingJobRecord) ([]LigandResult, error) {
	key := resultsKey{rec.IRI, rec.Progress.Finished, rec.Progress.Failed}
	t.cacheMu.Lock()
	for _, e := range t.cache {
		if e.key == key {
			t.cacheMu.Unlock()
			return e.results, nil
		}
	}
	t.cacheMu.Unlock()
	out, err := t.readAllResults(ctx, rec)
	if err != nil {
		return nil, err
	}
	t.cacheMu.Lock()
	defer t.cacheMu.Unlock()
	t.cache = append(t.cache, cachedResults{key, out})
	if len(t.cache) > resultsCacheSize {
		t.cache = slices.Delete(t.cache, 0, 1)
	}
	return out, nil
}

type cachedResults struct {
	key     resultsKey
	results []LigandResult
}

func (t *Task) readAllResults(ctx context.Context, rec ontology.DockingJobRecord) ([]LigandResult, error) {
	var out []LigandResult
	for k := 0; k*ResultsPerGraph < len(rec.Ligands); k++ {
		rs, err := t.readResults(ctx, rec.IRI, ResultsIRI(rec.IRI, k))
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b LigandResult) int { return strings.Compare(a.Ligand, b.Ligand) })
	return out, nil
}

// addResult returns results graph index/ResultsPerGraph of job j with the
// outcome of ligand (at position index in the job's ligand order) added,
// ready to commit. When the ligand already has an outcome it returns
// existed = true and the graph unchanged: the first outcome stays, so an
// outcome delivered twice (a redelivered unit, a replayed commit) is
// counted once.
func (t *Task) addResult(ctx context.Context, j quad.IRI, index int, ligand string, poses []ontology.DockingPoseRecord, failure *ontology.DockingFailure) (g graph.NamedGraph, existed bool, err error) {
	g.IRI = ResultsIRI(j, index/ResultsPerGraph)
	cur, err := t.store.Graph(ctx, g.IRI)
	if err != nil && !errors.Is(err, graph.ErrNotFound) {
		return graph.NamedGraph{}, false, err
	}
	if _, ok := splitResults(j, cur)[ligand]; ok {
		return graph.NamedGraph{IRI: g.IRI, Quads: cur}, true, nil
	}
	qs, err := ontology.DockingResultQuads(ResultIRI(j, ligand), j, poses, failure)
	if err != nil {
		return graph.NamedGraph{}, false, err
	}
	have := map[quad.Quad]bool{} // residue nodes other ligands already brought
	for _, q := range cur {
		if q.Predicate == ontology.MGResidueName || q.Predicate == ontology.MGResidueNumber || q.Predicate == ontology.MGChain ||
			q.Predicate == ontology.MGInsertionCode || q.Object == ontology.ResidueClass {
			have[quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}] = true
		}
	}
	out := cur
	for _, q := range qs {
		if !have[quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}] {
			out = append(out, q)
		}
	}
	return graph.NamedGraph{IRI: g.IRI, Quads: out}, false, nil
}

// Request is a docking job as submitted (API.md, POST /v1/docking/jobs).
type Request struct {
	Receptor string
	Ligands  []string
	Pocket   string  // "auto" (default), "pN" or "box"
	Box      *dk.Box // with Pocket "box"
	Params   dk.Params
	// LigandPH is the pH ligands are protonated at before docking
	// (chem.Protonate, the same default as receptors: docking.DefaultPH);
	// nil docks them as registered.
	LigandPH *float64
}

// NewJob validates req, resolves its pocket, stores the job's inputs graph
// and returns the job to give to jobs.Runner.Submit. Errors wrap
// ErrInvalidRequest, ErrUnknownReceptor, ErrUnknownLigands (an
// *UnknownLigandsError) or ErrNoPocket.
func (t *Task) NewJob(ctx context.Context, id string, req Request) (jobs.Job, error) {
	fail := func(err error) (jobs.Job, error) { return jobs.Job{}, fmt.Errorf("docking job: %w", err) }
	bad := func(format string, args ...any) (jobs.Job, error) {
		return fail(fmt.Errorf("%w: "+format, append([]any{ErrInvalidRequest}, args...)...))
	}
	if len(req.Ligands) < 1 || len(req.Ligands) > MaxLigands {
		return bad("ligands: %d ids, want 1 to %d", len(req.Ligands), MaxLigands)
	}
	seen := map[string]bool{}
	for _, l := range req.Ligands {
		if seen[l] {
			return bad("ligands: %q is listed twice", l)
		}
		seen[l] = true
	}
	p := req.Params.WithDefaults()
	if err := p.Validate(); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrInvalidRequest, err))
	}
	if req.LigandPH != nil && !dk.ValidPH(*req.LigandPH) {
		return bad("ligand_ph %v: want a pH in [%v, %v]", *req.LigandPH, dk.MinPH, dk.MaxPH)
	}
	if req.Pocket == "" {
		req.Pocket = "auto"
	}
	if !strings.HasPrefix(req.Receptor, "rec-") {
		return fail(fmt.Errorf("%w: %q", ErrUnknownReceptor, req.Receptor))
	}
	recIRI := ontology.ResourceIRI(t.base, ontology.KindReceptor, req.Receptor)
	rq, err := t.store.Graph(ctx, recIRI)
	if errors.Is(err, graph.ErrNotFound) {
		return fail(fmt.Errorf("%w: %s", ErrUnknownReceptor, req.Receptor))
	} else if err != nil {
		return fail(err)
	}
	rec, err := ontology.ReceptorFromQuads(rq)
	if err != nil {
		return fail(err)
	}
	var box dk.Box
	switch {
	case req.Pocket == "box":
		if req.Box == nil {
			return bad("pocket \"box\" needs a box {center, size}")
		}
		if err := req.Box.Validate(); err != nil {
			return fail(fmt.Errorf("%w: %w", ErrInvalidRequest, err))
		}
		box = *req.Box
		if err := t.checkBoxOnReceptor(ctx, recIRI, box); err != nil {
			return fail(err)
		}
	case req.Pocket == "auto" || strings.HasPrefix(req.Pocket, "p"):
		if req.Box != nil {
			return bad("a box is only allowed with pocket \"box\"")
		}
		want := req.Pocket
		if want == "auto" {
			want = "p1"
		}
		i := slices.IndexFunc(rec.Pockets, func(p ontology.ReceptorPocket) bool { return p.ID == want })
		if i < 0 {
			return fail(fmt.Errorf("%w: receptor %s has no pocket %q", ErrNoPocket, req.Receptor, want))
		}
		box = dk.Box{Center: rec.Pockets[i].Center, Size: rec.Pockets[i].Size}
	default:
		return bad("pocket %q: want auto, a pocket id (p1, p2, ...) or box", req.Pocket)
	}
	var unknown []string
	ligIRIs := make([]quad.IRI, 0, len(req.Ligands))
	for _, l := range req.Ligands {
		iri := t.reg.IRI(l)
		ok, err := t.store.HasGraph(ctx, iri)
		if err != nil {
			return fail(err)
		}
		if !ok || !strings.HasPrefix(l, "mol-") {
			unknown = append(unknown, l)
		}
		ligIRIs = append(ligIRIs, iri)
	}
	if len(unknown) > 0 {
		return fail(&UnknownLigandsError{IDs: unknown})
	}
	if p.Scoring == "" {
		p.Scoring = dk.ScoringVina // recorded: the job says which function scored it
	}
	settings := ontology.DockingSettings{PocketMethod: req.Pocket, Center: box.Center, Size: box.Size,
		Exhaustiveness: p.Exhaustiveness, NumModes: p.NumModes, EnergyRange: p.EnergyRange, Seed: p.Seed, Scoring: p.Scoring,
		LigandPH: req.LigandPH}
	props, err := propsOf(settings, ontology.DockingProgress{Total: len(req.Ligands)})
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrInvalidRequest, err))
	}
	job := jobs.Job{ID: id, IRI: t.JobIRI(id), Class: ontology.DockingJobClass, Props: props}
	agent := quad.IRI(t.base + "id/agent/vina-" + t.vina.Version())
	in := ontology.DockingInputsQuads(job.IRI, recIRI, ligIRIs, agent, t.vina.Name(), t.vina.Version())
	if err := t.store.PutGraph(ctx, InputsIRI(job.IRI), in); err != nil {
		return fail(err)
	}
	// The job's results index is complete: it has no results yet.
	if err := t.store.PutSide(ctx, []graph.SideEntry{markerEntry(job.IRI)}); err != nil {
		return fail(err)
	}
	return job, nil
}

func propsOf(s ontology.DockingSettings, p ontology.DockingProgress) ([]jobs.Prop, error) {
	st, err := ontology.DockingStatements(s, p)
	if err != nil {
		return nil, err
	}
	out := make([]jobs.Prop, len(st))
	for i, x := range st {
		out[i] = jobs.Prop{Predicate: x[0].(quad.IRI), Object: x[1]}
	}
	return out, nil
}

// jobGraph reads job id's graph (its IRI and quads; an error wrapping
// jobs.ErrNotFound when there is none).
func (t *Task) jobGraph(ctx context.Context, id string) (quad.IRI, []quad.Quad, error) {
	iri := t.JobIRI(id)
	qs, err := t.store.Graph(ctx, iri)
	if errors.Is(err, graph.ErrNotFound) {
		return iri, nil, fmt.Errorf("docking job %s: %w", id, jobs.ErrNotFound)
	}
	return iri, qs, err
}

// Record reads a docking job (job graph + inputs graph). Errors wrap
// jobs.ErrNotFound or ontology.ErrInvalidDockingRecord.
func (t *Task) Record(ctx context.Context, id string) (ontology.DockingJobRecord, error) {
	iri, qs, err := t.jobGraph(ctx, id)
	if err != nil {
		return ontology.DockingJobRecord{}, err
	}
	in, err := t.store.Graph(ctx, InputsIRI(iri))
	if err != nil && !errors.Is(err, graph.ErrNotFound) {
		return ontology.DockingJobRecord{}, err
	}
	return ontology.DockingJobFromQuads(append(qs, in...))
}

// RecordHead reads a docking job without its ligand list (Ligands nil):
// the job graph and, of the inputs graph, the receptor and the engine.
// The job's JSON and a results page need no more, and a job's inputs hold
// up to MaxLigands ligand IRIs, which Record decodes on every read.
// Errors as Record's.
func (t *Task) RecordHead(ctx context.Context, id string) (ontology.DockingJobRecord, error) {
	iri, qs, err := t.jobGraph(ctx, id)
	if err != nil {
		return ontology.DockingJobRecord{}, err
	}
	in := InputsIRI(iri)
	var agents []quad.IRI
	collect := func(q quad.Quad) error {
		qs = append(qs, q)
		if a, ok := q.Object.(quad.IRI); ok && q.Predicate == ontology.ProvAssociatedWith {
			agents = append(agents, a)
		}
		return nil
	}
	for _, p := range []quad.IRI{ontology.MGReceptor, ontology.ProvAssociatedWith} {
		if err := t.store.Match(ctx, graph.Pattern{Subject: iri, Predicate: p, Label: in}, collect); err != nil {
			return ontology.DockingJobRecord{}, err
		}
	}
	for _, a := range agents {
		if err := t.store.Match(ctx, graph.Pattern{Subject: a, Label: in}, collect); err != nil {
			return ontology.DockingJobRecord{}, err
		}
	}
	return ontology.DockingJobFromQuads(qs)
}

// Result reads one ligand's result (nil, nil, nil when it has none yet).
// The result node says which results graph holds it.
func (t *Task) Result(ctx context.Context, job quad.IRI, ligand string) ([]ontology.DockingPoseRecord, *ontology.DockingFailure, error) {
	var g quad.IRI
	find := func(s quad.IRI) error {
		return t.store.Match(ctx, graph.Pattern{Subject: s, Predicate: ontology.MGLigand}, func(q quad.Quad) error {
			g, _ = q.Label.(quad.IRI)
			return nil
		})
	}
	r := ResultIRI(job, ligand)
	if err := find(ontology.PoseIRI(r, 1)); err != nil {
		return nil, nil, err
	}
	if g == "" {
		if err := find(ontology.SubIRI(r, "failure")); err != nil {
			return nil, nil, err
		}
	}
	if g == "" {
		return nil, nil, nil
	}
	rs, err := t.readResults(ctx, job, g)
	if err != nil {
		return nil, nil, err
	}
	res := rs[ligand]
	return res.Poses, res.Failure, nil
}

// LigandID is the molecule id of a molecule IRI.
func LigandID(iri quad.IRI) string { return string(iri)[strings.LastIndexByte(string(iri), '/')+1:] }

// Run docks the job's ligands that have no outcome yet: the pure
// executor (work.Docker) docks them, the committer stores their outcomes
// in groups.
func (t *Task) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	rec, err := t.Record(ctx, j.ID)
	if err != nil {
		return err
	}
	receptor, recPDBQT, err := t.receptorPDBQT(ctx, rec.Receptor)
	if err != nil {
		return fmt.Errorf("docking job %s: %w", j.ID, err)
	}
	c, pending, err := t.newCommitter(ctx, j, rec, commit)
	if err != nil {
		return err
	}
	set := rec.Settings
	dj := work.DockJob{JobID: j.ID, ReceptorID: receptor.ID, Box: dk.Box{Center: set.Center, Size: set.Size},
		Params: dk.Params{Exhaustiveness: set.Exhaustiveness, NumModes: set.NumModes, EnergyRange: set.EnergyRange, Seed: set.Seed,
			Timeout: t.opt.LigandTimeout, Scoring: set.Scoring},
		LigandPH: set.LigandPH}

	if t.opt.Queue != nil {
		return t.runQueued(ctx, j, c, dj, recPDBQT, pending)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	// The committer: outcomes are stored in groups of those that arrived
	// while the previous group committed, by one goroutine (the commit
	// order), so the executor never waits for the store unless the
	// channel is full.
	outs := make(chan work.DockOutcome, 2*t.opt.Workers+16)
	var commitErr error
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		for o := range outs {
			group := appendReady([]work.DockOutcome{o}, outs, maxCommitGroup)
			if commitErr != nil || ctx.Err() != nil {
				continue // cancelled: the ligands are docked again on resume
			}
			if _, _, err := c.add(ctx, group); err != nil {
				commitErr = err
				stop()
			}
		}
	}()
	d := &work.Docker{Vina: t.vina, Pool: t.reg.Pool(), Stages: &t.stages}
	err = d.DockEach(wctx, dj, recPDBQT, pending, func(ctx context.Context, u *work.DockUnit) (err error) {
		// Ligand inputs are read by the worker that docks them, just
		// before docking, so a worker never waits for a group of others.
		u.Input, u.SMILES, err = LigandInput(ctx, t.reg, u.Ligand)
		return err
	}, t.opt.Workers, func(o work.DockOutcome) { outs <- o })
	close(outs)
	<-committed
	if err != nil && wctx.Err() == nil {
		return fmt.Errorf("docking job %s: %w", j.ID, err)
	}
	switch {
	case commitErr != nil:
		return commitErr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if c.prog.Finished == 0 && c.prog.Failed > 0 {
		return fmt.Errorf("docking job %s: all %d ligands failed", j.ID, c.prog.Failed)
	}
	return nil
}

// LigandInput is the input a registered molecule's 3D structure is built
// from (its stored conformer's molfile when it has one, else its SMILES)
// and its canonical SMILES (whose stereoisomers are docked).
func LigandInput(ctx context.Context, reg *batch.Registry, id string) (chem.Input, string, error) {
	m, err := reg.Get(ctx, id)
	if err != nil {
		return chem.Input{}, "", err
	}
	in := chem.Input{Format: chem.FormatSMILES, Content: m.SMILES}
	if m.Structure != nil {
		sdf, err := reg.Store().Blobs().Get(m.Structure.SHA256)
		if err != nil {
			return chem.Input{}, "", err
		}
		in = chem.Input{Format: chem.FormatMolfile, Content: string(sdf)}
	}
	return in, m.SMILES, nil
}

// LigandPDBQT builds a registered molecule's 3D structure (its stored
// conformer when it has one, else an ETKDG+MMFF embedding) and its
// docking-ready PDBQT (Meeko's rules; see docking.PrepareLigand). It serves
// GET /v1/molecules/{id}/structure?format=pdbqt as well as the docking task.
// With ph (not nil) the structure is that of the form a docking job at that
// pH docks for the structure's stereoisomer (work.PrepareIsomers): when
// chem.Protonate changes it, its protonated SMILES is embedded, with the
// same fixed seed, so the bytes are the job's.
func LigandPDBQT(ctx context.Context, reg *batch.Registry, id string, ph *float64) (*chem.Structure, []byte, error) {
	in, _, err := LigandInput(ctx, reg, id)
	if err != nil {
		return nil, nil, err
	}
	s, data, err := work.PrepareLigand(ctx, reg.Pool(), id, in)
	if err != nil || ph == nil {
		return s, data, err
	}
	if pr, err := chem.Protonate(s.SMILES, *ph); err != nil {
		return nil, nil, fmt.Errorf("ligand %s: %w", id, err)
	} else if len(pr.Sites) == 0 {
		return s, data, nil // nothing to protonate: the stored conformer
	}
	p, err := work.PrepareIsomers(ctx, reg.Pool(), id, s.SMILES, chem.Input{Format: chem.FormatSMILES, Content: s.SMILES}, ph)
	if err != nil {
		return nil, nil, err
	}
	if len(p.Isomers) != 1 || p.Structs[0] == nil {
		return nil, nil, fmt.Errorf("ligand %s: %d forms at pH %v", id, len(p.Isomers), *ph)
	}
	return p.Structs[0], p.PDBQT[0], nil
}

// LigandIsomers prepares a registered molecule's stereoisomers exactly as
// a docking job at ligand pH ph (nil: ligand_ph null) prepares them: the
// same inputs (LigandInput) through the same work.PrepareIsomers, so
// Isomers[k] is the job result's isomers[k] and PDBQT[k] the bytes vina
// was given for it. It serves GET /v1/molecules/{id}/structure?format=pdbqt&isomer=N,
// which gives raw vina (make bench-docking, tests) every form a job docks.
func LigandIsomers(ctx context.Context, reg *batch.Registry, id string, ph *float64) (*work.PreparedIsomers, error) {
	in, smiles, err := LigandInput(ctx, reg, id)
	if err != nil {
		return nil, err
	}
	return work.PrepareIsomers(ctx, reg.Pool(), id, smiles, in, ph)
}

// PoseFile returns the SDF of mode n of a ligand of job j.
func (t *Task) PoseFile(ctx context.Context, job quad.IRI, ligand string, mode int) ([]byte, error) {
	poses, _, err := t.Result(ctx, job, ligand)
	if err != nil {
		return nil, err
	}
	for _, p := range poses {
		if p.Mode == mode {
			return t.store.Blobs().Get(p.File.SHA256)
		}
	}
	return nil, fmt.Errorf("pose %s/%d: %w", ligand, mode, graph.ErrNotFound)
}
