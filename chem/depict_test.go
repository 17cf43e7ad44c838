package chem

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"
)

// depictHighlight is RDKit's default highlight colour, (1, 0.5, 0.5).
const depictHighlight = "#FF7F7F"

// svgDrawing is what a test reads from a depiction's SVG.
type svgDrawing struct {
	Width, Height string
	// HighlightAtoms and HighlightBonds are the atom-N and bond-K classes
	// of the elements filled with the highlight colour.
	HighlightAtoms, HighlightBonds []int
	// Atoms are the atom-N classes of every element.
	Atoms []int
}

// readSVG parses an SVG document with encoding/xml (which fails on
// malformed XML) and collects its size and highlighted elements.
func readSVG(t testing.TB, svg string) svgDrawing {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var d svgDrawing
	root := true
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("SVG is not XML: %v\n%.400s", err, svg)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		if root {
			if el.Name.Local != "svg" {
				t.Fatalf("root element %s", el.Name.Local)
			}
			d.Width, d.Height, root = attr["width"], attr["height"], false
			continue
		}
		hl := strings.Contains(attr["style"], "fill:"+depictHighlight)
		var atoms []int
		bond := -1
		for _, c := range strings.Fields(attr["class"]) {
			if v, ok := strings.CutPrefix(c, "atom-"); ok {
				n, _ := strconv.Atoi(v)
				atoms = append(atoms, n)
			}
			if v, ok := strings.CutPrefix(c, "bond-"); ok {
				bond, _ = strconv.Atoi(v)
			}
		}
		d.Atoms = append(d.Atoms, atoms...)
		switch {
		case hl && bond >= 0:
			d.HighlightBonds = append(d.HighlightBonds, bond)
		case hl && el.Name.Local == "ellipse" && len(atoms) == 1:
			d.HighlightAtoms = append(d.HighlightAtoms, atoms[0])
		}
	}
	if root {
		t.Fatal("SVG has no root element")
	}
	for _, s := range []*[]int{&d.HighlightAtoms, &d.HighlightBonds, &d.Atoms} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return d
}

// rdkitMatches runs RDKit's Python GetSubstructMatch (Debian python3-rdkit)
// on every (SMILES, SMARTS) pair: the matched atom indexes, or nil when the
// SMILES does not parse (then "unparsed" is true).
func rdkitMatches(t *testing.T, pairs [][2]string) (matches [][]int, unparsed []bool) {
	t.Helper()
	const script = `
import json, sys
from rdkit import Chem, RDLogger
RDLogger.DisableLog("rdApp.*")
out = []
for smi, sma in json.load(sys.stdin):
    m = Chem.MolFromSmiles(smi)
    q = Chem.MolFromSmarts(sma)
    if m is None or q is None:
        out.append(None)
    else:
        out.append(list(m.GetSubstructMatch(q)))
json.dump(out, sys.stdout)
`
	var res []*[]int
	sharedtest.PythonJSON(t, script, pairs, &res)
	for _, r := range res {
		if r == nil {
			matches, unparsed = append(matches, nil), append(unparsed, true)
			continue
		}
		matches, unparsed = append(matches, *r), append(unparsed, false)
	}
	return matches, unparsed
}

