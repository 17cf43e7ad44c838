package xtb_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
	"github.com/molgraph/molgraph/parsers/xtb"
)

// TestCclibOrbitalsWrong: xtb prints orbital energies in hartree and in eV;
// cclib master reads the eV column as hartree (its HOMO energies are the eV
// numbers, 27.2× too large) and marks all four occupied orbitals as HOMOs,
// and Debian's cclib 1.6.2 does not recognise the file at all. We read the
// hartree column: the HOMO is orbital 4 at −0.4463614 Eh, and converted to
// eV it is exactly the number cclib took for hartree (−12.1461).
func TestCclibOrbitalsWrong(t *testing.T) {
	const rel = "xtb/generated/water_gfn2_ohess.out"
	var ref struct {
		Files map[string]struct {
			Homos  []int     `json:"homos"`
			HomoEh []float64 `json:"homo_energy_hartree"`
			Error  *string   `json:"error"`
		} `json:"files"`
	}
	if err := json.Unmarshal(qmtest.Read(t, "cclib_reference_head.json"), &ref); err != nil {
		t.Fatal(err)
	}
	head := ref.Files[rel]
	if len(head.Homos) != 4 || len(head.HomoEh) != 4 {
		t.Fatalf("cclib master now reports homos %v: this test documents its 4 HOMOs", head.Homos)
	}
	if err := json.Unmarshal(qmtest.Read(t, "cclib_reference.json"), &ref); err != nil {
		t.Fatal(err)
	}
	if deb := ref.Files[rel]; deb.Error == nil {
		t.Errorf("Debian cclib 1.6.2 now parses %s: this test documents that it did not", rel)
	}

	c, err := xtb.Parse(bytes.NewReader(qmtest.Read(t, rel)))
	if err != nil {
		t.Fatal(err)
	}
	h, ok := c.Orbitals.HOMOEnergy(0)
	if !ok || c.Orbitals.HOMO[0] != 3 || h != -0.4463614 {
		t.Fatalf("HOMO index %v energy %v, want 3 and -0.4463614 Eh as printed", c.Orbitals.HOMO, h)
	}
	l, _ := c.Orbitals.LUMOEnergy(0)
	if l != 0.0822625 {
		t.Errorf("LUMO %v Eh, want 0.0822625", l)
	}
	// cclib's "hartree" HOMO is our HOMO in eV (xtb prints 4 decimals of eV).
	if cc := head.HomoEh[len(head.HomoEh)-1]; math.Abs(h*qm.HartreeToEV-cc) > 1e-4 || math.Abs(cc/h-qm.HartreeToEV) > 1e-3 {
		t.Errorf("cclib HOMO %v 'Eh' is not our %v Eh × %v", cc, h, qm.HartreeToEV)
	}
	// The gap xtb prints in its summary, in eV.
	if gap := (l - h) * qm.HartreeToEV; math.Abs(gap-14.384586451061) > 1e-4 {
		t.Errorf("HOMO-LUMO gap %v eV, xtb printed 14.384586451061", gap)
	}
}
