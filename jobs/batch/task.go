package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// ItemBlock is how many records' items share one item graph; commits
// always end at a multiple of it (or at the end of the upload).
const ItemBlock = 100

// JobIDPrefix starts every batch job id.
const JobIDPrefix = "batch"

// Terms of batch jobs and their items.
const (
	Class           = quad.IRI(ontology.MG + "BatchUploadJob")
	PropTotal       = quad.IRI(ontology.MG + "totalRecords")
	PropProcessed   = quad.IRI(ontology.MG + "processedRecords")
	PropCreated     = quad.IRI(ontology.MG + "createdRecords")
	PropExisting    = quad.IRI(ontology.MG + "existingRecords")
	PropFailed      = quad.IRI(ontology.MG + "failedRecords")
	ItemClass       = quad.IRI(ontology.MG + "BatchItem")
	propIndex       = quad.IRI(ontology.MG + "recordIndex")
	propItemStatus  = quad.IRI(ontology.MG + "itemStatus")
	propMolecule    = quad.IRI(ontology.MG + "registeredMolecule")
	propErrorMsg    = quad.IRI(ontology.MG + "errorMessage")
	propIsPartOf    = quad.IRI("http://purl.org/dc/terms/isPartOf")
	propLabel       = quad.IRI(ontology.RDFS + "label")
	itemFragment    = "item-"
	itemsFragment   = "items-"
	itemBlockDigits = 9
	// jobGraphQuads bounds the quads of a batch job's own graph.
	jobGraphQuads = 32
)

// Item statuses.
const (
	ItemCreated  = "created"
	ItemExisting = "existing"
	ItemFailed   = "failed"
)

