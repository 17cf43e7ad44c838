package rdfio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
	"github.com/piprate/json-gold/ld"
)

// JSON-LD goes through github.com/piprate/json-gold (RDF -> expanded JSON-LD
// -> compaction with our context). json-gold works on whole documents in
// memory, so the writer feeds it bounded chunks and streams the resulting
// node objects itself.

const defaultChunk = 10000

// maxRun caps the quads of one subject in a chunk: json-gold's FromRDF
// merges each value with a linear duplicate search (quadratic per
// subject; 3,000 values of one subject took 3 s). Longer runs are split
// into several node objects with the same "@id", which JSON-LD merges.
const maxRun = 128

type jsonldWriter struct {
	w          *bufio.Writer
	ctx        any    // the value of "@context" used for compaction
	ctxOut     []byte // the JSON written as "@context"
	keepGraphs bool
	chunkSize  int
	chunk      []quad.Quad
	run        int // quads of the last subject in chunk
	nodes      int // node objects written so far
	started    bool
	err        error
	closed     bool
}

// noRemote refuses to load remote documents: the only context we use is
// given inline, and a server must never fetch URLs named by input.
type noRemote struct{}

func (noRemote) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, fmt.Errorf("rdfio: jsonld: remote document %q not allowed", u)
}

func newJSONLDWriter(w io.Writer, opts WriterOptions) (*jsonldWriter, error) {
	doc := opts.Context
	if doc == nil {
		doc = ontology.Context()
	}
	var parsed map[string]any
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return nil, fmt.Errorf("rdfio: new jsonld writer: context: %w", err)
	}
	ctx, ok := parsed["@context"]
	if !ok {
		return nil, fmt.Errorf("rdfio: new jsonld writer: context document has no \"@context\" member")
	}
	// Write the context as given (member order kept), re-indented.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("rdfio: new jsonld writer: context: %w", err)
	}
	var out []byte
	if opts.ContextURL != "" {
		out, _ = json.Marshal(opts.ContextURL)
	} else {
		var ind bytes.Buffer
		if err := json.Indent(&ind, raw["@context"], "  ", "  "); err != nil {
			return nil, fmt.Errorf("rdfio: new jsonld writer: context: %w", err)
		}
		out = ind.Bytes()
	}
	size := opts.ChunkSize
	if size <= 0 {
		size = defaultChunk
	}
	return &jsonldWriter{w: bufio.NewWriterSize(w, 64<<10), ctx: ctx, ctxOut: out,
		keepGraphs: opts.KeepGraphs, chunkSize: size}, nil
}

func (jw *jsonldWriter) fail(op string, err error) error {
	jw.err = fmt.Errorf("rdfio: %s jsonld: %w", op, err)
	return jw.err
}

func (jw *jsonldWriter) start() error {
	jw.started = true
	if _, err := jw.w.WriteString("{\n  \"@context\": "); err != nil {
		return err
	}
	if _, err := jw.w.Write(jw.ctxOut); err != nil {
		return err
	}
	_, err := jw.w.WriteString(",\n  \"@graph\": [")
	return err
}

func (jw *jsonldWriter) WriteQuad(q quad.Quad) error {
	if jw.closed {
		return fmt.Errorf("rdfio: write jsonld: %w", ErrClosed)
	}
	if jw.err != nil {
		return jw.err
	}
	if err := checkQuad(q); err != nil {
		return fmt.Errorf("rdfio: write jsonld: %w", err)
	}
	if _, err := toLDNode(q.Object); err != nil {
		return fmt.Errorf("rdfio: write jsonld: %w", err)
	}
	if !jw.keepGraphs {
		q.Label = nil
	}
	if n := len(jw.chunk); n > 0 {
		last := jw.chunk[n-1]
		same := last.Subject == q.Subject && last.Label == q.Label
		if (n >= jw.chunkSize && !same) || (same && jw.run >= maxRun) {
			if err := jw.flush(); err != nil {
				return jw.fail("write", err)
			}
		}
		if !same {
			jw.run = 0
		}
	}
	jw.chunk = append(jw.chunk, q)
	jw.run++
	return nil
}

