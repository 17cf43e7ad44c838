package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/orca"
	"github.com/molgraph/molgraph/parsers/psi4"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
	"github.com/molgraph/molgraph/shapes"
)

// newQMGateFixture is newQMFixture with the SHACL gate and a body limit
// (0: the default).
func newQMGateFixture(t *testing.T, maxBody int64) (*fixture, *graph.Store) {
	t.Helper()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) {
		c.Graph = st
		c.QM = qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}}
		c.Gate = gate
		c.MaxBodyBytes = maxBody
	})
	return f, st
}

// gateBody is the part of a 201 body the gate tests read.
type gateBody struct {
	ID                string `json:"id"`
	NormalTermination bool   `json:"normal_termination"`
	Validation        *struct {
		Conforms bool  `json:"conforms"`
		Results  []any `json:"results"`
	} `json:"validation"`
}

// assertNothingStored checks that a rejected upload left neither quads nor
// the log's blob behind.
func assertNothingStored(t *testing.T, st *graph.Store, quadsBefore int, data []byte) {
	t.Helper()
	if n := countQuads(t, st); n != quadsBefore {
		t.Errorf("a rejected log stored %d quads", n-quadsBefore)
	}
	if data != nil {
		sum := sha256.Sum256(data)
		if st.Blobs().Has(hex.EncodeToString(sum[:])) {
			t.Error("a rejected log was kept as a blob")
		}
	}
}

// problemMentions reports whether any error of p mentions re (field or message).
func problemMentions(p Problem, re *regexp.Regexp) bool {
	for _, e := range p.Errors {
		if re.MatchString(e.Field) || re.MatchString(e.Message) {
			return true
		}
	}
	return false
}

// TestGateCorpusLogs posts every Gaussian, ORCA and Psi4 log of the corpus
// with validate_ontology=true. What is expected comes from cclib master's
// parse of each log (cclib_reference_head.json), not from our parsers: a
// complete log (cclib: success) must be stored (201) and conform; a
// truncated or failed one must be rejected (422 ontology_validation_failed,
// naming the missing energy, nothing stored) exactly when cclib found no SCF
// energy in it, since the calculation shape requires at least one computed
// energy, and stored as conforming otherwise (it still has program,
// method, basis set, charge, multiplicity, a geometry and energies).
func TestGateCorpusLogs(t *testing.T) {
	f, st := newQMGateFixture(t, 0)
	refs := qmtest.References(t)
	energy := regexp.MustCompile(`(?i)energ`)
	var complete, partialStored, partialRejected []string
	for _, folder := range []string{"gaussian", "orca", "psi4", "nwchem", "xtb"} {
		for _, rel := range qmtest.Logs(t, folder) {
			ref, ok := refs[rel]
			if !ok {
				t.Errorf("%s: no cclib reference", rel)
				continue
			}
			isComplete := ref.Success != nil && *ref.Success
			reject := !isComplete && ref.NSCF == nil
			t.Run(rel, func(t *testing.T) {
				data := qmtest.Read(t, rel)
				before := countQuads(t, st)
				rec := f.parse(t, rel, data, "validate_ontology", "true")
				if reject {
					p := problemOf(t, rec, http.StatusUnprocessableEntity, "ontology_validation_failed")
					if !problemMentions(p, energy) {
						t.Errorf("the problem does not name the missing energy: %+v", p.Errors)
					}
					assertNothingStored(t, st, before, data)
					partialRejected = append(partialRejected, rel)
					return
				}
				if rec.Code != http.StatusCreated {
					t.Fatalf("status %d, want 201: %s", rec.Code, rec.Body)
				}
				var b gateBody
				if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
					t.Fatal(err)
				}
				if b.Validation == nil || !b.Validation.Conforms || len(b.Validation.Results) != 0 {
					t.Errorf("validation %+v, want conforming", b.Validation)
				}
				if b.NormalTermination != isComplete {
					t.Errorf("normal_termination %v, cclib success %v", b.NormalTermination, ref.Success)
				}
				if ok, err := st.HasGraph(t.Context(), f.srv.calculationIRI(b.ID)); err != nil || !ok {
					t.Errorf("calculation graph not stored (%v)", err)
				}
				if isComplete {
					complete = append(complete, rel)
				} else {
					partialStored = append(partialStored, rel)
				}
			})
		}
	}
	t.Logf("complete logs stored and conforming: %d; truncated/failed stored and conforming: %v; rejected: %v",
		len(complete), partialStored, partialRejected)
	// The corpus has four killed runs without any energy (stopiter_*), one
	// per program but xtb (README, section 3): all four must have been rejected.
	if len(partialRejected) != 4 {
		t.Errorf("rejected %v, want the four stopiter_* logs", partialRejected)
	}
	for _, rel := range partialRejected {
		if !strings.Contains(rel, "/stopiter_") {
			t.Errorf("rejected %s, not a stopiter_* log", rel)
		}
	}
}

