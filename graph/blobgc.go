package graph

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// CollectorOptions tune a BlobCollector.
type CollectorOptions struct {
	// Interval between collections (default 10 minutes; negative: only at
	// start and on Kick).
	Interval time.Duration
	// Grace is the age under which an unreferenced blob is kept (a commit
	// that will reference it may be on its way; default 1 hour).
	Grace time.Duration
	// KickDelay is how long after Kick a collection runs (default 2 s: the
	// job runner stores a job's end just after its task returns); a second
	// one runs 10 times KickDelay after Kick.
	KickDelay time.Duration
	// Logger receives what each collection removed (default: discard).
	Logger *slog.Logger
}

// BlobCollector collects the blobs of a store that the graph no longer
// needs (Blobs.Collect): once when started, every Interval, and soon after
// Kick. uses reads the graph's references to blobs (package graph does
// not know which predicates name blobs or when a job's spool is done).
type BlobCollector struct {
	blobs *Blobs
	uses  func(ctx context.Context) (BlobUses, error)
	opt   CollectorOptions

	mu     sync.Mutex // one collection at a time
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// NewBlobCollector returns a collector of blobs; call Start.
func NewBlobCollector(blobs *Blobs, uses func(ctx context.Context) (BlobUses, error), opt CollectorOptions) *BlobCollector {
	if opt.Interval == 0 {
		opt.Interval = 10 * time.Minute
	}
	if opt.Grace <= 0 {
		opt.Grace = time.Hour
	}
	if opt.KickDelay <= 0 {
		opt.KickDelay = 2 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &BlobCollector{blobs: blobs, uses: uses, opt: opt, kick: make(chan struct{}, 1)}
}

// Collect runs one collection now.
func (c *BlobCollector) Collect(ctx context.Context) (CollectStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	since := c.blobs.now()
	uses, err := c.uses(ctx)
	if err != nil {
		return CollectStats{}, err
	}
	st, err := c.blobs.Collect(ctx, uses, since, c.opt.Grace)
	if err != nil {
		c.opt.Logger.Error("blob collection failed", "error", err)
	} else if st.Blobs+st.Temps > 0 {
		c.opt.Logger.Info("blobs collected", "blobs", st.Blobs, "temporary_files", st.Temps, "bytes", st.Bytes, "kept", st.Kept)
	}
	return st, err
}

// Start runs a collection at once (it returns its error, and the
// collector keeps running) and then collects in the background until
// Close.
func (c *BlobCollector) Start() error {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel, c.done = cancel, make(chan struct{})
	_, err := c.Collect(ctx)
	go c.loop(ctx)
	return err
}

func (c *BlobCollector) loop(ctx context.Context) {
	defer close(c.done)
	var tick <-chan time.Time
	if c.opt.Interval > 0 {
		t := time.NewTicker(c.opt.Interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-c.kick:
			// Twice: after KickDelay, and again ten times later, in case
			// what the kick announced (a job's end) was stored late.
			for _, d := range []time.Duration{c.opt.KickDelay, 9 * c.opt.KickDelay} {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
				c.Collect(ctx)
			}
			continue
		}
		c.Collect(ctx)
	}
}

// Kick asks for a collection soon (after KickDelay); it never blocks.
func (c *BlobCollector) Kick() {
	if c == nil {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Close stops the background collections and waits for a running one.
func (c *BlobCollector) Close() {
	if c.cancel != nil {
		c.cancel()
		<-c.done
	}
}
