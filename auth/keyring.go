package auth

import (
	"bytes"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// File names inside the data directory.
const (
	// KeysFile holds the key records (hashes only).
	KeysFile = "keys.json"
	// BootstrapKeyFile receives a generated bootstrap token.
	BootstrapKeyFile = "bootstrap-key"
	lockFile         = "keys.json.lock"
	fileVersion      = 1
	// maxKeysFile bounds what is read from keys.json (a corrupt or hostile
	// file must not exhaust memory).
	maxKeysFile = 64 << 20
)

// record is one key as stored in keys.json.
type record struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Scopes    []Scope    `json:"scopes"`
	SHA256    string     `json:"sha256"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`

	hash [32]byte // decoded SHA256, filled on load
}

func (r *record) key() Key {
	return Key{ID: r.ID, Name: r.Name, Scopes: slices.Clone(r.Scopes), CreatedAt: r.CreatedAt,
		ExpiresAt: cloneTime(r.ExpiresAt), RevokedAt: cloneTime(r.RevokedAt)}
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

type fileContent struct {
	Version int      `json:"version"`
	Keys    []record `json:"keys"`
}

// stamp identifies one version of keys.json on disk.
type stamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

// Options configure a Keyring.
type Options struct {
	// Now returns the current time (default time.Now); tests set it to
	// exercise expiry.
	Now func() time.Time
}

// Keyring is the set of API keys stored in a data directory. It is safe for
// concurrent use, and for use by several processes on the same directory.
type Keyring struct {
	dir string
	now func() time.Time

	mu     sync.Mutex
	loaded bool
	stamp  stamp
	recs   []record
}

// Open returns the Keyring of data directory dir, creating the directory
// (mode 0700) if needed. It reads keys.json if present and fails with
// ErrCorrupt if it cannot be parsed.
func Open(dir string, opt Options) (*Keyring, error) {
	if dir == "" {
		return nil, fmt.Errorf("open keyring: %w: empty data directory", ErrInvalid)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open keyring: %w", err)
	}
	k := &Keyring{dir: dir, now: opt.Now}
	if k.now == nil {
		k.now = time.Now
	}
	if _, err := k.snapshot(); err != nil {
		return nil, fmt.Errorf("open keyring: %w", err)
	}
	return k, nil
}

// Dir is the data directory.
func (k *Keyring) Dir() string { return k.dir }

func (k *Keyring) path(name string) string { return filepath.Join(k.dir, name) }

// snapshot returns the current records, reloading keys.json if it changed
// on disk since the last call. The returned slice must not be modified.
func (k *Keyring) snapshot() ([]record, error) {
	// Fast path: one stat(2) when nothing changed.
	if st, err := os.Stat(k.path(KeysFile)); err == nil {
		k.mu.Lock()
		if k.loaded && k.stamp == stampOf(st) {
			recs := k.recs
			k.mu.Unlock()
			return recs, nil
		}
		k.mu.Unlock()
	}
	f, err := os.Open(k.path(KeysFile))
	if errors.Is(err, fs.ErrNotExist) {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.recs, k.stamp, k.loaded = nil, stamp{}, true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	defer f.Close()
	// The stamp comes from the open file, so it describes exactly the
	// content read below even if the file is replaced meanwhile.
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	recs, err := readRecords(f)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.recs, k.stamp, k.loaded = recs, stampOf(st), true
	return recs, nil
}

// readRecords parses keys.json.
func readRecords(r io.Reader) ([]record, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxKeysFile+1))
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	return parseRecords(data)
}

