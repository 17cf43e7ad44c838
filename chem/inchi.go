package chem

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// libinchi 1.03 trusts its input: malformed InChI text can crash it (found
// by FuzzParseInChI, e.g. "InChI=1S/CHCl3.c2-1(3)4/h1D/i1H" aborts in
// free()). checkInChI therefore admits only text shaped like a standard
// InChI - prefix, formula, known layers with their character sets, balanced
// parentheses, atom numbers within the formula's atom count - before it
// reaches the library. It is a gate, not a full parser: libinchi still
// decides whether the InChI is valid.

// layerChars lists the characters allowed in a standard InChI layer after
// its prefix letter ("" for an unknown layer).
func layerChars(p byte) string {
	switch p {
	case 'c':
		return "0123456789-(),;*."
	case 'h':
		return "0123456789-(),;*.H"
	case 'q', 'p':
		return "0123456789+-;.*"
	case 'b':
		return "0123456789-+,;*."
	case 't':
		return "0123456789-+?,;*."
	case 'm':
		return "01.;*"
	case 's':
		return "123"
	case 'i':
		return "0123456789-+,;*.HDT"
	}
	return ""
}

func checkInChI(text string) (string, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return "", errors.New("empty InChI")
	}
	if !strings.HasPrefix(s, "InChI=") {
		return "", errors.New(`an InChI must start with "InChI="`)
	}
	if !strings.HasPrefix(s, "InChI=1S/") {
		return "", errors.New(`only standard InChI ("InChI=1S/...") is read`)
	}
	if len(s) > 20000 {
		return "", errors.New("InChI too long")
	}
	layers := strings.Split(s[len("InChI=1S/"):], "/")
	comps, err := formulaComponents(layers[0])
	if err != nil {
		return "", fmt.Errorf("InChI formula layer %q: %v", layers[0], err)
	}
	seenIsotope := false
	order, pos := "chqpbtmsi", -1 // layers appear once, in this order
	for _, l := range layers[1:] {
		if l == "" {
			return "", errors.New("empty InChI layer")
		}
		p := l[0]
		allowed := layerChars(p)
		if allowed == "" {
			return "", fmt.Errorf("unknown or non-standard InChI layer /%c", p)
		}
		k := strings.IndexByte(order, p)
		if k <= pos {
			return "", fmt.Errorf("InChI layer /%c repeated or out of order", p)
		}
		pos = k
		if p == 'i' {
			seenIsotope = true
			order, pos = "hbtms", -1
		}
		if p == 'h' && seenIsotope {
			allowed += "DT" // isotopic H sublayer
		}
		depth := 0
		for i := 1; i < len(l); i++ {
			c := l[i]
			if !strings.ContainsRune(allowed, rune(c)) {
				return "", fmt.Errorf("unexpected %q in InChI layer /%c", c, p)
			}
			switch c {
			case '(':
				depth++
				if depth > 1 && p != 'c' {
					return "", fmt.Errorf("nested parentheses in InChI layer /%c", p)
				}
			case ')':
				depth--
				if depth < 0 {
					return "", fmt.Errorf("unbalanced parentheses in InChI layer /%c", p)
				}
			}
		}
		if depth != 0 {
			return "", fmt.Errorf("unbalanced parentheses in InChI layer /%c", p)
		}
		if p == 'p' && !seenIsotope {
			// libinchi adds one H+ atom per proton: /p+99999 would build
			// as many atoms as it says. An InChI has at most 1023.
			heavy := 0
			for _, n := range comps {
				heavy += n
			}
			for _, part := range strings.Split(l[1:], ";") {
				if v, err := strconv.Atoi(part); err != nil || heavy+max(v, -v) > 1023 {
					return "", fmt.Errorf("InChI proton layer /p%s: not a proton count (at most %d with this formula)", truncateInChI(l[1:]), 1023-heavy)
				}
			}
		}
		if (p == 'c' || p == 'h' || p == 'b' || p == 't') && !seenIsotope {
			if err := checkComponentNumbers(p, l[1:], comps); err != nil {
				return "", err
			}
		}
	}
	return s, nil
}

