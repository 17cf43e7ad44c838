package docking

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// The results index lists a job's outcomes without reading its results
// graphs: side entries (graph.SideEntry) committed in the same transaction
// as the results graph that gains the outcome, under the prefix
// "dockres\x00" + job IRI + "\x00":
//
//   - "a" + graph.OrderedFloat(affinity of mode 1) + ligand id -> k, one
//     per docked ligand: the affinity order, ties by ligand id;
//   - "f" + ligand id -> k, one per failed ligand, in ligand id order;
//   - "m" -> "1": the index is complete (written when the job is created,
//     or after a rebuild).
//
// k (decimal) is the results graph holding the ligand (ResultsIRI), so a
// page reads only the graphs of its ligands. A duplicate outcome is
// dropped before its entry is made (committer.add), and an entry's key is
// a function of the first outcome alone, so a ligand has one entry. A job
// written by a version without the index (no "m") gets it rebuilt from its
// results graphs at the first listing or resume. Jobs are cancelled, never
// deleted, so entries are never removed.
const indexPrefix = "dockres\x00"

// Index key kinds.
const (
	IndexAffinity = 'a'
	IndexFailure  = 'f'
	indexMarker   = 'm'
)

func jobIndexPrefix(j quad.IRI) []byte {
	return append(append([]byte(indexPrefix), j...), 0)
}

// indexEntry is the side entry of one ligand's outcome (in results graph k).
func indexEntry(j quad.IRI, ligand string, k int, poses []ontology.DockingPoseRecord, failure *ontology.DockingFailure) graph.SideEntry {
	key := jobIndexPrefix(j)
	if failure != nil || len(poses) == 0 {
		key = append(key, IndexFailure)
	} else {
		key = graph.OrderedFloat(append(key, IndexAffinity), poses[0].Affinity)
	}
	return graph.SideEntry{Key: append(key, ligand...), Value: strconv.AppendInt(nil, int64(k), 10)}
}

func markerEntry(j quad.IRI) graph.SideEntry {
	return graph.SideEntry{Key: append(jobIndexPrefix(j), indexMarker), Value: []byte("1")}
}

// indexMu serializes rebuilds of results indexes (one store-wide lock:
// rebuilds are rare).
var indexMu sync.Mutex

// hasIndex reports whether job j's results index is complete.
func (t *Task) hasIndex(ctx context.Context, j quad.IRI) (bool, error) {
	found := false
	err := t.store.GetSide(ctx, [][]byte{markerEntry(j).Key}, func(_ int, v []byte) error {
		found = v != nil
		return nil
	})
	return found, err
}

