package chem

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestInChINonsenseLayers reads InChIs whose charge, proton or isotope
// layers libinchi 1.03 reads without complaint into a structure they do
// not describe (it answered 200 with an empty InChI or another molecule).
// The references are Open Babel 3.1.1's readings (obabel -iinchi -osmi,
// then that SMILES -oinchi): where its InChI of the structure read differs
// from the input, or it calls the charge unrealistic, the InChI is
// refused; where the InChI comes back identical, it is read.
func TestInChINonsenseLayers(t *testing.T) {
	p, err := NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	refused := []struct{ inchi, says string }{
		// obabel: "Atom 1 had an unrealistic charge of 99".
		{"InChI=1S/CH4/h1H4/q+99", "more than its 6 electrons"},
		{"InChI=1S/Na/q+12", "more than its 11 electrons"},
		// obabel reads [1CH4], whose InChI is /i1-11.
		{"InChI=1S/CH4/h1H4/i1+500", "not a possible nuclide"},
		// obabel drops the isotope ([CH3]C); we built a mass number of -87.
		{"InChI=1S/C2H6/c1-2/h1-2H3/i1-99", "mass number -87"},
		// A mass number below the atomic number (6 protons in 5 nucleons).
		{"InChI=1S/C2H6/c1-2/h1-2H3/i1-7", "mass number 5"},
		// obabel reads methane, InChI=1S/CH4/h1H4.
		{"InChI=1S/CH4/h1H4/p-1", "proton layer /p-1 does not fit"},
		// libinchi would build 99,999 H+ atoms.
		{"InChI=1S/CH4/h1H4/p+99999", "not a proton count"},
		{"InChI=1S/CH4/h1H4/p+99999999999999999999", "not a proton count"},
		// isotope layer naming atom 5 of a 1-atom formula.
		{"InChI=1S/CH4/h1H4/i5+1", "InChI"},
	}
	for _, c := range refused {
		_, err := p.Process(context.Background(), Input{Format: FormatInChI, Content: c.inchi})
		if err == nil || !errors.Is(err, ErrInvalidMolecule) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an invalid molecule saying %q", c.inchi, err, c.says)
		}
	}
	// Read back identical by Open Babel (and by us, normalization off).
	accepted := []string{
		"InChI=1S/CH4/h1H4/p+50",
		"InChI=1S/CH4/h1H4/p+1",
		"InChI=1S/CH4/h1H4/q+1",
		"InChI=1S/Na/q+1",
		"InChI=1S/CH4/h1H4/i1+1",
		"InChI=1S/CH4/h1H4/i1D",
		"InChI=1S/C2H6/c1-2/h1-2H3/i1+3",
		"InChI=1S/C2H4O2/c1-2(3)4/h1H3,(H,3,4)/p-1",
	}
	for _, s := range accepted {
		r, err := p.Process(context.Background(), Input{Format: FormatInChI, Content: s, NoNormalize: true})
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if r.InChI != s {
			t.Errorf("%s read back as %q", s, r.InChI)
		}
	}
}
