package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// BlobRef identifies a stored blob by the SHA-256 of its bytes.
type BlobRef struct {
	SHA256 string // lower-case hex
	Size   int64
}

// ErrInvalidBlobRef: a hash is not 64 lower-case hex digits.
var ErrInvalidBlobRef = errors.New("invalid blob hash")

// Blobs is a content-addressed store of immutable files (structure files,
// uploaded logs, poses, batch spools), kept beside the graph: on disk as
// <dir>/ab/cdef… or in memory. Storing the same bytes twice stores them
// once. Blobs are safe for concurrent use.
//
// Durability: Put writes a temporary file, fsyncs it, renames it into
// place and fsyncs the directory (and the parent when it created the shard
// directory), so a blob whose Put returned survives a power loss, and a
// blob is either whole or absent.
//
// Collection: nothing deletes a blob but Collect and Discard. A blob being
// stored is protected from them until the commit that references it: by a
// pin (PutPinned) or by its age (a Put, also of bytes already stored,
// sets the file's time to now, and Collect leaves blobs younger than its
// grace period alone). mu orders a Put's rename or touch and pin against a
// collection's re-check and removal.
type Blobs struct {
	dir     string // "" for memory
	minFree int64  // free bytes kept in reserve (Options.MinFreeBytes)

	mu   sync.Mutex
	pins map[string]int
	mem  map[string]memBlob
	now  func() time.Time
}

type memBlob struct {
	data []byte
	at   time.Time
}

// openDirBlobs opens the blob store in dir. What is left in dir/tmp is the
// unfinished Puts of a process that died (no Put runs before the store is
// open), so it is removed.
func openDirBlobs(dir string, minFree int64) (*Blobs, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return nil, fmt.Errorf("open blobs: %w", noSpace(err))
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("open blobs: %w", err)
	}
	for _, f := range left {
		if err := os.RemoveAll(filepath.Join(tmp, f.Name())); err != nil {
			return nil, fmt.Errorf("open blobs: %w", err)
		}
	}
	return &Blobs{dir: dir, minFree: minFree, pins: map[string]int{}, now: time.Now}, nil
}

func memBlobs() *Blobs {
	return &Blobs{mem: make(map[string]memBlob), pins: map[string]int{}, now: time.Now}
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (b *Blobs) path(h string) string { return filepath.Join(b.dir, h[:2], h[2:]) }

// Put stores the bytes read from r and returns their reference. Errors:
// ErrNoSpace when the disk is full or below its reserve (nothing stays
// behind), or the error of r.
func (b *Blobs) Put(r io.Reader) (BlobRef, error) {
	ref, _, err := b.put(r, false)
	return ref, err
}

// PutPinned is Put that also pins the blob: Collect and Discard leave it
// alone until unpin is called (call it once the commit that references the
// blob returned, or when giving up; calling it again does nothing).
func (b *Blobs) PutPinned(r io.Reader) (ref BlobRef, unpin func(), err error) {
	return b.put(r, true)
}

// PutBytes stores data and returns its reference.
func (b *Blobs) PutBytes(data []byte) (BlobRef, error) {
	return b.Put(bytes.NewReader(data))
}

func (b *Blobs) pin(sha string) func() {
	b.pins[sha]++
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			if b.pins[sha]--; b.pins[sha] <= 0 {
				delete(b.pins, sha)
			}
			b.mu.Unlock()
		})
	}
}

