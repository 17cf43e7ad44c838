package chem

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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