// truncateInChI shortens a layer for an error message.
func truncateInChI(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// checkComponentNumbers checks the ';'-separated per-component parts of a
// connection, H or stereo layer: no more parts than components, and atom
// numbers within each component's atom count.
func checkComponentNumbers(p byte, layer string, comps []int) error {
	c := 0
	for _, part := range strings.Split(layer, ";") {
		n := 1
		if k := strings.IndexByte(part, '*'); k >= 0 {
			m, err := strconv.Atoi(part[:k])
			if err != nil || m < 1 {
				return fmt.Errorf("bad multiplier in InChI layer /%c", p)
			}
			n, part = m, part[k+1:]
		}
		for k := 0; k < n; k++ {
			if c >= len(comps) {
				return fmt.Errorf("InChI layer /%c has more parts than the formula has components", p)
			}
			limit := comps[c]
			if limit == 0 && p == 'h' {
				limit = 1 // H2: atom 1
			}
			seen := map[int]bool{}
			for _, num := range numbersOf(part) {
				v, err := strconv.Atoi(num)
				if err != nil || v < 1 || v > limit {
					return fmt.Errorf("InChI layer /%c names atom %s of a component with %d atoms", p, num, comps[c])
				}
				seen[v] = true
			}
			if p == 'c' && len(seen) != comps[c] && comps[c] > 1 {
				return fmt.Errorf("InChI connection layer does not connect all %d atoms of a component", comps[c])
			}
			if p == 'c' && limit < 2 && part != "" {
				return fmt.Errorf("InChI layer /c gives connections to a component with %d atoms", comps[c])
			}
			c++
		}
	}
	return nil
}

// numbersOf returns the atom numbers of a connection, stereo or H layer:
// digit runs that are not H counts (a run right after 'H' is a count).
func numbersOf(l string) []string {
	var out []string
	for i := 0; i < len(l); {
		if l[i] < '0' || l[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(l) && l[j] >= '0' && l[j] <= '9' {
			j++
		}
		prev := byte(0)
		if i > 0 {
			prev = l[i-1]
		}
		// H counts (H2), multipliers (2*), mobile-H counts after "(H"
		if prev != 'H' && prev != 'D' && prev != 'T' && !(j < len(l) && l[j] == '*') {
			out = append(out, l[i:j])
		}
		i = j
	}
	return out
}

// formulaComponents checks a formula layer ("C9H8O4", "2C2H3O2.Ca") and
// returns, per component (multipliers expanded), the number of atoms its
// layers may name: the non-hydrogen atoms, or 0 for a hydrogen-only
// component (H2, H+), which has no connection table.
func formulaComponents(f string) ([]int, error) {
	if f == "" {
		return nil, nil // a bare proton: "InChI=1S/p+1"
	}
	var comps []int
	total := 0
	for _, comp := range strings.Split(f, ".") {
		i := 0
		mult := 1
		for i < len(comp) && comp[i] >= '0' && comp[i] <= '9' {
			i++
		}
		if i > 0 {
			m, err := strconv.Atoi(comp[:i])
			if err != nil || m < 2 || m > 1000 {
				return nil, errors.New("bad multiplier")
			}
			mult = m
		}
		if i == len(comp) {
			return nil, errors.New("empty component")
		}
		heavy := 0
		var symbols []string
		for i < len(comp) {
			if comp[i] < 'A' || comp[i] > 'Z' {
				return nil, fmt.Errorf("unexpected %q", comp[i])
			}
			el := comp[i : i+1]
			i++
			if i < len(comp) && comp[i] >= 'a' && comp[i] <= 'z' {
				el += comp[i : i+1]
				i++
			}
			j := i
			for j < len(comp) && comp[j] >= '0' && comp[j] <= '9' {
				j++
			}
			n := 1
			if j > i {
				v, err := strconv.Atoi(comp[i:j])
				if err != nil || v < 1 || v > 1000 {
					return nil, errors.New("bad atom count")
				}
				n = v
			}
			i = j
			if !isElement(el) {
				return nil, fmt.Errorf("unknown element %q", el)
			}
			if el != "H" {
				heavy += n
			}
			symbols = append(symbols, el)
		}
		if !hillOrder(symbols) {
			return nil, errors.New("elements not in Hill order")
		}
		total += heavy * mult
		if total > 1023 || len(comps)+mult > 1023 {
			return nil, errors.New("too many atoms")
		}
		for k := 0; k < mult; k++ {
			comps = append(comps, heavy)
		}
	}
	return comps, nil
}

// hillOrder reports whether element symbols are in Hill order, each once:
// C, H, then the others alphabetically; without carbon, all alphabetically.
func hillOrder(el []string) bool {
	rest := el
	if len(el) > 0 && el[0] == "C" {
		rest = el[1:]
		if len(rest) > 0 && rest[0] == "H" {
			rest = rest[1:]
		}
		for _, e := range rest {
			if e == "C" || e == "H" {
				return false
			}
		}
	}
	for i := 1; i < len(rest); i++ {
		if rest[i-1] >= rest[i] {
			return false
		}
	}
	return true
}

// elementSymbols lists the element symbols, space-separated.
const elementSymbols = ` H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn
 Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba
 La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr
 Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og `

func isElement(el string) bool {
	for _, e := range strings.Fields(elementSymbols) {
		if e == el {
			return true
		}
	}
	return false
}
