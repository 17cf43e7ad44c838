// Command benchgen writes the SD file of the batch benchmark (bench.sh):
// n distinct molecules with 2D coordinates, gzip-compressed. The first ones
// are the NCI sample shipped with RDKit (Debian rdkit-data,
// /usr/share/RDKit/Data/NCI/first_5K.smi, salts and all); the rest are
// 2,3,5-trisubstituted pyridines from 90 substituents (the three positions
// are not equivalent, so every combination is a different molecule: up to
// 729,000). Each record is named (nci-<line> or gen-<i>) and laid out in 2D
// by RDKit through package chem, so the file is what a chemist exports.
//
// Usage: go run ./jobs/batch/benchgen -n 100000 -o bench.sdf.gz
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"

	"github.com/molgraph/molgraph/chem"
)

func substituents() []string {
	var out []string
	for _, p := range []string{"", "O", "N", "S", "C(=O)", "C(F)(F)", "OC(=O)", "C#C"} {
		for k := 1; k <= 10; k++ {
			out = append(out, p+strings.Repeat("C", k))
		}
	}
	return append(out, "Cl", "Br", "F", "I", "O", "N", "C#N", "C(=O)O", "C(=O)N", "[N+](=O)[O-]")
}

type input struct{ smiles, name string }

func inputs(n int, nci string) []input {
	var out []input
	if f, err := os.Open(nci); err == nil {
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan() && len(out) < n; line++ {
			if smi, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), "\t"); smi != "" {
				out = append(out, input{smi, fmt.Sprintf("nci-%d", line)})
			}
		}
		f.Close()
	} else {
		log.Printf("no NCI sample (%v); generated molecules only", err)
	}
	rs := substituents()
	for i := 0; len(out) < n; i++ {
		a, b, c := rs[i%len(rs)], rs[(i/len(rs))%len(rs)], rs[(i/len(rs)/len(rs))%len(rs)]
		out = append(out, input{fmt.Sprintf("c1(%s)cc(%s)c(%s)nc1", a, b, c), fmt.Sprintf("gen-%d", i)})
	}
	return out
}

func main() {
	n := flag.Int("n", 100000, "number of records")
	out := flag.String("o", "bench.sdf.gz", "output file (.gz compresses)")
	nci := flag.String("nci", "/usr/share/RDKit/Data/NCI/first_5K.smi", "SMILES file taken first")
	flag.Parse()
	pool, err := chem.NewPool(0)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	ins := inputs(*n, *nci)
	recs := make([]string, len(ins))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*pool.Workers())
	for i := range ins {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			res, err := pool.Process(context.Background(), chem.Input{Format: chem.FormatSMILES, Content: ins[i].smiles, NoNormalize: true, Coordinates2D: true})
			if err != nil || res.Molfile == "" {
				// Unparseable NCI rows stay in the file as bad records: the
				// batch reports them as failed items.
				recs[i] = ins[i].name + "\n  benchgen\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n> <SMILES>\n" + ins[i].smiles + "\n\n$$$$\n"
				return
			}
			_, rest, _ := strings.Cut(res.Molfile, "\n")
			recs[i] = ins[i].name + "\n" + rest + "> <SMILES>\n" + ins[i].smiles + "\n\n$$$$\n"
		}(i)
	}
	wg.Wait()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var zw *gzip.Writer
	var dst interface{ Write([]byte) (int, error) } = w
	if strings.HasSuffix(*out, ".gz") {
		zw = gzip.NewWriter(w)
		dst = zw
	}
	for _, r := range recs {
		if _, err := dst.Write([]byte(r)); err != nil {
			log.Fatal(err)
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d records to %s", len(recs), *out)
}
