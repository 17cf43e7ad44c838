package shapes

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/ontology"
)

const (
	calcIRI = "http://localhost:8080/id/calculation/calc-co2"
	calcNS  = calcIRI + "#"
	gcNS    = ontology.GC
	occNS   = ontology.OCC
)

func newTestGate(t testing.TB) *Gate {
	t.Helper()
	g, err := NewGate()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func loadTurtle(t testing.TB, path string) []quad.Quad {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ParseTurtle(f, "file://"+path)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return qs
}

// want is an expected validation result: focus node, result path (SPARQL
// syntax, "" for none), constraint component (short name) and value ("" for
// none), terms written as termString writes them.
// A want at depth n > 0 is a result nested n levels deep in sh:detail.
type want struct {
	focus, path, comp, value string
	depth                    int
}

func (w want) String() string {
	return strings.Repeat("detail:", w.depth) + w.comp + " focus=" + w.focus + " path=" + w.path + " value=" + w.value
}

// detail marks w as a result nested depth levels deep.
func detail(depth int, w want) want { w.depth = depth; return w }

// resultKeys lists the results of rep and, recursively, their details.
func resultKeys(rep *Report) []string {
	var out []string
	var walk func(rs []Result, depth int)
	walk = func(rs []Result, depth int) {
		for _, r := range rs {
			w := want{focus: termString(r.FocusNode), comp: strings.TrimSuffix(strings.TrimPrefix(string(r.SourceConstraintComponent), nsSH), "ConstraintComponent"), depth: depth}
			if r.Path != nil {
				w.path = r.Path.String()
			}
			if r.Value != nil {
				w.value = termString(r.Value)
			}
			out = append(out, w.String())
			walk(r.Details, depth+1)
		}
	}
	walk(rep.Results, 0)
	sort.Strings(out)
	return out
}

func wantKeys(ws []want) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	sort.Strings(out)
	return out
}

func TestResourcesConform(t *testing.T) {
	gate := newTestGate(t)
	files, err := filepath.Glob("testdata/*.ttl")
	if err != nil || len(files) < 5 {
		t.Fatalf("testdata: %v, %d files", err, len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data := loadTurtle(t, f)
			rep, err := gate.Validate(data)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Conforms {
				for _, r := range rep.Results {
					t.Error(r)
				}
			}
			if u := gate.Undeclared(data); len(u) > 0 {
				t.Errorf("undeclared terms: %v", u)
			}
		})
	}
}

