package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/parsers/sdf"
)

// SpoolMediaType is the media type of a spooled upload: JSON lines, one
// record per line ({"f": format, "c": content, "n": name, "g": generate_3d}:
// work.ChemInput, the record a chemistry unit carries).
const SpoolMediaType = "application/x-ndjson"

// RecordSource yields the inputs of an upload; io.EOF ends it.
type RecordSource func() (Input, error)

// Upload limits (the defaults of the server's flags; see Limits).
const (
	// DefaultMaxUploadBytes bounds the decompressed bytes of an uploaded
	// file (CapReader).
	DefaultMaxUploadBytes = 512 << 20
	// DefaultMaxSpoolBytes bounds a spool: the upload's records as JSON
	// lines (escaping and the per-record keys add a few percent).
	DefaultMaxSpoolBytes = 576 << 20
	// DefaultMaxSMILESLineBytes bounds one line of a SMILES (or InChI) file.
	DefaultMaxSMILESLineBytes = 64 << 10
	// DefaultMaxSDRecordBytes bounds one record of an SD file.
	DefaultMaxSDRecordBytes = 1 << 20
)

// Limits bound what Spool stores.
type Limits struct {
	// MaxRecords: more records fail with ErrBatchTooLarge.
	MaxRecords int
	// MaxSpoolBytes: a longer spool fails with ErrUploadTooLarge (<= 0:
	// DefaultMaxSpoolBytes).
	MaxSpoolBytes int64
}

// FileSource reads the records of an SD or SMILES file. A record over the
// reader's bound fails with ErrRecordTooLarge, and the upload with it: the
// reader cannot find the next record without reading the long one to its
// end, and a record that long is no molecule we would store.
func FileSource(rr sdf.RecordReader, f chem.Format, generate3D bool) RecordSource {
	return func() (Input, error) {
		rec, err := rr.Next()
		if err != nil {
			switch {
			case err == io.EOF:
			case errors.Is(err, sdf.ErrRecordTooLarge):
				err = fmt.Errorf("%w: %v", ErrRecordTooLarge, err)
			case errors.Is(err, ErrUploadTooLarge), errors.Is(err, graph.ErrNoSpace):
				// the cap of CapReader, or the disk
			default:
				var mbe *http.MaxBytesError
				if !errors.As(err, &mbe) {
					err = fmt.Errorf("%w: %v", ErrBadUpload, err)
				}
			}
			return Input{}, err
		}
		return Input{Format: f, Content: rec.Content, Name: rec.Name, Generate3D: generate3D}, nil
	}
}

// CapReader returns a reader of r that fails with ErrUploadTooLarge as soon
// as r holds more than max bytes: put between a decompressor and a record
// reader, it stops a gzip bomb after max bytes of output.
func CapReader(r io.Reader, max int64) io.Reader { return &capReader{r: r, left: max, max: max} }

type capReader struct {
	r         io.Reader
	left, max int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err()
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if c.left -= int64(n); c.left < 0 {
		return n + int(c.left), c.err()
	}
	return n, err
}

func (c *capReader) err() error {
	return fmt.Errorf("%w: more than %d bytes decompressed", ErrUploadTooLarge, c.max)
}

// capWriter fails with ErrUploadTooLarge past max bytes.
type capWriter struct {
	w         io.Writer
	left, max int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.left -= int64(len(p)); c.left < 0 {
		return 0, fmt.Errorf("%w: the spooled records exceed %d bytes", ErrUploadTooLarge, c.max)
	}
	return c.w.Write(p)
}

// Spool writes the records of src to one blob of JSON lines, counting
// them, and returns it pinned (graph.Blobs.PutPinned: call unpin once the
// job that references it is stored, or after Discard). More than
// lim.MaxRecords records fail with ErrBatchTooLarge, a spool over
// lim.MaxSpoolBytes with ErrUploadTooLarge, no record at all with
// ErrEmptyUpload; then nothing is stored, as for any error of src.
func Spool(blobs *graph.Blobs, src RecordSource, lim Limits) (graph.BlobRef, int, func(), error) {
	maxRecords := lim.MaxRecords
	n := 0 // written by the goroutine; read after Put saw the end of the pipe
	if lim.MaxSpoolBytes <= 0 {
		lim.MaxSpoolBytes = DefaultMaxSpoolBytes
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(&capWriter{w: pw, left: lim.MaxSpoolBytes, max: lim.MaxSpoolBytes}, 256<<10)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for {
			in, err := src()
			if err == io.EOF {
				break
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			if n++; n > maxRecords {
				pw.CloseWithError(fmt.Errorf("%w: more than %d records", ErrBatchTooLarge, maxRecords))
				return
			}
			if err := enc.Encode(in.chem()); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		if n == 0 {
			pw.CloseWithError(ErrEmptyUpload) // Put stores nothing
			return
		}
		pw.CloseWithError(bw.Flush())
	}()
	ref, unpin, err := blobs.PutPinned(pr)
	pr.CloseWithError(errors.New("spool aborted")) // unblocks the writer if Put failed early
	if err != nil {
		return graph.BlobRef{}, 0, nil, fmt.Errorf("spool: %w", err)
	}
	return ref, n, unpin, nil
}

// spoolReader reads a spool from a given record on.
type spoolReader struct {
	rc    io.ReadCloser
	br    *bufio.Reader
	index int
}

// openSpool opens the spool blob sha at record skip.
func openSpool(blobs *graph.Blobs, sha string, skip int) (*spoolReader, error) {
	rc, _, err := blobs.Open(sha)
	if err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	s := &spoolReader{rc: rc, br: bufio.NewReaderSize(rc, 256<<10)}
	for s.index < skip {
		if _, err := s.br.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
			rc.Close()
			return nil, fmt.Errorf("open spool: skip to record %d: %w", skip, err)
		} else if err == nil {
			s.index++
		}
	}
	return s, nil
}

// next returns the next record and its index, or io.EOF.
func (s *spoolReader) next() (int, Input, error) {
	line, err := s.br.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		return 0, Input{}, io.EOF
	}
	if err != nil && err != io.EOF {
		return 0, Input{}, fmt.Errorf("read spool: %w", err)
	}
	var l work.ChemInput
	if err := json.Unmarshal(line, &l); err != nil {
		return 0, Input{}, fmt.Errorf("read spool record %d: %w: %v", s.index, ErrBadUpload, err)
	}
	i := s.index
	s.index++
	return i, Input{Format: l.Format, Content: l.Content, Name: l.Name, Generate3D: l.Generate3D}, nil
}

func (s *spoolReader) Close() error { return s.rc.Close() }
