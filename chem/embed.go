package chem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// 3D embedding (ETKDGv3 + MMFF94) is the only chemistry whose cost is not
// bounded by the registration limits: for a 999-carbon chain it ran for
// minutes, grew the process past 4 GB and cannot be interrupted inside
// RDKit. So it is bounded three ways before and while it runs:
//
//   - a budget checked before any work (Pool.Check3D): heavy atoms and
//     rotatable bonds. PubChem3D generates conformers only for molecules
//     with at most 50 non-hydrogen atoms and 15 rotatable bonds (Bolton et
//     al., J. Cheminform. 2011, 3:32); our defaults, 100 and 30, keep every
//     drug-like docking ligand (imatinib: 37 and 7) with room to spare;
//   - RDKit's own bounds: at most MaxAttempts ETKDG attempts (one
//     EmbedMolecule call with maxIterations 1 each) and MMFFMaxIters
//     MMFF94 iterations;
//   - a wall-time limit, Timeout.
//
// Embedding runs apart from the registration workers, so registrations
// never wait behind it, on Workers slots of one of two kinds:
//
//   - threads (the library default, EmbedOptions.Helper nil): OS-locked
//     goroutines of this process. RDKit cannot be interrupted, but
//     mg_embed reads a stop flag between ETKDG attempts, so a cancelled or
//     over-time embedding gives its thread back after the attempt, or the
//     MMFF94 minimization (at most MMFFMaxIters iterations), in progress;
//   - helper processes (Helper set; what "molgraph serve" uses): the binary
//     re-executed (RunEmbedHelper), one per slot, serving embedding after
//     embedding over pipes; a helper whose caller leaves or whose time is up
//     is killed, and the next embedding starts a new one. Each has an
//     address-space limit (RLIMIT_AS) and a parent-death signal.
//
// Measured (TestEmbedThreadsRelease, TestEmbedCapacityFreed,
// BenchmarkEmbed*; load average 6-16 on 2 cores, other builds running):
// one ETKDG attempt is not bounded by the budget: a 100-membered carbon
// ring (100 heavy atoms, no rotatable bond) spends ~4.6 s in one attempt,
// so a thread slot stayed busy 4.6 s after its caller left at 200 ms, while
// the helper's slot was free 9 ms after; for a 300-carbon chain (a raised
// budget) a thread stayed busy 74 s, the helper's slot 14 ms. Per-request
// overhead of a running helper: none measurable (ethanol 1.70 ms per
// embedding through the helper, 1.77 ms on a thread); starting a helper
// and its first embedding: 61 ms. An idle helper maps 1.3 GB (Go runtime
// and jemalloc reservations) with 30 MB resident; RLIMIT_AS is that plus
// HelperMemoryBytes. Hence the helper for the service, threads where no
// helper binary exists (other packages' tests, tools).

// Embedding defaults (EmbedOptions' zero values mean these).
const (
	DefaultMax3DHeavyAtoms     = 100
	DefaultMax3DRotatableBonds = 30
	DefaultEmbedAttempts       = 200
	DefaultMMFFMaxIters        = 2000
	DefaultEmbedTimeout        = 20 * time.Second
	DefaultHelperMemoryBytes   = 1 << 30
)

// embedSeed is the fixed seed of the first ETKDG attempt (reproducible
// conformers).
const embedSeed = 0x5eed

// Errors of 3D embedding.
var (
	// ErrTooLargeFor3D is wrapped by *TooLargeFor3DError: the molecule is
	// over the 3D budget, and nothing was computed.
	ErrTooLargeFor3D = errors.New("too large for 3D embedding")
	// ErrEmbedTimeout: the embedding ran past EmbedOptions.Timeout and was
	// stopped. It does not wrap context.DeadlineExceeded: the caller's own
	// deadline is reported as that.
	ErrEmbedTimeout = errors.New("3D embedding timed out")
)

// TooLargeFor3DError names the 3D limit a molecule is over.
type TooLargeFor3DError struct {
	What  string // "heavy atoms" or "rotatable bonds"
	Count int
	Limit int
}

func (e *TooLargeFor3DError) Error() string {
	return fmt.Sprintf("%v: %d %s, more than the %d a molecule may have for a 3D structure",
		ErrTooLargeFor3D, e.Count, e.What, e.Limit)
}

// Unwrap makes errors.Is(err, ErrTooLargeFor3D) true.
func (e *TooLargeFor3DError) Unwrap() error { return ErrTooLargeFor3D }