// gateEdit is a corpus log edited so that the gate must refuse it.
type gateEdit struct {
	name, rel string
	edit      func(string) string
	// check confirms, on the parser's output, that the edit removed what it
	// meant to (so that the test cannot pass for another reason).
	check func(*qm.Calculation) bool
	// mention is what the problem's errors must name.
	mention *regexp.Regexp
}

// dropLines removes the lines whose trimmed text starts with one of prefixes.
func dropLines(s string, prefixes ...string) string {
	lines := strings.SplitAfter(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		tl := strings.TrimSpace(l)
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(tl, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// renameLines replaces old by repl on the lines whose trimmed text starts
// with old (so that a parser no longer recognises those section headers).
func renameLines(s, old, repl string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), old) {
			lines[i] = strings.Replace(l, old, repl, 1)
		}
	}
	return strings.Join(lines, "")
}

// TestGateRejectsEditedLogs: a complete log with its basis-set lines
// removed, or with its geometries removed, parses (the parsers are tolerant)
// but is refused by the gate: 422 ontology_validation_failed naming what is
// missing, and nothing stored. The same bytes without validate_ontology are
// accepted, so it is the gate that refuses them.
func TestGateRejectsEditedLogs(t *testing.T) {
	basis := regexp.MustCompile(`(?i)basis`)
	geometry := regexp.MustCompile(`(?i)geometry|atom`)
	noBasis := func(c *qm.Calculation) bool { return c.BasisSet == "" }
	noGeom := func(c *qm.Calculation) bool { return len(c.Geometries) == 0 }
	cases := []gateEdit{
		{"gaussian without basis set", "gaussian/basicGaussian16/dvb_sp.out", func(s string) string {
			// "Standard basis: STO-3G (5D, 7F)" and the route's "B3LYP/sto-3g".
			return regexp.MustCompile(`(?i)/sto-3g`).ReplaceAllString(dropLines(s, "Standard basis:"), "")
		}, noBasis, basis},
		{"orca without basis set", "orca/basicORCA5.0/dvb_sp.out", func(s string) string {
			// "Your calculation utilizes the basis: STO-3G" and the
			// STO-3G keyword of the echoed input ("|  1> ! B3LYP STO-3G").
			s = dropLines(s, "Your calculation utilizes the basis:")
			return regexp.MustCompile(`(?im)^(\|\s*\d+>\s*!.*?)\bsto-3g\b`).ReplaceAllString(s, "$1")
		}, noBasis, basis},
		{"psi4 without basis set", "psi4/generated/water_hf_sto3g_sp_freq.out", func(s string) string {
			return dropLines(s, "Basis Set:")
		}, noBasis, basis},
		{"gaussian without geometry", "gaussian/basicGaussian16/dvb_sp.out", func(s string) string {
			for _, h := range []string{"Input orientation:", "Standard orientation:", "Z-Matrix orientation:"} {
				s = renameLines(s, h, "Omitted block:")
			}
			return s
		}, noGeom, geometry},
		{"orca without geometry", "orca/basicORCA5.0/dvb_sp.out", func(s string) string {
			return renameLines(s, "CARTESIAN COORDINATES (ANGSTROEM)", "OMITTED BLOCK")
		}, noGeom, geometry},
		{"psi4 without geometry", "psi4/generated/water_hf_sto3g_sp_freq.out", func(s string) string {
			return renameLines(s, "Geometry (in ", "Omitted block (")
		}, noGeom, geometry},
	}
	f, st := newQMGateFixture(t, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := string(qmtest.Read(t, c.rel))
			data := []byte(c.edit(orig))
			if string(data) == orig {
				t.Fatal("the edit changed nothing")
			}
			calc, err := qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}}.Parse(bytes.NewReader(data), "")
			if err != nil {
				t.Fatalf("the edited log does not parse: %v", err)
			}
			if !c.check(calc) {
				t.Fatalf("the edit did not remove what it meant to: basis %q, %d geometries", calc.BasisSet, len(calc.Geometries))
			}
			before := countQuads(t, st)
			p := problemOf(t, f.parse(t, "edited.log", data, "validate_ontology", "true"),
				http.StatusUnprocessableEntity, "ontology_validation_failed")
			if len(p.Errors) == 0 || !problemMentions(p, c.mention) {
				t.Errorf("the problem does not name %v: %+v", c.mention, p.Errors)
			}
			assertNothingStored(t, st, before, data)
		})
	}
	// Without the gate the edited logs are stored: the parsers accept them.
	g, _ := newQMGateFixture(t, 0)
	for _, c := range cases {
		data := []byte(c.edit(string(qmtest.Read(t, c.rel))))
		if rec := g.parse(t, "edited.log", data); rec.Code != http.StatusCreated {
			t.Errorf("%s without validate_ontology: %d %s", c.name, rec.Code, rec.Body)
		}
	}
}

