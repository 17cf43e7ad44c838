package qm

import "strings"

// symbols are the element symbols indexed by atomic number (IUPAC, 1-118).
// It is never modified.
var symbols = [...]string{"",
	"H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne",
	"Na", "Mg", "Al", "Si", "P", "S", "Cl", "Ar", "K", "Ca",
	"Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn",
	"Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr",
	"Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn",
	"Sb", "Te", "I", "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd",
	"Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb",
	"Lu", "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg",
	"Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th",
	"Pa", "U", "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm",
	"Md", "No", "Lr", "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds",
	"Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og",
}

// Symbol returns the element symbol of atomic number z ("" if out of range).
func Symbol(z int) string {
	if z <= 0 || z >= len(symbols) {
		return ""
	}
	return symbols[z]
}

// AtomicNumber returns the atomic number of an element symbol, case-insensitive;
// a trailing label (digits, "_", ":" as in "C1", "H_a", "Fe:") is ignored, and
// ghost/dummy atoms ("X", "Gh", "Bq") give 0. ok is false for unknown symbols.
func AtomicNumber(sym string) (z int, ok bool) {
	end := 0
	for end < len(sym) && end < 3 {
		c := sym[end]
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') {
			end++
			continue
		}
		break
	}
	s := sym[:end]
	if s == "" {
		return 0, false
	}
	for z := 1; z < len(symbols); z++ {
		if strings.EqualFold(symbols[z], s) {
			return z, true
		}
	}
	return 0, false
}
