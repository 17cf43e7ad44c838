package docking

import "errors"

// Sentinel errors; functions wrap them with the operation (test with errors.Is).
var (
	// ErrInvalidParams: docking parameters outside their bounds.
	ErrInvalidParams = errors.New("invalid docking parameters")
	// ErrInvalidBox: a search box with non-finite or out-of-range values.
	ErrInvalidBox = errors.New("invalid search box")
	// ErrEngine: an external program (vina, obabel) is missing or unusable.
	ErrEngine = errors.New("docking engine unavailable")
	// ErrVinaFailed: vina ran and exited with an error for this ligand
	// (the message carries vina's own error text).
	ErrVinaFailed = errors.New("vina failed")
	// ErrTimeout: a ligand or a conversion exceeded its time limit.
	ErrTimeout = errors.New("time limit exceeded")
	// ErrInvalidReceptor: an uploaded receptor that cannot be used (no
	// protein atoms, unknown AutoDock types, unreadable PDB/PDBQT).
	ErrInvalidReceptor = errors.New("invalid receptor")
	// ErrInvalidLigand: a ligand PDBQT that is not a single torsion tree.
	ErrInvalidLigand = errors.New("invalid ligand")
	// ErrMapping: a docked model cannot be mapped back to the SMILES atoms.
	ErrMapping = errors.New("pose mapping failed")
	// ErrRMSD: two poses are not the same molecule graph (different heavy
	// atoms or bonds), so no atom correspondence exists.
	ErrRMSD = errors.New("poses are not the same molecule")
)
