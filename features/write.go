package features

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Format is a table format of the collection export.
type Format int

// Table formats.
const (
	// CSV: a header row "id,<names…>", one row per calculation, missing
	// values as empty cells (pandas.read_csv reads them as NaN).
	CSV Format = iota + 1
	// JSONLines: one JSON object per line, {"id": …, "<name>": value|null, …}
	// (pandas.read_json(lines=True)).
	JSONLines
)

// ParseFormat maps "csv" and "jsonl" (aliases "ndjson", "jsonlines") to a
// Format; other names give ErrUnknownFormat.
func ParseFormat(name string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "csv":
		return CSV, nil
	case "jsonl", "ndjson", "jsonlines":
		return JSONLines, nil
	}
	return 0, fmt.Errorf("features: format %q (csv, jsonl): %w", name, ErrUnknownFormat)
}

// String returns the format's canonical name ("csv", "jsonl").
func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case JSONLines:
		return "jsonl"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// MediaType returns the format's media type.
func (f Format) MediaType() string {
	switch f {
	case CSV:
		return "text/csv; charset=utf-8"
	case JSONLines:
		return "application/x-ndjson"
	}
	return "application/octet-stream"
}

// Writer streams a feature table, one row per calculation. It is not safe
// for concurrent use.
type Writer struct {
	f      Format
	bw     *bufio.Writer
	cw     *csv.Writer
	names  []string
	header bool
	closed bool
	rec    []string
	buf    []byte
}

// NewWriter returns a Writer of format f on w.
func NewWriter(w io.Writer, f Format) (*Writer, error) {
	if f != CSV && f != JSONLines {
		return nil, fmt.Errorf("features: new writer: %v: %w", f, ErrUnknownFormat)
	}
	tw := &Writer{f: f, bw: bufio.NewWriterSize(w, 64<<10), names: Names()}
	if f == CSV {
		tw.cw = csv.NewWriter(tw.bw)
	}
	return tw, nil
}

func (w *Writer) writeHeader() error {
	w.header = true
	if w.f != CSV {
		return nil
	}
	return w.cw.Write(append([]string{"id"}, w.names...))
}

// Write appends the row of calculation id.
func (w *Writer) Write(id string, v Vector) error {
	if w.closed {
		return fmt.Errorf("features: write: %w", ErrClosed)
	}
	if len(v) != len(w.names) {
		return fmt.Errorf("features: write %s: %d values: %w", id, len(v), ErrVectorLength)
	}
	if !w.header {
		if err := w.writeHeader(); err != nil {
			return fmt.Errorf("features: write header: %w", err)
		}
	}
	if w.f == CSV {
		w.rec = append(w.rec[:0], id)
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				w.rec = append(w.rec, "")
			} else {
				w.rec = append(w.rec, strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
		if err := w.cw.Write(w.rec); err != nil {
			return fmt.Errorf("features: write %s: %w", id, err)
		}
		return nil
	}
	idJSON, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("features: write %s: %w", id, err)
	}
	b := append(w.buf[:0], `{"id":`...)
	b = append(b, idJSON...)
	for i, n := range w.names {
		b = append(b, ',')
		b = strconv.AppendQuote(b, n)
		b = append(b, ':')
		b = appendJSONNumber(b, v[i])
	}
	b = append(b, '}', '\n')
	w.buf = b
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("features: write %s: %w", id, err)
	}
	return nil
}

// Close writes the CSV header if no row was written and flushes. It does
// not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if !w.header {
		if err := w.writeHeader(); err != nil {
			return fmt.Errorf("features: close: %w", err)
		}
	}
	if w.cw != nil {
		w.cw.Flush()
		if err := w.cw.Error(); err != nil {
			return fmt.Errorf("features: close: %w", err)
		}
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("features: close: %w", err)
	}
	return nil
}
