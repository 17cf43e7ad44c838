package nwchem_test

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/molgraph/molgraph/parsers/nwchem"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// cclibFile is the part of one file's entry of the corpus's cclib reference
// files (cclib_reference.json: Debian python3-cclib 1.6.2;
// cclib_reference_head.json: cclib master) these tests read.
type cclibFile struct {
	Mult    *int  `json:"mult"`
	Success *bool `json:"metadata_success"`
}

func cclibRef(t *testing.T, file, rel string) cclibFile {
	t.Helper()
	var ref struct {
		Files map[string]cclibFile `json:"files"`
	}
	if err := json.Unmarshal(qmtest.Read(t, file), &ref); err != nil {
		t.Fatal(err)
	}
	f, ok := ref.Files[rel]
	if !ok {
		t.Fatalf("%s: no entry for %s", file, rel)
	}
	return f
}

// TestUHFMultiplicity: NWChem's SCF module prints only the α and β electron
// counts of a UHF run, and cclib (Debian 1.6.2 and master) leaves the
// multiplicity unset. We derive 2S+1 = n_α − n_β + 1 and check it against
// what the log itself says: the counts and ⟨S²⟩ ≈ S(S+1) with S = 1/2.
func TestUHFMultiplicity(t *testing.T) {
	for _, rel := range []string{"nwchem/generated/oh_radical_uhf_631gs_sp.out", "nwchem/generated/oh_radical_uhf_631gs_sp_nosym.out"} {
		for _, file := range []string{"cclib_reference.json", "cclib_reference_head.json"} {
			if m := cclibRef(t, file, rel).Mult; m != nil {
				t.Errorf("%s: %s now has multiplicity %d: this test documents that it had none", rel, file, *m)
			}
		}
		data := qmtest.Read(t, rel)
		na := grabInt(t, data, `alpha electrons =\s+(\d+)`)
		nb := grabInt(t, data, `beta  electrons =\s+(\d+)`)
		s2 := grabFloat(t, data, `S\^2 =\s+(\S+)`)
		c, err := nwchem.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if c.Multiplicity == nil || *c.Multiplicity != na-nb+1 || *c.Multiplicity != 2 {
			t.Errorf("%s: multiplicity %v, want %d (α %d, β %d)", rel, c.Multiplicity, na-nb+1, na, nb)
		}
		if S := float64(*c.Multiplicity-1) / 2; math.Abs(S*(S+1)-s2) > 0.05 {
			t.Errorf("%s: S(S+1) = %g but the log prints <S^2> = %g", rel, S*(S+1), s2)
		}
		if !c.Unrestricted || c.Orbitals == nil || len(c.Orbitals.HOMO) != 2 || c.Orbitals.HOMO[0] != na-1 || c.Orbitals.HOMO[1] != nb-1 {
			t.Errorf("%s: unrestricted %v orbitals %+v, want α/β HOMO %d/%d", rel, c.Unrestricted, c.Orbitals, na-1, nb-1)
		}
	}
}

// TestAbortedSCF: an SCF that stops at maxiter makes NWChem print "scf
// energy failed" and abort through MPI (exit status 255, stderr in the
// corpus). cclib master reports success None, as if nothing were known; we
// report normal_termination false, an SCF solution marked not converged and
// a warning.
func TestAbortedSCF(t *testing.T) {
	const rel = "nwchem/generated/water_hf_sto3g_scf_notconverged.out"
	if s := cclibRef(t, "cclib_reference_head.json", rel).Success; s != nil {
		t.Errorf("cclib master now reports success %v: this test documents that it reported none", *s)
	}
	data := qmtest.Read(t, rel)
	if !bytes.Contains(data, []byte("scf energy failed")) || !bytes.Contains(data, []byte("Calculation failed to converge")) {
		t.Fatal("the corpus log is not the failed run this test is about")
	}
	c, err := nwchem.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if c.NormalTermination {
		t.Error("normal termination true for an aborted run")
	}
	if len(c.SCF) != 1 || c.SCF[0].Converged || c.SCF[0].Energy == nil || *c.SCF[0].Energy != -74.962191606414 {
		t.Errorf("SCF %+v, want one unconverged solution at the last printed energy -74.962191606414", c.SCF)
	}
	if len(c.Warnings) == 0 {
		t.Error("no warning for the failed SCF")
	}
}

func grabInt(t *testing.T, data []byte, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%q not in log", re)
	}
	v, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func grabFloat(t *testing.T, data []byte, re string) float64 {
	t.Helper()
	m := regexp.MustCompile(re).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%q not in log", re)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