// EmbedOptions bound 3D embedding; zero fields take the defaults above.
type EmbedOptions struct {
	// MaxHeavyAtoms and MaxRotatableBonds (RDKit's strict definition, as
	// Result.RotatableBonds) are the budget checked before any work.
	MaxHeavyAtoms     int
	MaxRotatableBonds int
	// MaxAttempts bounds the ETKDG attempts (RDKit's maxIterations), the
	// second half of them from random coordinates.
	MaxAttempts int
	// MMFFMaxIters bounds the MMFF94 optimisation (RDKit's maxIters).
	MMFFMaxIters int
	// Timeout bounds the wall time of one embedding, waiting for a slot
	// not included.
	Timeout time.Duration
	// Workers is the number of embeddings that run at once
	// (runtime.GOMAXPROCS(0) if <= 0); more callers wait for a slot as
	// long as their context allows.
	Workers int
	// Helper, if set, makes the command of a helper process (the binary
	// itself, which must call RunEmbedHelper for it): each embedding then
	// runs in its own process, killed when cancelled or over time.
	Helper func() *exec.Cmd
	// HelperMemoryBytes is the address space a helper may map beyond what
	// it has mapped when it starts: its RLIMIT_AS is the sum. (An idle
	// helper maps ~1.3 GB, mostly the Go runtime's and jemalloc's
	// reservations, of which ~30 MB are resident.)
	HelperMemoryBytes int64
}

func (o EmbedOptions) withDefaults() EmbedOptions {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxHeavyAtoms, DefaultMax3DHeavyAtoms)
	def(&o.MaxRotatableBonds, DefaultMax3DRotatableBonds)
	def(&o.MaxAttempts, DefaultEmbedAttempts)
	def(&o.MMFFMaxIters, DefaultMMFFMaxIters)
	def(&o.Workers, runtime.GOMAXPROCS(0))
	if o.Timeout <= 0 {
		o.Timeout = DefaultEmbedTimeout
	}
	if o.HelperMemoryBytes <= 0 {
		o.HelperMemoryBytes = DefaultHelperMemoryBytes
	}
	return o
}

// EmbedStats counts embeddings since the Pool started.
type EmbedStats struct {
	Started   int64 // embeddings begun (each ran ETKDG at least once unless stopped first)
	Embedded  int64 // gave 3D coordinates
	Failed    int64 // no coordinates within the attempts, or an error
	Refused   int64 // over the budget (Check3D), nothing computed
	TimedOut  int64 // stopped at Timeout
	Cancelled int64 // stopped because the caller's context ended
	Running   int64 // running now
}

type embedCounters struct {
	started, embedded, failed, refused, timedOut, cancelled, running atomic.Int64
}

// EmbedStats returns the embedding counters.
func (p *Pool) EmbedStats() EmbedStats {
	c := &p.embedCount
	return EmbedStats{Started: c.started.Load(), Embedded: c.embedded.Load(), Failed: c.failed.Load(),
		Refused: c.refused.Load(), TimedOut: c.timedOut.Load(), Cancelled: c.cancelled.Load(), Running: c.running.Load()}
}

// EmbedLimits returns the 3D limits in force (defaults filled in).
func (p *Pool) EmbedLimits() EmbedOptions { return p.embedOpts }

// Check3D returns a *TooLargeFor3DError if a molecule with these counts is
// over the 3D budget. It costs nothing: callers with a stored record check
// before any chemistry.
func (p *Pool) Check3D(heavyAtoms, rotatableBonds int) error {
	o := p.embedOpts
	var err error
	switch {
	case heavyAtoms > o.MaxHeavyAtoms:
		err = &TooLargeFor3DError{What: "heavy atoms", Count: heavyAtoms, Limit: o.MaxHeavyAtoms}
	case rotatableBonds > o.MaxRotatableBonds:
		err = &TooLargeFor3DError{What: "rotatable bonds", Count: rotatableBonds, Limit: o.MaxRotatableBonds}
	}
	if err != nil {
		p.embedCount.refused.Add(1)
	}
	return err
}

// timeoutCause marks the end of an embedding's own wall-time limit.
var errTimeoutCause = errors.New("embedding wall-time limit")

// embed3D embeds the molecule of a canonical SMILES within the limits.
// Errors: ErrEmbedTimeout, the context's error, ErrPoolClosed.
func (p *Pool) embed3D(ctx context.Context, smiles string) (embedded, error) {
	o := p.embedOpts
	tctx, cancel := context.WithTimeoutCause(ctx, o.Timeout, errTimeoutCause)
	defer cancel()
	c := &p.embedCount
	params := embedParams{MaxAttempts: o.MaxAttempts, MMFFMaxIters: o.MMFFMaxIters, Seed: embedSeed, MaxHeavyAtoms: o.MaxHeavyAtoms}
	r, err := p.embedder.run(tctx, smiles, params, func() { c.started.Add(1); c.running.Add(1) })
	switch {
	case err == nil:
	case errors.Is(context.Cause(tctx), errTimeoutCause) && ctx.Err() == nil:
		c.timedOut.Add(1)
		return r, fmt.Errorf("chem: embed %s: %w after %v", smiles, ErrEmbedTimeout, o.Timeout)
	case ctx.Err() != nil:
		c.cancelled.Add(1)
		return r, fmt.Errorf("chem: embed %s: %w", smiles, ctx.Err())
	default:
		return r, err
	}
	if r.Status == embedOK {
		c.embedded.Add(1)
	} else {
		c.failed.Add(1)
	}
	return r, nil
}

