package interact

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
)

// BenchmarkInteractions1iep measures the three costs of interactions in a
// docking job on 1iep (Meeko's receptor PDBQT, 4,000+ atoms, the one the
// service docks into): indexing the receptor (once per job, or once per
// ligand on a queue worker), perceiving the ligand (once per ligand) and
// finding the interactions of one pose (per mode), over the 5 poses of
// the corpus Vina run placed through PosePositions as the job does.
func BenchmarkInteractions1iep(b *testing.B) {
	c := corpus(b)
	recData := readFile(b, filepath.Join(c, "vina-examples/1iep/1iep_receptor.pdbqt"))
	m, err := docking.CheckReceptorPDBQT(recData)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := ligandOf(b, sdRecords(readFile(b, filepath.Join(c, "vina-examples/1iep/1iep_ligand.sdf")))[0])
	out, err := os.ReadFile(filepath.Join(c, "derived/1iep_vina123_exh8_seed42_out.pdbqt"))
	if err != nil {
		b.Fatal(err)
	}
	modes, err := docking.ParseModes(out)
	if err != nil {
		b.Fatal(err)
	}
	pm, err := docking.NewPoseMap(modes[0].Model.Ligands()[0])
	if err != nil {
		b.Fatal(err)
	}
	poses, err := pm.Poses(modes)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("receptor", func(b *testing.B) {
		for range b.N {
			if _, err := NewReceptor(m.Atoms); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ligand-features", func(b *testing.B) {
		for range b.N {
			if _, err := chem.Features(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	rec, err := NewReceptor(m.Atoms)
	if err != nil {
		b.Fatal(err)
	}
	f, err := chem.Features(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pose", func(b *testing.B) {
		n := 0
		for i := range b.N {
			p := poses[i%len(poses)]
			pos, placed, err := PosePositions(s, p)
			if err != nil {
				b.Fatal(err)
			}
			l, err := NewLigand(s, f, pos, placed)
			if err != nil {
				b.Fatal(err)
			}
			n += len(Find(rec, l).Interactions)
		}
		if n == 0 {
			b.Fatal("no interactions")
		}
	})
}
