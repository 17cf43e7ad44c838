// Package batch registers molecules in the graph: one at a time for
// POST /v1/molecules (Registry.Register) and by the hundred thousand for
// POST /v1/molecules/batch (Task, the jobs.Task of mg:BatchUploadJob).
//
// Both paths share one pipeline: chem.Pool parses and normalizes the input,
// the molecule's id is derived from its canonical isomeric SMILES
// (ontology.MoleculeID), ontology.MoleculeQuads maps it to its named graph,
// and a 3D conformer, when asked for, is stored as an SDF blob linked with
// mg:structureFile. A molecule that exists already is left as it is, except
// that a request for 3D adds a conformer to a molecule without one.
//
// # Batch jobs
//
// An upload (SDF, SMILES lines or a JSON list, optionally gzip-compressed) is
// spooled record by record into one blob of JSON lines (Spool), counting as it
// goes so that an upload over the limit is refused before anything is
// stored. Task.Run reads the spool from the job's processed count, runs the
// chemistry of a chunk in parallel through the chem pool while the previous
// chunk is committed, and commits blocks of ItemBlock records: the new
// molecules' graphs, one graph of item records <job>#items-<first index> and
// the job's counters, in one transaction (jobs.CommitFunc).
//
//	<job>#item-12 a mg:BatchItem ; dcterms:isPartOf <job> ; mg:recordIndex 12 ;
//	    mg:itemStatus "created"|"existing"|"failed" ; mg:registeredMolecule <mol> ;
//	    rdfs:label "name" ; mg:errorMessage "..." .
package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/search"
)

// Errors of the package, wrapped with the operation.
var (
	// ErrBatchTooLarge: an upload holds more records than allowed.
	ErrBatchTooLarge = errors.New("batch too large")
	// ErrBadUpload: an upload or one of its records is malformed (not an SD
	// or SMILES file, a JSON record without content, an unknown format).
	ErrBadUpload = errors.New("bad upload")
	// ErrUploadTooLarge: an upload decompresses to more bytes than allowed,
	// or its spool would exceed its limit.
	ErrUploadTooLarge = errors.New("upload too large")
	// ErrRecordTooLarge: one record of an upload (an SD record, a SMILES
	// line) exceeds its limit; the upload is refused.
	ErrRecordTooLarge = errors.New("record too large")
	// ErrEmptyUpload: an upload holds no record.
	ErrEmptyUpload = errors.New("the upload holds no records")
	// ErrNoConformer: a 3D structure was asked of a molecule without one.
	ErrNoConformer = errors.New("molecule has no 3D conformer")
)

// Input is one molecule to register.
type Input struct {
	Format     chem.Format
	Content    string
	Name       string
	Generate3D bool
}

// Registry registers molecules: chemistry, ids, graphs and structure files.
// It is safe for concurrent use.
type Registry struct {
	store *graph.Store
	pool  *chem.Pool
	base  string
	now   func() time.Time
	// noSearch: structure search is off (DisableStructureSearch).
	noSearch bool
	// mu serialises "does it exist? then write it", so that two requests
	// for the same new molecule do not both report it created.
	mu sync.Mutex
}

// NewRegistry returns a Registry writing to store with base IRI base.
// now defaults to time.Now.
func NewRegistry(store *graph.Store, pool *chem.Pool, base string, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return &Registry{store: store, pool: pool, base: base, now: now}
}

// DisableStructureSearch makes the registry compute and store no
// structure-search fingerprints, pickles or InChIKey entries (molgraph
// serve --structure-search=false): registration then costs what it cost
// before structure search. A store written so and opened later with
// search on gets its index rebuilt from the graph (search.Open). Call it
// before the registry is used.
func (g *Registry) DisableStructureSearch() { g.noSearch = true }

// StructureSearch reports whether the registry computes and stores the
// structure-search entries.
func (g *Registry) StructureSearch() bool { return !g.noSearch }