func TestNoTarget(t *testing.T) {
	gate := newTestGate(t)
	data := []quad.Quad{{Subject: quad.IRI("http://ex/a"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("x")}}
	if _, err := gate.Validate(data); !errors.Is(err, ErrNoTarget) {
		t.Fatalf("err = %v, want ErrNoTarget", err)
	}
}

// mutate returns qs without the quads for which drop is true, plus add.
func mutate(qs []quad.Quad, drop func(quad.Quad) bool, add ...quad.Quad) []quad.Quad {
	var out []quad.Quad
	for _, q := range qs {
		if drop == nil || !drop(q) {
			out = append(out, q)
		}
	}
	return append(out, add...)
}

func c(local string) quad.IRI { return quad.IRI(calcNS + local) }

func subjectIs(locals ...string) func(quad.Quad) bool {
	return func(q quad.Quad) bool {
		for _, l := range locals {
			if q.Subject == c(l) || q.Object == c(l) {
				return true
			}
		}
		return false
	}
}

func TestCalculationViolations(t *testing.T) {
	gate := newTestGate(t)
	base := loadTurtle(t, "testdata/calculation-co2.ttl")
	seqPath := "<" + gcNS + "isCalculationOn>/<" + gcNS + "hasMolecule>"
	energyPath := "<" + gcNS + "hasElectronicEnergy>|<" + occNS + "hasHomoEnergy>|<" + occNS + "hasHomoMinusOneEnergy>|<" +
		occNS + "hasHomoMinusTwoEnergy>|<" + occNS + "hasLumoEnergy>|<" + occNS + "hasLumoPlusOneEnergy>|<" + occNS + "hasLumoPlusTwoEnergy>"
	p := func(ns, local string) string { return "<" + ns + local + ">" }
	cases := []struct {
		name string
		data []quad.Quad
		want []want
	}{
		{
			name: "basis set removed (log without its basis-set line)",
			data: mutate(base, subjectIs("basis-set")),
			// Neither a basis set nor an xtb calculation (whose GFN method brings its own basis).
			want: []want{
				{calcNS + "initialization", "", "Or", calcNS + "initialization", 0},
				detail(1, want{calcNS + "initialization", "^" + p(occNS, "hasInitialization"), "Class", calcIRI, 0}),
				detail(1, want{calcNS + "initialization", p(gcNS, "hasParameter"), "QualifiedMinCount", "", 0}),
			},
		},
		{
			name: "no geometry",
			data: mutate(base, func(q quad.Quad) bool {
				s := string(q.Subject.(quad.IRI))
				return q.Predicate == quad.IRI(gcNS+"hasMolecule") || strings.HasPrefix(s, calcNS+"atom") ||
					s == calcNS+"molecule" || s == calcNS+"charge"
			}),
			want: []want{
				{calcIRI, seqPath, "MinCount", "", 0},
				{calcNS + "geometry-optimization", p(gcNS, "hasMolecule"), "MinCount", "", 0},
			},
		},
		{
			name: "frequency job without frequencies",
			data: mutate(base, subjectIs("frequencies")),
			want: []want{{calcNS + "vibrational-analysis", p(gcNS, "hasResult"), "QualifiedMinCount", "", 0}},
		},
		{
			name: "energy as a string",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Subject == c("scf-energy-value") && q.Predicate == quad.IRI(gcNS+"hasValue")
			}, quad.Quad{Subject: c("scf-energy-value"), Predicate: quad.IRI(gcNS + "hasValue"), Object: quad.String("-188.641138764")}),
			want: []want{
				{calcNS + "scf-energy-value", p(gcNS, "hasValue"), "Datatype", `"-188.641138764"`, 0},
				{calcNS + "scf-energy", energyPath, "Node", calcNS + "scf-energy-value", 0},
				detail(1, want{calcNS + "scf-energy-value", p(gcNS, "hasValue"), "Datatype", `"-188.641138764"`, 0}),
			},
		},
		{
			name: "energy without unit",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Subject == c("scf-energy-value") && q.Predicate == quad.IRI(gcNS+"hasUnit")
			}),
			want: []want{
				{calcNS + "scf-energy-value", p(gcNS, "hasUnit"), "MinCount", "", 0},
				{calcNS + "scf-energy", energyPath, "Node", calcNS + "scf-energy-value", 0},
				detail(1, want{calcNS + "scf-energy-value", p(gcNS, "hasUnit"), "MinCount", "", 0}),
			},
		},
		{
			name: "energy in a retired NASA QUDT unit",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Subject == c("scf-energy-value") && q.Predicate == quad.IRI(gcNS+"hasUnit")
			}, quad.Quad{Subject: c("scf-energy-value"), Predicate: quad.IRI(gcNS + "hasUnit"), Object: quad.IRI("http://data.nasa.gov/qudt/owl/unit#Hartree")}),
			want: []want{
				{calcNS + "scf-energy", energyPath, "Node", calcNS + "scf-energy-value", 0},
				detail(1, want{calcNS + "scf-energy-value", p(gcNS, "hasUnit"), "In", "http://data.nasa.gov/qudt/owl/unit#Hartree", 0}),
			},
		},
		{
			name: "no energy at all",
			data: mutate(base, subjectIs("scf-energy", "zero-point-energy", "homo-energy", "lumo-energy")),
			// Only a failed step of a multi-step log may have no energy.
			want: []want{
				{calcIRI, "", "Or", calcIRI, 0},
				detail(1, want{calcIRI, p(gcNS, "isCalculationOn"), "QualifiedMinCount", "", 0}),
				detail(1, want{calcIRI, p(ontology.MG, "isStepOf"), "MinCount", "", 0}),
				detail(1, want{calcIRI, p(ontology.MG, "normalTermination"), "HasValue", "", 0}),
			},
		},
		{
			name: "atom without z coordinate",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Subject == c("atom-2") && q.Predicate == quad.IRI(gcNS+"hasAtomCoordinateZ")
			}),
			// Neither every atom with x, y, z nor a geometry said to have
			// no coordinates (with none).
			want: []want{
				{calcIRI, seqPath, "Node", calcNS + "molecule", 0},
				detail(1, want{calcNS + "molecule", "", "Xone", calcNS + "molecule", 0}),
				detail(2, want{calcNS + "molecule", p(gcNS, "hasAtom"), "Node", calcNS + "atom-2", 0}),
				detail(3, want{calcNS + "atom-2", p(gcNS, "hasAtomCoordinateZ"), "MinCount", "", 0}),
				detail(2, want{calcNS + "molecule", p(ontology.MG, "hasCoordinates"), "MinCount", "", 0}),
				detail(2, want{calcNS + "molecule", p(ontology.MG, "hasCoordinates"), "HasValue", "", 0}),
				detail(2, want{calcNS + "molecule", "<" + gcNS + "hasAtom>/<" + gcNS + "hasAtomCoordinateX>", "MaxCount", "", 0}),
				detail(2, want{calcNS + "molecule", "<" + gcNS + "hasAtom>/<" + gcNS + "hasAtomCoordinateY>", "MaxCount", "", 0}),
				detail(2, want{calcNS + "molecule", "<" + gcNS + "hasAtom>/<" + gcNS + "hasAtomCoordinateZ>", "MaxCount", "", 0}),
			},
		},
		{
			name: "element as a literal",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Subject == c("atom-3") && q.Predicate == quad.IRI(gcNS+"isElement")
			}, quad.Quad{Subject: c("atom-3"), Predicate: quad.IRI(gcNS + "isElement"), Object: quad.String("O")}),
			want: []want{
				{calcIRI, seqPath, "Node", calcNS + "molecule", 0},
				detail(1, want{calcNS + "molecule", p(gcNS, "hasAtom"), "Node", calcNS + "atom-3", 0}),
				detail(2, want{calcNS + "atom-3", p(gcNS, "isElement"), "NodeKind", `"O"`, 0}),
				detail(2, want{calcNS + "atom-3", p(gcNS, "isElement"), "Pattern", `"O"`, 0}),
			},
		},
		{
			name: "program version missing",
			data: mutate(base, func(q quad.Quad) bool { return q.Predicate == quad.IRI(occNS+"hasProgramVersion") }),
			want: []want{
				{calcNS + "environment", p(occNS, "hasProgramVersion"), "MinCount", "", 0},
				{calcIRI, p(occNS, "hasEnvironment"), "Node", calcNS + "environment", 0},
				detail(1, want{calcNS + "environment", p(occNS, "hasProgramVersion"), "MinCount", "", 0}),
			},
		},
		{
			name: "multiplicity as a string",
			data: mutate(base, func(q quad.Quad) bool {
				return q.Predicate == quad.IRI(occNS+"hasSpinMultiplicity")
			}, quad.Quad{Subject: c("molecule"), Predicate: quad.IRI(occNS + "hasSpinMultiplicity"), Object: quad.String("1")}),
			want: []want{
				{calcIRI, seqPath, "Node", calcNS + "molecule", 0},
				detail(1, want{calcNS + "molecule", p(occNS, "hasSpinMultiplicity"), "Datatype", `"1"`, 0}),
				detail(1, want{calcNS + "molecule", p(occNS, "hasSpinMultiplicity"), "MinInclusive", `"1"`, 0}),
			},
		},
		{
			name: "two program versions on the shortcut",
			data: mutate(base, nil, quad.Quad{Subject: quad.IRI(calcIRI), Predicate: quad.IRI(ontology.MG + "programVersion"), Object: quad.String("16")}),
			want: []want{{calcIRI, p(ontology.MG, "programVersion"), "MaxCount", "", 0}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := gate.Validate(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Conforms {
				t.Fatal("conforms, want violations")
			}
			got, exp := resultKeys(rep), wantKeys(tc.want)
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Errorf("results:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
			}
		})
	}
}
