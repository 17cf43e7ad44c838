package pdbqt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Write writes models in the layout Vina 1.2.3 uses for --out files. A single
// model with Number 0 is written without MODEL/ENDMDL records (a plain
// ligand or receptor file).
func Write(w io.Writer, models []*Model) error {
	bw := bufio.NewWriter(w)
	for _, md := range models {
		wrap := !(len(models) == 1 && md.Number == 0)
		if wrap {
			fmt.Fprintf(bw, "MODEL %d\n", md.Number)
		}
		for _, r := range md.Remarks {
			writeRemark(bw, r)
		}
		for _, m := range md.Molecules {
			if err := writeMolecule(bw, m); err != nil {
				return err
			}
		}
		if wrap {
			bw.WriteString("ENDMDL\n")
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pdbqt: write: %w", err)
	}
	return nil
}

// WriteMolecule writes one molecule as a plain PDBQT file.
func WriteMolecule(w io.Writer, m *Molecule) error {
	return Write(w, []*Model{{Molecules: []*Molecule{m}}})
}

func writeRemark(bw *bufio.Writer, text string) {
	bw.WriteString("REMARK ")
	bw.WriteString(text)
	bw.WriteByte('\n')
}

func writeMolecule(bw *bufio.Writer, m *Molecule) error {
	if m.Residue != "" {
		fmt.Fprintf(bw, "BEGIN_RES %s\n", m.Residue)
	}
	for _, r := range m.Remarks {
		writeRemark(bw, r)
	}
	if m.Root == nil {
		for i := range m.Atoms {
			if err := writeAtom(bw, &m.Atoms[i]); err != nil {
				return err
			}
		}
	} else {
		seen := make([]bool, len(m.Atoms))
		bw.WriteString("ROOT\n")
		if err := writeBody(bw, m, m.Root, seen); err != nil {
			return err
		}
		bw.WriteString("ENDROOT\n")
		for _, it := range m.Root.Items {
			if it.Branch != nil {
				if err := writeBranch(bw, m, it.Branch, seen); err != nil {
					return err
				}
			}
		}
		for i, s := range seen {
			if !s {
				return fmt.Errorf("pdbqt: write: %w: atom %d is not in the torsion tree", ErrTree, m.Atoms[i].Serial)
			}
		}
	}
	if m.TorsDOF >= 0 {
		fmt.Fprintf(bw, "TORSDOF %d\n", m.TorsDOF)
	}
	if m.Residue != "" {
		fmt.Fprintf(bw, "END_RES %s\n", m.Residue)
	}
	return nil
}

// writeBody writes the root's own atoms (its branches follow ENDROOT).
func writeBody(bw *bufio.Writer, m *Molecule, b *Body, seen []bool) error {
	for _, it := range b.Items {
		if it.Branch != nil {
			continue
		}
		if err := writeItemAtom(bw, m, it.Atom, seen); err != nil {
			return err
		}
	}
	return nil
}

func writeItemAtom(bw *bufio.Writer, m *Molecule, i int, seen []bool) error {
	if i < 0 || i >= len(m.Atoms) || seen[i] {
		return fmt.Errorf("pdbqt: write: %w: bad or repeated atom index %d", ErrTree, i)
	}
	seen[i] = true
	return writeAtom(bw, &m.Atoms[i])
}

func writeBranch(bw *bufio.Writer, m *Molecule, br *Branch, seen []bool) error {
	fmt.Fprintf(bw, "BRANCH %3d %3d\n", br.From, br.To)
	for _, it := range br.Items {
		var err error
		if it.Branch != nil {
			err = writeBranch(bw, m, it.Branch, seen)
		} else {
			err = writeItemAtom(bw, m, it.Atom, seen)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(bw, "ENDBRANCH %3d %3d\n", br.From, br.To)
	return nil
}

// writeAtom writes the fixed-column record Meeko and Vina write:
// %-6s%5d %-4s%1s%-3s %1s%4d%1s   %8.3f%8.3f%8.3f%6.2f%6.2f    %6.3f %-2s
// Atom names shorter than 4 characters start in column 14 (PDB convention).
// A number too wide for its columns is written with fewer decimals; one
// that does not fit at all is an error.
func writeAtom(bw *bufio.Writer, a *Atom) error {
	rec := "ATOM"
	if a.Hetero {
		rec = "HETATM"
	}
	name := a.Name
	if len(name) < 4 {
		name = " " + name
	}
	var cols [6]string
	for i, f := range []struct {
		v           float64
		width, prec int
	}{{a.X, 8, 3}, {a.Y, 8, 3}, {a.Z, 8, 3}, {a.Occupancy, 6, 2}, {a.BFactor, 6, 2}, {a.Charge, 6, 3}} {
		s, ok := fixed(f.v, f.width, f.prec)
		if !ok {
			return fmt.Errorf("pdbqt: write: %w: atom %d: %v does not fit in %d columns", ErrSyntax, a.Serial, f.v, f.width)
		}
		cols[i] = s
	}
	if a.Serial < -9999 || a.Serial > 99999 || a.ResSeq < -999 || a.ResSeq > 9999 {
		return fmt.Errorf("pdbqt: write: %w: atom %d: serial or residue number out of range", ErrSyntax, a.Serial)
	}
	fmt.Fprintf(bw, "%-6s%5d %-4s%1s%-3s %1s%4d%1s   %8s%8s%8s%6s%6s    %6s %-2s\n",
		rec, a.Serial, name, a.AltLoc, a.ResName, a.Chain, a.ResSeq, a.ICode,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], a.Type)
	if a.TER {
		bw.WriteString("TER\n")
	}
	return nil
}

// fixed formats like C's %.Nf (so -0.0004 prints as "-0.000", as Vina
// does), dropping decimals until the text fits width.
func fixed(v float64, width, prec int) (string, bool) {
	for p := prec; p >= 0; p-- {
		if s := strconv.FormatFloat(v, 'f', p, 64); len(s) <= width {
			return s, true
		}
	}
	return "", false
}

// MeekoRemarks returns the REMARK texts (without "REMARK ") Meeko writes
// before ROOT: SMILES, then SMILES IDX and H PARENT pairs, each wrapped
// the way Meeko wraps them (a pair is appended while the full line,
// "REMARK " included, stays shorter than 79 characters). Put them in Molecule.Remarks.
func MeekoRemarks(smiles string, idx, hparent []IndexPair) []string {
	out := []string{"SMILES " + smiles}
	wrap := func(prefix string, pairs []IndexPair) {
		if len(pairs) == 0 {
			return
		}
		line := "REMARK " + prefix
		n := 0
		for _, p := range pairs {
			pair := fmt.Sprintf(" %d %d", p.SMILES, p.Serial)
			if n > 0 && len(line)+len(pair) >= 79 {
				out = append(out, strings.TrimPrefix(line, "REMARK "))
				line, n = "REMARK "+prefix, 0
			}
			line += pair
			n++
		}
		out = append(out, strings.TrimPrefix(line, "REMARK "))
	}
	wrap("SMILES IDX", idx)
	wrap("H PARENT", hparent)
	return out
}
