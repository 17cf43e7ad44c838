package chem

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// TestPipelineFingerprints: the fingerprints Process computes with
// Input.Fingerprints (from the pipeline's own molecule where no
// standardization step changed it) equal FingerprintsOf on the canonical
// SMILES (checked against RDKit's Python by package search), bit for bit,
// on ~7,100 SMILES (the reference set and RDKit's NCI sample) and ~1,600
// molfiles (RDKit's SD files and chem's molfile set); and each stored
// pickle matches its own canonical SMILES with chirality.
func TestPipelineFingerprints(t *testing.T) {
	var ins []Input
	for _, r := range loadReference(t) {
		ins = append(ins, Input{Format: FormatSMILES, Content: r["input"]})
	}
	for _, s := range nciSMILES() {
		ins = append(ins, Input{Format: FormatSMILES, Content: s})
	}
	nSMILES := len(ins)
	for _, file := range []string{"testdata/molblocks_v2000.sdf", "testdata/molblocks_v3000.sdf",
		"/usr/share/RDKit/Data/NCI/first_200.props.sdf", "/usr/share/RDKit/Projects/DbCLI/testData/pubchem.200.sdf",
		"/usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf", "/usr/share/RDKit/Contrib/PBF/testData/egfr.sdf",
		"/usr/share/RDKit/Contrib/Fastcluster/testdata/cdk2.sdf"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Logf("skipped %s: %v", file, err)
			continue
		}
		for _, rec := range strings.Split(string(data), "$$$$") {
			rec = strings.TrimLeft(rec, "\r\n")
			if i := strings.Index(rec, "M  END"); i >= 0 {
				ins = append(ins, Input{Format: FormatMolfile, Content: rec[:i+len("M  END")] + "\n"})
			}
		}
	}
	if nSMILES < 2000 || len(ins)-nSMILES < 500 {
		t.Fatalf("%d SMILES and %d molfiles: test data missing", nSMILES, len(ins)-nSMILES)
	}
	var mu sync.Mutex
	var checked, reused, failed int
	var wg sync.WaitGroup
	next := make(chan Input)
	for g := 0; g < 2*testPool.Workers(); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range next {
				plain, err := process(t, in)
				if err != nil {
					continue
				}
				in.Fingerprints = true
				res, err := process(t, in)
				if err != nil {
					t.Errorf("%.60q: with fingerprints: %v", in.Content, err)
					continue
				}
				if res.SMILES != plain.SMILES || res.InChIKey != plain.InChIKey {
					t.Errorf("%.60q: fingerprints changed the result: %s %s, without %s %s", in.Content, res.SMILES, res.InChIKey, plain.SMILES, plain.InChIKey)
				}
				want, werr := FingerprintsOf(res.SMILES)
				got := res.Fingerprints
				mu.Lock()
				switch {
				case werr != nil && got == nil:
					failed++
				case werr != nil:
					t.Errorf("%s: FingerprintsOf fails (%v), the pipeline's did not", res.SMILES, werr)
				case got == nil:
					t.Errorf("%s: no fingerprints (%s)", res.SMILES, res.FingerprintError)
				default:
					checked++
					if !got.Reparsed {
						reused++
					}
					if got.Morgan != want.Morgan {
						t.Errorf("%s (%s, reparsed %v): Morgan fingerprint differs from FingerprintsOf", res.SMILES, in.Format, got.Reparsed)
					}
					if got.Pattern != want.Pattern {
						t.Errorf("%s (%s, reparsed %v): pattern fingerprint differs from FingerprintsOf", res.SMILES, in.Format, got.Reparsed)
					}
				}
				mu.Unlock()
				if got == nil {
					continue
				}
				q, err := ParseQuery(res.SMILES, QuerySMILES, MatchOptions{Chirality: true})
				if err != nil {
					t.Errorf("%s: as a query: %v", res.SMILES, err)
					continue
				}
				hit := make([]bool, 1)
				if err := q.Match([][]byte{got.Pickle}, false, hit); err != nil || !hit[0] {
					t.Errorf("%s: its pickle does not match itself (%v)", res.SMILES, err)
				}
			}
		}()
	}
	for _, in := range ins {
		next <- in
	}
	close(next)
	wg.Wait()
	t.Logf("%d inputs (%d molfiles): %d fingerprinted and compared (%d from the pipeline's molecule, %d parsed again), %d not readable back",
		len(ins), len(ins)-nSMILES, checked, reused, checked-reused, failed)
	if reused < checked/2 {
		t.Errorf("only %d of %d from the pipeline's molecule", reused, checked)
	}
}