// flush converts the buffered chunk and writes its node objects.
func (jw *jsonldWriter) flush() error {
	if !jw.started {
		if err := jw.start(); err != nil {
			return err
		}
	}
	if len(jw.chunk) == 0 {
		return nil
	}
	nodes, err := compactChunk(jw.chunk, jw.ctx)
	jw.chunk, jw.run = jw.chunk[:0], 0
	if err != nil {
		return err
	}
	for _, n := range nodes {
		b, err := json.MarshalIndent(n, "    ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n    "
		if jw.nodes == 0 {
			sep = "\n    "
		}
		jw.nodes++
		if _, err := jw.w.WriteString(sep); err != nil {
			return err
		}
		if _, err := jw.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (jw *jsonldWriter) Close() error {
	if jw.closed {
		return fmt.Errorf("rdfio: close jsonld: %w", ErrClosed)
	}
	jw.closed = true
	if jw.err != nil {
		return jw.err
	}
	if err := jw.flush(); err != nil {
		return jw.fail("close", err)
	}
	end := "\n  ]\n}\n"
	if jw.nodes == 0 {
		end = "]\n}\n"
	}
	if _, err := jw.w.WriteString(end); err != nil {
		return jw.fail("close", err)
	}
	if err := jw.w.Flush(); err != nil {
		return jw.fail("close", err)
	}
	return nil
}

func toLDNode(v quad.Value) (ld.Node, error) {
	v, err := normalize(v)
	if err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case quad.IRI:
		if err := checkIRI(string(t)); err != nil {
			return nil, err
		}
		return ld.NewIRI(string(t)), nil
	case quad.BNode:
		return ld.NewBlankNode("_:" + string(t)), nil
	case quad.String:
		if !utf8.ValidString(string(t)) {
			return nil, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		return ld.NewLiteral(string(t), xsdString, ""), nil
	case quad.LangString:
		if err := checkLang(t.Lang); err != nil {
			return nil, err
		}
		if !utf8.ValidString(string(t.Value)) {
			return nil, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		return ld.NewLiteral(string(t.Value), rdfNS+"langString", t.Lang), nil
	case quad.TypedString:
		if err := checkIRI(string(t.Type)); err != nil {
			return nil, err
		}
		if !utf8.ValidString(string(t.Value)) {
			return nil, fmt.Errorf("%w: literal is not valid UTF-8", ErrInvalidTerm)
		}
		return ld.NewLiteral(string(t.Value), string(t.Type), ""), nil
	}
	return nil, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
}

func ldOptions() *ld.JsonLdOptions {
	o := ld.NewJsonLdOptions("")
	o.DocumentLoader = noRemote{}
	return o
}

// compactChunk turns quads into compacted node objects (without
// "@context").
func compactChunk(qs []quad.Quad, ctx any) ([]any, error) {
	ds := ld.NewRDFDataset()
	for _, q := range qs {
		s, err := toLDNode(q.Subject)
		if err != nil {
			return nil, err
		}
		p, err := toLDNode(q.Predicate)
		if err != nil {
			return nil, err
		}
		o, err := toLDNode(q.Object)
		if err != nil {
			return nil, err
		}
		g := "@default"
		if q.Label != nil {
			gn, err := toLDNode(q.Label)
			if err != nil {
				return nil, err
			}
			g = gn.GetValue()
		}
		ds.Graphs[g] = append(ds.Graphs[g], ld.NewQuad(s, p, o, g))
	}
	opts := ldOptions()
	expanded, err := ld.NewJsonLdApi().FromRDF(ds, opts)
	if err != nil {
		return nil, fmt.Errorf("from rdf: %w", err)
	}
	compacted, err := ld.NewJsonLdProcessor().Compact(expanded, map[string]any{"@context": ctx}, opts)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	delete(compacted, "@context")
	if g, ok := compacted["@graph"]; ok && len(compacted) == 1 {
		if arr, ok := g.([]any); ok {
			return arr, nil
		}
		return []any{g}, nil
	}
	if len(compacted) == 0 {
		return nil, nil
	}
	return []any{compacted}, nil
}

// ParseJSONLD reads a JSON-LD document into quads through json-gold
// (expansion, then the RDF conversion of JSON-LD 1.1 API). Remote contexts
// are refused; relative IRIs resolve against base. Blank node labels are
// those json-gold issues (_:b0, _:b1, ...). The document is read whole.
func ParseJSONLD(r io.Reader, base string) ([]quad.Quad, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("rdfio: parse jsonld: read: %w", err)
	}
	if err := jsonDepth(data, maxNesting); err != nil {
		return nil, fmt.Errorf("rdfio: parse jsonld: %w", err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("rdfio: parse jsonld: %w: %v", ErrSyntax, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("rdfio: parse jsonld: %w: data after the JSON value", ErrSyntax)
	}
	res, err := ld.NewJsonLdProcessor().ToRDF(doc, ldOptions2(base))
	if err != nil {
		return nil, fmt.Errorf("rdfio: parse jsonld: %w: %v", ErrSyntax, err)
	}
	ds, ok := res.(*ld.RDFDataset)
	if !ok {
		return nil, fmt.Errorf("rdfio: parse jsonld: unexpected result %T", res)
	}
	var out []quad.Quad
	for g, qs := range ds.Graphs {
		var label quad.Value
		if g != "@default" {
			label = fromLDName(g)
		}
		for _, q := range qs {
			o, err := fromLDNode(q.Object)
			if err != nil {
				return nil, fmt.Errorf("rdfio: parse jsonld: %w", err)
			}
			out = append(out, quad.Quad{Subject: fromLDName(q.Subject.GetValue()),
				Predicate: fromLDName(q.Predicate.GetValue()), Object: o, Label: label})
		}
	}
	return out, nil
}

func ldOptions2(base string) *ld.JsonLdOptions {
	o := ldOptions()
	o.Base = base
	return o
}

func fromLDName(s string) quad.Value {
	if len(s) > 2 && s[0] == '_' && s[1] == ':' {
		return quad.BNode(s[2:])
	}
	return quad.IRI(s)
}

func fromLDNode(n ld.Node) (quad.Value, error) {
	switch t := n.(type) {
	case ld.IRI:
		return quad.IRI(t.Value), nil
	case ld.BlankNode:
		return fromLDName(t.Attribute), nil
	case ld.Literal:
		if t.Language != "" {
			return quad.LangString{Value: quad.String(t.Value), Lang: t.Language}, nil
		}
		return literal(t.Value, "", t.Datatype), nil
	}
	return nil, errors.New("unknown json-ld node type")
}

// jsonDepth refuses JSON whose arrays and objects nest deeper than max,
// before json-gold (which recurses per level) sees it.
func jsonDepth(data []byte, max int) error {
	if at := JSONTooDeep(data, max); at >= 0 {
		return fmt.Errorf("%w: JSON nested deeper than %d levels (at byte %d)", ErrSyntax, max, at)
	}
	return nil
}

// JSONTooDeep returns the offset of the first bracket at which data's
// arrays and objects nest deeper than max, or -1: one pass without
// recursion, to run before a decoder that recurses once per level
// (encoding/json, json-gold). Brackets in strings are skipped; other
// syntax errors are left to the decoder.
func JSONTooDeep(data []byte, max int) int {
	depth := 0
	inString, escaped := false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				return i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return -1
}
