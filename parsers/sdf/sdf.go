// Package sdf reads molecule files record by record, without holding a whole
// file in memory: SD files (MDL SDfile: molfile records, V2000 or V3000,
// each ended by a "$$$$" line) and SMILES files ("SMILES name" per line),
// either optionally gzip-compressed (Decompress detects gzip by its magic
// bytes). The records are handed to package chem unchanged; this package
// does no chemistry. MolfileXYZ turns the atom block of a V2000 molfile into
// an XYZ file.
//
// Open Babel and RDKit have SD readers, but only behind C++ (RDKit's
// ForwardSDMolSupplier parses every molecule, which the batch pipeline does
// later in parallel): a record splitter is a few dozen lines of Go.
package sdf

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Errors returned by the readers, wrapped with the record number.
var (
	// ErrRecordTooLarge: one record (or SMILES line) exceeds the reader's
	// MaxRecordBytes.
	ErrRecordTooLarge = errors.New("record too large")
	// ErrSyntax: the input is not an SD file, a SMILES file or a molfile
	// (binary data, a molfile without its counts line).
	ErrSyntax = errors.New("syntax error")
)

// DefaultMaxRecordBytes bounds a record unless a reader is told otherwise
// (the same bound as chem.MaxContentBytes).
const DefaultMaxRecordBytes = 8 << 20

// Format is a file format this package reads.
type Format string

// The formats.
const (
	FormatSDF    Format = "sdf"
	FormatSMILES Format = "smiles"
)

// Record is one molecule of a file.
type Record struct {
	// Index is the 0-based position of the record in the file.
	Index int
	// Name is the title line of an SD record or the text after the SMILES
	// on a SMILES line, trimmed ("" if none).
	Name string
	// Content is the SD record without its "$$$$" line (molfile and data
	// items, lines ended by "\n"), or the SMILES alone.
	Content string
}

// RecordReader yields the records of a file in order; Next returns io.EOF
// after the last one.
type RecordReader interface {
	Next() (Record, error)
}

// Decompress returns a reader of r's bytes, gunzipped if they start with the
// gzip magic bytes (RFC 1952), and reports whether they did.
func Decompress(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("sdf: decompress: %w", err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, true, fmt.Errorf("sdf: decompress: %w: %v", ErrSyntax, err)
		}
		return zr, true, nil
	}
	return br, false, nil
}

// Detect guesses the format of a file from its first bytes (decompressed):
// an SD file has a "$$$$" line, a "M  END" line or a molfile counts line
// ("V2000"/"V3000") near its start; anything else is read as SMILES.
func Detect(head []byte) Format {
	for _, marker := range [][]byte{[]byte("V2000"), []byte("V3000"), []byte("M  END"), []byte("$$$$")} {
		if bytes.Contains(head, marker) {
			return FormatSDF
		}
	}
	return FormatSMILES
}

// lineReader reads lines of at most max bytes.
type lineReader struct {
	br   *bufio.Reader
	max  int
	line int
}

// readLine returns the next line with its "\n" (and without "\r"), or
// io.EOF. A line longer than max is ErrRecordTooLarge.
func (l *lineReader) readLine(buf []byte) ([]byte, error) {
	start := len(buf)
	for {
		frag, err := l.br.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf)-start > l.max {
			return buf, ErrRecordTooLarge
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > start {
			buf = append(buf, '\n')
			err = nil
		}
		if err != nil {
			return buf[:start], err
		}
		l.line++
		// Normalise CRLF.
		if n := len(buf); n >= 2 && buf[n-2] == '\r' {
			buf[n-2] = '\n'
			buf = buf[:n-1]
		}
		return buf, nil
	}
}

// SDReader reads the records of an SD file.
type SDReader struct {
	lr    lineReader
	index int
	buf   []byte
	err   error
}

// NewSDReader returns a reader of the SD records of r. maxRecord bounds the
// bytes of one record (<= 0: DefaultMaxRecordBytes).
func NewSDReader(r io.Reader, maxRecord int) *SDReader {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecordBytes
	}
	return &SDReader{lr: lineReader{br: bufio.NewReaderSize(r, 64<<10), max: maxRecord}}
}

