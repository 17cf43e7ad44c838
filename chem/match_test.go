package chem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMatcherEqualsSubstructMatch compares mg::Matcher with RDKit's
// SubstructMatch on NCI molecules (salts, charges, isotopes and odd
// valences included) for SMARTS and SMILES queries of every kind the
// matcher takes, and checks that it declines what it cannot take.
func TestMatcherEqualsSubstructMatch(t *testing.T) {
	mols := nciPickles(t)
	hits := 0
	for _, c := range matcherCases() {
		q, err := ParseQuery(c.q, c.kind, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		fast, rd, err := q.matchEngines(mols)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		bad, nh := 0, 0
		for i := range mols {
			nh += int(rd[i])
			if c.declined {
				if fast[i] != 2 {
					bad++
				}
				continue
			}
			if fast[i] != rd[i] {
				// 3: Matcher.has on the molecule and on its Graph differ
				bad++
				if bad <= 3 {
					t.Errorf("%s (%s): molecule %d: matcher %d, SubstructMatch %d", c.q, c.kind, i, fast[i], rd[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s (%s): %d of %d molecules differ (declined %v)", c.q, c.kind, bad, len(mols), c.declined)
		}
		hits += nh
	}
	if hits == 0 {
		t.Fatal("no query hit any molecule")
	}
	t.Logf("%d queries over %d molecules: %d hits, matcher equal to SubstructMatch", len(matcherCases()), len(mols), hits)
}

// TestNeedKeepsEveryMatch checks the summary screen (Matcher.Need,
// MolSet.Summary) against RDKit's SubstructMatch: over NCI molecules held
// in a MolSet, no molecule that RDKit matches fails the screen, for every
// query of TestMatcherEqualsSubstructMatch and queries of ring atoms,
// rare elements, many atoms of one kind (17 chain carbons: counts past
// 15) and disconnected parts; and the screen drops most non-matching molecules of selective
// queries (it does something).
func TestNeedKeepsEveryMatch(t *testing.T) {
	mols := nciPickles(t)
	set := NewMolSet(len(mols))
	defer set.Close()
	sums := make([]Summary, len(mols))
	unknown := 0
	for i, p := range mols {
		slot := set.Add(fmt.Sprint("m", i), p)
		if slot < 0 {
			t.Fatalf("molecule %d not held", i)
		}
		sums[i] = set.Summary(slot)
		if sums[i] == UnknownSummary() {
			unknown++
		}
	}
	if unknown > len(mols)/10 {
		t.Errorf("%d of %d molecules have no summary", unknown, len(mols))
	}
	cases := matcherCases()
	for _, q := range []string{
		"N1CCNCC1", "C1CCOC1", "[#7;R]", "[#8]~[#6]~[#8]", "[Se,Te]", "[B,Si,P]", "[#1]", "[Na,K]", "[Cl]C[Cl]",
		"C(F)(F)(F)C(F)(F)C(F)(F)C(F)(F)C(F)(F)F", "CCCCCCCCCCCCCCCCC", "S.S", "c1ccsc1", "o1cccc1", "[n+]", "P(=O)(O)O", "N#N", "[I]", "C=N", "S-S",
		"[#7]1~[#6]~[#6]~[#7]~[#6]~[#6]~1", "*1~*~*~*~*~*~1", "[!#6;R]@[!#6;R]", "[CH2]1[CH2][CH2]1",
		// cycle lengths (Summary's third word): 7, 3, 12, fused 5+6 (and
		// so 9), bridged, a ring of ~ bonds
		"[#6]1~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~1", "*1~*~*~*~*~*~*~1", "*1**1", "C1CCCCCCCCCCC1", "C12CCCCC1CCC2",
		"C1CC2CCC1C2", "*1~*~*~*~*~*~*~*~1", "[#6]1~[#6]~[#6]~[#6]~[#6]~1.[#6]1~[#6]~[#6]~[#6]~1",
		// recursive SMARTS: their own requirements (not negated, under AND)
		"[C;$(C=O);!$(C(=O)[O,N])]", "[$([NX3](C)(C)C)]", "[C;$(C1CCCCCC1)]", "[$(*S(=O)=O);!$(*N)]",
		"[#6;$([#6]~[#7]);$([#6]~[#8])]", "[$([Cl,Br]),$(I)]c", "[!$(*Br)]-c", "[$(*-[$([#7]~[#8])])]",
	} {
		cases = append(cases, matcherCase{q: q, kind: QuerySMARTS})
	}
	for _, q := range []string{"C1CCNCC1", "Clc1ccccc1Cl", "O=S(=O)(N)c1ccccc1", "C1CCCCC1.C1CCCCC1", "[Na+]"} {
		cases = append(cases, matcherCase{q: q, kind: QuerySMILES})
	}
	screened := map[string]float64{}
	for _, c := range cases {
		q, err := ParseQuery(c.q, c.kind, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		_, rd, err := q.matchEngines(mols)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		m, err := q.Matcher(false)
		if err != nil {
			t.Fatal(err)
		}
		need := m.Need(set)
		m.Close()
		if need == nil {
			if !c.declined {
				t.Logf("%s (%s): no requirements", c.q, c.kind)
			}
			continue
		}
		if c.declined {
			t.Errorf("%s (%s): requirements for a query the matcher declines", c.q, c.kind)
		}
		dropped, misses := 0, 0
		for i := range mols {
			pass := need.Pass(sums[i])
			if rd[i] == 1 && !pass {
				t.Errorf("%s (%s): molecule %d matches but fails the screen (summary %x)", c.q, c.kind, i, sums[i])
			}
			if rd[i] == 0 {
				misses++
				if !pass {
					dropped++
				}
			}
		}
		screened[c.q] = float64(dropped) / float64(max(misses, 1))
	}
	for _, q := range []string{"N1CCNCC1", "[Cl,Br,I]c", "S(=O)(=O)[NX3]", "[Se,Te]", "c1ccsc1", "*1~*~*~*~*~*~*~1", "C1CCCCCCCCCCC1", "[C;$(C1CCCCCC1)]", "[$(*S(=O)=O);!$(*N)]"} {
		if screened[q] < 0.5 {
			t.Errorf("%s: the screen drops %.0f%% of the molecules without a match, want >= 50%%", q, 100*screened[q])
		}
	}
	t.Logf("share of non-matching molecules the screen drops: %v", screened)
}

// nciPickles are the pickles of RDKit's NCI sample (1,500 with -short).
func nciPickles(t *testing.T) [][]byte {
	t.Helper()
	n := 5000
	if testing.Short() {
		n = 1500
	}
	f, err := os.Open("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mols [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(mols) < n {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		fp, err := FingerprintsOf(fs[0])
		if err != nil {
			continue
		}
		mols = append(mols, fp.Pickle)
	}
	if len(mols) < n*9/10 {
		t.Fatalf("only %d molecules parsed", len(mols))
	}
	return mols
}

type matcherCase struct {
	q        string
	kind     QueryKind
	o        MatchOptions
	declined bool
}

// matcherCases are the queries of TestMatcherEqualsSubstructMatch.
func matcherCases() []matcherCase {
	type tc = matcherCase
	return []tc{
		{q: "c1ccccc1", kind: QuerySMARTS}, {q: "c1ccncc1", kind: QuerySMARTS},
		{q: "[NX3][CX3](=O)", kind: QuerySMARTS}, {q: "[CX3](=O)[OX2H1]", kind: QuerySMARTS},
		{q: "S(=O)(=O)[NX3]", kind: QuerySMARTS}, {q: "c1ccc2[nH]ccc2c1", kind: QuerySMARTS},
		{q: "C1CCNCC1", kind: QuerySMARTS}, {q: "N1CCNCC1", kind: QuerySMARTS},
		{q: "N1CCOCC1", kind: QuerySMARTS}, {q: "[CX4]C(F)(F)F", kind: QuerySMARTS},
		{q: "c1ccc(cc1)-c1ccccc1", kind: QuerySMARTS}, {q: "[Cl,Br,I]c", kind: QuerySMARTS},
		{q: "[NX3;H2]c", kind: QuerySMARTS}, {q: "c1cn[nH]c1", kind: QuerySMARTS},
		{q: "O=C1NC(=O)CC1", kind: QuerySMARTS}, {q: "c1ccc2ncccc2c1", kind: QuerySMARTS},
		{q: "*", kind: QuerySMARTS}, {q: "[#6]~[#7]", kind: QuerySMARTS},
		{q: "[!#6;!#1]", kind: QuerySMARTS}, {q: "[R2]", kind: QuerySMARTS},
		{q: "[r5]:[r6]", kind: QuerySMARTS}, {q: "[D3](~*)(~*)~*", kind: QuerySMARTS},
		{q: "C.N", kind: QuerySMARTS}, {q: "[Na+].[Cl-]", kind: QuerySMARTS},
		{q: "[N+](=O)[O-]", kind: QuerySMARTS}, {q: "[#6]@[#6]!@[#7]", kind: QuerySMARTS},
		{q: "C=,#C", kind: QuerySMARTS}, {q: "[C;R0]=[C;R0]", kind: QuerySMARTS},
		{q: "c:c:c:c:c:c:c", kind: QuerySMARTS}, {q: "C1CC1", kind: QuerySMARTS},
		{q: "[13C]", kind: QuerySMARTS}, {q: "[CH3][CH2][OH]", kind: QuerySMARTS},
		{q: "[x3]", kind: QuerySMARTS}, {q: "[a;!c]", kind: QuerySMARTS},
		// primitives compared per atom class: ranges, valences, implicit
		// Hs, heteroatom neighbours, hybridization, charges, ring sizes
		{q: "[D{2-3};#7]", kind: QuerySMARTS}, {q: "[v4;#16]", kind: QuerySMARTS},
		{q: "[h1]", kind: QuerySMARTS}, {q: "[z2;#6]", kind: QuerySMARTS},
		{q: "[Z1]", kind: QuerySMARTS}, {q: "[^2;N]", kind: QuerySMARTS},
		{q: "[+0;O]=[#6]", kind: QuerySMARTS}, {q: "[-;#8]", kind: QuerySMARTS},
		{q: "[#7;+]", kind: QuerySMARTS}, {q: "[r5,r6;!R2]", kind: QuerySMARTS},
		{q: "[X2;H0;#8]", kind: QuerySMARTS}, {q: "[d2;#6;R0]-[#7]", kind: QuerySMARTS},
		{q: "[#6]-&!@[#6]", kind: QuerySMARTS}, {q: "[N;H1,H2]C(=O)", kind: QuerySMARTS},
		// recursive SMARTS: nested, negated, under OR and XOR, the root
		// in a ring, with more than RDKit's 1,000 embeddings (answered
		// by SubstructMatch)
		{q: "[Br,I;$(*)]", kind: QuerySMARTS}, {q: "[$(C(=O)[OH])]", kind: QuerySMARTS},
		{q: "[C;$(C=O);!$(C(=O)[O,N])]", kind: QuerySMARTS}, {q: "[$(C-[$([#7]~[#8])])]", kind: QuerySMARTS},
		{q: "[N;!$(N-[!#6;!#1])]", kind: QuerySMARTS}, {q: "[$([NX3](C)(C)C),$([nX3])]", kind: QuerySMARTS},
		{q: "[$(*=O)]~[$(*=O)]", kind: QuerySMARTS}, {q: "[!$(*#*)&!D1]-&!@[!$(*#*)&!D1]", kind: QuerySMARTS},
		{q: "[$(c1ccccc1),$(c1ccncc1)]-[$(C=O)]", kind: QuerySMARTS}, {q: "[$(a1aaaaa1),$(a1aaaa1);!$(a(a)(a)a)]", kind: QuerySMARTS},
		{q: "[$([R2]1~*~*~*~*~*~1)]", kind: QuerySMARTS}, {q: "[$(*~*~*~*~*~*~*~*)]", kind: QuerySMARTS},
		{q: "c-[$(C(=O)[OH])].[$([Cl,Br])]", kind: QuerySMARTS}, {q: "[$([#6]!@[#6])&R]", kind: QuerySMARTS},
		{q: "C1CCCCC1", kind: QuerySMILES}, {q: "c1ccccc1O", kind: QuerySMILES},
		{q: "CC(=O)Nc1ccc(O)cc1", kind: QuerySMILES}, {q: "[O-]C=O", kind: QuerySMILES},
		{q: "[O-]C=O", kind: QuerySMILES, o: MatchOptions{IgnoreCharges: true}},
		{q: "OC(=O)C(N)C", kind: QuerySMILES}, {q: "Cl.Cl", kind: QuerySMILES},
		{q: "[2H]C", kind: QuerySMILES, o: MatchOptions{IgnoreIsotopes: true}},
		{q: "[$(C=O)]N", kind: QuerySMARTS},
		// chirality: tetrahedral centres and double bonds, SMILES and SMARTS
		{q: "C[C@H](N)C(=O)O", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "C[C@@H](N)C(=O)O", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "C[C@@H](O)CC", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "O[C@H]1CCCC[C@@H]1O", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "C/C=C/C", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "C/C=C\\C", kind: QuerySMILES, o: MatchOptions{Chirality: true}},
		{q: "[C@H](N)(C)C(=O)O", kind: QuerySMARTS, o: MatchOptions{Chirality: true}},
		{q: "[C@@](C)(O)(N)", kind: QuerySMARTS, o: MatchOptions{Chirality: true}},
		{q: "[$([C@H](O)C)]", kind: QuerySMARTS, o: MatchOptions{Chirality: true}},
	}
}
