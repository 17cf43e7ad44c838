package rdfio

import (
	"bufio"
	"fmt"
	"io"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// Writer serializes quads one at a time. Implementations write through a
// buffer to the underlying io.Writer and never hold the document in memory
// (JSON-LD holds one chunk; see NewWriter). After an error every later call
// returns the same error. Writers are not safe for concurrent use.
type Writer interface {
	// WriteQuad writes one quad. Errors wrap ErrInvalidTerm for quads the
	// format cannot express (a literal subject, a non-IRI predicate, an IRI
	// with characters IRIREF forbids, ...), or carry the I/O error.
	WriteQuad(q quad.Quad) error
	// Close finishes the document and flushes it; it does not close the
	// underlying io.Writer. Using the Writer afterwards returns ErrClosed.
	Close() error
}

// WriterOptions tune NewWriterOptions. The zero value gives the defaults of
// NewWriter.
type WriterOptions struct {
	// Prefixes declared by Turtle documents and used for prefixed names.
	// Nil: ontology.Prefixes().
	Prefixes []ontology.Prefix
	// Context is the JSON-LD context document ({"@context": {...}}) used to
	// compact JSON-LD output. Nil: ontology.Context().
	Context []byte
	// ContextURL, when set, is written as the JSON-LD "@context" value
	// instead of the context object itself (e.g. the service's
	// /v1/context.jsonld). The output is still compacted with Context.
	ContextURL string
	// KeepGraphs makes the JSON-LD writer keep graph labels: each named
	// graph becomes a {"@id": label, "@graph": [...]} object in the
	// top-level "@graph" array. N-Quads always keeps labels; Turtle and
	// N-Triples always drop them.
	KeepGraphs bool
	// ChunkSize is the number of quads the JSON-LD writer buffers before it
	// converts them (at the next change of subject or graph). Zero: 10,000.
	ChunkSize int
}

// NewWriter returns a Writer of format f over w with default options:
// Turtle declares and uses the prefixes of ontology.Prefixes(), JSON-LD is
// compacted with ontology.Context() embedded inline, graph labels are
// dropped except in N-Quads.
//
// N-Triples and N-Quads are written in canonical form (RDF 1.1 N-Triples,
// section 4). Turtle groups consecutive quads of the same subject with ';'
// and of the same subject and predicate with ','; pass quads sorted by
// subject (SortQuads) to get one group per subject. JSON-LD is written as
// {"@context": ..., "@graph": [node, ...]}: quads are buffered in chunks
// (ChunkSize, cut only where the subject or graph changes), each chunk is
// converted and compacted by json-gold and its node objects are streamed
// into the one "@graph" array; a subject split across chunks appears as
// two node objects with the same "@id", which JSON-LD merges.
func NewWriter(w io.Writer, f Format) (Writer, error) {
	return NewWriterOptions(w, f, WriterOptions{})
}

// NewWriterOptions is NewWriter with options.
func NewWriterOptions(w io.Writer, f Format, opts WriterOptions) (Writer, error) {
	switch f {
	case NTriples, NQuads:
		return &ntWriter{w: bufio.NewWriterSize(w, 64<<10), quads: f == NQuads}, nil
	case Turtle:
		return newTurtleWriter(w, opts), nil
	case JSONLD:
		return newJSONLDWriter(w, opts)
	}
	return nil, fmt.Errorf("rdfio: new writer: %w: %v", ErrUnknownFormat, f)
}

// WriteAll writes qs to w in format f and closes the writer.
func WriteAll(w io.Writer, f Format, qs []quad.Quad) error {
	wr, err := NewWriter(w, f)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := wr.WriteQuad(q); err != nil {
			return err
		}
	}
	return wr.Close()
}

// checkQuad validates the positions of q's terms: subject IRI or blank
// node, predicate IRI, object present, label nil, IRI or blank node.
func checkQuad(q quad.Quad) error {
	switch q.Subject.(type) {
	case quad.IRI, quad.BNode:
	default:
		return fmt.Errorf("%w: subject %v is not an IRI or blank node", ErrInvalidTerm, q.Subject)
	}
	if _, ok := q.Predicate.(quad.IRI); !ok {
		return fmt.Errorf("%w: predicate %v is not an IRI", ErrInvalidTerm, q.Predicate)
	}
	if q.Object == nil {
		return fmt.Errorf("%w: missing object", ErrInvalidTerm)
	}
	switch q.Label.(type) {
	case nil, quad.IRI, quad.BNode:
	default:
		return fmt.Errorf("%w: graph label %v is not an IRI or blank node", ErrInvalidTerm, q.Label)
	}
	return nil
}

// ntWriter writes N-Triples or N-Quads.
type ntWriter struct {
	w      *bufio.Writer
	quads  bool
	buf    []byte
	err    error
	closed bool
}

func (nw *ntWriter) name() string {
	if nw.quads {
		return "nquads"
	}
	return "ntriples"
}

func (nw *ntWriter) WriteQuad(q quad.Quad) error {
	if nw.closed {
		return fmt.Errorf("rdfio: write %s: %w", nw.name(), ErrClosed)
	}
	if nw.err != nil {
		return nw.err
	}
	if err := checkQuad(q); err != nil {
		return fmt.Errorf("rdfio: write %s: %w", nw.name(), err)
	}
	b := nw.buf[:0]
	var err error
	terms := []quad.Value{q.Subject, q.Predicate, q.Object}
	if nw.quads && q.Label != nil {
		terms = append(terms, q.Label)
	}
	for _, v := range terms {
		if b, err = appendNTTerm(b, v); err != nil {
			return fmt.Errorf("rdfio: write %s: %w", nw.name(), err)
		}
		b = append(b, ' ')
	}
	b = append(b, '.', '\n')
	nw.buf = b
	if _, err := nw.w.Write(b); err != nil {
		nw.err = fmt.Errorf("rdfio: write %s: %w", nw.name(), err)
		return nw.err
	}
	return nil
}

func (nw *ntWriter) Close() error {
	if nw.closed {
		return fmt.Errorf("rdfio: close %s: %w", nw.name(), ErrClosed)
	}
	nw.closed = true
	if nw.err != nil {
		return nw.err
	}
	if err := nw.w.Flush(); err != nil {
		return fmt.Errorf("rdfio: close %s: %w", nw.name(), err)
	}
	return nil
}
