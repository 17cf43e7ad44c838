package chem

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPipeline measures the full pipeline (parse -> normalize -> SMILES
// -> InChI/key -> properties -> QED, no coordinates) on the rdkit-data
// molecules of the reference set, through a pool of 1 and of 2 workers. It
// reports molecules/s and the CPU microseconds per molecule of each stage.
// Compare with testdata/bench_python.py --reference (the same steps in
// Python RDKit).
func BenchmarkPipeline(b *testing.B) {
	var inputs []string
	for _, r := range loadReference(b) {
		if r["source"] == "rdkit-data" {
			inputs = append(inputs, r["input"])
		}
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p, err := NewPool(workers)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var next atomic.Int64
			var mu sync.Mutex
			var sum Timing
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for g := 0; g < 2*workers; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var local Timing
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							break
						}
						r, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: inputs[int(i)%len(inputs)]})
						if err != nil {
							continue
						}
						t := r.Timing
						local.Parse += t.Parse
						local.Normalize += t.Normalize
						local.SMILES += t.SMILES
						local.InChI += t.InChI
						local.Properties += t.Properties
						local.QED += t.QED
					}
					mu.Lock()
					sum.Parse += local.Parse
					sum.Normalize += local.Normalize
					sum.SMILES += local.SMILES
					sum.InChI += local.InChI
					sum.Properties += local.Properties
					sum.QED += local.QED
					mu.Unlock()
				}()
			}
			wg.Wait()
			el := time.Since(start)
			n := float64(b.N)
			b.ReportMetric(n/el.Seconds(), "mol/s")
			us := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
			b.ReportMetric(us(sum.Parse), "parse-µs/mol")
			b.ReportMetric(us(sum.Normalize), "normalize-µs/mol")
			b.ReportMetric(us(sum.SMILES), "smiles-µs/mol")
			b.ReportMetric(us(sum.InChI), "inchi-µs/mol")
			b.ReportMetric(us(sum.Properties), "props-µs/mol")
			b.ReportMetric(us(sum.QED), "qed-µs/mol")
		})
	}
}

// Benchmark3D measures ETKDGv3 + MMFF94 for a drug-sized molecule.
func Benchmark3D(b *testing.B) {
	in := Input{Format: FormatSMILES, Content: "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", Generate3D: true}
	for i := 0; i < b.N; i++ {
		if _, err := testPool.Process(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistrationFingerprints measures what structure-search
// fingerprints add to registration, per molecule, in CPU microseconds of
// the whole process (getrusage: meaningful under other load, unlike wall
// time): the pipeline alone ("none"), the pipeline computing them in the
// same call (Input.Fingerprints, "incall"), and the pipeline followed by
// FingerprintsOf on the canonical SMILES ("reparse", what registration did
// before). The three run in turn on each molecule (RDKit's NCI SMILES
// alternating with the molfiles of RDKit's SD files), one worker, one
// caller; reused-fraction is the share fingerprinted without a second parse.
func BenchmarkRegistrationFingerprints(b *testing.B) {
	var smiles, ins []Input
	for _, s := range nciSMILES() {
		smiles = append(smiles, Input{Format: FormatSMILES, Content: s})
	}
	for _, file := range []string{"/usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf", "/usr/share/RDKit/Contrib/PBF/testData/egfr.sdf",
		"/usr/share/RDKit/Contrib/Fastcluster/testdata/cdk2.sdf", "/usr/share/RDKit/Projects/DbCLI/testData/pubchem.200.sdf"} {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, rec := range strings.Split(string(data), "$$$$") {
			rec = strings.TrimLeft(rec, "\r\n")
			if i := strings.Index(rec, "M  END"); i >= 0 {
				ins = append(ins, Input{Format: FormatMolfile, Content: rec[:i+len("M  END")] + "\n"})
			}
		}
	}
	if len(ins) == 0 || len(smiles) == 0 {
		b.Skip("no rdkit-data")
	}
	// SMILES and molfiles alternate, so that any b.N measures both.
	mol := ins
	ins = nil
	for i := range smiles {
		ins = append(ins, smiles[i])
		if i < len(mol) {
			ins = append(ins, mol[i])
		}
	}
	p, err := NewPool(1)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	ctx := context.Background()
	var none, incall, reparse time.Duration
	reused := map[Format]int{}
	count := map[Format]int{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := ins[i%len(ins)]
		t0 := cpu()
		if _, err := p.Process(ctx, in); err != nil {
			continue
		}
		t1 := cpu()
		in.Fingerprints = true
		r, err := p.Process(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		t2 := cpu()
		in.Fingerprints = false
		r2, err := p.Process(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = FingerprintsOf(r2.SMILES)
		t3 := cpu()
		none += t1 - t0
		incall += t2 - t1
		reparse += t3 - t2
		count[in.Format]++
		if r.Fingerprints != nil && !r.Fingerprints.Reparsed {
			reused[in.Format]++
		}
	}
	n := float64(b.N)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
	b.ReportMetric(us(none), "none-cpu-µs/mol")
	b.ReportMetric(us(incall), "incall-cpu-µs/mol")
	b.ReportMetric(us(reparse), "reparse-cpu-µs/mol")
	for _, f := range []Format{FormatSMILES, FormatMolfile} {
		if count[f] > 0 {
			b.ReportMetric(float64(reused[f])/float64(count[f]), "reused-fraction-"+string(f))
		}
	}
}
