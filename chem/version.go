package chem

/*
const char *mg_rdkit_version(void);
*/
import "C"

// RDKitVersion is the version of the RDKit library the process runs (for
// example "2022.09.4"). Canonical SMILES, and so molecule ids, depend on
// it, which is why the scale-out engine fingerprints carry it.
// (libinchi 1.03 has no runtime version call; the InChI library is the
// one Debian's libinchi1 package pins.)
func RDKitVersion() string { return C.GoString(C.mg_rdkit_version()) }
