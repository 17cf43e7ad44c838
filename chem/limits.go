package chem

import (
	"strconv"
	"strings"
)

// MaxHeavyAtoms bounds the heavy atoms of an input, counted before RDKit
// parses it; it is also the largest molecule a record allows. RDKit's
// parsers perceive stereochemistry, whose CIP ranking grows with the cube
// of the atom count on a chain: 1,000 carbons take 0.7 s to parse, 2,000
// take 6.2 s, and 3,000 aromatic atoms took 22 s to be refused. Without a
// bound, one request of a few kilobytes (the content limit is 8 MiB) could
// hold a worker for hours.
const MaxHeavyAtoms = 1000

// heavyAtomBound counts the heavy atoms the input writes, from its text,
// without parsing it as a molecule: for a SMILES (up to its first
// whitespace, as the parser reads it) the atoms outside brackets and the
// bracket atoms that are not hydrogen, dummy atoms (*) included; for a
// V3000 molfile the atom lines of its first record that are not H, D or T
// (a V2000 molfile holds at most 999 atoms). It never fails: what it
// cannot read counts 0 and is left to the parser's error. (An InChI's
// formula is checked before parsing, and libinchi reads at most 1023
// atoms.)
func heavyAtomBound(f Format, text string) int {
	switch f {
	case FormatSMILES:
		return smilesHeavyAtoms(text)
	case FormatMolfile:
		return molfileHeavyAtoms(text)
	}
	return 0
}

func smilesHeavyAtoms(s string) int {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		s = s[:i]
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return n + 1
			}
			if !isHydrogen(strings.TrimLeft(s[i+1:i+j], "0123456789")) {
				n++
			}
			i += j
		case c >= 'A' && c <= 'Z', c == '*': // the l of Cl and r of Br are not counted
			n++
		case c == 'b', c == 'c', c == 'n', c == 'o', c == 'p', c == 's':
			n++
		}
	}
	return n
}

// isHydrogen reports whether an atom written as sym (a bracket atom's
// content after its isotope, or an element symbol) is hydrogen: H, D or T
// not followed by a lowercase letter (Hg, He, Hf, Ho, Hs are elements).
func isHydrogen(sym string) bool {
	if sym == "" || (sym[0] != 'H' && sym[0] != 'D' && sym[0] != 'T') {
		return false
	}
	if len(sym) > 1 && sym[1] >= 'a' && sym[1] <= 'z' {
		return false
	}
	return sym[0] == 'H' || len(sym) == 1
}

// maxCountsEntry bounds the atoms and the bonds a V3000 COUNTS line may
// declare: MaxHeavyAtoms heavy atoms with up to three hydrogens each.
const maxCountsEntry = 4 * MaxHeavyAtoms

func molfileHeavyAtoms(s string) int {
	n, inAtoms, line := 0, false, 0
	for rest := s; rest != ""; line++ {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimRight(l, "\r")
		if line == 3 && !strings.Contains(l, "V3000") {
			return 0 // V2000: at most 999 atoms
		}
		if strings.HasPrefix(l, "M  END") || strings.HasPrefix(l, "$$$$") {
			break
		}
		if !strings.HasPrefix(l, "M  V30 ") {
			continue
		}
		f := strings.Fields(l[len("M  V30 "):])
		switch {
		case len(f) >= 3 && f[0] == "COUNTS":
			// RDKit sizes its atom and bond tables from the counts before
			// it reads a line: COUNTS 2000000000 allocated over 3 GiB. A
			// count past what MaxHeavyAtoms heavy atoms and their
			// hydrogens could need is taken as the atoms the record
			// claims, and so refused.
			for _, c := range f[1:3] {
				if v, err := strconv.Atoi(c); err != nil || v > maxCountsEntry {
					return MaxHeavyAtoms + 1
				}
			}
		case len(f) >= 2 && f[0] == "BEGIN" && f[1] == "ATOM":
			inAtoms = true
		case len(f) >= 2 && f[0] == "END" && f[1] == "ATOM":
			inAtoms = false
		case inAtoms && len(f) >= 2 && !isHydrogen(f[1]):
			n++
		}
	}
	return n
}