// embedder runs mg_embed on one of a bounded number of slots. run waits
// for a slot while ctx allows, calls begin when the embedding starts, and
// returns ctx.Err() once the embedding has stopped if ctx ends first.
type embedder interface {
	run(ctx context.Context, smiles string, p embedParams, begin func()) (embedded, error)
	close()
}

// threadEmbedder runs embeddings on its own OS-locked threads.
type threadEmbedder struct {
	jobs    chan embedJob
	quit    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	running *atomic.Int64
}

type embedJob struct {
	smiles string
	p      embedParams
	stop   stopFlag
	begin  func()
	reply  chan embedded
}

func newThreadEmbedder(n int, running *atomic.Int64) *threadEmbedder {
	e := &threadEmbedder{jobs: make(chan embedJob), quit: make(chan struct{}), running: running}
	for i := 0; i < n; i++ {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			// Never unlocked: the thread ends with the goroutine.
			runtime.LockOSThread()
			for {
				select {
				case j := <-e.jobs:
					j.begin()
					r := embed(j.smiles, j.p, j.stop)
					e.running.Add(-1)
					j.reply <- r
				case <-e.quit:
					return
				}
			}
		}()
	}
	return e
}

func (e *threadEmbedder) run(ctx context.Context, smiles string, p embedParams, begin func()) (embedded, error) {
	// MMFF94 runs in one call on threads too, so a stop waits for it
	// (bounded by MMFFMaxIters). Chunks would let the stop flag be read
	// between them, but each chunk restarts BFGS from the identity Hessian
	// and ends elsewhere: with chunks of 200 the imatinib conformer of
	// TestDocking1iepEndToEnd docked 12.2 A from the crystal pose at
	// -9.7 kcal/mol; minimized in one call, 0.8 A at -12.4.
	j := embedJob{smiles: smiles, p: p, stop: newStopFlag(), begin: begin, reply: make(chan embedded, 1)}
	select {
	case e.jobs <- j:
	case <-ctx.Done():
		j.stop.free()
		return embedded{}, ctx.Err()
	case <-e.quit:
		j.stop.free()
		return embedded{}, ErrPoolClosed
	}
	select {
	case r := <-j.reply:
		j.stop.free()
		return r, nil
	case <-ctx.Done():
		// mg_embed looks at the flag after each ETKDG attempt and MMFF
		// chunk; waiting for it means the slot is free when we return,
		// and the flag's memory is no longer read.
		j.stop.set()
		<-j.reply
		j.stop.free()
		return embedded{}, ctx.Err()
	}
}

func (e *threadEmbedder) close() {
	e.once.Do(func() { close(e.quit) })
	e.wg.Wait()
}

// procEmbedder runs embeddings in helper processes, one per slot, each
// serving one embedding after another over its stdin and stdout (JSON
// lines). A helper whose caller goes away or whose time is up is killed,
// which frees its slot at once; the slot starts a new helper when next
// used. Every helper is started by one OS-locked goroutine that lives as
// long as the embedder, so their parent-death signal (which fires when the
// forking thread exits) fires only when we are gone.
type procEmbedder struct {
	slots   chan *helperProc // Workers entries; nil: no helper started yet
	command func() *exec.Cmd
	memory  int64
	running *atomic.Int64
	spawn   chan chan helperStart
	quit    chan struct{}
	once    sync.Once
	spawner sync.WaitGroup
	started atomic.Int64 // helper processes started
}

type helperProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *capped
	exited chan struct{} // closed when the process is reaped
}

// vmSize reads the process's mapped address space (VmSize), in bytes.
func vmSize() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}

// helperRequest is one line a helper reads.
type helperRequest struct {
	SMILES      string      `json:"smiles"`
	Params      embedParams `json:"params"`
	MemoryBytes int64       `json:"memory_bytes"`
}

type helperStart struct {
	h   *helperProc
	err error
}