// Base returns the base IRI.
func (g *Registry) Base() string { return g.base }

// Store returns the graph store.
func (g *Registry) Store() *graph.Store { return g.store }

// Pool returns the chem pool.
func (g *Registry) Pool() *chem.Pool { return g.pool }

// Prepared is a molecule after chemistry, before storage.
type Prepared struct {
	// Rec has everything but CreatedAt and Structure.
	Rec ontology.MoleculeRecord
	// SDF is the 3D conformer as an SD record, nil without one.
	SDF []byte
	// CPU is the CPU time chem spent on the molecule.
	CPU time.Duration
	// Search are the structure-search entries (fingerprints, pickle,
	// InChIKey) committed with a new molecule's graph; nil if RDKit could
	// not read the canonical SMILES back (the index then rebuilds them
	// when it opens, and logs the molecule as not searchable).
	Search []graph.SideEntry
}

// Prepare runs in through chem and builds its record (work.PrepareMolecule:
// the same code a chemistry worker runs). Content that is not a molecule
// is a *chem.MoleculeError wrapping chem.ErrInvalidMolecule.
func (g *Registry) Prepare(ctx context.Context, in Input) (*Prepared, error) {
	m, err := work.PrepareMolecule(ctx, g.pool, g.chemInput(in))
	if err != nil {
		return nil, err
	}
	return g.prepared(m), nil
}

// chem is in as a chemistry input, as a spool holds it.
func (in Input) chem() work.ChemInput {
	return work.ChemInput{Format: in.Format, Content: in.Content, Name: in.Name, Generate3D: in.Generate3D}
}

// chemInput is in as the registry has it computed.
func (g *Registry) chemInput(in Input) work.ChemInput {
	c := in.chem()
	c.NoFingerprints = g.noSearch
	return c
}

// prepared is PreparedOf(m), without search entries when search is off
// (a worker's outcome may carry fingerprints computed for a unit made
// before a restart with search on).
func (g *Registry) prepared(m *work.Molecule) *Prepared {
	p := PreparedOf(m)
	if g.noSearch {
		p.Search = nil
	}
	return p
}

// PreparedOf is the prepared molecule of a chemistry result (computed here
// or by a worker): the structure-search entries are built from its
// fingerprints.
func PreparedOf(m *work.Molecule) *Prepared {
	p := &Prepared{Rec: m.Rec, SDF: m.SDF, CPU: m.CPU}
	if m.Fingerprints != nil {
		p.Search = search.Entries(p.Rec.ID, p.Rec.InChIKey, m.Fingerprints)
	}
	return p
}

// IRI returns the molecule IRI of id.
func (g *Registry) IRI(id string) quad.IRI {
	return ontology.ResourceIRI(g.base, ontology.KindMolecule, id)
}

// Get reads the molecule id from the graph (graph.ErrNotFound if absent).
func (g *Registry) Get(ctx context.Context, id string) (ontology.MoleculeRecord, error) {
	// Unsorted: MoleculeFromQuads does not depend on the order, and the
	// sort cost more than the read itself (list pages read up to 100
	// molecules).
	qs, err := g.store.GraphUnsorted(ctx, g.IRI(id))
	if err != nil {
		return ontology.MoleculeRecord{}, fmt.Errorf("molecule %s: %w", id, err)
	}
	return ontology.MoleculeFromQuads(qs)
}

// putStructure stores p's conformer as a blob and links it from rec.
func (g *Registry) putStructure(rec *ontology.MoleculeRecord, sdf []byte) error {
	ref, err := g.store.Blobs().PutBytes(sdf)
	if err != nil {
		return fmt.Errorf("store structure of %s: %w", rec.ID, err)
	}
	rec.Has3D = true
	rec.Structure = &ontology.MoleculeFile{SHA256: ref.SHA256, Bytes: ref.Size,
		MediaType: "chemical/x-mdl-sdfile", Filename: rec.ID + ".sdf"}
	return nil
}

