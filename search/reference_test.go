package search_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/search"
)

const python = "/usr/bin/python3" // Debian's, with python3-rdkit

const base = "http://localhost:8080/"

var (
	libOnce sync.Once
	lib     *library
	libErr  error
)

// library is the reference library: ~8,400 real molecules registered
// through the registry (chem pool, fingerprints, side entries) into a
// memory store, and the index over them.
type library struct {
	store  *graph.Store
	pool   *chem.Pool
	index  *search.Index
	smiles map[string]string // id -> canonical SMILES
	file   string            // "id\tSMILES" lines for reference.py
}

func loadLibrary(t *testing.T) *library {
	t.Helper()
	libOnce.Do(func() { lib, libErr = buildLibrary() })
	if libErr != nil {
		t.Fatal(libErr)
	}
	return lib
}

func buildLibrary() (*library, error) {
	out, err := exec.Command(python, "testdata/reference.py", "inputs", "../../shared/docking-corpus").Output()
	if err != nil {
		return nil, fmt.Errorf("reference.py inputs: %v", err)
	}
	var inputs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		inputs = append(inputs, strings.SplitN(line, "\t", 2)[0])
	}
	pool, err := chem.NewPool(0)
	if err != nil {
		return nil, err
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	// Half of the molecules in the in-memory molecule set, half read
	// from the store: both matching paths run.
	idx, err := search.Open(ctx, st, pool, base, search.Options{CacheMolecules: 4000})
	if err != nil {
		return nil, err
	}
	reg := batch.NewRegistry(st, pool, base, nil)
	l := &library{store: st, pool: pool, index: idx, smiles: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan string)
	for w := 0; w < 2*pool.Workers(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for smi := range next {
				rec, _, err := reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smi})
				if err != nil {
					continue // not a molecule chem accepts
				}
				mu.Lock()
				l.smiles[rec.ID] = rec.SMILES
				mu.Unlock()
			}
		}()
	}
	for _, s := range inputs {
		next <- s
	}
	close(next)
	wg.Wait()
	dir, err := os.MkdirTemp("", "search-ref")
	if err != nil {
		return nil, err
	}
	l.file = filepath.Join(dir, "library.tsv")
	f, err := os.Create(l.file)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	for id, s := range l.smiles {
		fmt.Fprintf(w, "%s\t%s\n", id, s)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return l, f.Close()
}

