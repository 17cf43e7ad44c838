package qm

import (
	"bytes"
	"fmt"
	"strings"
)

// DetectSize is how many leading bytes Detect needs to recognise every
// supported program (banners are within the first few kilobytes).
const DetectSize = 64 << 10

// markers are content signatures of each program's banner; the earliest
// match in the head decides. Never modified.
var markers = [...]struct {
	p Program
	s string
}{
	{Gaussian, "Entering Gaussian System"},
	{Gaussian, "Gaussian, Inc."},
	{Gaussian, "This is part of the Gaussian(R)"},
	{ORCA, "* O   R   C   A *"},
	{ORCA, "O   R   C   A"},
	{Psi4, "Psi4: An Open-Source Ab Initio Electronic Structure Package"},
	{Psi4, "PSI4: An Open-Source Ab Initio Electronic Structure Package"},
	{NWChem, "Northwest Computational Chemistry Package"},
	{XTB, "x T B"},
	{XTB, "xtb version"},
}

// Detect names the program that wrote a log from its first bytes (give it
// at least DetectSize bytes, or the whole file if shorter). It recognises
// Gaussian, ORCA, Psi4, NWChem and xtb by their banners, never by file name.
// Errors: ErrEmptyLog (no content), ErrBinaryInput (not text),
// ErrUnsupportedLog (text of no known program).
func Detect(head []byte) (Program, error) {
	if len(bytes.TrimSpace(head)) == 0 {
		return "", fmt.Errorf("qm: detect: %w", ErrEmptyLog)
	}
	if IsBinary(head) {
		return "", fmt.Errorf("qm: detect: %w", ErrBinaryInput)
	}
	best, at := Program(""), -1
	for _, m := range markers {
		if i := bytes.Index(head, []byte(m.s)); i >= 0 && (at < 0 || i < at) {
			best, at = m.p, i
		}
	}
	if at < 0 {
		return "", fmt.Errorf("qm: detect: no known program banner: %w", ErrUnsupportedLog)
	}
	return best, nil
}

// IsBinary reports whether b looks like binary data rather than a text log:
// it contains a NUL byte or more than 5 % control characters.
func IsBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' || c == 0x7f {
			ctl++
		}
	}
	return ctl*20 > len(b)
}

// ProgramByName maps a caller-supplied program name (case-insensitive:
// "gaussian", "orca", "psi4", "nwchem", "xtb") to a Program.
func ProgramByName(name string) (Program, error) {
	for _, p := range [...]Program{Gaussian, ORCA, Psi4, NWChem, XTB} {
		if strings.EqualFold(string(p), strings.TrimSpace(name)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("qm: program %q: %w", name, ErrUnknownProgram)
}