// Register registers one molecule and returns its record as read back from
// the graph, and whether it was new. An existing molecule is returned as
// stored, except that Generate3D adds a conformer to one without.
func (g *Registry) Register(ctx context.Context, in Input) (ontology.MoleculeRecord, bool, error) {
	p, err := g.Prepare(ctx, in)
	if err != nil {
		return ontology.MoleculeRecord{}, false, err
	}
	g.mu.Lock()
	created, err := g.commitOne(ctx, p)
	g.mu.Unlock()
	if err != nil {
		return ontology.MoleculeRecord{}, false, err
	}
	// The wait for durability outside g.mu: with it inside, every POST
	// waited for the fsyncs of all the POSTs queued before it (one round
	// each); outside, the commits made meanwhile share a round. It also
	// covers a molecule found existing whose commit (another request's)
	// is visible but not yet durable.
	if err := g.store.Sync(); err != nil {
		return ontology.MoleculeRecord{}, false, fmt.Errorf("register %s: %w", p.Rec.ID, err)
	}
	rec, err := g.Get(ctx, p.Rec.ID)
	return rec, created, err
}

// commitOne commits p (visible, not yet durable: see Register) unless it
// exists (adding a conformer if p has one and the stored molecule has
// not); g.mu must be held.
func (g *Registry) commitOne(ctx context.Context, p *Prepared) (bool, error) {
	ng, created, err := g.plan(ctx, p, nil)
	if err != nil || ng == nil {
		return created, err
	}
	if err := g.store.CommitGraphs(ctx, []graph.NamedGraph{*ng}, nil); err != nil {
		return false, fmt.Errorf("register %s: %w", p.Rec.ID, err)
	}
	return created, nil
}

// plan decides what registering p means: the graph to write (nil for
// nothing) and whether the molecule is new. pending holds the records of
// molecules planned but not yet committed (batch chunks).
func (g *Registry) plan(ctx context.Context, p *Prepared, pending map[string]*ontology.MoleculeRecord) (*graph.NamedGraph, bool, error) {
	iri := g.IRI(p.Rec.ID)
	var existing *ontology.MoleculeRecord
	if pending != nil {
		existing = pending[p.Rec.ID]
	}
	switch {
	case existing != nil:
	case p.SDF == nil:
		// Only whether it exists matters: nothing to add to a stored one.
		has, err := g.store.HasGraph(ctx, iri)
		if err != nil {
			return nil, false, fmt.Errorf("register %s: %w", p.Rec.ID, err)
		}
		if has {
			return nil, false, nil
		}
	default:
		// A conformer may be added to a stored one: read it once.
		rec, err := g.Get(ctx, p.Rec.ID)
		if err == nil {
			existing = &rec
		} else if !errors.Is(err, graph.ErrNotFound) {
			return nil, false, err
		}
	}
	if existing != nil {
		if p.SDF == nil || existing.Has3D {
			return nil, false, nil
		}
		rec := *existing
		if err := g.putStructure(&rec, p.SDF); err != nil {
			return nil, false, err
		}
		qs, err := ontology.MoleculeQuads(g.base, &rec)
		if err != nil {
			return nil, false, err
		}
		if pending != nil {
			pending[rec.ID] = &rec
		}
		return &graph.NamedGraph{IRI: iri, Quads: qs}, false, nil
	}
	rec := p.Rec
	rec.CreatedAt = g.now().UTC()
	rec.Has3D = false
	if p.SDF != nil {
		if err := g.putStructure(&rec, p.SDF); err != nil {
			return nil, false, err
		}
	}
	qs, err := ontology.MoleculeQuads(g.base, &rec)
	if err != nil {
		return nil, false, err
	}
	if pending != nil {
		pending[rec.ID] = &rec
	}
	return &graph.NamedGraph{IRI: iri, Quads: qs, Side: p.Search}, true, nil
}