func (b *Blobs) put(r io.Reader, pin bool) (BlobRef, func(), error) {
	unpin := func() {}
	if b.dir == "" {
		data, err := io.ReadAll(r)
		if err != nil {
			return BlobRef{}, nil, fmt.Errorf("put blob: %w", err)
		}
		sum := sha256.Sum256(data)
		ref := BlobRef{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
		b.mu.Lock()
		defer b.mu.Unlock()
		if m, ok := b.mem[ref.SHA256]; ok {
			m.at = b.now()
			b.mem[ref.SHA256] = m
		} else {
			b.mem[ref.SHA256] = memBlob{data: data, at: b.now()}
		}
		if pin {
			unpin = b.pin(ref.SHA256)
		}
		return ref, unpin, nil
	}
	if err := space(b.dir, b.minFree); err != nil {
		return BlobRef{}, nil, fmt.Errorf("put blob: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "blob-*")
	if err != nil {
		return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(&spaceWriter{w: tmp, dir: b.dir, min: b.minFree}, h), r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
	}
	ref := BlobRef{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	dst := b.path(ref.SHA256)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := os.Stat(dst); err == nil {
		// Stored already: renew its time, so that a collection that found
		// it unreferenced leaves it to the commit about to reference it.
		if err := os.Chtimes(dst, time.Time{}, b.now()); err != nil {
			return BlobRef{}, nil, fmt.Errorf("put blob: %w", err)
		}
		if pin {
			unpin = b.pin(ref.SHA256)
		}
		return ref, unpin, nil
	}
	shard := filepath.Dir(dst)
	if _, err := os.Stat(shard); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(shard, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
			return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
		}
		if err := syncDir(b.dir); err != nil {
			return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
		}
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
	}
	if err := syncDir(shard); err != nil {
		return BlobRef{}, nil, fmt.Errorf("put blob: %w", noSpace(err))
	}
	if pin {
		unpin = b.pin(ref.SHA256)
	}
	return ref, unpin, nil
}

// CreateTemp creates a scratch file for the caller to write, read and
// remove (an upload being read): in the blob store's temporary directory,
// which Open empties, so a process killed meanwhile leaves nothing behind
// (the system's temporary directory for a memory store). It fails with
// ErrNoSpace while the disk is below its reserve.
func (b *Blobs) CreateTemp() (*os.File, error) {
	if b.dir == "" {
		return os.CreateTemp("", "molgraph-upload-*")
	}
	if err := space(b.dir, b.minFree); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "upload-*")
	return f, noSpace(err)
}

// spaceWriter fails with ErrNoSpace once the file system's free space falls
// below min, checking every spaceCheckBytes written: a long upload stops
// at the reserve instead of filling the disk.
type spaceWriter struct {
	w        io.Writer
	dir      string
	min      int64
	sinceChk int64
}

const spaceCheckBytes = 4 << 20

func (s *spaceWriter) Write(p []byte) (int, error) {
	if s.sinceChk += int64(len(p)); s.sinceChk >= spaceCheckBytes {
		s.sinceChk = 0
		if err := space(s.dir, s.min); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}

// syncDir fsyncs a directory, making the names created in it durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open returns a reader of the blob with the given hash, or ErrNotFound.
func (b *Blobs) Open(sha string) (io.ReadCloser, int64, error) {
	if !validHash(sha) {
		return nil, 0, fmt.Errorf("open blob %q: %w", sha, ErrInvalidBlobRef)
	}
	if b.dir == "" {
		b.mu.Lock()
		m, ok := b.mem[sha]
		b.mu.Unlock()
		if !ok {
			return nil, 0, fmt.Errorf("open blob %s: %w", sha, ErrNotFound)
		}
		return io.NopCloser(bytes.NewReader(m.data)), int64(len(m.data)), nil
	}
	f, err := os.Open(b.path(sha))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("open blob %s: %w", sha, ErrNotFound)
	} else if err != nil {
		return nil, 0, fmt.Errorf("open blob %s: %w", sha, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("open blob %s: %w", sha, err)
	}
	return f, st.Size(), nil
}

// Get returns the bytes of a blob, or ErrNotFound.
func (b *Blobs) Get(sha string) ([]byte, error) {
	r, _, err := b.Open(sha)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Has reports whether the blob exists.
func (b *Blobs) Has(sha string) bool {
	r, _, err := b.Open(sha)
	if err != nil {
		return false
	}
	r.Close()
	return true
}

// Delete removes a blob; deleting a missing blob returns ErrNotFound. The
// caller must know that no graph links the blob any more.
func (b *Blobs) Delete(sha string) error {
	if !validHash(sha) {
		return fmt.Errorf("delete blob %q: %w", sha, ErrInvalidBlobRef)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.remove(sha)
}

// remove deletes a blob; the caller holds mu.
func (b *Blobs) remove(sha string) error {
	if b.dir == "" {
		if _, ok := b.mem[sha]; !ok {
			return fmt.Errorf("delete blob %s: %w", sha, ErrNotFound)
		}
		delete(b.mem, sha)
		return nil
	}
	err := os.Remove(b.path(sha))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete blob %s: %w", sha, ErrNotFound)
	}
	return err
}

// BlobUse is what the graph holds of a blob, for Collect and Discard.
type BlobUse int

// The uses of a blob.
const (
	// BlobUnreferenced: no quad names the blob. It is collected once older
	// than the grace period (a commit that will reference it may be on
	// its way).
	BlobUnreferenced BlobUse = iota
	// BlobReleased: only finished work names the blob (the spool of an
	// ended batch job). It is collected at once unless pinned.
	BlobReleased
	// BlobReferenced: the graph needs the blob; it is kept. It is the
	// greatest use, so that the max of the uses of a blob named twice (two
	// jobs with the same content, one ended) keeps it.
	BlobReferenced
)

// BlobUses tells the use of each blob, as of one read of the graph.
type BlobUses func(sha string) BlobUse

// CollectStats counts what a collection removed.
type CollectStats struct {
	Blobs, Temps int   // blobs and leftover temporary files removed
	Bytes        int64 // their size
	Kept         int   // blobs kept
}

// Collect removes the blobs that use says are released, or unreferenced and
// older than grace, and are not pinned; and temporary files of Puts older
// than grace (left by a crash). use is a read of the graph that began at
// since: Collect re-checks every candidate's pin and time under the lock
// that Put takes, and keeps a blob written or renewed after since, so a Put
// of the same bytes whose commit use did not see (its pin perhaps already
// dropped) keeps its blob.
func (b *Blobs) Collect(ctx context.Context, use BlobUses, since time.Time, grace time.Duration) (CollectStats, error) {
	var st CollectStats
	cutoff := b.now().Add(-grace)
	since = since.Add(-mtimeSlack)
	consider := func(sha string, at time.Time, size int64) {
		u := use(sha)
		if u == BlobReferenced || (u == BlobUnreferenced && at.After(cutoff)) {
			st.Kept++
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.pins[sha] > 0 {
			st.Kept++
			return
		}
		// Re-check the time: a Put may have renewed it since the listing,
		// or since use was read.
		if now, ok := b.mtime(sha); !ok || now.After(since) || (u == BlobUnreferenced && now.After(cutoff)) {
			st.Kept++
			return
		}
		if b.remove(sha) == nil {
			st.Blobs++
			st.Bytes += size
		}
	}
	if b.dir == "" {
		b.mu.Lock()
		type cand struct {
			sha  string
			at   time.Time
			size int64
		}
		var cs []cand
		for sha, m := range b.mem {
			cs = append(cs, cand{sha, m.at, int64(len(m.data))})
		}
		b.mu.Unlock()
		for _, c := range cs {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			consider(c.sha, c.at, c.size)
		}
		return st, nil
	}
	shards, err := os.ReadDir(b.dir)
	if err != nil {
		return st, fmt.Errorf("collect blobs: %w", err)
	}
	for _, sh := range shards {
		name := sh.Name()
		if !sh.IsDir() {
			continue
		}
		if name == "tmp" {
			b.collectTemps(&st, cutoff)
			continue
		}
		if len(name) != 2 {
			continue
		}
		files, err := os.ReadDir(filepath.Join(b.dir, name))
		if err != nil {
			return st, fmt.Errorf("collect blobs: %w", err)
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			sha := name + f.Name()
			if !validHash(sha) {
				continue
			}
			info, err := f.Info()
			if err != nil {
				continue // removed meanwhile
			}
			consider(sha, info.ModTime(), info.Size())
		}
	}
	return st, nil
}

// mtimeSlack covers the coarse clock of file times: the kernel stamps a
// file from a clock that may run a few milliseconds behind time.Now.
const mtimeSlack = 20 * time.Millisecond

// mtime is the time of a blob's file; the caller holds mu.
func (b *Blobs) mtime(sha string) (time.Time, bool) {
	if b.dir == "" {
		m, ok := b.mem[sha]
		return m.at, ok
	}
	info, err := os.Stat(b.path(sha))
	if err != nil {
		return time.Time{}, false
	}
	return info.ModTime(), true
}

// collectTemps removes temporary files older than cutoff: a Put in
// progress keeps writing (and so renewing) its file.
func (b *Blobs) collectTemps(st *CollectStats, cutoff time.Time) {
	dir := filepath.Join(b.dir, "tmp")
	files, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, f := range files {
		info, err := f.Info()
		if err != nil || info.ModTime().After(cutoff) {
			continue
		}
		if os.Remove(filepath.Join(dir, f.Name())) == nil {
			st.Temps++
			st.Bytes += info.Size()
		}
	}
}

// Discard removes the blob sha, which the caller stored and no longer
// needs (a refused upload), unless it is pinned (another Put of the same
// bytes is in flight) or use says the graph references it.
func (b *Blobs) Discard(sha string, use BlobUses) error {
	if !validHash(sha) {
		return fmt.Errorf("discard blob %q: %w", sha, ErrInvalidBlobRef)
	}
	// use is read under the lock that pins take: a Put of the same bytes
	// either still holds its pin here, or dropped it after its commit,
	// which use then sees.
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pins[sha] > 0 || use(sha) == BlobReferenced {
		return nil
	}
	if err := b.remove(sha); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}