// parseRecords decodes and validates the content of keys.json.
func parseRecords(data []byte) ([]record, error) {
	if len(data) > maxKeysFile {
		return nil, fmt.Errorf("parse keys: %w: file larger than %d bytes", ErrCorrupt, maxKeysFile)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var fc fileContent
	if err := dec.Decode(&fc); err != nil {
		return nil, fmt.Errorf("parse keys: %w: %v", ErrCorrupt, err)
	}
	if fc.Version != fileVersion {
		return nil, fmt.Errorf("parse keys: %w: version %d, want %d", ErrCorrupt, fc.Version, fileVersion)
	}
	seen := make(map[string]bool, len(fc.Keys))
	for i := range fc.Keys {
		r := &fc.Keys[i]
		if r.ID == "" || seen[r.ID] {
			return nil, fmt.Errorf("parse keys: %w: key %d has an empty or duplicate id", ErrCorrupt, i)
		}
		seen[r.ID] = true
		h, err := hex.DecodeString(r.SHA256)
		if err != nil || len(h) != len(r.hash) {
			return nil, fmt.Errorf("parse keys: %w: key %s has a malformed sha256", ErrCorrupt, r.ID)
		}
		copy(r.hash[:], h)
		if _, err := normalizeScopes(r.Scopes); err != nil {
			return nil, fmt.Errorf("parse keys: %w: key %s: %v", ErrCorrupt, r.ID, err)
		}
	}
	return fc.Keys, nil
}

// Authenticate returns the key whose token is token. The token's SHA-256
// is compared with every stored hash in constant time. Errors: ErrUnknownKey,
// ErrExpired, ErrRevoked (all match ErrUnauthenticated).
func (k *Keyring) Authenticate(token string) (Key, error) {
	recs, err := k.snapshot()
	if err != nil {
		return Key{}, fmt.Errorf("authenticate: %w", err)
	}
	h := hashToken(token)
	match := -1
	for i := range recs {
		// No early exit: every hash is compared.
		if subtle.ConstantTimeCompare(h[:], recs[i].hash[:]) == 1 {
			match = i
		}
	}
	if match < 0 || token == "" {
		return Key{}, fmt.Errorf("authenticate: %w", ErrUnknownKey)
	}
	key := recs[match].key()
	switch key.Status(k.now()) {
	case StatusRevoked:
		return Key{}, fmt.Errorf("authenticate %s: %w", key.ID, ErrRevoked)
	case StatusExpired:
		return Key{}, fmt.Errorf("authenticate %s: %w", key.ID, ErrExpired)
	}
	return key, nil
}

// List returns every key, revoked and expired ones included, oldest first.
func (k *Keyring) List() ([]Key, error) {
	recs, err := k.snapshot()
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	out := make([]Key, len(recs))
	for i := range recs {
		out[i] = recs[i].key()
	}
	slices.SortStableFunc(out, func(a, b Key) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Get returns the key with id (ErrNotFound if there is none).
func (k *Keyring) Get(id string) (Key, error) {
	recs, err := k.snapshot()
	if err != nil {
		return Key{}, fmt.Errorf("get key: %w", err)
	}
	for i := range recs {
		if recs[i].ID == id {
			return recs[i].key(), nil
		}
	}
	return Key{}, fmt.Errorf("get key %q: %w", id, ErrNotFound)
}

// Create stores a new key and returns it with its token. The token is not
// stored and cannot be retrieved later.
func (k *Keyring) Create(nk NewKey) (Key, string, error) {
	rec, token, err := k.newRecord(nk)
	if err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	err = k.update(func(recs []record) ([]record, error) {
		for i := range recs {
			if subtle.ConstantTimeCompare(recs[i].hash[:], rec.hash[:]) == 1 {
				return nil, fmt.Errorf("%w: that token is already in use", ErrInvalid)
			}
		}
		return append(recs, rec), nil
	})
	if err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	return rec.key(), token, nil
}

func (k *Keyring) newRecord(nk NewKey) (record, string, error) {
	if err := checkName(nk.Name); err != nil {
		return record{}, "", err
	}
	scopes, err := normalizeScopes(nk.Scopes)
	if err != nil {
		return record{}, "", err
	}
	now := k.now().UTC().Truncate(time.Second)
	var expires *time.Time
	if !nk.ExpiresAt.IsZero() {
		t := nk.ExpiresAt.UTC().Truncate(time.Second)
		if !t.After(now) {
			return record{}, "", fmt.Errorf("expires_at: %w: %s is not in the future", ErrInvalid, t.Format(time.RFC3339))
		}
		expires = &t
	}
	token := nk.Token
	if token == "" {
		if token, err = GenerateToken(); err != nil {
			return record{}, "", err
		}
	} else if err := CheckToken(token); err != nil {
		return record{}, "", err
	}
	id, err := newID()
	if err != nil {
		return record{}, "", err
	}
	h := hashToken(token)
	rec := record{ID: id, Name: nk.Name, Scopes: scopes, SHA256: hex.EncodeToString(h[:]), CreatedAt: now, ExpiresAt: expires, hash: h}
	return rec, token, nil
}

// Revoke marks the key with id as revoked and returns it. Revoking a
// revoked key is a no-op that returns the key unchanged. Errors: ErrNotFound.
func (k *Keyring) Revoke(id string) (Key, error) {
	var out Key
	err := k.update(func(recs []record) ([]record, error) {
		for i := range recs {
			if recs[i].ID != id {
				continue
			}
			if recs[i].RevokedAt == nil {
				t := k.now().UTC().Truncate(time.Second)
				recs[i].RevokedAt = &t
			}
			out = recs[i].key()
			return recs, nil
		}
		return nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	})
	if err != nil {
		return Key{}, fmt.Errorf("revoke key: %w", err)
	}
	return out, nil
}

// Bootstrap is the result of Keyring.Bootstrap.
type Bootstrap struct {
	// Created is false when keys already existed and nothing was done.
	Created bool
	// Key is the created admin key.
	Key Key
	// Token is the generated token ("" when the operator supplied it).
	Token string
	// File is the path the generated token was written to ("" when the
	// operator supplied it).
	File string
}

// Bootstrap creates the first admin key if the keyring has no keys at all.
// With a non-empty token (MOLGRAPH_API_KEY) that token becomes the key;
// otherwise a token is generated, returned, and written to
// <dir>/bootstrap-key with mode 0600. The check and the creation happen
// under the keys lock, so two processes cannot both bootstrap.
func (k *Keyring) Bootstrap(token string) (Bootstrap, error) {
	var res Bootstrap
	err := k.update(func(recs []record) ([]record, error) {
		if len(recs) > 0 {
			return nil, errNoChange
		}
		rec, tok, err := k.newRecord(NewKey{Name: "bootstrap", Scopes: []Scope{ScopeAdmin}, Token: token})
		if err != nil {
			return nil, err
		}
		res = Bootstrap{Created: true, Key: rec.key()}
		if token == "" {
			res.Token = tok
			res.File = k.path(BootstrapKeyFile)
			if err := writeFileAtomic(k.dir, BootstrapKeyFile, []byte(tok+"\n")); err != nil {
				return nil, err
			}
		}
		return []record{rec}, nil
	})
	if errors.Is(err, errNoChange) {
		return Bootstrap{}, nil
	}
	if err != nil {
		return Bootstrap{}, fmt.Errorf("bootstrap key: %w", err)
	}
	return res, nil
}

// errNoChange lets an update function leave the file untouched.
var errNoChange = errors.New("no change")

// update runs fn on the records read fresh from disk under the exclusive
// keys lock and atomically writes the result. fn may modify the slice.
func (k *Keyring) update(fn func([]record) ([]record, error)) error {
	unlock, err := lockPath(k.path(lockFile))
	if err != nil {
		return err
	}
	defer unlock()
	var recs []record
	f, err := os.Open(k.path(KeysFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read keys: %w", err)
	default:
		recs, err = readRecords(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	recs, err = fn(recs)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(fileContent{Version: fileVersion, Keys: recs}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode keys: %w", err)
	}
	if err := writeFileAtomic(k.dir, KeysFile, append(data, '\n')); err != nil {
		return err
	}
	// Invalidate the cache; the next snapshot re-reads the new file.
	k.mu.Lock()
	k.loaded = false
	k.mu.Unlock()
	return nil
}

// writeFileAtomic writes dir/name with mode 0600 through a temporary file,
// fsync and rename, then fsyncs dir.
func writeFileAtomic(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("write %s: sync dir: %w", name, err)
	}
	return nil
}
