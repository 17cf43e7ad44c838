package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/parsers/sdf"
)

// SpoolMediaType is the media type of a spooled upload: JSON lines, one
// record per line ({"f": format, "c": content, "n": name, "g": generate_3d}).
const SpoolMediaType = "application/x-ndjson"

// spoolLine is one line of a spool.
type spoolLine struct {
	Format  chem.Format `json:"f"`
	Content string      `json:"c"`
	Name    string      `json:"n,omitempty"`
	Gen3D   bool        `json:"g,omitempty"`
}

// RecordSource yields the inputs of an upload; io.EOF ends it.
type RecordSource func() (Input, error)

// FileSource reads the records of an SD or SMILES file.
func FileSource(rr sdf.RecordReader, f chem.Format, generate3D bool) RecordSource {
	return func() (Input, error) {
		rec, err := rr.Next()
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("%w: %v", ErrBadUpload, err)
			}
			return Input{}, err
		}
		return Input{Format: f, Content: rec.Content, Name: rec.Name, Generate3D: generate3D}, nil
	}
}

// Spool writes the records of src to one blob of JSON lines, counting
// them. More than maxRecords records fail with ErrBatchTooLarge and store
// nothing; so does any error of src.
func Spool(blobs *graph.Blobs, src RecordSource, maxRecords int) (graph.BlobRef, int, error) {
	pr, pw := io.Pipe()
	n := 0
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
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
			if err := enc.Encode(spoolLine{in.Format, in.Content, in.Name, in.Generate3D}); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(bw.Flush())
	}()
	ref, err := blobs.Put(pr)
	pr.CloseWithError(errors.New("spool aborted")) // unblocks the writer if Put failed early
	if err != nil {
		return graph.BlobRef{}, 0, fmt.Errorf("spool: %w", err)
	}
	return ref, n, nil
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
	var l spoolLine
	if err := json.Unmarshal(line, &l); err != nil {
		return 0, Input{}, fmt.Errorf("read spool record %d: %w: %v", s.index, ErrBadUpload, err)
	}
	i := s.index
	s.index++
	return i, Input{Format: l.Format, Content: l.Content, Name: l.Name, Generate3D: l.Gen3D}, nil
}

func (s *spoolReader) Close() error { return s.rc.Close() }