// rebuildIndex writes the index entries of results rs of job rec and its
// marker (rs read after the marker was found absent: outcomes committed
// since carry their own entries, and a ligand's entry is the same from
// either path).
func (t *Task) rebuildIndex(ctx context.Context, rec ontology.DockingJobRecord, rs []LigandResult) error {
	pos := make(map[string]int, len(rec.Ligands))
	for i, l := range rec.Ligands {
		pos[LigandID(l)] = i
	}
	var kvs []graph.SideEntry
	flush := func() error {
		if err := t.store.PutSide(ctx, kvs); err != nil {
			return fmt.Errorf("docking job %s: results index: %w", rec.IRI, err)
		}
		kvs = kvs[:0]
		return nil
	}
	for _, r := range rs {
		i, ok := pos[r.Ligand]
		if !ok {
			continue
		}
		kvs = append(kvs, indexEntry(rec.IRI, r.Ligand, i/ResultsPerGraph, r.Poses, r.Failure))
		if len(kvs) == 4096 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	kvs = append(kvs, markerEntry(rec.IRI))
	return flush()
}

// EnsureIndex builds job rec's results index from its results graphs
// when it has none (a job stored by an earlier version). rec may be a
// RecordHead: the rebuild then reads the whole record for the ligands.
func (t *Task) EnsureIndex(ctx context.Context, rec ontology.DockingJobRecord) error {
	if ok, err := t.hasIndex(ctx, rec.IRI); err != nil || ok {
		return err
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	if ok, err := t.hasIndex(ctx, rec.IRI); err != nil || ok {
		return err
	}
	if rec.Ligands == nil { // a RecordHead (a job has at least one ligand)
		full, err := t.Record(ctx, LigandID(rec.IRI))
		if err != nil {
			return err
		}
		rec = full
	}
	rs, err := t.readAllResults(ctx, rec)
	if err != nil {
		return err
	}
	return t.rebuildIndex(ctx, rec, rs)
}

// ErrBadCursor: a page position that is not one of the index's.
var ErrBadCursor = errors.New("not a results cursor")

// MaxCursorKey bounds a page position (an index key without the job
// prefix: kind, affinity, ligand id).
const MaxCursorKey = 512

// ResultsPage is one page of a job's results index.
type ResultsPage struct {
	// Results are the page's ligands in index order (affinity then
	// ligand id for IndexAffinity, ligand id for IndexFailure).
	Results []LigandResult
	// Next is the position of the page's last ligand when more follow
	// (nil at the end): give it as after for the next page.
	Next []byte
}

// Page reads up to limit outcomes of job rec of the given kind
// (IndexAffinity or IndexFailure) that come after position after (nil:
// from the first) in the index, and only their results graphs: the cost
// of a page is the page, not the job. The index is built first if the job
// has none.
func (t *Task) Page(ctx context.Context, rec ontology.DockingJobRecord, kind byte, after []byte, limit int) (ResultsPage, error) {
	if kind != IndexAffinity && kind != IndexFailure {
		return ResultsPage{}, fmt.Errorf("%w: kind %q", ErrBadCursor, kind)
	}
	if after != nil && (len(after) == 0 || after[0] != kind || len(after) > MaxCursorKey) {
		return ResultsPage{}, ErrBadCursor
	}
	if err := t.EnsureIndex(ctx, rec); err != nil {
		return ResultsPage{}, err
	}
	prefix := append(jobIndexPrefix(rec.IRI), kind)
	from := prefix
	if after != nil {
		from = append(append(jobIndexPrefix(rec.IRI), after...), 0) // the first key after it
	}
	type entry struct {
		pos    []byte
		ligand string
		k      int
	}
	var page []entry
	more := false
	errFull := errors.New("page full")
	err := t.store.ScanSideFrom(ctx, prefix, from, func(key, value []byte) error {
		if len(page) == limit {
			more = true
			return errFull
		}
		body := key[len(prefix)-1:]
		lig := body[1:]
		if kind == IndexAffinity {
			if len(lig) < 8 {
				return fmt.Errorf("docking job %s: results index key %q", rec.IRI, key)
			}
			lig = lig[8:]
		}
		k, err := strconv.Atoi(string(value))
		if err != nil {
			return fmt.Errorf("docking job %s: results index value %q", rec.IRI, value)
		}
		page = append(page, entry{bytes.Clone(body), string(lig), k})
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return ResultsPage{}, err
	}
	// One read per results graph of the page, decoding the page's
	// ligands only.
	want := map[int]map[string]bool{}
	for _, e := range page {
		if want[e.k] == nil {
			want[e.k] = map[string]bool{}
		}
		want[e.k][e.ligand] = true
	}
	graphs := map[int]map[string]LigandResult{}
	out := ResultsPage{Results: make([]LigandResult, 0, len(page))}
	for _, e := range page {
		rs, ok := graphs[e.k]
		if !ok {
			if rs, err = t.readSomeResults(ctx, rec.IRI, ResultsIRI(rec.IRI, e.k), want[e.k]); err != nil {
				return ResultsPage{}, err
			}
			graphs[e.k] = rs
		}
		r, ok := rs[e.ligand]
		if !ok {
			return ResultsPage{}, fmt.Errorf("docking job %s: ligand %s indexed in results graph %d, not found there", rec.IRI, e.ligand, e.k)
		}
		out.Results = append(out.Results, r)
	}
	if more {
		out.Next = page[len(page)-1].pos
	}
	return out, nil
}
