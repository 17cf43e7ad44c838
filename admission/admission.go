package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Errors of admission; a refusal is a *Rejection that matches one of them.
var (
	// ErrRateLimited: the API key's token bucket is empty (HTTP 429).
	ErrRateLimited = errors.New("rate limit exceeded")
	// ErrBusy: the request's class has as many requests in flight and
	// waiting as allowed (HTTP 503).
	ErrBusy = errors.New("capacity full")
	// ErrInvalid: a Limits value is out of range.
	ErrInvalid = errors.New("invalid admission limits")
)

// Class names the kind of work a route does, by the resource it holds
// while it runs; each capped class has its own limit on requests in flight.
type Class string

// The route classes. Light routes (record reads, keys, operations) are not
// capped; their cost is bounded by the per-key rate.
const (
	Light    Class = "light"
	SPARQL   Class = "sparql"   // SPARQL queries
	GraphQL  Class = "graphql"  // GraphQL queries
	Chem     Class = "chem"     // RDKit on the request path: molecule registration, structures
	Upload   Class = "upload"   // batch uploads, spooled to disk before their job is queued
	QM       Class = "qm"       // quantum-chemistry log parsing
	Receptor Class = "receptor" // receptor preparation (pdb2pqr, Open Babel subprocesses)
	Docking  Class = "docking"  // docking-job submission (checks up to 10,000 ligands)
	Export   Class = "export"   // full dumps of the graph
)

// Capped returns the classes that may have a cap, in documentation order.
func Capped() []Class {
	return []Class{SPARQL, GraphQL, Chem, Upload, QM, Receptor, Docking, Export}
}

// Valid reports whether c is Light or one of Capped.
func (c Class) Valid() bool { return c == Light || slices.Contains(Capped(), c) }

// Limits configure a Controller. The zero value admits everything.
type Limits struct {
	// Rate is the sustained requests per second of one API key; 0 turns
	// the token buckets off.
	Rate float64
	// Burst is the size of a key's bucket: how many requests a key that
	// has been quiet may send at once (default: 2 s worth of Rate, at
	// least 1).
	Burst int
	// InFlight caps the requests of each class served at once; a class
	// that is absent (or 0) is not capped.
	InFlight map[Class]int
	// Wait is how long a request of a full class waits for a place before
	// it is refused (0: refused at once). At most WaitingFactor × its cap
	// wait at a time; the others are refused at once.
	Wait time.Duration
	// Now returns the time (default time.Now), for tests of the buckets.
	Now func() time.Time
}

// WaitingFactor × a class's cap is how many requests may wait for it.
const WaitingFactor = 4

// DefaultLimits are the generous defaults of "molgraph serve": far above
// what one well-behaved client sends (a 64-client load run on two cores
// stays below them), low enough that one key or one kind of request
// cannot take the service.
func DefaultLimits() Limits {
	return Limits{
		Rate:  200,
		Burst: 400,
		InFlight: map[Class]int{
			SPARQL: 8, GraphQL: 8, Chem: 32, Upload: 8, QM: 4, Receptor: 2, Docking: 8, Export: 2,
		},
		Wait: 2 * time.Second,
	}
}

// Controller admits requests; it is safe for concurrent use.
type Controller struct {
	limits  Limits
	buckets *buckets // nil without a rate limit
	gates   map[Class]*gate
}