type refQuery struct {
	Type      string  `json:"type"`
	Query     string  `json:"query"`
	Format    string  `json:"format,omitempty"`
	Chirality bool    `json:"chirality,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
}

type refResult struct {
	Hits   []string  `json:"hits"`
	Scores []float64 `json:"scores"`
}

// reference runs the queries through RDKit's Python over the library.
func reference(t *testing.T, l *library, qs []refQuery) []refResult {
	t.Helper()
	b, _ := json.Marshal(qs)
	qf := filepath.Join(t.TempDir(), "queries.json")
	if err := os.WriteFile(qf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/reference.py", "search", l.file, qf)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference.py search: %v: %s", err, stderr.String())
	}
	var res []refResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(qs) {
		t.Fatalf("reference gave %d results for %d queries", len(res), len(qs))
	}
	return res
}

var substructureQueries = []refQuery{
	{Query: "c1ccccc1", Format: "smarts"},
	{Query: "[CX3](=O)[OX2H1]", Format: "smarts"},
	{Query: "[NX3;H2,H1;!$(NC=O)]", Format: "smarts"},
	{Query: "[Cl,Br,I]", Format: "smarts"},
	{Query: "c1ccc2ccccc2c1", Format: "smarts"},
	{Query: "S(=O)(=O)N", Format: "smarts"},
	{Query: "[r5]", Format: "smarts"},
	{Query: "[R2]", Format: "smarts"},
	{Query: "C#N", Format: "smarts"},
	{Query: "[N+](=O)[O-]", Format: "smarts"},
	{Query: "[#6]~[#7]~[#6]~[#8]", Format: "smarts"},
	{Query: "[!#6;!#1;!#7;!#8]", Format: "smarts"},
	{Query: "[a;r6]:[a;r6]:[a;r5]", Format: "smarts"},
	{Query: "*1**1", Format: "smarts"},
	{Query: "[x3]", Format: "smarts"},
	{Query: "[OH]c", Format: "smarts"},
	{Query: "[CX4][CX4][CX4][CX4][CX4][CX4]", Format: "smarts"},
	{Query: "[$(C(=O)O),$(C(=O)N)]", Format: "smarts"},
	{Query: "[D4;#6]", Format: "smarts"},
	{Query: "[nH]", Format: "smarts"},
	{Query: "C=C-C=O", Format: "smarts"},
	{Query: "[#7;R]@[#6;R]@[#7;R]", Format: "smarts"},
	{Query: "[R;N]~[X3;O]", Format: "smarts"},
	{Query: "[H1;O]C=O", Format: "smarts"},
	// queries the summary screen (chem.Need) narrows: ring atoms, rare
	// elements, counts past 15, disconnected parts
	{Query: "N1CCNCC1", Format: "smarts"},
	{Query: "[Cl,Br,I]c", Format: "smarts"},
	{Query: "S(=O)(=O)[NX3]", Format: "smarts"},
	{Query: "[#7]1~[#6]~[#6]~[#7]~[#6]~[#6]~1", Format: "smarts"},
	{Query: "c1ccsc1", Format: "smarts"},
	{Query: "[Na,K,Li]", Format: "smarts"},
	{Query: "CCCCCCCCCCCCCCCCC", Format: "smarts"},
	{Query: "[N+;!R]", Format: "smarts"},
	{Query: "Brc1ccccc1.Cl", Format: "smarts"},
	{Query: "c1ccccc1C(=O)N", Format: "smiles"},
	{Query: "CC(=O)O", Format: "smiles"},
	{Query: "c1ccc2[nH]ccc2c1", Format: "smiles"},
	{Query: "O=C1CCCN1", Format: "smiles"},
	{Query: "C1CCNCC1", Format: "smiles"},
	{Query: "c1ccncc1", Format: "smiles"},
	{Query: "O=C(O)c1ccccc1", Format: "smiles"},
	{Query: "C[C@H](N)C(=O)O", Format: "smiles", Chirality: true},
	{Query: "C[C@H](N)C(=O)O", Format: "smiles"},
	{Query: "[O-]C(=O)C", Format: "smiles"},
	{Query: "c1ccc(cc1)S(=O)(=O)N", Format: "smiles"},
	{Query: "FC(F)(F)c1ccccc1", Format: "smiles"},
	{Query: "C1CC1", Format: "smiles"},
	{Query: "Nc1ncnc2[nH]cnc12", Format: "smiles"},
	// kinds beyond the bench's: recursive SMARTS (nested, negated, OR'ed)
	{Query: "[$([NX3](C)(C)C)]", Format: "smarts"},
	{Query: "[C;$(C=O);!$(C(=O)[O,N])]", Format: "smarts"},
	{Query: "[$(C-[$([#7]~[#8])])]", Format: "smarts"},
	{Query: "[N;!$(N-[!#6;!#1])]", Format: "smarts"},
	{Query: "c-[$(C(=O)[OH])]", Format: "smarts"},
	{Query: "[$(*=O)]~[$(*=O)]", Format: "smarts"},
	{Query: "[CX4;!$(C-[!#6;!#1])]", Format: "smarts"},
	{Query: "[!$(*#*)&!D1]-&!@[!$(*#*)&!D1]", Format: "smarts"},
	{Query: "[$(*~*~*~*~*~*)]", Format: "smarts"},
	// ring membership, sizes, ring bonds
	{Query: "[r3]", Format: "smarts"},
	{Query: "[r7]", Format: "smarts"},
	{Query: "[x4]", Format: "smarts"},
	{Query: "[R3]", Format: "smarts"},
	{Query: "[r{5-6};#7]", Format: "smarts"},
	{Query: "C@C@C@C", Format: "smarts"},
	{Query: "c!@c", Format: "smarts"},
	{Query: "*@;-*@;=*", Format: "smarts"},
	{Query: "[#6]1~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~1", Format: "smarts"},
	{Query: "[a;R2;D3]", Format: "smarts"},
	// generic atoms and bonds, very unselective queries
	{Query: "*", Format: "smarts"},
	{Query: "[#6]", Format: "smarts"},
	{Query: "A", Format: "smarts"},
	{Query: "a", Format: "smarts"},
	{Query: "C", Format: "smarts"},
	{Query: "c", Format: "smarts"},
	{Query: "[#6]~[#6]", Format: "smarts"},
	{Query: "*~*~*~*~*~*~*~*~*~*", Format: "smarts"},
	{Query: "a-A=A", Format: "smarts"},
	{Query: "[#6]=,:[#6]", Format: "smarts"},
	// charges
	{Query: "[N+]", Format: "smarts"},
	{Query: "[O-]", Format: "smarts"},
	{Query: "[+0]", Format: "smarts"},
	{Query: "[-]", Format: "smarts"},
	{Query: "[n+]", Format: "smarts"},
	{Query: "[#7+;H0;!$(*~[#8-])]", Format: "smarts"},
	// isotopes, explicit hydrogens, H counts
	{Query: "[13C]", Format: "smarts"},
	{Query: "[2H]", Format: "smarts"},
	{Query: "[#1]", Format: "smarts"},
	{Query: "[H]O", Format: "smarts"},
	{Query: "[13C,2H,15N,18O,125I]", Format: "smarts"},
	{Query: "[CH3]", Format: "smarts"},
	{Query: "[CH2;R]", Format: "smarts"},
	{Query: "[OH0;X2]", Format: "smarts"},
	{Query: "[cH]:[cH]:[cH]", Format: "smarts"},
	{Query: "[h2]", Format: "smarts"},
	// degree, valence, hybridization, heteroatom neighbours
	{Query: "[X4]", Format: "smarts"},
	{Query: "[v4]", Format: "smarts"},
	{Query: "[S;v6]", Format: "smarts"},
	{Query: "[N;v4]", Format: "smarts"},
	{Query: "[D1;#8]", Format: "smarts"},
	{Query: "[Z1;C]", Format: "smarts"},
	{Query: "[^3;C;R]", Format: "smarts"},
	// aromatic and aliphatic heteroatoms, unusual elements
	{Query: "n", Format: "smarts"},
	{Query: "[o,s]", Format: "smarts"},
	{Query: "[S;A]", Format: "smarts"},
	{Query: "[#7;A]", Format: "smarts"},
	{Query: "[se,te,p,b]", Format: "smarts"},
	{Query: "[Pt,Fe,Si,B,P,Se,Te]", Format: "smarts"},
	// disconnected queries, atom maps, bond directions
	{Query: "C.N", Format: "smarts"},
	{Query: "[Na+].[Cl-]", Format: "smarts"},
	{Query: "c1ccccc1.c1ccccc1", Format: "smarts"},
	{Query: "[C:1](=O)[O:2]", Format: "smarts"},
	{Query: "F/C=C/F", Format: "smarts"},
	{Query: "C/C=C/C", Format: "smarts"},
	{Query: "[C@H](N)(C)C(=O)O", Format: "smarts"},
	{Query: "[C@H](N)(C)C(=O)O", Format: "smarts", Chirality: true},
	{Query: "[C@@H](N)(C)C(=O)O", Format: "smarts", Chirality: true},
	// SMILES: larger than most molecules, charged, isotopes, stereo
	{Query: "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC", Format: "smiles"},
	{Query: "CC(C)C[C@@H]1NC(=O)[C@H](CC(C)C)N(C)C(=O)[C@H](C)NC(=O)CN(C)C1=O", Format: "smiles"},
	{Query: "N[C@@H](Cc1ccccc1)C(=O)O", Format: "smiles", Chirality: true},
	{Query: "N[C@@H](Cc1ccccc1)C(=O)O", Format: "smiles"},
	{Query: "O[C@H]1CCCC[C@@H]1O", Format: "smiles", Chirality: true},
	{Query: "C/C=C/C(=O)O", Format: "smiles", Chirality: true},
	{Query: "F/C=C\\F", Format: "smiles", Chirality: true},
	{Query: "C[N+](C)(C)C", Format: "smiles"},
	{Query: "[NH4+]", Format: "smiles"},
	{Query: "[O-]c1ccccc1", Format: "smiles"},
	{Query: "[2H]C", Format: "smiles"},
	{Query: "[13CH3]C", Format: "smiles"},
	{Query: "C.N", Format: "smiles"},
	{Query: "C1CC2CCC1C2", Format: "smiles"},
	{Query: "[H]OC(=O)C", Format: "smiles"},
	{Query: "OB(O)c1ccccc1", Format: "smiles"},
	{Query: "S", Format: "smiles"},
}

// TestSubstructureEqualsRDKit compares substructure (and superstructure)
// hits with RDKit's HasSubstructMatch over every molecule of the library.
func TestSubstructureEqualsRDKit(t *testing.T) {
	l := loadLibrary(t)
	if len(l.smiles) < 7000 {
		t.Fatalf("library has %d molecules, want >= 7000", len(l.smiles))
	}
	qs := slices.Clone(substructureQueries)
	for i := range qs {
		qs[i].Type = "substructure"
	}
	for _, s := range []string{
		"CC(=O)Nc1ccc(O)cc1",
		"Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
		"CCCCCCCCCCCCCCCCCC(=O)OCC(O)CO",
		"O=C(O)c1ccccc1OC(=O)C",
		"ClCCl",
		"c1ccc2c(c1)[nH]c1ccccc12.[Na+].[Cl-]",
		"CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)O",
		"C[N+](C)(C)CCO",
		"[2H]C([2H])([2H])Oc1ccccc1",
		"c1ccccc1.CC(=O)O.O",
		"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O",
		"OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O",
	} {
		qs = append(qs, refQuery{Type: "superstructure", Query: s, Format: "smiles"})
	}
	for _, s := range []string{"CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)O", "OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O", "F/C=C/F"} {
		qs = append(qs, refQuery{Type: "superstructure", Query: s, Format: "smiles", Chirality: true})
	}
	want := reference(t, l, qs)
	ctx := context.Background()
	total := 0
	for i, q := range qs {
		o := search.SubOptions{Format: q.Format}
		o.Chirality = q.Chirality
		var hits []search.Hit
		var err error
		if q.Type == "superstructure" {
			hits, err = l.index.Superstructure(ctx, q.Query, o)
		} else {
			hits, err = l.index.Substructure(ctx, q.Query, o)
		}
		if err != nil {
			t.Errorf("%s %s: %v", q.Type, q.Query, err)
			continue
		}
		got := make([]string, len(hits))
		for k, h := range hits {
			got[k] = h.ID
		}
		total += len(got)
		if w := want[i].Hits; !slices.Equal(got, w) {
			t.Errorf("%s %q (%s): %d hits, RDKit %d; first differences %v", q.Type, q.Query, q.Format, len(got), len(w), diff(got, w))
		}
	}
	t.Logf("%d queries over %d molecules: %d hits, all equal to RDKit's", len(qs), len(l.smiles), total)
}

func diff(a, b []string) []string {
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	var out []string
	for _, x := range a {
		if !in(b, x) {
			out = append(out, "+"+x)
		}
	}
	for _, x := range b {
		if !in(a, x) {
			out = append(out, "-"+x)
		}
	}
	return out[:min(len(out), 5)]
}

// TestSimilarityEqualsRDKit compares similarity hits and scores with
// RDKit's BulkTanimotoSimilarity over the library (scores to 1e-9), and
// top-k searches with the first k of RDKit's ranking.
func TestSimilarityEqualsRDKit(t *testing.T) {
	l := loadLibrary(t)
	ids := make([]string, 0, len(l.smiles))
	for id := range l.smiles {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var qs []refQuery
	thresholds := []float64{0.4, 0.5, 0.6, 0.7, 0.35}
	for i := 0; i < 22; i++ {
		id := ids[(i*7919)%len(ids)]
		qs = append(qs, refQuery{Type: "similarity", Query: l.smiles[id], Threshold: thresholds[i%len(thresholds)]})
	}
	for _, s := range []string{
		"CC(=O)Oc1ccccc1C(=O)O", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
		"CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "c1ccccc1",
		"COc1cc2ncnc(Nc3cccc(C#C)c3)c2cc1OCCOC", "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O",
		"CCN(CC)CCNC(=O)c1ccc(N)cc1", "[Na+].[Cl-]", "CC(=O)[O-].[Na+]",
	} {
		qs = append(qs, refQuery{Type: "similarity", Query: s, Threshold: 0.25})
	}
	qs = append(qs, refQuery{Type: "similarity", Query: "c1ccc2ccccc2c1", Threshold: 0})
	// molecules absent from the set, at 0.3, 0.9 and 1.0; tiny ones
	// (methane, water, a cation) whose few bits many molecules share tie
	// at the top-k cut
	for i, s := range []string{
		"CCCCCCCCCCCCCCCCCCCC(=O)NCCS", "Cn1c2ccccc2c2ccccc21", "C[N+](C)(C)C", "[2H]C([2H])([2H])O",
		"OB(O)c1ccc(F)cc1", "C", "O", "[Na+]", "CCO", "c1ccccc1", "N[C@@H](Cc1ccccc1)C(=O)O",
		"C[C@H](N)C(=O)O", "CC(=O)Nc1ccc(O)cc1", "[NH4+].[Cl-]", "FC(F)(F)c1ccc(Oc2ccc(Cl)cc2)cc1",
	} {
		qs = append(qs, refQuery{Type: "similarity", Query: s, Threshold: []float64{0.3, 0.9, 1.0}[i%3]})
	}
	for _, s := range []string{"C", "O", "CCO", "c1ccccc1"} {
		qs = append(qs, refQuery{Type: "similarity", Query: s, Threshold: 0.3})
	}
	want := reference(t, l, qs)
	ctx := context.Background()
	total := 0
	for i, q := range qs {
		hits, err := l.index.Similar(ctx, q.Query, search.SimilarOptions{Threshold: q.Threshold})
		if err != nil {
			t.Errorf("similar %s: %v", q.Query, err)
			continue
		}
		total += len(hits)
		w := want[i]
		if len(hits) != len(w.Hits) {
			t.Errorf("similar %q >= %v: %d hits, RDKit %d", q.Query, q.Threshold, len(hits), len(w.Hits))
			continue
		}
		for k, h := range hits {
			if math.Abs(h.Score-w.Scores[k]) > 1e-9 || h.ID != w.Hits[k] {
				t.Errorf("similar %q: hit %d is %s %.17g, RDKit %s %.17g", q.Query, k, h.ID, h.Score, w.Hits[k], w.Scores[k])
				break
			}
		}
		// top-k equals the first k of the full ranking
		for _, k := range []int{1, 10, 100} {
			top, err := l.index.Similar(ctx, q.Query, search.SimilarOptions{Threshold: q.Threshold, Top: k})
			if err != nil {
				t.Fatal(err)
			}
			n := min(k, len(w.Hits))
			if len(top) != n {
				t.Errorf("similar %q top %d: %d hits, want %d", q.Query, k, len(top), n)
				continue
			}
			for j := range top {
				if top[j].ID != w.Hits[j] || math.Abs(top[j].Score-w.Scores[j]) > 1e-9 {
					t.Errorf("similar %q top %d: hit %d is %s %v, RDKit %s %v", q.Query, k, j, top[j].ID, top[j].Score, w.Hits[j], w.Scores[j])
					break
				}
			}
		}
	}
	t.Logf("%d similarity queries over %d molecules: %d hits equal to RDKit's", len(qs), len(l.smiles), total)
}
