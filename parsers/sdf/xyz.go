package sdf

import (
	"fmt"
	"strconv"
	"strings"
)

// MolfileXYZ converts the atom block of a V2000 molfile to an XYZ file
// (atom count, comment line, "symbol x y z" per atom, coordinates in the
// molfile's units, Å). comment replaces the title; newlines in it become
// spaces. Errors wrap ErrSyntax.
func MolfileXYZ(molfile, comment string) (string, error) {
	lines := strings.Split(molfile, "\n")
	if len(lines) < 4 {
		return "", fmt.Errorf("sdf: molfile to xyz: %w: no counts line", ErrSyntax)
	}
	counts := strings.TrimRight(lines[3], "\r")
	if !strings.Contains(counts, "V2000") || len(counts) < 6 {
		return "", fmt.Errorf("sdf: molfile to xyz: %w: not a V2000 counts line: %q", ErrSyntax, counts)
	}
	n, err := strconv.Atoi(strings.TrimSpace(counts[:3]))
	if err != nil || n < 0 || n > 999 || len(lines) < 4+n {
		return "", fmt.Errorf("sdf: molfile to xyz: %w: bad atom count in %q", ErrSyntax, counts)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n%s\n", n, strings.NewReplacer("\n", " ", "\r", " ").Replace(comment))
	for i := 0; i < n; i++ {
		f := strings.Fields(lines[4+i])
		if len(f) < 4 {
			return "", fmt.Errorf("sdf: molfile to xyz: %w: atom line %d: %q", ErrSyntax, i+1, lines[4+i])
		}
		var xyz [3]float64
		for k := range 3 {
			if xyz[k], err = strconv.ParseFloat(f[k], 64); err != nil {
				return "", fmt.Errorf("sdf: molfile to xyz: %w: atom line %d: coordinate %q", ErrSyntax, i+1, f[k])
			}
		}
		fmt.Fprintf(&b, "%-2s %12.6f %12.6f %12.6f\n", f[3], xyz[0], xyz[1], xyz[2])
	}
	return b.String(), nil
}