// New returns a Controller for l. It fails with ErrInvalid for a negative
// or non-finite rate, a negative burst, cap or wait, or an unknown class.
func New(l Limits) (*Controller, error) {
	if l.Rate < 0 || math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Burst < 0 || l.Wait < 0 {
		return nil, fmt.Errorf("admission: %w: rate %v, burst %d, wait %v", ErrInvalid, l.Rate, l.Burst, l.Wait)
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	c := &Controller{gates: map[Class]*gate{}}
	inFlight := map[Class]int{}
	for cl, n := range l.InFlight {
		if !slices.Contains(Capped(), cl) || n < 0 {
			return nil, fmt.Errorf("admission: %w: %d in flight for class %q", ErrInvalid, n, cl)
		}
		if n > 0 {
			inFlight[cl] = n
			c.gates[cl] = &gate{class: cl, slots: make(chan struct{}, n), maxWaiting: int64(WaitingFactor * n)}
		}
	}
	l.InFlight = inFlight
	if l.Rate > 0 {
		if l.Burst == 0 {
			l.Burst = max(1, int(math.Ceil(2*l.Rate)))
		}
		c.buckets = &buckets{rate: rate.Limit(l.Rate), burst: l.Burst, now: l.Now, m: map[string]*rate.Limiter{}}
	} else {
		l.Burst = 0
	}
	c.limits = l
	return c, nil
}

// Limits returns the limits in force (defaults filled in, Now cleared).
func (c *Controller) Limits() Limits {
	l := c.limits
	l.Now = nil
	l.InFlight = make(map[Class]int, len(c.limits.InFlight))
	for k, v := range c.limits.InFlight {
		l.InFlight[k] = v
	}
	return l
}

// Rejection is a refused request: why, and when to come back.
type Rejection struct {
	// Err is ErrRateLimited or ErrBusy.
	Err error
	// Class is the request's class (for ErrBusy).
	Class Class
	// Reason is a metrics label: "rate", "class_full" (the waiting line
	// was full), "wait_timeout" (it waited Limits.Wait in vain) or
	// "key_share" (the key held its share of the class's places).
	Reason string
	// RetryAfter is when a retry may succeed (at least one second).
	RetryAfter time.Duration
	// Quota is the key's bucket after the refusal (for ErrRateLimited).
	Quota *Quota
	limit int           // the class's cap
	wait  time.Duration // how long the request waited
}

func (r *Rejection) Error() string {
	secs := Seconds(r.RetryAfter)
	if errors.Is(r.Err, ErrRateLimited) && r.Quota != nil {
		return fmt.Sprintf("%v: this API key may send %s requests per second with bursts of %d; retry in %d s",
			r.Err, strconv.FormatFloat(r.Quota.Rate, 'f', -1, 64), r.Quota.Limit, secs)
	}
	if r.Reason == "key_share" {
		return fmt.Sprintf("%v: this API key holds %d of the %d places of %s requests, the most one key may; retry in %d s",
			r.Err, KeyShare(r.limit), r.limit, r.Class, secs)
	}
	if r.Reason == "wait_timeout" {
		return fmt.Sprintf("%v: waited %v for one of the %d places of %s requests; retry in %d s",
			r.Err, r.wait, r.limit, r.Class, secs)
	}
	return fmt.Sprintf("%v: %d %s requests are in flight, the most this service runs at once, and %d more are waiting; retry in %d s",
		r.Err, r.limit, r.Class, WaitingFactor*r.limit, secs)
}

// Unwrap returns Err.
func (r *Rejection) Unwrap() error { return r.Err }

// Seconds rounds d up to whole seconds, at least 1: the delay-seconds of
// Retry-After and of the draft's "t" parameter.
func Seconds(d time.Duration) int64 {
	s := int64(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// Quota is the state of one key's token bucket, in the terms of the IETF
// draft: a quota of Limit requests per Window, Remaining of them left,
// more available in Reset.
type Quota struct {
	// Rate is the sustained requests per second.
	Rate float64
	// Limit is the bucket size (the draft's q) and Window the time it takes
	// to refill from empty (the draft's w, whole seconds).
	Limit  int
	Window time.Duration
	// Remaining is the whole tokens left (the draft's r).
	Remaining int
	// Reset is the time until the next token (the draft's t; 0 when the
	// bucket is full).
	Reset time.Duration
}

// PolicyName is the quota policy's name in the RateLimit fields.
const PolicyName = "key"

// PolicyHeader is the RateLimit-Policy field value, e.g.
// `"key";q=400;w=2` (an sf-String item with the quota and window
// parameters).
func (q Quota) PolicyHeader() string {
	return fmt.Sprintf(`"%s";q=%d;w=%d`, PolicyName, q.Limit, Seconds(q.Window))
}

// Header is the RateLimit field value, e.g. `"key";r=399;t=1`.
func (q Quota) Header() string {
	t := int64(0)
	if q.Reset > 0 {
		t = Seconds(q.Reset)
	}
	return fmt.Sprintf(`"%s";r=%d;t=%d`, PolicyName, q.Remaining, t)
}

// Allow takes one token from key's bucket. It returns the bucket's state
// (ok false without a rate limit), or a *Rejection (ErrRateLimited) when
// the bucket is empty.
func (c *Controller) Allow(key string) (q Quota, ok bool, err error) {
	if c.buckets == nil {
		return Quota{}, false, nil
	}
	q, allowed := c.buckets.take(key)
	if !allowed {
		return q, true, &Rejection{Err: ErrRateLimited, Reason: "rate", RetryAfter: q.Reset, Quota: &q}
	}
	return q, true, nil
}

// buckets are the token buckets of the keys seen recently.
type buckets struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	m         map[string]*rate.Limiter
	lastSweep time.Time
}

// sweepEvery is how often full buckets are dropped: a full bucket is the
// same as a new one, so dropping it changes nothing but memory.
const sweepEvery = time.Minute

func (b *buckets) take(key string) (Quota, bool) {
	now := b.now()
	b.mu.Lock()
	if now.Sub(b.lastSweep) > sweepEvery {
		for k, l := range b.m {
			if l.TokensAt(now) >= float64(b.burst) {
				delete(b.m, k)
			}
		}
		b.lastSweep = now
	}
	l := b.m[key]
	if l == nil {
		l = rate.NewLimiter(b.rate, b.burst)
		b.m[key] = l
	}
	b.mu.Unlock()
	allowed := l.AllowN(now, 1)
	tokens := max(l.TokensAt(now), 0)
	q := Quota{Rate: float64(b.rate), Limit: b.burst,
		Window:    time.Duration(float64(b.burst) / float64(b.rate) * float64(time.Second)),
		Remaining: int(math.Floor(tokens))}
	if tokens < float64(b.burst) {
		// The next whole token: (1 - fractional part) / rate seconds away.
		q.Reset = time.Duration((1 - (tokens - math.Floor(tokens))) / float64(b.rate) * float64(time.Second))
	}
	return q, allowed
}

// Acquire waits for a place in class's cap (Light and uncapped classes
// always have one) for a request of key ("" for none). One key holds at
// most KeyShare of a class's places, so that one client's slow queries
// cannot take them all. It returns the function that gives the place back
// (safe to call twice), or a *Rejection (ErrBusy), or ctx's error if ctx
// ends while it waits.
func (c *Controller) Acquire(ctx context.Context, class Class, key string) (release func(), err error) {
	g := c.gates[class]
	if g == nil {
		return func() {}, nil
	}
	return g.acquire(ctx, c.limits.Wait, key)
}

// KeyShare is the places of a class one key may hold: half, rounded up (a
// class capped at 1 is all one key's).
func KeyShare(n int) int { return (n + 1) / 2 }

// InFlight returns how many requests of class hold a place now.
func (c *Controller) InFlight(class Class) int {
	if g := c.gates[class]; g != nil {
		return len(g.slots)
	}
	return 0
}

// Waiting returns how many requests of class wait for a place now.
func (c *Controller) Waiting(class Class) int {
	if g := c.gates[class]; g != nil {
		return int(g.waiting.Load())
	}
	return 0
}

// gate is the cap of one class. Buffered channels are the semaphores (a
// send takes a place, a receive gives it back), which gives timed waits
// through select: one for the class, one per key holding places (its
// share); the waiting line is bounded by a counter.
type gate struct {
	class      Class
	slots      chan struct{}
	waiting    atomic.Int64
	maxWaiting int64

	mu   sync.Mutex
	keys map[string]*keySlots // keys that hold or wait for places
}

// keySlots is one key's share of a class; refs counts the requests that
// use it, so that it is dropped when the key has none.
type keySlots struct {
	ch   chan struct{}
	refs int
}

func (g *gate) ref(key string) *keySlots {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.keys == nil {
		g.keys = map[string]*keySlots{}
	}
	ks := g.keys[key]
	if ks == nil {
		ks = &keySlots{ch: make(chan struct{}, KeyShare(cap(g.slots)))}
		g.keys[key] = ks
	}
	ks.refs++
	return ks
}

func (g *gate) unref(key string, ks *keySlots) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ks.refs--; ks.refs == 0 {
		delete(g.keys, key)
	}
}

func (g *gate) acquire(ctx context.Context, wait time.Duration, key string) (func(), error) {
	var ks *keySlots
	if key != "" && KeyShare(cap(g.slots)) < cap(g.slots) {
		ks = g.ref(key)
	}
	gotKey := false
	done := func() {
		if ks != nil {
			if gotKey {
				<-ks.ch
			}
			g.unref(key, ks)
		}
	}
	release := func() {
		<-g.slots
		done()
	}
	// Without waiting, if both places are free.
	if ks != nil {
		select {
		case ks.ch <- struct{}{}:
			gotKey = true
		default:
		}
	}
	if ks == nil || gotKey {
		select {
		case g.slots <- struct{}{}:
			return sync.OnceFunc(release), nil
		default:
		}
	}
	reason := "class_full"
	if ks != nil && !gotKey {
		reason = "key_share"
	}
	retry := max(wait, time.Second)
	if wait <= 0 || g.waiting.Add(1) > g.maxWaiting {
		if wait > 0 {
			g.waiting.Add(-1)
		}
		done()
		return nil, g.reject(reason, retry, 0)
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(wait)
	defer t.Stop()
	if ks != nil && !gotKey {
		select {
		case ks.ch <- struct{}{}:
			gotKey = true
		case <-t.C:
			done()
			return nil, g.reject("key_share", retry, wait)
		case <-ctx.Done():
			done()
			return nil, fmt.Errorf("admission: waiting for a %s place: %w", g.class, context.Cause(ctx))
		}
	}
	select {
	case g.slots <- struct{}{}:
		return sync.OnceFunc(release), nil
	case <-t.C:
		done()
		return nil, g.reject("wait_timeout", retry, wait)
	case <-ctx.Done():
		done()
		return nil, fmt.Errorf("admission: waiting for a %s place: %w", g.class, context.Cause(ctx))
	}
}

func (g *gate) reject(reason string, retry, waited time.Duration) *Rejection {
	return &Rejection{Err: ErrBusy, Class: g.class, Reason: reason, RetryAfter: retry, limit: cap(g.slots), wait: waited}
}

// ParseInFlight parses a list of class caps such as "sparql=8,chem=32"
// (the --max-in-flight flag); a class it does not name keeps its value in
// base. It fails with ErrInvalid naming the bad entry.
func ParseInFlight(s string, base map[Class]int) (map[Class]int, error) {
	out := make(map[Class]int, len(base))
	for k, v := range base {
		out[k] = v
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		cl := Class(strings.ToLower(strings.TrimSpace(name)))
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if !ok || err != nil || n < 0 || !slices.Contains(Capped(), cl) {
			return nil, fmt.Errorf("admission: %w: %q is not CLASS=N with CLASS one of %s and N >= 0 (0: no cap)",
				ErrInvalid, part, joinClasses(Capped()))
		}
		out[cl] = n
	}
	return out, nil
}

// FormatInFlight is the inverse of ParseInFlight, in Capped order.
func FormatInFlight(m map[Class]int) string {
	var parts []string
	for _, c := range Capped() {
		if n, ok := m[c]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", c, n))
		}
	}
	return strings.Join(parts, ",")
}

func joinClasses(cs []Class) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}