// endlessLog streams a multipart upload whose file part is a Gaussian-like
// log of up to limit bytes, generated as it is read, and counts what was
// read: the "2 GB file" without 2 GB of memory or disk.
type endlessLog struct {
	head, tail []byte
	line       []byte
	left       int64 // file bytes still to produce
	cur        []byte
	read       int64
	done       bool
}

func newEndlessLog(t *testing.T, size int64) (*endlessLog, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("validate_ontology", "true")
	if _, err := mw.CreateFormFile("file", "huge.log"); err != nil {
		t.Fatal(err)
	}
	head := append([]byte(nil), b.Bytes()...)
	b.Reset()
	mw.Close()
	banner := " Entering Gaussian System, Link 0=g16\n"
	return &endlessLog{
		head: append(head, banner...),
		tail: append([]byte("\n"), b.Bytes()...),
		line: []byte(" SCF Done:  E(RB3LYP) =  -382.308266602     A.U. after    7 cycles\n"),
		left: size - int64(len(banner)),
	}, mw.FormDataContentType()
}

func (e *endlessLog) Read(p []byte) (int, error) {
	for len(e.cur) == 0 {
		switch {
		case e.head != nil:
			e.cur, e.head = e.head, nil
		case e.left > 0:
			e.cur = e.line[:min(int64(len(e.line)), e.left)]
			e.left -= int64(len(e.cur))
		case !e.done:
			e.cur, e.done = e.tail, true
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, e.cur)
	e.cur = e.cur[n:]
	e.read += int64(n)
	return n, nil
}

// TestParseLogBodyTooLarge: an upload above the configured body limit is
// refused with 413 and nothing is stored, whether its length is declared (a
// 2 GiB Content-Length, refused before reading) or not (a chunked stream of
// 2 GiB, cut off once the limit is passed: the server must not read on).
func TestParseLogBodyTooLarge(t *testing.T) {
	const limit = 1 << 20
	const size = 2 << 30
	f, st := newQMGateFixture(t, limit)
	for _, c := range []struct {
		name          string
		contentLength int64
	}{{"declared length", size + 4096}, {"unknown length", -1}} {
		t.Run(c.name, func(t *testing.T) {
			body, ct := newEndlessLog(t, size)
			req := httptest.NewRequest(http.MethodPost, "/v1/qm/parse", body)
			req.ContentLength = c.contentLength
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+f.tokens["write"])
			rec := httptest.NewRecorder()
			f.srv.ServeHTTP(rec, req)
			problemOf(t, rec, http.StatusRequestEntityTooLarge, "body_too_large")
			if body.read > 2*limit {
				t.Errorf("the server read %d bytes of a body limited to %d", body.read, limit)
			}
			assertNothingStored(t, st, 0, nil)
		})
	}
	// A log under the limit still goes through the same fixture.
	data := qmtest.Read(t, "psi4/generated/water_hf_sto3g_sp_freq.out")
	if len(data) >= limit {
		t.Fatalf("fixture log of %d bytes is not under the limit", len(data))
	}
	if rec := f.parse(t, "water.out", data, "validate_ontology", "true"); rec.Code != http.StatusCreated {
		t.Errorf("small log: %d %s", rec.Code, rec.Body)
	}
}