// Next returns the next record. Records that hold only blank lines are
// skipped; a last record without its "$$$$" line is returned as is. After an
// error every call returns it again.
func (s *SDReader) Next() (Record, error) {
	if s.err != nil {
		return Record{}, s.err
	}
	for {
		s.buf = s.buf[:0]
		blank := true
		sawEnd := false
		for {
			n := len(s.buf)
			var err error
			s.buf, err = s.lr.readLine(s.buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				s.err = fmt.Errorf("sdf: record %d (line %d): %w", s.index+1, s.lr.line+1, err)
				return Record{}, s.err
			}
			if len(s.buf) > s.lr.max {
				s.err = fmt.Errorf("sdf: record %d: %w", s.index+1, ErrRecordTooLarge)
				return Record{}, s.err
			}
			line := s.buf[n:]
			if bytes.Equal(bytes.TrimRight(line, " \t\r\n"), []byte("$$$$")) {
				s.buf = s.buf[:n]
				sawEnd = true
				break
			}
			if bytes.IndexByte(line, 0) >= 0 {
				s.err = fmt.Errorf("sdf: record %d (line %d): %w: NUL byte", s.index+1, s.lr.line, ErrSyntax)
				return Record{}, s.err
			}
			if len(bytes.TrimSpace(line)) > 0 {
				blank = false
			}
		}
		if blank {
			if !sawEnd {
				s.err = io.EOF
				return Record{}, io.EOF
			}
			continue
		}
		content := string(s.buf)
		name, _, _ := strings.Cut(content, "\n")
		rec := Record{Index: s.index, Name: strings.TrimSpace(name), Content: content}
		s.index++
		return rec, nil
	}
}

// SMILESReader reads a SMILES file: one molecule per line, the SMILES and
// optionally whitespace and a name. Blank lines and lines starting with "#"
// are skipped.
type SMILESReader struct {
	lr    lineReader
	index int
	buf   []byte
	err   error
}

// NewSMILESReader returns a reader of the SMILES lines of r. maxLine bounds
// one line (<= 0: DefaultMaxRecordBytes).
func NewSMILESReader(r io.Reader, maxLine int) *SMILESReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxRecordBytes
	}
	return &SMILESReader{lr: lineReader{br: bufio.NewReaderSize(r, 64<<10), max: maxLine}}
}

// Next returns the next molecule. After an error every call returns it again.
func (s *SMILESReader) Next() (Record, error) {
	if s.err != nil {
		return Record{}, s.err
	}
	for {
		var err error
		s.buf, err = s.lr.readLine(s.buf[:0])
		if err == io.EOF {
			s.err = io.EOF
			return Record{}, io.EOF
		}
		if err != nil {
			s.err = fmt.Errorf("sdf: smiles line %d: %w", s.lr.line+1, err)
			return Record{}, s.err
		}
		line := strings.TrimSpace(string(s.buf))
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.IndexByte(line, 0) >= 0 {
			s.err = fmt.Errorf("sdf: smiles line %d: %w: NUL byte", s.lr.line, ErrSyntax)
			return Record{}, s.err
		}
		smi, name, _ := strings.Cut(line, " ")
		if i := strings.IndexByte(smi, '\t'); i >= 0 {
			smi, name = smi[:i], smi[i+1:]+" "+name
		}
		rec := Record{Index: s.index, Name: strings.TrimSpace(name), Content: smi}
		s.index++
		return rec, nil
	}
}

// NewReader returns the record reader of format f.
func NewReader(r io.Reader, f Format, maxRecord int) (RecordReader, error) {
	switch f {
	case FormatSDF:
		return NewSDReader(r, maxRecord), nil
	case FormatSMILES:
		return NewSMILESReader(r, maxRecord), nil
	}
	return nil, fmt.Errorf("sdf: %w: unknown format %q", ErrSyntax, f)
}
