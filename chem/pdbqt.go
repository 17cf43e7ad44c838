package chem

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A PDBQT ligand read for its chemistry: atoms with AutoDock types mapped
// to elements, coordinates, and the bond-order template Meeko writes as
// REMARK SMILES / REMARK SMILES IDX. The torsion tree is not needed here
// (parsers/pdbqt reads it for docking).

type pdbqtAtom struct {
	serial      int
	atomicNum   int
	x, y, z     float64
	templateIdx int // 0-based SMILES atom index, -1 if unmapped
}

type pdbqtLigand struct {
	atoms    []pdbqtAtom
	template string // REMARK SMILES
	haveIdx  bool   // REMARK SMILES IDX present
}

// maxPDBQTAtoms bounds a ligand (InChI stops at 1023 atoms anyway).
const maxPDBQTAtoms = 2000

// autodockElement maps an AutoDock 4 / Vina atom type to an atomic number.
// G0..G9 glue pseudo-atoms and W (waters of hydrated docking) give 0 and
// are skipped; CG0..CG9 are macrocycle carbons.
func autodockElement(t string) (int, bool) {
	u := strings.ToUpper(t)
	if len(u) == 3 && strings.HasPrefix(u, "CG") && u[2] >= '0' && u[2] <= '9' {
		return 6, true
	}
	if len(u) == 2 && u[0] == 'G' && u[1] >= '0' && u[1] <= '9' || u == "W" {
		return 0, true
	}
	switch u {
	case "H", "HD", "HS":
		return 1, true
	case "C", "A":
		return 6, true
	case "N", "NA", "NS":
		return 7, true
	case "O", "OA", "OS":
		return 8, true
	case "SA", "S":
		return 16, true
	}
	for _, e := range []struct {
		t string
		z int
	}{{"B", 5}, {"F", 9}, {"MG", 12}, {"SI", 14}, {"P", 15}, {"CL", 17}, {"K", 19}, {"CA", 20},
		{"MN", 25}, {"FE", 26}, {"CO", 27}, {"NI", 28}, {"CU", 29}, {"ZN", 30}, {"SE", 34}, {"BR", 35}, {"I", 53}} {
		if u == e.t {
			return e.z, true
		}
	}
	return 0, false
}

// parsePDBQTLigand reads the first MODEL of a ligand PDBQT.
func parsePDBQTLigand(text string) (*pdbqtLigand, error) {
	lig := &pdbqtLigand{}
	var idxPairs []int
	for n, line := range strings.Split(text, "\n") {
		lineNo := n + 1
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "REMARK SMILES IDX"):
			for _, f := range strings.Fields(line[len("REMARK SMILES IDX"):]) {
				v, err := strconv.Atoi(f)
				if err != nil || v < 1 {
					return nil, fmt.Errorf("line %d: bad REMARK SMILES IDX value %q", lineNo, f)
				}
				idxPairs = append(idxPairs, v)
			}
			lig.haveIdx = true
		case strings.HasPrefix(line, "REMARK SMILES "):
			if lig.template == "" {
				lig.template = strings.TrimSpace(line[len("REMARK SMILES "):])
			}
		case strings.HasPrefix(line, "ENDMDL"):
			if len(lig.atoms) > 0 {
				goto done
			}
		case strings.HasPrefix(line, "ATOM  ") || strings.HasPrefix(line, "HETATM"):
			at, skip, err := parsePDBQTAtom(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			if skip {
				continue
			}
			if len(lig.atoms) >= maxPDBQTAtoms {
				return nil, fmt.Errorf("more than %d atoms: not a ligand", maxPDBQTAtoms)
			}
			lig.atoms = append(lig.atoms, at)
		}
	}
done:
	if len(lig.atoms) == 0 {
		return nil, errors.New("PDBQT has no ATOM/HETATM records")
	}
	if len(idxPairs)%2 != 0 {
		return nil, errors.New("REMARK SMILES IDX has an odd number of values")
	}
	if lig.haveIdx && lig.template == "" {
		return nil, errors.New("REMARK SMILES IDX without REMARK SMILES")
	}
	bySerial := make(map[int]int, len(lig.atoms))
	for i, a := range lig.atoms {
		if _, dup := bySerial[a.serial]; dup {
			return nil, fmt.Errorf("duplicate atom serial %d", a.serial)
		}
		bySerial[a.serial] = i
	}
	for k := 0; k < len(idxPairs); k += 2 {
		i, ok := bySerial[idxPairs[k+1]]
		if !ok {
			return nil, fmt.Errorf("REMARK SMILES IDX names atom serial %d, which is not in the file", idxPairs[k+1])
		}
		lig.atoms[i].templateIdx = idxPairs[k] - 1
	}
	return lig, nil
}

// parsePDBQTAtom reads serial, coordinates (PDB columns 31-54) and the
// AutoDock type (the last field, columns 78-79).
func parsePDBQTAtom(line string) (pdbqtAtom, bool, error) {
	at := pdbqtAtom{templateIdx: -1}
	if len(line) < 54 {
		return at, false, errors.New("ATOM record shorter than 54 columns")
	}
	serial, err := strconv.Atoi(strings.TrimSpace(line[6:11]))
	if err != nil {
		return at, false, fmt.Errorf("bad atom serial %q", strings.TrimSpace(line[6:11]))
	}
	at.serial = serial
	for i, f := range []*float64{&at.x, &at.y, &at.z} {
		s := strings.TrimSpace(line[30+8*i : 38+8*i])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v != v || v > 1e6 || v < -1e6 {
			return at, false, fmt.Errorf("bad coordinate %q", s)
		}
		*f = v
	}
	fields := strings.Fields(line[54:])
	if len(fields) == 0 {
		return at, false, errors.New("ATOM record without an AutoDock atom type")
	}
	t := fields[len(fields)-1]
	z, ok := autodockElement(t)
	if !ok {
		return at, false, fmt.Errorf("unknown AutoDock atom type %q", t)
	}
	if z == 0 {
		return at, true, nil
	}
	at.atomicNum = z
	return at, false, nil
}
