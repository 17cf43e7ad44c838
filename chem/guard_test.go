package chem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPathWorkBound: a graph whose atoms are bonded too densely (here the
// complete graph of 9 atoms, written with ring closures) is refused
// before the fingerprints, normalization and query screen whose cost
// grows with its density (mg_guard.cpp), within milliseconds; the
// complete graph of 8 atoms (202,720 steps, counted with RDKit's Python
// graph) still passes, and so does RDKit's NCI sample (at most 6,520).
// Before the bound, K_12 took 2.4 s as a molecule and over 30 s as a
// query, in one uninterruptible call.
func TestPathWorkBound(t *testing.T) {
	k8 := "*123456*789%10%11*1%12%13%14%15*271%16%17*38%1227*49%1313*5%10%14%162*6%11%15%1773"
	k9 := "*1234567*89%10%11%12%13*1%14%15%16%17%18*281%19%20%21*39%1428%22*4%10%15139*5%11%16%1921*6%12%17%2083*7%13%18%21%2291"
	k12fe := "[Fe]123456789%10[Fe]%11%12%13%14%15%16%17%18%19[Fe]1%20%21%22%23%24%25%26%27[Fe]2%111%28%29%30%31%32%33[Fe]3%12%202%11%34%35%36%37[Fe]4%13%2113%12%20%38%39[Fe]5%14%22%28214%13%21[Fe]6%15%23%29%11325%14[Fe]7%16%24%30%34%12136[Fe]8%17%25%31%35%20421[Fe]9%18%26%32%36%38%1353[Fe]%10%19%27%33%37%39%21%1461"
	if _, err := FingerprintsOf(k8); err != nil {
		t.Errorf("K8: %v", err)
	}
	if _, err := ParseQuery(k8, QuerySMARTS, MatchOptions{}); err != nil {
		t.Errorf("K8 as a query: %v", err)
	}
	p, err := NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, s := range []string{k9, k12fe} {
		start := time.Now()
		if _, err := FingerprintsOf(s); err == nil || !strings.Contains(err.Error(), "densely bonded") {
			t.Errorf("fingerprints of %.30s...: %v", s, err)
		}
		for _, k := range []QueryKind{QuerySMILES, QuerySMARTS} {
			if _, err := ParseQuery(s, k, MatchOptions{}); !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), "densely bonded") {
				t.Errorf("%s query %.30s...: %v", k, s, err)
			}
		}
		_, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: s, Fingerprints: true})
		var me *MoleculeError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "densely bonded") {
			t.Errorf("registration of %.30s...: %v", s, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%.30s... refused after %s", s, took)
		}
	}
}

// TestQueryText: a SMILES or SMARTS query with a byte outside printable
// ASCII, whitespace inside, or parentheses nested past MaxQueryNesting is
// an invalid query (RDKit read some of them in part).
func TestQueryText(t *testing.T) {
	for _, q := range []string{"C\u202eO", "C\xff\xfeO", "CC O", "C\tO", "C\x00O",
		strings.Repeat("[$(", MaxQueryNesting+1) + "C" + strings.Repeat(")]", MaxQueryNesting+1)} {
		for _, k := range []QueryKind{QuerySMILES, QuerySMARTS} {
			if _, err := ParseQuery(q, k, MatchOptions{}); !errors.Is(err, ErrInvalidQuery) {
				t.Errorf("%s %.40q: %v", k, q, err)
			}
		}
	}
	for _, q := range []string{" c1ccccc1O\n", strings.Repeat("C(", 300) + "C" + strings.Repeat(")", 300)} {
		if _, err := ParseQuery(q, QuerySMARTS, MatchOptions{}); err != nil {
			t.Errorf("%.40q: %v", q, err)
		}
	}
}

// TestStereoisomersCollapsing: a cage whose 24 potential stereocentres
// (RDKit findPotentialStereo) all give one molecule no longer makes the
// enumeration try all 2^24 assignments (hours, ~1 ms each, in one call):
// it gives up after 8 per isomer wanted.
func TestStereoisomersCollapsing(t *testing.T) {
	cage := "C12C3C4C5C1C6C7C8C2C9C3C%10C4C%11C5C6C%12C7C%13C8C9C%10C%11C%12%13"
	start := time.Now()
	iso, total, err := Stereoisomers(cage, MaxStereoisomers)
	if err != nil || len(iso) == 0 || total != 1<<24 {
		t.Fatalf("%v %d %v", iso, total, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}
