package handlers

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

// linkMolecule finds the molecule a calculation is about and registers it
// if it is new: bonds and bond orders are perceived from the final
// geometry, the structure goes through the molecule pipeline (normalized,
// canonical SMILES, InChIKey) and its id is recorded as MoleculeID, which
// the mapping writes as occ:hasUniqueSpecies.
//
// Bond perception uses Open Babel's CLI: Debian's RDKit 2022.09 has no
// DetermineBonds, and writing our own bond-order assignment is not worth it
// while Open Babel's is well tested. Its xyz reader assumes a neutral
// closed-shell molecule, so charged and open-shell calculations are not
// linked (a link to the wrong species would be worse than none). A failure
// to link is reported as a warning and never fails the upload.
func (s *Server) linkMolecule(ctx context.Context, rec *ontology.CalculationRecord) (warning string) {
	reg := s.cfg.Molecules.Registry
	switch {
	case reg == nil:
		return "" // molecule registration is not configured
	case len(rec.Geometry) == 0:
		return "no geometry: not linked to a molecule"
	case rec.Charge != nil && *rec.Charge != 0, rec.Multiplicity != nil && *rec.Multiplicity != 1:
		return "charged or open-shell calculation: not linked to a molecule (bond orders cannot be perceived reliably)"
	}
	smiles, err := perceiveSMILES(ctx, rec.Geometry)
	if err != nil {
		return "not linked to a molecule: " + err.Error()
	}
	mol, _, err := reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smiles})
	if err != nil {
		return "not linked to a molecule: " + err.Error()
	}
	rec.MoleculeID = mol.ID
	return ""
}

// perceiveSMILES runs `obabel -ixyz -osmi` on the geometry (an argument
// list, no shell; 30 s at most; killed with the server, see package
// subproc). Its output is one SMILES: 64 KiB of it are kept.
func perceiveSMILES(ctx context.Context, atoms []ontology.CalculationAtom) (string, error) {
	var xyz bytes.Buffer
	fmt.Fprintf(&xyz, "%d\nmolgraph\n", len(atoms))
	for _, a := range atoms {
		fmt.Fprintf(&xyz, "%s %s %s %s\n", a.Element,
			strconv.FormatFloat(a.X, 'f', 6, 64), strconv.FormatFloat(a.Y, 'f', 6, 64), strconv.FormatFloat(a.Z, 'f', 6, 64))
	}
	out, err := subproc.Run(ctx, subproc.Cmd{Path: "obabel", Args: []string{"-ixyz", "-osmi"}, Stdin: &xyz,
		Timeout: 30 * time.Second, MaxStdout: 64 << 10, MaxStderr: 16 << 10})
	if err != nil {
		return "", fmt.Errorf("open babel: %v: %s", err, strings.TrimSpace(string(out.Stderr)))
	}
	if out.StdoutTruncated {
		return "", fmt.Errorf("open babel: more than 64 KiB of output")
	}
	fields := strings.Fields(string(out.Stdout))
	if len(fields) == 0 {
		return "", fmt.Errorf("open babel perceived no structure")
	}
	smiles := fields[0]
	if strings.Contains(smiles, ".") {
		return "", fmt.Errorf("the final geometry has several fragments (%s)", smiles)
	}
	return smiles, nil
}
