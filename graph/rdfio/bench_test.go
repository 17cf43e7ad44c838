package rdfio

import (
	"fmt"
	"io"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// benchQuads builds n molecule-like triples: resources of 10 triples each
// (types, SMILES, InChIKey, doubles, boolean, a descriptor link).
func benchQuads(n int) []quad.Quad {
	values := make([]quad.Value, 1000)
	for i := range values {
		values[i] = ontology.Double(float64(i)*1.37 + 0.001)
	}
	preds := []quad.Value{
		ontology.RDFType, quad.IRI(ontology.MG + "canonicalSmiles"), quad.IRI(ontology.MG + "inchiKey"),
		quad.IRI(ontology.MG + "molecularWeight"), quad.IRI(ontology.MG + "logP"), quad.IRI(ontology.MG + "qed"),
		quad.IRI(ontology.MG + "validated"), quad.IRI(ontology.MG + "has3D"),
		quad.IRI(ontology.SIO + "SIO_000008"), quad.IRI(ontology.PROV + "generatedAtTime"),
	}
	mol := quad.IRI(ontology.MG + "Molecule")
	smiles := ontology.String("CC(=O)Oc1ccccc1C(=O)O")
	key := ontology.String("BSYNRYMUTXBXSQ-UHFFFAOYSA-N")
	tru, fal := ontology.Boolean(true), ontology.Boolean(false)
	when := quad.TypedString{Value: "2024-05-06T07:08:09Z", Type: ontology.XSDDateTime}
	qs := make([]quad.Quad, 0, n)
	for r := 0; len(qs) < n; r++ {
		s := ontology.ResourceIRI("http://localhost:8080/", ontology.KindMolecule, fmt.Sprintf("mol-%08d", r))
		objs := []quad.Value{mol, smiles, key, values[r%1000], values[(r+1)%1000], values[(r+2)%1000],
			tru, fal, ontology.SubIRI(s, "mw"), when}
		for i := 0; i < 10 && len(qs) < n; i++ {
			qs = append(qs, quad.Quad{Subject: s, Predicate: preds[i], Object: objs[i], Label: s})
		}
	}
	return qs
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func benchWrite(b *testing.B, f Format, n int) {
	qs := benchQuads(n)
	b.ReportAllocs()
	b.ResetTimer()
	var bytes int64
	for i := 0; i < b.N; i++ {
		cw := &countWriter{}
		w, err := NewWriter(cw, f)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range qs {
			if err := w.WriteQuad(q); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		bytes = cw.n
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkWriteTurtle1M writes 1,000,000 triples as Turtle (run with
// -benchtime=1x; MB/s is output bytes).
func BenchmarkWriteTurtle1M(b *testing.B) { benchWrite(b, Turtle, 1_000_000) }

// BenchmarkWriteNTriples1M writes 1,000,000 triples as N-Triples.
func BenchmarkWriteNTriples1M(b *testing.B) { benchWrite(b, NTriples, 1_000_000) }

// BenchmarkWriteJSONLD100k writes 100,000 triples as JSON-LD.
func BenchmarkWriteJSONLD100k(b *testing.B) { benchWrite(b, JSONLD, 100_000) }

// BenchmarkParseNTriples1M parses 1,000,000 triples of N-Triples.
func BenchmarkParseNTriples1M(b *testing.B) {
	var buf countBuf
	if err := WriteAll(&buf, NTriples, benchQuads(1_000_000)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf.b)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		err := Parse(&byteReader{b: buf.b}, NTriples, ParseOptions{}, func(quad.Quad) error { n++; return nil })
		if err != nil || n != 1_000_000 {
			b.Fatal(err, n)
		}
	}
}

type countBuf struct{ b []byte }

func (c *countBuf) Write(p []byte) (int, error) { c.b = append(c.b, p...); return len(p), nil }

type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
