package jobs

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/ontology"
)

// Errors of the runner, wrapped with the operation.
var (
	// ErrNotFound: no job with that IRI.
	ErrNotFound = errors.New("job not found")
	// ErrFinished: the job has already finished (cancel of a finished job).
	ErrFinished = errors.New("job already finished")
	// ErrInvalidJob: a job graph or a submitted job is malformed (no Task for
	// its class, a missing status, a counter that is not an integer).
	ErrInvalidJob = errors.New("invalid job")
	// ErrCommitTooLarge: one commit holds more quads than fit in one
	// transaction (Options.MaxCommitQuads); the Task must commit less.
	ErrCommitTooLarge = errors.New("commit too large")
	// ErrClosed: the runner was closed.
	ErrClosed = errors.New("runner closed")
	// ErrTooManyJobs: the owner, or the runner as a whole, already has as
	// many unfinished jobs as allowed (the error is a *QuotaError).
	ErrTooManyJobs = errors.New("too many unfinished jobs")
)

// QuotaError is a Submit refused by a cap on unfinished (queued or
// running) jobs. It matches ErrTooManyJobs.
type QuotaError struct {
	// Owner is the owner whose cap is full; "" when the runner's overall
	// cap is.
	Owner string
	// Limit is the cap; Unfinished is how many jobs count against it.
	Limit, Unfinished int
}

func (e *QuotaError) Error() string {
	if e.Owner != "" {
		return fmt.Sprintf("%v: %d of at most %d unfinished jobs for this key; wait for one to finish or cancel one",
			ErrTooManyJobs, e.Unfinished, e.Limit)
	}
	return fmt.Sprintf("%v: %d of at most %d unfinished jobs in the service", ErrTooManyJobs, e.Unfinished, e.Limit)
}

// Unwrap returns ErrTooManyJobs.
func (e *QuotaError) Unwrap() error { return ErrTooManyJobs }

type ownerKey struct{}

// WithOwner returns ctx carrying the owner of the jobs submitted with it
// (the API key id): it travels with the request, like its deadline, so that
// every handler that submits a job is counted without passing it along.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// OwnerFrom returns the owner set by WithOwner ("" if none: the job counts
// only against the overall cap).
func OwnerFrom(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

// Status is a job's state: Queued -> Running -> Succeeded | Failed | Cancelled.
type Status string

// The job states (the values of mg:status).
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Finished reports whether s is a final state.
func (s Status) Finished() bool { return s == Succeeded || s == Failed || s == Cancelled }

func (s Status) valid() bool { return s == Queued || s == Running || s.Finished() }

// File is a file in the blob store that a job reads (its spooled input).
type File struct {
	SHA256    string
	Bytes     int64
	MediaType string
	Filename  string
}

// Prop is one kind-specific statement about the job node: a counter or a
// parameter.
type Prop struct {
	Predicate quad.IRI
	Object    quad.Value
}

// IntProp returns an xsd:integer Prop.
func IntProp(p quad.IRI, v int64) Prop { return Prop{p, ontology.Integer(v)} }

// Job is the state of one job as its named graph stores it.
type Job struct {
	ID    string
	IRI   quad.IRI
	Class quad.IRI // e.g. mg:BatchUploadJob
	// Status and times; StartedAt and EndedAt are zero until set.
	Status    Status
	CreatedAt time.Time
	StartedAt time.Time
	EndedAt   time.Time
	// Error says why a Failed job failed.
	Error string
	// Source is the job's input file, if any.
	Source *File
	// Props are the kind-specific statements (counters, parameters), in
	// predicate order.
	Props []Prop
}

// Prop returns the object of the first Prop with predicate p, or nil.
func (j *Job) Prop(p quad.IRI) quad.Value {
	for _, pr := range j.Props {
		if pr.Predicate == p {
			return pr.Object
		}
	}
	return nil
}

// Int returns the xsd:integer Prop p (0 if absent or not an integer).
func (j *Job) Int(p quad.IRI) int64 {
	if ts, ok := j.Prop(p).(quad.TypedString); ok && ts.Type == ontology.XSDInteger {
		v, _ := strconv.ParseInt(string(ts.Value), 10, 64)
		return v
	}
	return 0
}

// Terms of the job graph.
const (
	provActivity = quad.IRI(ontology.PROV + "Activity")
	provStarted  = quad.IRI(ontology.PROV + "startedAtTime")
	provEnded    = quad.IRI(ontology.PROV + "endedAtTime")
	mgStatus     = quad.IRI(ontology.MG + "status")
	mgCreatedAt  = quad.IRI(ontology.MG + "createdAt")
	mgErrorMsg   = quad.IRI(ontology.MG + "errorMessage")
	mgSourceFile = quad.IRI(ontology.MG + "sourceFile")
	mgFile       = quad.IRI(ontology.MG + "File")
	mgSHA256     = quad.IRI(ontology.MG + "sha256")
	mgByteSize   = quad.IRI(ontology.MG + "byteSize")
	mgMediaType  = quad.IRI(ontology.MG + "mediaType")
	mgFileName   = quad.IRI(ontology.MG + "fileName")
)

// Quads maps the job to the quads of its named graph (see the package
// documentation); base is the service's base IRI, for the source file's IRI.
func (j *Job) Quads(base string) []quad.Quad {
	out := make([]quad.Quad, 0, 16+len(j.Props))
	add := func(s, p quad.IRI, o quad.Value) {
		out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: j.IRI})
	}
	add(j.IRI, ontology.RDFType, j.Class)
	add(j.IRI, ontology.RDFType, provActivity)
	add(j.IRI, mgStatus, ontology.String(string(j.Status)))
	add(j.IRI, mgCreatedAt, ontology.DateTime(j.CreatedAt))
	if !j.StartedAt.IsZero() {
		add(j.IRI, provStarted, ontology.DateTime(j.StartedAt))
	}
	if !j.EndedAt.IsZero() {
		add(j.IRI, provEnded, ontology.DateTime(j.EndedAt))
	}
	if j.Error != "" {
		add(j.IRI, mgErrorMsg, ontology.String(j.Error))
	}
	for _, p := range j.Props {
		add(j.IRI, p.Predicate, p.Object)
	}
	if f := j.Source; f != nil {
		b := ontology.BlobIRI(base, f.SHA256)
		add(j.IRI, mgSourceFile, b)
		add(b, ontology.RDFType, mgFile)
		add(b, mgSHA256, ontology.String(f.SHA256))
		add(b, mgByteSize, ontology.Integer(f.Bytes))
		if f.MediaType != "" {
			add(b, mgMediaType, ontology.String(f.MediaType))
		}
		if f.Filename != "" {
			add(b, mgFileName, ontology.String(f.Filename))
		}
	}
	return out
}