// TestDepictHighlightMatchesRDKit draws NCI molecules with highlight
// SMARTS: the highlighted atoms are the atoms of RDKit Python's
// GetSubstructMatch on the same SMILES, in its order, and in the SVG
// exactly those atoms (and the bonds between matched atoms) are filled with
// the highlight colour.
func TestDepictHighlightMatchesRDKit(t *testing.T) {
	nci := nciSMILES()
	if len(nci) == 0 {
		t.Skip("needs Debian rdkit-data (NCI/first_5K.smi)")
	}
	var mols []string
	step := 40
	if testing.Short() {
		step = 200
	}
	for i := 0; i < len(nci); i += step {
		mols = append(mols, nci[i])
	}
	mols = append(mols, "CC(=O)Oc1ccccc1C(=O)O", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1")
	smarts := []string{"c1ccccc1", "C(=O)[OH]", "[#7]", "[N,O;!H0]", "C=O", "[$(C(=O)N)]",
		"[R2]", "c:n", "[Cl,Br,I]", "[CX4H3]", "S", "*~*~*~*~*~*~*~*", "[#6]-[#8]-[#6]", "[+,-]"}
	var pairs [][2]string
	for _, m := range mols {
		for _, q := range smarts {
			pairs = append(pairs, [2]string{m, q})
		}
	}
	want, unparsed := rdkitMatches(t, pairs)
	matched := 0
	for i, pr := range pairs {
		d, err := testPool.Depict(context.Background(), pr[0], DepictOptions{Highlight: pr[1]})
		if unparsed[i] {
			if err == nil {
				t.Errorf("%s: RDKit Python does not parse it, Depict did", pr[0])
			}
			continue
		}
		if err != nil {
			if errors.Is(err, ErrTooLargeFor2D) {
				continue
			}
			t.Fatalf("%s highlight %s: %v", pr[0], pr[1], err)
		}
		if !slices.Equal(d.Atoms, want[i]) && !(len(d.Atoms) == 0 && len(want[i]) == 0) {
			t.Errorf("%s highlight %s: atoms %v, RDKit %v", pr[0], pr[1], d.Atoms, want[i])
			continue
		}
		if len(want[i]) > 0 {
			matched++
		}
		s := readSVG(t, d.SVG)
		if s.Width != "300px" || s.Height != "300px" {
			t.Errorf("%s: size %s x %s", pr[0], s.Width, s.Height)
		}
		atoms := slices.Clone(d.Atoms)
		slices.Sort(atoms)
		bonds := slices.Clone(d.Bonds)
		slices.Sort(bonds)
		if !slices.Equal(s.HighlightAtoms, atoms) && len(atoms)+len(s.HighlightAtoms) > 0 {
			t.Errorf("%s highlight %s: SVG highlights atoms %v, matched %v", pr[0], pr[1], s.HighlightAtoms, atoms)
		}
		if !slices.Equal(s.HighlightBonds, bonds) && len(bonds)+len(s.HighlightBonds) > 0 {
			t.Errorf("%s highlight %s: SVG highlights bonds %v, matched %v", pr[0], pr[1], s.HighlightBonds, bonds)
		}
	}
	if matched < len(pairs)/5 {
		t.Errorf("only %d of %d pairs matched: the test shows little", matched, len(pairs))
	}
	t.Logf("%d pairs, %d with a match", len(pairs), matched)
}

// TestDepictPlain: no highlight colours without a highlight; every atom of
// the molecule is drawn; the asked size is the SVG's.
func TestDepictPlain(t *testing.T) {
	d, err := testPool.Depict(context.Background(), "CC(=O)Oc1ccccc1C(=O)O", DepictOptions{Width: 640, Height: 120})
	if err != nil {
		t.Fatal(err)
	}
	s := readSVG(t, d.SVG)
	if s.Width != "640px" || s.Height != "120px" {
		t.Errorf("size %s x %s", s.Width, s.Height)
	}
	if strings.Contains(d.SVG, depictHighlight) || len(d.Atoms) != 0 {
		t.Error("highlight without a highlight SMARTS")
	}
	// aspirin: 13 heavy atoms, atom-0..atom-12 all drawn (labels or bonds)
	if len(s.Atoms) != 13 || s.Atoms[12] != 12 {
		t.Errorf("atoms drawn %v", s.Atoms)
	}
	if !strings.HasPrefix(d.SVG, "<?xml version='1.0' encoding='UTF-8'?>") {
		t.Errorf("declaration %.60q", d.SVG)
	}
	// no match: drawn, nothing highlighted
	d, err = testPool.Depict(context.Background(), "CCO", DepictOptions{Highlight: "c1ccccc1"})
	if err != nil || len(d.Atoms) != 0 || strings.Contains(d.SVG, depictHighlight) {
		t.Errorf("no match: %v %v", err, d)
	}
}

// TestDepictHostile: inputs out of bounds are refused before RDKit runs,
// and a highlight whose match explodes is stopped by its step budget.
func TestDepictHostile(t *testing.T) {
	ctx := context.Background()
	chain := strings.Repeat("C", 301)
	cases := []struct {
		name   string
		smiles string
		o      DepictOptions
		field  string // DepictInputError field; "" for another error
		target error
	}{
		{"width too large", "CCO", DepictOptions{Width: 100000}, "width", nil},
		{"height too small", "CCO", DepictOptions{Height: 10}, "height", nil},
		{"negative width", "CCO", DepictOptions{Width: -5}, "width", nil},
		{"10k SMILES", strings.Repeat("C", 10000), DepictOptions{}, "smiles", nil},
		{"empty SMILES", "  ", DepictOptions{}, "smiles", nil},
		{"too large for 2D", chain, DepictOptions{}, "", ErrTooLargeFor2D},
		{"bracket atoms too large", strings.Repeat("[CH2]", 400), DepictOptions{}, "", ErrTooLargeFor2D},
		{"bad SMILES", "C1CC(", DepictOptions{}, "", ErrInvalidMolecule},
		{"valence", "C(C)(C)(C)(C)C", DepictOptions{}, "", ErrInvalidMolecule},
		{"bad SMARTS", "CCO", DepictOptions{Highlight: "[C"}, "highlight", nil},
		{"SMARTS too long", "CCO", DepictOptions{Highlight: strings.Repeat("C", 2000)}, "highlight", nil},
		{"recursive nested", "CCO", DepictOptions{Highlight: strings.Repeat("[$(", 20) + "C" + strings.Repeat(")]", 20)}, "highlight", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t0 := time.Now()
			_, err := testPool.Depict(ctx, c.smiles, c.o)
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			var ie *DepictInputError
			switch {
			case c.field != "" && (!errors.As(err, &ie) || ie.Field != c.field):
				t.Errorf("error %v, want a DepictInputError on %s", err, c.field)
			case c.target != nil && !errors.Is(err, c.target):
				t.Errorf("error %v, want %v", err, c.target)
			}
		})
	}

	// A fused ring system and chains of "*" that end in an absent element:
	// RDKit Python's search time grows about 4x for every two more atoms
	// (0.16 s at 22 on this molecule). The budget stops it.
	fused := "C1CC2CC3CC4CC5CC6CC7CC8CC9CC%10CC%11CC%12CC%13CC%14CC%15CC(C1)C%15C%14C%13C%12C%11C%10C9C8C7C6C5C4C3C2"
	for _, n := range []int{30, 40} {
		q := "*" + strings.Repeat("~*", n) + "~[#92]"
		t0 := time.Now()
		_, err := testPool.Depict(ctx, fused, DepictOptions{Highlight: q})
		d := time.Since(t0)
		var ie *DepictInputError
		if !errors.As(err, &ie) || ie.Field != "highlight" || !strings.Contains(ie.Reason, "atom comparisons") {
			t.Errorf("chain of %d: %v, want the step budget's error", n, err)
		}
		if d > 2*time.Second {
			t.Errorf("chain of %d: %v", n, d)
		}
		t.Logf("chain of %d atoms: stopped after %v", n, d)
	}
	// ... also inside a recursive SMARTS
	q := "[$(*" + strings.Repeat("~*", 40) + "~[#92])]"
	if _, err := testPool.Depict(ctx, fused, DepictOptions{Highlight: q}); err == nil || !strings.Contains(err.Error(), "atom comparisons") {
		t.Errorf("recursive chain: %v", err)
	}
	// a real query on the same molecule (5-rings fused around a 19-ring) is well within the budget
	if d, err := testPool.Depict(ctx, fused, DepictOptions{Highlight: "C1CCCC1"}); err != nil || len(d.Atoms) != 5 {
		t.Errorf("cyclopentane in the fused system: %v %v", d, err)
	}
}