// Item is the outcome of one record of a batch.
type Item struct {
	Index      int    `json:"index"`
	Status     string `json:"status"`
	MoleculeID string `json:"molecule_id,omitempty"`
	Name       string `json:"name,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Counts are a batch job's counters.
type Counts struct {
	Total, Processed, Created, Existing, Failed int64
}

// CountsOf reads the counters of a batch job.
func CountsOf(j *jobs.Job) Counts {
	return Counts{Total: j.Int(PropTotal), Processed: j.Int(PropProcessed), Created: j.Int(PropCreated),
		Existing: j.Int(PropExisting), Failed: j.Int(PropFailed)}
}

// Props returns the counters as job properties.
func (c Counts) Props() []jobs.Prop {
	return []jobs.Prop{jobs.IntProp(PropTotal, c.Total), jobs.IntProp(PropProcessed, c.Processed),
		jobs.IntProp(PropCreated, c.Created), jobs.IntProp(PropExisting, c.Existing), jobs.IntProp(PropFailed, c.Failed)}
}

// TaskOptions tune a Task.
type TaskOptions struct {
	// ChunkRecords is how many records' chemistry runs before their commit
	// (default 8 blocks); the next chunk's chemistry overlaps the commit.
	ChunkRecords int
	// Parallel is how many records are in the chem pool at once (default
	// twice its workers).
	Parallel int
	// MaxCommitQuads bounds one commit (the runner's limit).
	MaxCommitQuads int

	// Queue, when set, runs the chemistry on the queue's workers
	// (work.ChemExecutor) instead of this process's pool; the commits stay
	// here (runQueued).
	Queue queue.Queue
	// Engine is the chemistry units' engine fingerprint
	// (work.ChemEngine): only workers of the same build get them.
	Engine string
	// Window bounds the records dispatched and not yet committed (default
	// 64 item blocks): the re-order buffer and the queue's share of a job.
	Window int
	// UnitBytes: a unit holds one item block's records, or fewer when
	// their content exceeds this (default 2 MiB; a unit is one NATS
	// message of at most 8 MiB).
	UnitBytes int
	// MaxUnitBody: a unit whose encoded body is larger (one record over
	// it: a raised --batch-max-sd-record) is prepared by this process
	// instead (default 4 MiB: JSON-encoded in a NATS message of at most
	// 8 MiB, a body grows by a third).
	MaxUnitBody int
	// Stall: with no outcome for this long, every unit not committed is
	// enqueued again (default 3m).
	Stall  time.Duration
	Logger *slog.Logger
}

// Task runs batch upload jobs (mg:BatchUploadJob). It implements jobs.Task.
type Task struct {
	reg *Registry
	opt TaskOptions
	// Wall time spent, over all jobs (nanoseconds; see Stats).
	chemNS, chemCPUNS, planNS, commitNS, records, duplicates atomic.Int64
	afterRun                                                 atomic.Pointer[func()]
}

// SetAfterRun sets a function called whenever Run returns: serve wires the
// blob collector's Kick to it, so that the spool of a job that ended is
// deleted soon after (see BlobUses). It may be called while jobs run.
func (t *Task) SetAfterRun(fn func()) { t.afterRun.Store(&fn) }

// Stats says where a Task's time went, summed over every job it ran: wall
// time of the chemistry of whole chunks (parallel, overlapping the
// commits), of planning (existence checks, quads, structure blobs) and of
// the commits (graph writes).
type Stats struct {
	Records                  int64
	Chemistry, Plan, Commits time.Duration
	// ChemistryCPU is the CPU time RDKit and InChI reported (all threads).
	ChemistryCPU time.Duration
	// Duplicates counts chemistry outcomes of queued jobs dropped because
	// their records were committed already (redeliveries).
	Duplicates int64
}

// Stats returns the time spent so far.
func (t *Task) Stats() Stats {
	return Stats{Records: t.records.Load(), Chemistry: time.Duration(t.chemNS.Load()),
		Plan: time.Duration(t.planNS.Load()), Commits: time.Duration(t.commitNS.Load()),
		ChemistryCPU: time.Duration(t.chemCPUNS.Load()), Duplicates: t.duplicates.Load()}
}

// NewTask returns the batch task registering molecules through reg.
func NewTask(reg *Registry, opt TaskOptions) *Task {
	if opt.ChunkRecords <= 0 {
		opt.ChunkRecords = 8 * ItemBlock
	}
	opt.ChunkRecords = (opt.ChunkRecords + ItemBlock - 1) / ItemBlock * ItemBlock
	if opt.Parallel <= 0 {
		opt.Parallel = 2 * reg.pool.Workers()
	}
	if opt.MaxCommitQuads <= 0 {
		opt.MaxCommitQuads = 20000
	}
	if opt.Window <= 0 {
		opt.Window = 64 * ItemBlock
	}
	if opt.UnitBytes <= 0 {
		opt.UnitBytes = 2 << 20
	}
	if opt.MaxUnitBody <= 0 {
		opt.MaxUnitBody = 4 << 20
	}
	if opt.Stall <= 0 {
		opt.Stall = 3 * time.Minute
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Task{reg: reg, opt: opt}
}

// Class is mg:BatchUploadJob.
func (t *Task) Class() quad.IRI { return Class }

// NewJob returns a batch job (not yet submitted) for a spool of total records.
func (t *Task) NewJob(id string, spool graph.BlobRef, total int, filename string) jobs.Job {
	return jobs.Job{
		ID: id, IRI: ontology.ResourceIRI(t.reg.base, ontology.KindBatchJob, id), Class: Class,
		Source: &jobs.File{SHA256: spool.SHA256, Bytes: spool.Size, MediaType: SpoolMediaType, Filename: filename},
		Props:  Counts{Total: int64(total)}.Props(),
	}
}

// result is the chemistry of one record.
type result struct {
	index int
	in    Input
	p     *Prepared
	err   error
}

// Run processes the job's spool from its processed count on.
func (t *Task) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	defer func() {
		if fn := t.afterRun.Load(); fn != nil && *fn != nil {
			(*fn)()
		}
	}()
	if j.Source == nil {
		return fmt.Errorf("batch %s: %w: no spooled upload", j.ID, ErrBadUpload)
	}
	counts := CountsOf(&j)
	if counts.Total > 0 && counts.Processed >= counts.Total {
		// Every record is committed (a crash came before the job's end
		// was stored): the spool may be collected already, and is not
		// needed.
		return nil
	}
	sp, err := openSpool(t.reg.store.Blobs(), j.Source.SHA256, int(counts.Processed))
	if err != nil {
		return fmt.Errorf("batch %s: %w", j.ID, err)
	}
	defer sp.Close()
	if t.opt.Queue != nil {
		return t.runQueued(ctx, &j, &counts, sp, commit)
	}

	// The producer reads and runs the chemistry of the next chunk while
	// this goroutine commits the previous one.
	// Its chemistry is background work: a request's molecule goes first.
	pctx, stop := context.WithCancel(chem.Background(ctx))
	defer stop()
	chunks := make(chan []result, 1)
	var readErr error
	go func() {
		defer close(chunks)
		for pctx.Err() == nil {
			var chunk []result
			for len(chunk) < t.opt.ChunkRecords {
				i, in, err := sp.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					readErr = err
					return
				}
				chunk = append(chunk, result{index: i, in: in})
			}
			if len(chunk) == 0 {
				return
			}
			t0 := time.Now()
			t.chemistry(pctx, chunk)
			t.chemNS.Add(int64(time.Since(t0)))
			if pctx.Err() != nil {
				return
			}
			select {
			case chunks <- chunk:
			case <-pctx.Done():
				return
			}
		}
	}()
	var commitErr error
	for chunk := range chunks {
		if commitErr != nil {
			continue // drain
		}
		if commitErr = t.commitChunk(ctx, &j, &counts, chunk, commit); commitErr != nil {
			stop()
		}
	}
	switch {
	case commitErr != nil:
		return commitErr
	case ctx.Err() != nil:
		return ctx.Err()
	case readErr != nil:
		return fmt.Errorf("batch %s: %w", j.ID, readErr)
	}
	return nil
}

// chemistry fills in the chunk's results, t.opt.Parallel at a time.
func (t *Task) chemistry(ctx context.Context, chunk []result) {
	sem := make(chan struct{}, t.opt.Parallel)
	var wg sync.WaitGroup
	for i := range chunk {
		sem <- struct{}{}
		wg.Add(1)
		go func(r *result) {
			defer func() { <-sem; wg.Done() }()
			r.p, r.err = t.reg.Prepare(ctx, r.in)
			if r.p != nil {
				t.chemCPUNS.Add(int64(r.p.CPU))
			}
		}(&chunk[i])
	}
	wg.Wait()
}

// commitChunk commits the results of a chunk in blocks of ItemBlock,
// packing as many blocks in one commit as fit.
func (t *Task) commitChunk(ctx context.Context, j *jobs.Job, counts *Counts, chunk []result, commit jobs.CommitFunc) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, r := range chunk {
		if r.err != nil && work.NotRecordsFault(r.err) {
			// Not the record's fault: the chunk is not committed and is
			// done again when the job resumes.
			return r.err
		}
	}
	t.reg.mu.Lock()
	defer t.reg.mu.Unlock()
	var (
		graphs  []graph.NamedGraph
		byIRI   = map[quad.IRI]int{}
		nquads  int
		next    = *counts
		pending = map[string]*ontology.MoleculeRecord{}
	)
	flush := func() error {
		if len(graphs) == 0 && next == *counts {
			return nil
		}
		t0 := time.Now()
		err := commit(ctx, graphs, next.Props())
		t.commitNS.Add(int64(time.Since(t0)))
		if err != nil {
			return err
		}
		t.records.Add(next.Processed - counts.Processed)
		*counts = next
		graphs, byIRI, nquads = nil, map[quad.IRI]int{}, 0
		return nil
	}
	for start := 0; start < len(chunk); start += ItemBlock {
		block := chunk[start:min(start+ItemBlock, len(chunk))]
		var bg []graph.NamedGraph
		bn := 0
		bc := next
		items := make([]Item, 0, len(block))
		tp := time.Now()
		// Plan the block against the graphs and pending of earlier blocks
		// of this commit.
		for _, r := range block {
			it := Item{Index: r.index, Name: strings.TrimSpace(r.in.Name)}
			switch {
			case r.err != nil:
				it.Status, it.Error = ItemFailed, r.err.Error()
				bc.Failed++
			default:
				ng, created, err := t.reg.plan(ctx, r.p, pending)
				if err != nil {
					return err
				}
				it.MoleculeID = r.p.Rec.ID
				if created {
					it.Status = ItemCreated
					bc.Created++
				} else {
					it.Status = ItemExisting
					bc.Existing++
				}
				if ng != nil {
					bg = append(bg, *ng)
					bn += len(ng.Quads)
				}
			}
			bc.Processed++
			items = append(items, it)
		}
		t.planNS.Add(int64(time.Since(tp)))
		ig := t.itemGraph(j.IRI, items)
		bg = append(bg, ig)
		bn += len(ig.Quads)
		if nquads > 0 && nquads+bn+jobGraphQuads > t.opt.MaxCommitQuads {
			// Commit the blocks before this one. The block's plan stays
			// valid: pending keeps what the committed blocks planned.
			if err := flush(); err != nil {
				return err
			}
		}
		for _, g := range bg {
			if k, ok := byIRI[g.IRI]; ok {
				nquads -= len(graphs[k].Quads)
				graphs[k] = g
			} else {
				byIRI[g.IRI] = len(graphs)
				graphs = append(graphs, g)
			}
			nquads += len(g.Quads)
		}
		next = bc
	}
	return flush()
}

// itemsGraphIRI names the item graph of the block starting at first.
func itemsGraphIRI(job quad.IRI, first int) quad.IRI {
	return ontology.SubIRI(job, itemsFragment+fmt.Sprintf("%0*d", itemBlockDigits, first))
}

func (t *Task) itemGraph(job quad.IRI, items []Item) graph.NamedGraph {
	g := itemsGraphIRI(job, items[0].Index/ItemBlock*ItemBlock)
	qs := make([]quad.Quad, 0, 7*len(items))
	for _, it := range items {
		n := ontology.SubIRI(job, itemFragment+strconv.Itoa(it.Index))
		add := func(p quad.IRI, o quad.Value) {
			qs = append(qs, quad.Quad{Subject: n, Predicate: p, Object: o, Label: g})
		}
		add(ontology.RDFType, ItemClass)
		add(propIsPartOf, job)
		add(propIndex, ontology.Integer(int64(it.Index)))
		add(propItemStatus, ontology.String(it.Status))
		if it.MoleculeID != "" {
			add(propMolecule, t.reg.IRI(it.MoleculeID))
		}
		if it.Name != "" {
			add(propLabel, ontology.String(it.Name))
		}
		if it.Error != "" {
			add(propErrorMsg, ontology.String(it.Error))
		}
	}
	return graph.NamedGraph{IRI: g, Quads: qs}
}

// itemsFromQuads reads the items of an item graph, in index order.
func itemsFromQuads(qs []quad.Quad) []Item {
	by := map[quad.Value]*Item{}
	for _, q := range qs {
		it := by[q.Subject]
		if it == nil {
			it = &Item{Index: -1}
			by[q.Subject] = it
		}
		switch q.Predicate {
		case propIndex:
			if ts, ok := q.Object.(quad.TypedString); ok {
				if v, err := strconv.Atoi(string(ts.Value)); err == nil {
					it.Index = v
				}
			}
		case propItemStatus:
			it.Status = literal(q.Object)
		case propMolecule:
			if iri, ok := q.Object.(quad.IRI); ok {
				it.MoleculeID = string(iri)[strings.LastIndexByte(string(iri), '/')+1:]
			}
		case propLabel:
			it.Name = literal(q.Object)
		case propErrorMsg:
			it.Error = literal(q.Object)
		}
	}
	out := make([]Item, 0, len(by))
	for _, it := range by {
		if it.Index >= 0 {
			out = append(out, *it)
		}
	}
	slices.SortFunc(out, func(a, b Item) int { return a.Index - b.Index })
	return out
}

func literal(v quad.Value) string {
	switch s := v.(type) {
	case quad.String:
		return string(s)
	case quad.TypedString:
		return string(s.Value)
	}
	return ""
}

// Items returns up to limit items of the batch job iri with index >= from,
// in index order, and whether more items follow (processed limits them).
func Items(ctx context.Context, store *graph.Store, job quad.IRI, processed int64, from, limit int) ([]Item, bool, error) {
	var out []Item
	if from < 0 {
		from = 0
	}
	for first := from / ItemBlock * ItemBlock; int64(first) < processed && len(out) < limit; first += ItemBlock {
		qs, err := store.Graph(ctx, itemsGraphIRI(job, first))
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("batch items: %w", err)
		}
		for _, it := range itemsFromQuads(qs) {
			if it.Index >= from && len(out) < limit {
				out = append(out, it)
			}
		}
	}
	more := len(out) == limit && int64(out[len(out)-1].Index+1) < processed
	return out, more, nil
}

// Errors returns the first limit failed items of the batch job iri.
func Errors(ctx context.Context, store *graph.Store, job quad.IRI, limit int) ([]Item, error) {
	prefix := string(job) + "#" + itemFragment
	var failed []quad.IRI
	err := store.Match(ctx, graph.Pattern{Predicate: propItemStatus, Object: ontology.String(ItemFailed)}, func(q quad.Quad) error {
		if s, ok := q.Subject.(quad.IRI); ok && strings.HasPrefix(string(s), prefix) {
			failed = append(failed, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("batch errors: %w", err)
	}
	idx := func(s quad.IRI) int {
		v, _ := strconv.Atoi(strings.TrimPrefix(string(s), prefix))
		return v
	}
	slices.SortFunc(failed, func(a, b quad.IRI) int { return idx(a) - idx(b) })
	blocks := map[int][]Item{}
	var out []Item
	for _, s := range failed {
		if len(out) >= limit {
			break
		}
		i := idx(s)
		b := i / ItemBlock * ItemBlock
		items, ok := blocks[b]
		if !ok {
			qs, err := store.Graph(ctx, itemsGraphIRI(job, b))
			if err != nil && !errors.Is(err, graph.ErrNotFound) {
				return nil, fmt.Errorf("batch errors: %w", err)
			}
			items = itemsFromQuads(qs)
			blocks[b] = items
		}
		for _, it := range items {
			if it.Index == i {
				out = append(out, it)
			}
		}
	}
	return out, nil
}
