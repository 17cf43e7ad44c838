package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// BlobRef identifies a stored blob by the SHA-256 of its bytes.
type BlobRef struct {
	SHA256 string // lower-case hex
	Size   int64
}

// ErrInvalidBlobRef: a hash is not 64 lower-case hex digits.
var ErrInvalidBlobRef = errors.New("invalid blob hash")

// Blobs is a content-addressed store of immutable files (structure files,
// uploaded logs, poses), kept beside the graph: on disk as
// <dir>/ab/cdef… or in memory. Storing the same bytes twice stores them
// once. Blobs are safe for concurrent use.
type Blobs struct {
	dir string // "" for memory

	mu  sync.RWMutex
	mem map[string][]byte
}

func openDirBlobs(dir string) (*Blobs, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o750); err != nil {
		return nil, fmt.Errorf("open blobs: %w", err)
	}
	return &Blobs{dir: dir}, nil
}

func memBlobs() *Blobs { return &Blobs{mem: make(map[string][]byte)} }

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

// Put stores the bytes read from r and returns their reference. On disk
// the bytes go to a temporary file that is synced and renamed into place,
// so a blob is either whole or absent.
func (b *Blobs) Put(r io.Reader) (BlobRef, error) {
	if b.dir == "" {
		data, err := io.ReadAll(r)
		if err != nil {
			return BlobRef{}, fmt.Errorf("put blob: %w", err)
		}
		return b.PutBytes(data)
	}
	tmp, err := os.CreateTemp(filepath.Join(b.dir, "tmp"), "blob-*")
	if err != nil {
		return BlobRef{}, fmt.Errorf("put blob: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return BlobRef{}, fmt.Errorf("put blob: %w", err)
	}
	ref := BlobRef{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	dst := b.path(ref.SHA256)
	if _, err := os.Stat(dst); err == nil {
		return ref, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return BlobRef{}, fmt.Errorf("put blob: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return BlobRef{}, fmt.Errorf("put blob: %w", err)
	}
	return ref, nil
}

// PutBytes stores data and returns its reference.
func (b *Blobs) PutBytes(data []byte) (BlobRef, error) {
	if b.dir != "" {
		return b.Put(bytes.NewReader(data))
	}
	sum := sha256.Sum256(data)
	ref := BlobRef{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	b.mu.Lock()
	if _, ok := b.mem[ref.SHA256]; !ok {
		b.mem[ref.SHA256] = append([]byte(nil), data...)
	}
	b.mu.Unlock()
	return ref, nil
}

// Open returns a reader of the blob with the given hash, or ErrNotFound.
func (b *Blobs) Open(sha string) (io.ReadCloser, int64, error) {
	if !validHash(sha) {
		return nil, 0, fmt.Errorf("open blob %q: %w", sha, ErrInvalidBlobRef)
	}
	if b.dir == "" {
		b.mu.RLock()
		data, ok := b.mem[sha]
		b.mu.RUnlock()
		if !ok {
			return nil, 0, fmt.Errorf("open blob %s: %w", sha, ErrNotFound)
		}
		return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
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
	if b.dir == "" {
		b.mu.Lock()
		defer b.mu.Unlock()
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