// FuzzDepict: any SMILES, highlight and size give a depiction that is XML,
// or an error of the documented kinds; never a crash or another error.
func FuzzDepict(f *testing.F) {
	for _, s := range [][2]string{{"CCO", "C"}, {"c1ccccc1O", "[OH]"}, {"C[C@H](N)C(=O)O", "[$(C=O)]"},
		{"[Na+].[O-]C(=O)c1ccccc1", "[+,-]"}, {"C1CC", "*"}, {"*c1ccccc1", "*~*"}, {"CCO", "[C"},
		{"[Fe+2]", "[#26]"}, {"OCl(=O)(=O)=O", "Cl=O"}, {"C=[N+]=[N-]", "[N+]=[N-]"}} {
		f.Add(s[0], s[1], 300, 300)
	}
	f.Fuzz(func(t *testing.T, smiles, smarts string, w, h int) {
		d, err := testPool.Depict(context.Background(), smiles, DepictOptions{Width: w, Height: h, Highlight: smarts})
		if err != nil {
			if !errors.Is(err, ErrDepictInput) && !errors.Is(err, ErrInvalidMolecule) && !errors.Is(err, ErrTooLargeFor2D) {
				t.Fatalf("%q %q %d %d: %v", smiles, smarts, w, h, err)
			}
			return
		}
		s := readSVG(t, d.SVG)
		if s.Width != fmt.Sprintf("%dpx", max(w, 0)) && w != 0 {
			t.Fatalf("width %s, asked %d", s.Width, w)
		}
	})
}

// TestDepictConcurrent draws the same molecules from many goroutines at
// once (all the pool's threads drawing: MolDraw2DSVG, FreeType and the
// highlight budget are per call or per thread) and gets the SVG of a
// sequential run byte for byte.
func TestDepictConcurrent(t *testing.T) {
	mols := nciSMILES()
	if len(mols) == 0 {
		t.Skip("needs Debian rdkit-data (NCI/first_5K.smi)")
	}
	mols = mols[:60]
	o := DepictOptions{Highlight: "[#7,#8]~*"}
	want := make([]string, len(mols))
	for i, m := range mols {
		d, err := testPool.Depict(context.Background(), m, o)
		if err == nil {
			want[i] = d.SVG
		}
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for k := range mols {
				i := (k + 7*g) % len(mols)
				d, err := testPool.Depict(context.Background(), mols[i], o)
				got := ""
				if err == nil {
					got = d.SVG
				}
				if got != want[i] {
					errs <- fmt.Errorf("%s: concurrent SVG differs (%d vs %d bytes, %v)", mols[i], len(got), len(want[i]), err)
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkDepict(b *testing.B) {
	for _, c := range []struct{ name, smiles, highlight string }{
		{"aspirin", "CC(=O)Oc1ccccc1C(=O)O", ""},
		{"imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", "c1ncccn1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := testPool.Depict(context.Background(), c.smiles, DepictOptions{Highlight: c.highlight}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