// JobFromQuads reads a job back from the quads of its named graph: the node
// typed prov:Activity and one of classes. Errors wrap ErrNotFound (no such
// node) or ErrInvalidJob.
func JobFromQuads(qs []quad.Quad, classes []quad.IRI) (Job, error) {
	var j Job
	props := map[quad.Value][]quad.Quad{}
	for _, q := range qs {
		props[q.Subject] = append(props[q.Subject], q)
		if q.Predicate == ontology.RDFType {
			if c, ok := q.Object.(quad.IRI); ok && slices.Contains(classes, c) {
				if s, ok := q.Subject.(quad.IRI); ok {
					if j.IRI != "" && j.IRI != s {
						return j, fmt.Errorf("jobs: read job: %w: two job nodes", ErrInvalidJob)
					}
					j.IRI, j.Class = s, c
				}
			}
		}
	}
	if j.IRI == "" {
		return j, fmt.Errorf("jobs: read job: %w", ErrNotFound)
	}
	j.ID = string(j.IRI)[strings.LastIndexByte(string(j.IRI), '/')+1:]
	bad := func(q quad.Quad) error {
		return fmt.Errorf("jobs: read job %s: %w: %v %v", j.IRI, ErrInvalidJob, q.Predicate, q.Object)
	}
	var src quad.IRI
	for _, q := range props[j.IRI] {
		p, _ := q.Predicate.(quad.IRI)
		switch p {
		case ontology.RDFType:
		case mgStatus:
			s, ok := q.Object.(quad.String)
			if !ok || !Status(s).valid() {
				return j, bad(q)
			}
			j.Status = Status(s)
		case mgCreatedAt, provStarted, provEnded:
			t, err := dateTime(q.Object)
			if err != nil {
				return j, bad(q)
			}
			switch p {
			case mgCreatedAt:
				j.CreatedAt = t
			case provStarted:
				j.StartedAt = t
			default:
				j.EndedAt = t
			}
		case mgErrorMsg:
			s, ok := q.Object.(quad.String)
			if !ok {
				return j, bad(q)
			}
			j.Error = string(s)
		case mgSourceFile:
			b, ok := q.Object.(quad.IRI)
			if !ok {
				return j, bad(q)
			}
			src = b
		default:
			j.Props = append(j.Props, Prop{p, q.Object})
		}
	}
	if j.Status == "" {
		return j, fmt.Errorf("jobs: read job %s: %w: no status", j.IRI, ErrInvalidJob)
	}
	slices.SortStableFunc(j.Props, func(a, b Prop) int { return strings.Compare(string(a.Predicate), string(b.Predicate)) })
	if src != "" {
		f := &File{}
		for _, q := range props[src] {
			switch q.Predicate {
			case mgSHA256:
				s, _ := q.Object.(quad.String)
				f.SHA256 = string(s)
			case mgByteSize:
				if ts, ok := q.Object.(quad.TypedString); ok {
					f.Bytes, _ = strconv.ParseInt(string(ts.Value), 10, 64)
				}
			case mgMediaType:
				s, _ := q.Object.(quad.String)
				f.MediaType = string(s)
			case mgFileName:
				s, _ := q.Object.(quad.String)
				f.Filename = string(s)
			}
		}
		if f.SHA256 == "" {
			return j, fmt.Errorf("jobs: read job %s: %w: source file without sha256", j.IRI, ErrInvalidJob)
		}
		j.Source = f
	}
	return j, nil
}

func dateTime(v quad.Value) (time.Time, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != ontology.XSDDateTime {
		return time.Time{}, ErrInvalidJob
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts.Value))
	return t.UTC(), err
}

// NewID returns a new time-ordered random job id: prefix, "-", then 26
// lower-case base32 digits of a 48-bit millisecond timestamp followed by 80
// random bits (the layout of a ULID), so that ids sort by creation time.
func NewID(prefix string, now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	rand.Read(b[6:])
	enc := base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)
	return prefix + "-" + enc.EncodeToString(b[:])
}
