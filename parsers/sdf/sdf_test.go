package sdf

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// readAll reads every record of rr.
func readAll(t testing.TB, rr RecordReader) ([]Record, error) {
	t.Helper()
	var out []Record
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func TestSDReader(t *testing.T) {
	mol := func(name string) string {
		return name + "\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n"
	}
	tests := []struct {
		name  string
		in    string
		names []string
	}{
		{"empty", "", nil},
		{"blank only", "\n\n  \n", nil},
		{"one terminated", mol("a") + "$$$$\n", []string{"a"}},
		{"one unterminated", mol("a"), []string{"a"}},
		{"two", mol("a") + "$$$$\n" + mol("b") + "$$$$\n", []string{"a", "b"}},
		{"crlf", strings.ReplaceAll(mol("a")+"$$$$\n"+mol("b")+"$$$$\n", "\n", "\r\n"), []string{"a", "b"}},
		{"blank record skipped", mol("a") + "$$$$\n\n$$$$\n" + mol("c") + "$$$$\n", []string{"a", "c"}},
		{"data items", mol("a") + "> <ID>\nx1\n\n$$$$ \n", []string{"a"}},
		{"no final newline", mol("a") + "$$$$\n" + strings.TrimSuffix(mol("b"), "\n"), []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := readAll(t, NewSDReader(strings.NewReader(tt.in), 0))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(tt.names) {
				t.Fatalf("got %d records, want %d", len(recs), len(tt.names))
			}
			for i, r := range recs {
				if r.Index != i || r.Name != tt.names[i] {
					t.Errorf("record %d: index %d name %q, want %q", i, r.Index, r.Name, tt.names[i])
				}
				if !strings.Contains(r.Content, "M  END\n") || strings.Contains(r.Content, "$$$$") || strings.Contains(r.Content, "\r") {
					t.Errorf("record %d content %q", i, r.Content)
				}
			}
		})
	}
}

func TestSDReaderLimits(t *testing.T) {
	big := strings.Repeat("x", 100) + "\n"
	_, err := readAll(t, NewSDReader(strings.NewReader(strings.Repeat(big, 20)+"$$$$\n"), 1000))
	if !errors.Is(err, ErrRecordTooLarge) {
		t.Errorf("oversized record: %v", err)
	}
	_, err = readAll(t, NewSDReader(strings.NewReader(strings.Repeat("y", 5000)), 1000))
	if !errors.Is(err, ErrRecordTooLarge) {
		t.Errorf("oversized line: %v", err)
	}
	_, err = readAll(t, NewSDReader(strings.NewReader("a\x00b\n$$$$\n"), 0))
	if !errors.Is(err, ErrSyntax) {
		t.Errorf("NUL byte: %v", err)
	}
}

func TestSMILESReader(t *testing.T) {
	in := "# comment\nCCO ethanol\n\nc1ccccc1\tbenzene ring\n  C(=O)O  formic acid  \r\nN\n"
	recs, err := readAll(t, NewSMILESReader(strings.NewReader(in), 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{{0, "ethanol", "CCO"}, {1, "benzene ring", "c1ccccc1"}, {2, "formic acid", "C(=O)O"}, {3, "", "N"}}
	if len(recs) != len(want) {
		t.Fatalf("got %+v", recs)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, recs[i], want[i])
		}
	}
}

