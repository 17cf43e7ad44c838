package interact

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// FuzzReceptor: any receptor the PDBQT/PDB reader accepts is indexed
// without panicking and gives well-formed interactions with the crystal
// imatinib (every interaction names a residue and atoms; the fingerprint
// is sorted and unique).
func FuzzReceptor(f *testing.F) {
	c := corpus(f)
	rec := readFile(f, filepath.Join(c, "vina-examples/1iep/1iep_receptor.pdbqt"))
	lines := strings.SplitAfter(string(rec), "\n")
	// seeds: the residues around the hinge (Met318) and the DFG Asp381
	var hinge, dfg bytes.Buffer
	for _, l := range lines {
		if strings.HasPrefix(l, "ATOM") && len(l) > 26 {
			switch strings.TrimSpace(l[22:26]) {
			case "315", "316", "317", "318":
				hinge.WriteString(l)
			case "381", "382":
				dfg.WriteString(l)
			}
		}
	}
	f.Add(hinge.Bytes())
	f.Add(dfg.Bytes())
	f.Add([]byte("ATOM      1 ZN    ZN A 900      15.000  53.000  17.000  1.00  0.00     0.000 Zn\n"))
	f.Add([]byte("ATOM      1  NZ  LYS A   1      15.000  53.000  17.000  1.00  0.00     0.000 N\n" +
		"ATOM      2  NZ  LYS A   1      15.000  53.000  17.000  1.00  0.00     0.000 N\n"))
	_, lig := ligandOf(f, sdRecords(readFile(f, filepath.Join(c, "vina-examples/1iep/1iep_ligand.sdf")))[0])
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m, err := pdbqt.ParseMolecule(bytes.NewReader(data))
		if err != nil {
			return
		}
		r, err := NewReceptor(m.Atoms)
		if err != nil {
			return
		}
		res := Find(r, lig)
		for _, it := range res.Interactions {
			if len(it.LigandAtoms) == 0 || len(it.ReceptorAtoms) == 0 || it.Distance < MinDist {
				t.Fatalf("malformed %+v", it)
			}
		}
		for i := 1; i < len(res.Fingerprint); i++ {
			if res.Fingerprint[i] == res.Fingerprint[i-1] {
				t.Fatalf("duplicate fingerprint entry %s", res.Fingerprint[i])
			}
		}
	})
}
