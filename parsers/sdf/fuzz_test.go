package sdf

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

func seedFiles(f *testing.F) {
	for _, p := range []string{"../../chem/testdata/molblocks_v2000.sdf", "../../chem/testdata/molblocks_v3000.sdf"} {
		if data, err := os.ReadFile(p); err == nil {
			if len(data) > 8192 {
				data = data[:8192]
			}
			f.Add(data)
		}
	}
	f.Add([]byte("CCO ethanol\nc1ccccc1\tbenzene\n# x\n"))
	f.Add([]byte("a\n\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n$$$$\n$$$$\r\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
}

// FuzzSDReader checks that the SD and SMILES readers never panic, always
// terminate, number records consecutively and never exceed the record limit.
func FuzzSDReader(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 4096
		for _, format := range []Format{FormatSDF, FormatSMILES} {
			r, _, err := Decompress(bytes.NewReader(data))
			if err != nil {
				continue
			}
			rr, _ := NewReader(io.LimitReader(r, 1<<20), format, max)
			for i := 0; ; i++ {
				rec, err := rr.Next()
				if err != nil {
					if _, err2 := rr.Next(); err2 != err {
						t.Fatalf("error not sticky: %v then %v", err, err2)
					}
					break
				}
				if rec.Index != i || len(rec.Content) > max+1 {
					t.Fatalf("record %d: index %d, %d bytes", i, rec.Index, len(rec.Content))
				}
				if format == FormatSDF && strings.Contains(rec.Content, "\n$$$$\n") {
					t.Fatalf("record holds a terminator: %q", rec.Content)
				}
			}
		}
	})
}

// FuzzMolfileXYZ checks that MolfileXYZ never panics and writes one line per
// atom it reports.
func FuzzMolfileXYZ(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := MolfileXYZ(string(data), "c")
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) < 2 {
			t.Fatalf("output %q", out)
		}
	})
}