// TestReferenceFiles counts the records of files shipped with RDKit
// (Debian rdkit-data) and with chem's test data against the number of
// "$$$$" lines / non-blank lines that grep counts.
func TestReferenceFiles(t *testing.T) {
	tests := []struct {
		path   string
		format Format
		want   int
		first  string
	}{
		{"../../chem/testdata/molblocks_v2000.sdf", FormatSDF, 22, "aspirin"},
		{"../../chem/testdata/molblocks_v3000.sdf", FormatSDF, 22, "aspirin"},
		{"/usr/share/RDKit/Data/NCI/first_200.props.sdf", FormatSDF, 200, ""},
		{"/usr/share/RDKit/Data/NCI/first_5K.smi", FormatSMILES, 4999, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			data, err := os.ReadFile(tt.path)
			if err != nil {
				t.Skipf("reference file missing (apt rdkit-data): %v", err)
			}
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(data)
			zw.Close()
			for _, in := range [][]byte{data, gz.Bytes()} {
				r, _, err := Decompress(bytes.NewReader(in))
				if err != nil {
					t.Fatal(err)
				}
				head := data
				if len(head) > 4096 {
					head = head[:4096]
				}
				if f := Detect(head); f != tt.format {
					t.Errorf("Detect = %s, want %s", f, tt.format)
				}
				rr, _ := NewReader(r, tt.format, 0)
				recs, err := readAll(t, rr)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != tt.want {
					t.Fatalf("%d records, want %d", len(recs), tt.want)
				}
				if tt.first != "" && recs[0].Name != tt.first {
					t.Errorf("first name %q, want %q", recs[0].Name, tt.first)
				}
			}
		})
	}
}

func TestDecompressBadGzip(t *testing.T) {
	r, gz, err := Decompress(bytes.NewReader([]byte{0x1f, 0x8b, 0, 1, 2}))
	if err == nil {
		_, err = io.ReadAll(r)
	}
	if !gz || err == nil {
		t.Errorf("truncated gzip: gz=%v err=%v", gz, err)
	}
}

func TestMolfileXYZ(t *testing.T) {
	mol := "water\n     RDKit          3D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n" +
		"    0.0000    0.0000    0.1173 O   0  0\n    0.0000    0.7572   -0.4692 H   0  0\n    0.0000   -0.7572   -0.4692 H   0  0\n" +
		"  1  2  1  0\n  1  3  1  0\nM  END\n"
	got, err := MolfileXYZ(mol, "mol-x")
	if err != nil {
		t.Fatal(err)
	}
	want := "3\nmol-x\nO      0.000000     0.000000     0.117300\nH      0.000000     0.757200    -0.469200\nH      0.000000    -0.757200    -0.469200\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{"", "a\nb\nc\n  1  0  0  0  0  0  0  0  0  0999 V3000\n", "a\nb\nc\n  2  0  0  0  0  0  0  0  0  0999 V2000\n    0.0 0.0 0.0 C\n", "a\nb\nc\n  1  0  0  0  0  0  0  0  0  0999 V2000\n  x y z C\n"} {
		if _, err := MolfileXYZ(bad, ""); !errors.Is(err, ErrSyntax) {
			t.Errorf("MolfileXYZ(%q) err = %v", bad, err)
		}
	}
}

// Hostile inputs at the default bound: an over-long SMILES line and an SD
// record of many short lines end in ErrRecordTooLarge; a flood of empty
// records yields none, without holding them.
func TestReaderBoundsDefault(t *testing.T) {
	long := strings.Repeat("C", DefaultMaxRecordBytes+1)
	if _, err := readAll(t, NewSMILESReader(strings.NewReader("CCO\n"+long+"\n"), 0)); !errors.Is(err, ErrRecordTooLarge) {
		t.Errorf("over-long SMILES line: %v", err)
	}
	// The bound counts the line's "\n".
	if recs, err := readAll(t, NewSMILESReader(strings.NewReader(long[2:]+"\n"), 0)); err != nil || len(recs) != 1 {
		t.Errorf("SMILES line of DefaultMaxRecordBytes with its newline: %v", err)
	}
	lines := strings.Repeat("x\n", DefaultMaxRecordBytes/2+1) + "$$$$\n"
	if _, err := readAll(t, NewSDReader(strings.NewReader(lines), 0)); !errors.Is(err, ErrRecordTooLarge) {
		t.Errorf("record of many lines: %v", err)
	}
	empty := strings.Repeat("$$$$\n\n", 1<<20)
	if recs, err := readAll(t, NewSDReader(strings.NewReader(empty), 0)); err != nil || len(recs) != 0 {
		t.Errorf("empty records: %d, %v", len(recs), err)
	}
}
