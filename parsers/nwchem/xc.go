package nwchem

import (
	"strconv"
	"strings"

	"github.com/molgraph/molgraph/parsers/qm"
)

// xcComponent is one row of NWChem's "XC Information" block:
// "Becke 1988 Exchange Functional  1.000", "Perdew 1981 Correlation
// Functional  1.000 local", "Hartree-Fock (Exact) Exchange  0.250".
type xcComponent struct {
	name  string
	coef  float64
	local bool // "local": the local part of a correlation functional
}

// xcComponentOf parses a component row (fields of the trimmed line).
func xcComponentOf(fs [][]byte) (xcComponent, bool) {
	n := len(fs)
	if n < 2 {
		return xcComponent{}, false
	}
	kind := ""
	if s := string(fs[n-1]); s == "local" || s == "non-local" {
		kind, n = s, n-1
	}
	coef, ok := qm.ParseFloat(fs[n-1])
	if !ok || n < 2 {
		return xcComponent{}, false
	}
	parts := make([]string, n-1)
	for i := range parts {
		parts[i] = string(fs[i])
	}
	name := strings.Join(parts, " ")
	if !strings.Contains(name, "Exchange") && !strings.Contains(name, "Correlation") {
		return xcComponent{}, false
	}
	return xcComponent{name: name, coef: coef, local: kind == "local"}, true
}

// Short names of the exchange and correlation functionals NWChem's "xc"
// keywords print (xpbe96, becke88, slater, xtpss03; cpbe96, perdew86, lyp,
// vwn_5, ctpss03, perdew91). NWChem names combinations it knows ("B3LYP
// Method XC Potential"); for the others the usual name is composed here
// from these parts, as the literature writes them (BP86, BLYP, SVWN5, PBE).
var (
	xcExchange = map[string]string{
		"Slater Exchange Functional":               "S",
		"Becke 1988 Exchange Functional":           "B",
		"PerdewBurkeErnzerhof Exchange Functional": "PBE",
		"Perdew 1991 Exchange Functional":          "PW91",
		"TPSS metaGGA Exchange Functional":         "TPSS",
	}
	xcCorrelation = map[string]string{
		"VWN V Correlation Functional":            "VWN5",
		"VWN I RPA Correlation Functional":        "VWN1RPA",
		"Perdew 1986 Correlation Functional":      "P86",
		"Lee-Yang-Parr Correlation Functional":    "LYP",
		"PerdewBurkeErnz. Correlation Functional": "PBE",
		"Perdew 1991 Correlation Functional":      "PW91",
		"TPSS03 metaGGA Correlation Functional":   "TPSS",
	}
)

// xcName names the functional of an XC block without a named method:
// exchange + correlation short names (one name if both are the same
// family: PBE, TPSS), "PBE0" for PBE with 25 % exact exchange, otherwise
// the exact-exchange fraction appended ("B-LYP-HF0.2"); rows it does not
// know are joined as printed.
func xcName(cs []xcComponent) string {
	var hf float64
	var xs, cs2, unknown []string
	nonlocal := false
	for _, c := range cs {
		if strings.Contains(c.name, "Correlation") && !c.local {
			nonlocal = true
		}
	}
	for _, c := range cs {
		switch {
		case strings.HasPrefix(c.name, "Hartree-Fock (Exact) Exchange"):
			hf = c.coef
		case xcExchange[c.name] != "":
			xs = append(xs, xcExchange[c.name])
		case xcCorrelation[c.name] != "":
			if c.local && nonlocal {
				continue // the local part of a gradient-corrected correlation
			}
			cs2 = append(cs2, xcCorrelation[c.name])
		case c.local && nonlocal && strings.Contains(c.name, "Correlation"):
			// "Perdew 1981", "Perdew 1991 LDA": local parts of P86, PBE.
		default:
			unknown = append(unknown, c.name)
		}
	}
	if len(unknown) > 0 || len(xs) != 1 || len(cs2) > 1 {
		parts := make([]string, 0, len(cs))
		for _, c := range cs {
			parts = append(parts, c.name)
		}
		return strings.Join(parts, " + ")
	}
	name := xs[0]
	if len(cs2) == 1 && cs2[0] != xs[0] {
		name += cs2[0]
	}
	switch {
	case hf == 0:
	case name == "PBE" && hf == 0.25:
		name = "PBE0"
	default:
		name += "-HF" + strconv.FormatFloat(hf, 'f', -1, 64)
	}
	return name
}