func newProcEmbedder(n int, command func() *exec.Cmd, memory int64, running *atomic.Int64) *procEmbedder {
	e := &procEmbedder{slots: make(chan *helperProc, n), command: command, memory: memory, running: running,
		spawn: make(chan chan helperStart), quit: make(chan struct{})}
	for i := 0; i < n; i++ {
		e.slots <- nil
	}
	e.spawner.Add(1)
	go func() {
		defer e.spawner.Done()
		// Never unlocked: the helpers' parent-death signal is tied to this
		// thread, which ends with this goroutine (at close).
		runtime.LockOSThread()
		for {
			select {
			case reply := <-e.spawn:
				h, err := e.start()
				reply <- helperStart{h, err}
			case <-e.quit:
				return
			}
		}
	}()
	return e
}

// start runs on the spawner's thread.
func (e *procEmbedder) start() (*helperProc, error) {
	cmd := e.command()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	h := &helperProc{cmd: cmd, stderr: &capped{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = h.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e.started.Add(1)
	h.stdin, h.stdout = in, bufio.NewReaderSize(out, 64<<10)
	go func() {
		cmd.Wait() //nolint:errcheck // a helper's exit is seen as EOF on stdout
		close(h.exited)
	}()
	return h, nil
}

// kill ends a helper and waits until it is reaped.
func (h *helperProc) kill() {
	h.cmd.Process.Kill() //nolint:errcheck // it may have exited meanwhile
	<-h.exited
}

func (e *procEmbedder) run(ctx context.Context, smiles string, p embedParams, begin func()) (embedded, error) {
	var h *helperProc
	select {
	case h = <-e.slots:
	case <-ctx.Done():
		return embedded{}, ctx.Err()
	case <-e.quit:
		return embedded{}, ErrPoolClosed
	}
	defer func() { e.slots <- h }()
	if h != nil {
		select {
		case <-h.exited:
			h = nil
		default:
		}
	}
	if h == nil {
		reply := make(chan helperStart, 1)
		select {
		case e.spawn <- reply:
		case <-e.quit:
			return embedded{}, ErrPoolClosed
		}
		st := <-reply
		if st.err != nil {
			return embedded{Status: embedError, Error: "start 3D helper: " + st.err.Error()}, nil
		}
		h = st.h
	}
	req, err := json.Marshal(helperRequest{SMILES: smiles, Params: p, MemoryBytes: e.memory})
	if err != nil {
		return embedded{}, err
	}
	begin()
	defer e.running.Add(-1)
	type answer struct {
		line []byte
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		if _, err := h.stdin.Write(append(req, '\n')); err != nil {
			got <- answer{nil, err}
			return
		}
		line, err := h.stdout.ReadBytes('\n')
		got <- answer{line, err}
	}()
	select {
	case a := <-got:
		var r embedded
		if a.err == nil {
			a.err = json.Unmarshal(a.line, &r)
		}
		if a.err != nil {
			h.kill()
			msg := fmt.Sprintf("3D helper: %v: %s", a.err, printable(h.stderr.String()))
			h = nil
			return embedded{Status: embedError, Error: msg}, nil
		}
		return r, nil
	case <-ctx.Done():
		h.kill()
		<-got // the pipes closed with the process
		h = nil
		return embedded{}, ctx.Err()
	}
}

// close kills the idle helpers; the others die with the spawner's thread
// (their parent-death signal) or are killed by their caller.
func (e *procEmbedder) close() {
	e.once.Do(func() {
		close(e.quit)
		e.spawner.Wait()
		for {
			select {
			case h := <-e.slots:
				if h != nil {
					h.kill()
				}
			default:
				return
			}
		}
	})
}

// capped is a bytes.Buffer that keeps at most max bytes.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room < len(p) {
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// RunEmbedHelper is the body of a 3D helper process (EmbedOptions.Helper):
// it reads requests from r (JSON lines), embeds each and writes the result
// to w (JSON lines) until r ends. The first request's memory limit becomes
// its RLIMIT_AS. cmd/molgraph runs it as the hidden subcommand
// "chem-embed-helper"; test binaries run it from TestMain.
func RunEmbedHelper(r io.Reader, w io.Writer) error {
	runtime.LockOSThread()
	initRDKit()
	dec := json.NewDecoder(bufio.NewReader(r))
	enc := json.NewEncoder(w)
	limited := false
	for {
		var req helperRequest
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("chem: embed helper: read request: %w", err)
		}
		if !limited && req.MemoryBytes > 0 {
			size, err := vmSize()
			if err != nil {
				return fmt.Errorf("chem: embed helper: %w", err)
			}
			lim := syscall.Rlimit{Cur: uint64(size + req.MemoryBytes), Max: uint64(size + req.MemoryBytes)}
			if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
				return fmt.Errorf("chem: embed helper: RLIMIT_AS: %w", err)
			}
			limited = true
		}
		if err := enc.Encode(embed(req.SMILES, req.Params, stopFlag{})); err != nil {
			return err
		}
	}
}
