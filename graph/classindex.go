package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/cayleygraph/quad"
)

// The class index answers ListByClass on the native backend: one side
// entry per resource r of class C ("r rdf:type C" in r's own named graph),
// keyed
//
//	\x00c <first 8 bytes of sha256(C)> <r's IRI>
//
// so a page of a class in IRI order is a seek and limit+1 keys, whatever
// the number of members. The POSG index cannot give that order: it is
// keyed by term ids, given in order of first use (GET /v1/molecules read
// every molecule's type quad for each page, 125 ms of handler time at the
// end of a 60 s make bench-load).
//
// Keys are bounded (quadstore.MaxSideKey): an IRI longer than
// classKeyIRIBytes is cut there and followed by the SHA-256 of the whole
// IRI, which is then the entry's value. Long IRIs that share their first
// classKeyIRIBytes bytes are adjacent in the index but ordered by hash, so
// ListByClass reads such a run whole and sorts it by IRI.
//
// The leading NUL keeps these keys apart from the side entries of other
// packages (printable prefixes). The writers of graphs (putGraphs,
// deleteGraph) keep the index in the commit of the quads, under the writer
// lock, from the classes stored before and after; Open builds it once for
// a store written before it existed (classIndexReady marks it built).
const (
	classIndexPrefix = "\x00c"
	classIndexReady  = "\x00class-index-v1"
	classHashBytes   = 8
	classKeyIRIBytes = 960
)

// classKeyPrefix is the prefix of the keys of class's members.
func classKeyPrefix(class quad.IRI) []byte {
	h := sha256.Sum256([]byte(class))
	return append([]byte(classIndexPrefix), h[:classHashBytes]...)
}

// classEntry is the index entry of iri in class; a nil value deletes it.
func classEntry(class, iri quad.IRI, del bool) SideEntry {
	key := classKeyPrefix(class)
	var val []byte
	if len(iri) > classKeyIRIBytes {
		h := sha256.Sum256([]byte(iri))
		key = append(append(key, iri[:classKeyIRIBytes]...), h[:]...)
		val = []byte(iri)
	} else {
		key = append(key, iri...)
		val = []byte{}
	}
	if del {
		val = nil
	}
	return SideEntry{Key: key, Value: val}
}

// ownClasses are the classes the graph g's quads give g itself.
func ownClasses(g quad.IRI, quads map[quad.Quad]struct{}) []quad.IRI {
	var out []quad.IRI
	for q := range quads {
		if c, ok := q.Object.(quad.IRI); ok && q.Subject == g && q.Predicate == quad.IRI(rdfType) {
			out = append(out, c)
		}
	}
	return out
}

// storedClasses are the classes the stored graph g gives g itself.
func (s *Store) storedClasses(ctx context.Context, g quad.IRI) ([]quad.IRI, error) {
	var out []quad.IRI
	err := s.b.match(ctx, Pattern{Subject: g, Predicate: quad.IRI(rdfType), Label: g}, func(q quad.Quad) error {
		if c, ok := q.Object.(quad.IRI); ok {
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// withClassIndex returns chunk with the class index's changes added to
// the side entries of each graph (s.wmu held; native backend only). The
// side entries the callers gave are left as they are for committedSide.
func (s *Store) withClassIndex(ctx context.Context, chunk []normGraph) ([]normGraph, error) {
	if s.native() == nil {
		return chunk, nil
	}
	out := make([]normGraph, len(chunk))
	for i, g := range chunk {
		old, err := s.storedClasses(ctx, g.iri)
		if err != nil {
			return nil, fmt.Errorf("class index of %s: %w", g.iri, err)
		}
		cur := ownClasses(g.iri, g.quads)
		var side []SideEntry
		for _, c := range old {
			if !slices.Contains(cur, c) {
				side = append(side, classEntry(c, g.iri, true))
			}
		}
		for _, c := range cur {
			if !slices.Contains(old, c) {
				side = append(side, classEntry(c, g.iri, false))
			}
		}
		out[i] = g
		if len(side) > 0 {
			out[i].side = append(slices.Clip(g.side), side...)
		}
	}
	return out, nil
}

// buildClassIndex writes the class index of a store that has none (one
// written before the index existed), in commits of 10,000 entries, then
// marks it built. It runs in Open, before any writer.
func (s *Store) buildClassIndex(ctx context.Context) error {
	qs := s.native()
	if qs == nil {
		return nil
	}
	built := false
	if err := qs.GetSide(ctx, [][]byte{[]byte(classIndexReady)}, func(_ int, v []byte) error {
		built = v != nil
		return nil
	}); err != nil || built {
		return err
	}
	var batch []SideEntry
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := qs.PutSide(ctx, batch)
		batch = batch[:0]
		return err
	}
	err := s.b.match(ctx, Pattern{Predicate: quad.IRI(rdfType)}, func(q quad.Quad) error {
		iri, ok := q.Subject.(quad.IRI)
		c, cok := q.Object.(quad.IRI)
		if !ok || !cok || q.Label != iri {
			return nil
		}
		batch = append(batch, classEntry(c, iri, false))
		if len(batch) == 10000 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = qs.PutSide(ctx, []SideEntry{{Key: []byte(classIndexReady), Value: []byte{1}}})
	}
	if err == nil {
		err = s.sync()
	}
	if err != nil {
		return fmt.Errorf("build class index: %w", err)
	}
	return nil
}

// listByClassIndex is ListByClass on the class index: a seek to after and
// the next limit+1 members in IRI order.
func (s *Store) listByClassIndex(ctx context.Context, class, after quad.IRI, limit int) ([]quad.IRI, bool, error) {
	prefix := classKeyPrefix(class)
	from := prefix
	if after != "" {
		from = classEntry(class, after, false).Key
		if len(after) > classKeyIRIBytes {
			// The run of after's cut IRI is ordered by hash: read it whole.
			from = from[:len(prefix)+classKeyIRIBytes]
		}
	}
	var (
		page []quad.IRI
		more bool
		// run holds the IRIs of a run of cut keys with the same cut.
		run    []quad.IRI
		runCut []byte
	)
	// add takes iri in IRI order; false once the page is full and one
	// more member was seen.
	add := func(iri quad.IRI) bool {
		if iri <= after {
			return true
		}
		if limit > 0 && len(page) == limit {
			more = true
			return false
		}
		page = append(page, iri)
		return true
	}
	flushRun := func() bool {
		slices.Sort(run)
		for _, iri := range run {
			if !add(iri) {
				return false
			}
		}
		run, runCut = run[:0], nil
		return true
	}
	stopped := false
	err := s.native().ScanSideFrom(ctx, prefix, from, func(key, value []byte) error {
		body := key[len(prefix):]
		if len(value) == 0 {
			if len(run) > 0 && !flushRun() {
				return errStop
			}
			if !add(quad.IRI(body)) {
				return errStop
			}
			return nil
		}
		cut := body[:min(len(body), classKeyIRIBytes)]
		if len(run) > 0 && !bytes.Equal(cut, runCut) && !flushRun() {
			return errStop
		}
		if len(run) == 0 {
			runCut = bytes.Clone(cut)
		}
		run = append(run, quad.IRI(value))
		return nil
	})
	if err == errStop {
		err, stopped = nil, true
	}
	if err == nil && !stopped && len(run) > 0 {
		flushRun()
	}
	if err != nil {
		return nil, false, fmt.Errorf("list %s: %w", class, err)
	}
	return page, more, nil
}
