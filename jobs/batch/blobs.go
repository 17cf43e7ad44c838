package batch

import (
	"context"
	"fmt"
	"strconv"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/ontology"
)

// Which blobs the graph still needs, for graph.BlobCollector: every blob is
// named by an "F mg:sha256 <hex>" statement of the graph that references
// it (molecule structure files, QM logs, receptor files, poses, job
// sources). Such a blob is referenced, except the spool of a batch job that
// has ended (succeeded, failed, cancelled) or processed all its records:
// nothing reads it again (Task.Run does not open the spool of a job with
// every record processed), so it is released and collected at once.

var (
	propSHA256    = quad.IRI(ontology.MG + "sha256")
	propMediaType = quad.IRI(ontology.MG + "mediaType")
	propStatus    = quad.IRI(ontology.MG + "status")
)

// BlobUses reads, in one pass over the graph's blob references, the use
// of every blob.
func BlobUses(ctx context.Context, store *graph.Store) (graph.BlobUses, error) {
	u := newUses(store)
	// The spool file nodes first: one scan instead of a look-up per blob.
	u.spools = map[[2]quad.Value]bool{}
	err := store.Match(ctx, graph.Pattern{Predicate: propMediaType, Object: ontology.String(SpoolMediaType)}, func(q quad.Quad) error {
		u.spools[[2]quad.Value{q.Subject, q.Label}] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("blob uses: %w", err)
	}
	uses := map[string]graph.BlobUse{}
	err = store.Match(ctx, graph.Pattern{Predicate: propSHA256}, func(q quad.Quad) error {
		sha := literal(q.Object)
		if uses[sha] == graph.BlobReferenced {
			return nil
		}
		use, err := u.of(ctx, q)
		if err != nil {
			return err
		}
		uses[sha] = max(uses[sha], use)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("blob uses: %w", err)
	}
	return func(sha string) graph.BlobUse { return uses[sha] }, nil
}

// BlobUse reads the use of one blob (for Blobs.Discard).
func BlobUse(ctx context.Context, store *graph.Store, sha string) (graph.BlobUse, error) {
	u := newUses(store)
	use := graph.BlobUnreferenced
	err := store.Match(ctx, graph.Pattern{Predicate: propSHA256, Object: ontology.String(sha)}, func(q quad.Quad) error {
		v, err := u.of(ctx, q)
		use = max(use, v)
		return err
	})
	if err != nil {
		return graph.BlobReferenced, fmt.Errorf("blob use: %w", err)
	}
	return use, nil
}

// BlobUseFunc is BlobUse as a graph.BlobUses; an error of the read counts
// as referenced (the blob is kept).
func BlobUseFunc(ctx context.Context, store *graph.Store) graph.BlobUses {
	return func(sha string) graph.BlobUse {
		u, _ := BlobUse(ctx, store, sha)
		return u
	}
}

type uses struct {
	store  *graph.Store
	done   map[quad.Value]bool    // job graph -> its spool is released
	spools map[[2]quad.Value]bool // (file node, graph) of every spool; nil: look up
}

func newUses(store *graph.Store) *uses {
	return &uses{store: store, done: map[quad.Value]bool{}}
}

// of is the use of the blob named by the mg:sha256 statement q.
func (u *uses) of(ctx context.Context, q quad.Quad) (graph.BlobUse, error) {
	var (
		spool bool
		err   error
	)
	if u.spools != nil {
		spool = u.spools[[2]quad.Value{q.Subject, q.Label}]
	} else {
		err = u.store.Match(ctx, graph.Pattern{Subject: q.Subject, Predicate: propMediaType, Label: q.Label}, func(m quad.Quad) error {
			spool = spool || literal(m.Object) == SpoolMediaType
			return nil
		})
	}
	if err != nil || !spool {
		return graph.BlobReferenced, err
	}
	done, ok := u.done[q.Label]
	if !ok {
		if done, err = u.jobDone(ctx, q.Label); err != nil {
			return graph.BlobReferenced, err
		}
		u.done[q.Label] = done
	}
	if done {
		return graph.BlobReleased, nil
	}
	return graph.BlobReferenced, nil
}

// jobDone reports whether the job whose graph is g has ended or processed
// every record.
func (u *uses) jobDone(ctx context.Context, g quad.Value) (bool, error) {
	var status string
	var total, processed int64 = -1, -2
	err := u.store.Match(ctx, graph.Pattern{Subject: g, Label: g}, func(q quad.Quad) error {
		switch q.Predicate {
		case propStatus:
			status = literal(q.Object)
		case PropTotal:
			total, _ = strconv.ParseInt(literal(q.Object), 10, 64)
		case PropProcessed:
			processed, _ = strconv.ParseInt(literal(q.Object), 10, 64)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return jobs.Status(status).Finished() || (total >= 0 && processed >= total), nil
}
