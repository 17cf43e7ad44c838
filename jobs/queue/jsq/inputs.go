package jsq

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/jobs/queue"
)

// Inputs is queue.Inputs on the deployment's object store
// mg_<dep>_inputs (chunked and digest-checked by JetStream), with a
// local cache by digest in CacheDir when set (workers).
type Inputs struct {
	NC       *nats.Conn
	Config   Config
	CacheDir string
}

func (in *Inputs) bucket(ctx context.Context) (jetstream.ObjectStore, error) {
	cfg := in.Config.withDefaults()
	js, err := jetstream.New(in.NC)
	if err != nil {
		return nil, err
	}
	// Setup (the coordinator) creates the bucket.
	return js.ObjectStore(ctx, names{token(cfg.Deployment)}.inputs())
}

// PutInput implements queue.Inputs.
func (in *Inputs) PutInput(ctx context.Context, data []byte) (string, error) {
	h := sha256.Sum256(data)
	sha := hex.EncodeToString(h[:])
	b, err := in.bucket(ctx)
	if err != nil {
		return "", fmt.Errorf("jsq: inputs: %w", err)
	}
	if _, err := b.GetInfo(ctx, sha); err == nil {
		return sha, nil
	}
	if _, err := b.PutBytes(ctx, sha, data); err != nil {
		return "", fmt.Errorf("jsq: put input: %w", err)
	}
	return sha, nil
}

// GetInput implements queue.Inputs; a failure is a worker fault.
func (in *Inputs) GetInput(ctx context.Context, sha string) ([]byte, error) {
	check := func(d []byte) bool {
		h := sha256.Sum256(d)
		return hex.EncodeToString(h[:]) == sha
	}
	var path string
	if in.CacheDir != "" && len(sha) == 64 {
		path = filepath.Join(in.CacheDir, sha)
		if d, err := os.ReadFile(path); err == nil && check(d) {
			return d, nil
		}
	}
	b, err := in.bucket(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: inputs: %v", queue.ErrFault, err)
	}
	d, err := b.GetBytes(ctx, sha)
	if err != nil || !check(d) {
		return nil, fmt.Errorf("%w: input %s: %v", queue.ErrFault, sha, err)
	}
	if path != "" {
		if err := os.MkdirAll(in.CacheDir, 0o700); err == nil {
			tmp := path + ".tmp"
			if os.WriteFile(tmp, d, 0o600) == nil {
				_ = os.Rename(tmp, path)
			}
		}
	}
	return bytes.Clone(d), nil
}
