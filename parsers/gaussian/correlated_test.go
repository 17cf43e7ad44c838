package gaussian_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/parsers/gaussian"
	"github.com/molgraph/molgraph/parsers/qm"
	"github.com/molgraph/molgraph/parsers/qm/qmtest"
)

// The logs of testdata/cclib are cclib's unit-test logs of Gaussian 09 and
// 16 water MP2 ... CCSD(T)/STO-3G (cclib/cclib 21daa960,
// data/Gaussian/basicGaussian{09,16}/water_*.log; README.md). Expected
// values are the numbers the logs print (G16): " E2 = -0.3795333610D-01
// EUMP2 = -0.75002282127454D+02" (the MP2 job; the CC jobs print
// ...127453), "EUMP3= -0.75012800931D+02", "UMP4(DQ)= -0.75015901147D+02",
// "UMP4(SDQ)= -0.75016013656D+02", "UMP4(SDTQ)= -0.75016068053D+02", the
// last "E(CORR)= -75.017683639" of the CCSD iterations and
// "CCSD(T)= -0.75017760422D+02". cclib master (cclib_master.json) agrees on
// every value it keeps: it keeps one MP4 per job (SDTQ, or SDQ in an
// MP4(SDQ) or CC job) and only the highest coupled-cluster energy.
func TestCorrelatedEnergies(t *testing.T) {
	mp2, mp2cc := qm.CorrelatedEnergy{Method: "MP2", Energy: -75.002282127454}, qm.CorrelatedEnergy{Method: "MP2", Energy: -75.002282127453}
	mp3 := qm.CorrelatedEnergy{Method: "MP3", Energy: -75.012800931}
	dq, sdq := qm.CorrelatedEnergy{Method: "MP4(DQ)", Energy: -75.015901147}, qm.CorrelatedEnergy{Method: "MP4(SDQ)", Energy: -75.016013656}
	sdtq := qm.CorrelatedEnergy{Method: "MP4(SDTQ)", Energy: -75.016068053}
	ccsd := qm.CorrelatedEnergy{Method: "CCSD", Energy: -75.017683639}
	for _, tc := range []struct {
		file, method string
		want         []qm.CorrelatedEnergy
		level        float64
	}{
		{"cclib_G16_water_mp2.log", "MP2", []qm.CorrelatedEnergy{mp2}, mp2.Energy},
		{"cclib_G16_water_mp3.log", "MP3", []qm.CorrelatedEnergy{mp2cc, mp3}, mp3.Energy},
		{"cclib_G16_water_mp4.log", "MP4", []qm.CorrelatedEnergy{mp2cc, mp3, dq, sdq, sdtq}, sdtq.Energy},
		// The route "#P MP4(SDQ)/STO-3G" was read as HF (parentheses
		// before the '/' were taken for an option).
		{"cclib_G16_water_mp4sdq.log", "MP4(SDQ)", []qm.CorrelatedEnergy{mp2cc, mp3, dq, sdq}, sdq.Energy},
		{"cclib_G16_water_ccsd.log", "CCSD", []qm.CorrelatedEnergy{mp2cc, mp3, dq, sdq, ccsd}, ccsd.Energy},
		// "#P CCSD(T)/STO-3G" was read as HF too.
		{"cclib_G16_water_ccsdt.log", "CCSD(T)", []qm.CorrelatedEnergy{mp2cc, mp3, dq, sdq, ccsd, {Method: "CCSD(T)", Energy: -75.017760422}}, -75.017760422},
		// "#P CIS(D,50-50,NStates=5)/STO-3G" (cclib names it water_cisd):
		// CIS(D), whose ground state prints EUMP2.
		{"cclib_G16_water_cisd.log", "CIS(D)", []qm.CorrelatedEnergy{mp2cc}, 0},
	} {
		f, err := os.Open(filepath.Join("testdata", "cclib", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := gaussian.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if c.Method != tc.method {
			t.Errorf("%s: method %q, want %q", tc.file, c.Method, tc.method)
		}
		qmtest.CheckCorrelated(t, tc.file, c, tc.want)
	}
}

// TestCorrelatedAgainstCclib: for every correlated log of testdata/cclib
// (G09 and G16), cclib master's last MP energy and its CC energy equal one
// of ours (within the eV round trip).
func TestCorrelatedAgainstCclib(t *testing.T) {
	ref := qmtest.CclibJSON(t, "cclib", "master")
	n := 0
	for name, r := range ref {
		f, err := os.Open(filepath.Join("testdata", "cclib", name))
		if err != nil {
			t.Fatal(err)
		}
		c, err := gaussian.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want []float64
		if len(r.MP) > 0 {
			want = append(want, r.MP[len(r.MP)-1]...)
		}
		want = append(want, r.CC...)
		n += qmtest.CheckAmongCorrelated(t, name, c, want)
	}
	if n < 20 {
		t.Errorf("only %d cclib energies compared", n)
	}
}

// TestRouteVariants: cclib's logs with routes of other shapes.
// BH3CO-sp (Gaussian 03): "#p gfinput iop(6/7=3) … #HF/6-31G* pop=full
// den sity nosym #SP": '#' before keywords; the archive at the end wraps
// its copy of the route so that a line starts with "#SP\\BH3CO sp…", which
// was taken for a new route and swallowed "Normal termination" (cclib
// master: success). dvb_eomccsd (G16): "#p EOMCCSD=(nstates=10, …)
// STO-3G": a method without "/basis" (was HF, the SCF label); its CCSD
// ground state's last "E(CORR)=     -380.50037233" is cclib master's CC
// energy.
func TestRouteVariants(t *testing.T) {
	for _, tc := range []struct {
		file, method, basis string
		ccsd                float64
	}{
		{"cclib_CDA_BH3CO-sp.log", "HF", "6-31G(d)", 0},
		{"cclib_G16_dvb_eomccsd.log", "EOMCCSD", "STO-3G", -380.50037233},
	} {
		f, err := os.Open(filepath.Join("testdata", "cclib", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := gaussian.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		e, ok := c.CorrelatedEnergyOf("CCSD")
		if c.Method != tc.method || c.BasisSet != tc.basis || !c.NormalTermination || ok != (tc.ccsd != 0) || e != tc.ccsd {
			t.Errorf("%s: method %q basis %q normal %v CCSD %v %v", tc.file, c.Method, c.BasisSet, c.NormalTermination, e, ok)
		}
	}
}

// TestCorrelatedArchiveIgnored: the archive repeats "CCSD(T)=-75.0177604"
// with 7 decimals and no D exponent, wrapped at any point; a wrapped line
// that ends right after the value must not replace the link's
// "CCSD(T)= -0.75017760422D+02".
func TestCorrelatedArchiveIgnored(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cclib", "cclib_G16_water_ccsdt.log"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(" Normal termination"))
	edited := append(append(append([]byte(nil), data[:i]...), " CCSD(T)=-75.0177604\n"...), data[i:]...)
	c, err := gaussian.Parse(bytes.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := c.CorrelatedEnergyOf("CCSD(T)"); !ok || e != -75.017760422 {
		t.Errorf("CCSD(T) %v %v", e, ok)
	}
}
