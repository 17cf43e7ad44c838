package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// query is one bench/sparql/*.rq file.
type query struct {
	name    string // file name without .rq
	title   string // the first comment line
	text    string
	form    string // SELECT, ASK, CONSTRUCT or DESCRIBE
	ordered bool   // the answer's row order is part of the answer (ORDER BY)
}

var (
	// formRE finds the query form after the prologue and comments.
	formRE = regexp.MustCompile(`(?is)^(?:\s+|#[^\n]*\n|PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b`)
	// orderRE finds an ORDER BY of the outer query (the benchmark's
	// queries have no ORDER BY in a sub-query).
	orderRE = regexp.MustCompile(`(?i)\bORDER\s+BY\b`)
)

func loadQueries(dir string, only *regexp.Regexp) ([]query, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.rq"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []query
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".rq")
		if only != nil && !only.MatchString(name) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		q := query{name: name, text: string(b)}
		m := formRE.FindStringSubmatch(q.text)
		if m == nil {
			return nil, fmt.Errorf("%s: no SELECT, ASK, CONSTRUCT or DESCRIBE after the prologue", p)
		}
		q.form = strings.ToUpper(m[1])
		q.ordered = orderRE.MatchString(stripComments(q.text))
		for _, l := range strings.Split(q.text, "\n") {
			if t, ok := strings.CutPrefix(strings.TrimSpace(l), "#"); ok {
				q.title = strings.TrimSpace(t)
				break
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// stripComments drops # comments (outside IRIs and strings, roughly: a #
// after whitespace or at the start of a line).
func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// endpoint is a SPARQL endpoint over HTTP.
type endpoint struct {
	name     string
	url      string
	key      string // Bearer key (molgraph)
	virtuoso bool
	timeout  time.Duration // Virtuoso: sent as its timeout parameter
	client   *http.Client
	server   string // the Server header of the last answer
}

// errTimeout marks a query that ran past the timeout.
var errTimeout = errors.New("timeout")

// exec sends q (SPARQL 1.1 protocol, POST form) and reads the whole
// answer; took covers the request until the last byte.
func (e *endpoint) exec(ctx context.Context, q query) (ans *answer, took time.Duration, err error) {
	text := q.text
	if e.virtuoso && q.form == "DESCRIBE" {
		// DESCRIBE's answer is left to the implementation (SPARQL 1.1
		// section 16.4). molgraph answers the Concise Bounded Description;
		// Virtuoso does too when asked with this pragma (its default mode
		// answered only the triples pointing at the resource in our tests).
		text = "DEFINE sql:describe-mode \"CBD\"\n" + text
	}
	form := url.Values{"query": {text}}
	if e.virtuoso && e.timeout > 0 {
		// Virtuoso goes on computing a query whose client has gone; with
		// its timeout parameter it stops and answers what it has so far,
		// flagged in X-SQL-State (an "anytime" answer, reported below as a
		// timeout), so that a slow query does not load the next ones.
		form.Set("timeout", strconv.FormatInt(e.timeout.Milliseconds(), 10))
	}
	req, err := http.NewRequestWithContext(ctx, "POST", e.url, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if q.form == "SELECT" || q.form == "ASK" {
		req.Header.Set("Accept", "application/sparql-results+json")
	} else {
		req.Header.Set("Accept", "application/n-triples")
	}
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	t0 := time.Now()
	resp, err := e.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			return nil, time.Since(t0), errTimeout
		}
		return nil, time.Since(t0), err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took = time.Since(t0)
	e.server = strings.TrimSpace(resp.Header.Get("Server"))
	if err != nil {
		if isTimeout(err) {
			return nil, took, errTimeout
		}
		return nil, took, err
	}
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "timeout") {
			return nil, took, errTimeout
		}
		return nil, took, fmt.Errorf("HTTP %d: %s", resp.StatusCode, trim(body))
	}
	// Virtuoso cuts an answer at ResultSetMaxRows, or at its execution
	// time limit ("anytime" queries), and says so only in headers; the
	// benchmark's virtuoso.ini sets neither limit, but a reused endpoint
	// (-virtuoso) may.
	if h := resp.Header.Get("X-SPARQL-MaxRows"); h != "" {
		return nil, took, fmt.Errorf("the answer was cut at %s rows (X-SPARQL-MaxRows)", h)
	}
	if h := resp.Header.Get("X-SQL-State"); h != "" {
		if h == "S1TAT" {
			return nil, took, errTimeout
		}
		return nil, took, fmt.Errorf("a partial answer (X-SQL-State %s: %s)", h, resp.Header.Get("X-SQL-Message"))
	}
	ans, err = parseAnswer(resp.Header.Get("Content-Type"), body)
	return ans, took, err
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// storeResult is one store's figures for one query.
type storeResult struct {
	median time.Duration
	times  []time.Duration
	ans    *answer
	err    error
}

func (s storeResult) ok() bool { return s.err == nil && s.ans != nil }

// queryResult is one query's line of the report.
type queryResult struct {
	q        query
	mg, vt   storeResult
	mismatch string // "" when the answers agree
}

// benchQuery runs q on both stores: a warm-up (whose answer is the one
// compared), then runs timed runs; a store that fails or times out in the
// warm-up is not run again.
func benchQuery(ctx context.Context, q query, mg, vt *endpoint, runs int) queryResult {
	r := queryResult{q: q, mg: timeRuns(ctx, mg, q, runs), vt: timeRuns(ctx, vt, q, runs)}
	if r.mg.ok() && r.vt.ok() {
		r.mismatch = compareAnswers(r.mg.ans, r.vt.ans, q.ordered)
	}
	return r
}

func timeRuns(ctx context.Context, e *endpoint, q query, runs int) storeResult {
	var s storeResult
	s.ans, _, s.err = e.exec(ctx, q)
	if s.err != nil {
		return s
	}
	for range runs {
		_, took, err := e.exec(ctx, q)
		if err != nil {
			s.err = err
			return s
		}
		s.times = append(s.times, took)
	}
	sorted := slices.Clone(s.times)
	slices.Sort(sorted)
	if n := len(sorted); n%2 == 1 {
		s.median = sorted[n/2]
	} else {
		s.median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return s
}
