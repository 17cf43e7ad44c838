package handlers

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
)

// requestInfo travels in the request context from the outermost middleware
// inward; inner layers fill it for the access log.
type requestInfo struct {
	id    string
	key   *auth.Key
	err   error
	rec   *recorder
	start time.Time
}

type ctxKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(ctxKey{}).(*requestInfo)
	return info
}

// RequestID returns the request id of ctx ("" outside a request).
func RequestID(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.id
	}
	return ""
}

// KeyFrom returns the authenticated key of ctx, if any.
func KeyFrom(ctx context.Context) (auth.Key, bool) {
	if info := infoFrom(ctx); info != nil && info.key != nil {
		return *info.key, true
	}
	return auth.Key{}, false
}

// recorder captures the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (rw *recorder) WriteHeader(code int) {
	if !rw.wroteHeader && code >= 200 {
		rw.status, rw.wroteHeader = code, true
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if !rw.wroteHeader {
		rw.status, rw.wroteHeader = http.StatusOK, true
	}
	n, err := rw.ResponseWriter.Write(b)
	rw.bytes += int64(n)
	return n, err
}

// Flush lets streaming handlers flush through the recorder.
func (rw *recorder) Flush() {
	if !rw.wroteHeader {
		rw.status, rw.wroteHeader = http.StatusOK, true
	}
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// maxRequestIDLen bounds an accepted X-Request-Id.
const maxRequestIDLen = 128

// validRequestID accepts 1..128 characters of [A-Za-z0-9._~:+/=-]; anything
// else is replaced so that logs never carry attacker-chosen control text.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			strings.IndexByte("._~:+/=-", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [10]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go >= 1.24)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// withRequestInfo assigns the request id (X-Request-Id in and out) and
// sets up the recorder.
func (s *Server) withRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		info := &requestInfo{id: id, rec: rec, start: time.Now()}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
	})
}

// accessLog writes one structured log line per request and updates the
// metrics. It logs from a defer so that aborted responses are logged too.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoFrom(r.Context())
		s.metrics.inFlight.Inc()
		defer func() {
			s.metrics.inFlight.Dec()
			route := "unmatched"
			if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePattern() != "" {
				route = rctx.RoutePattern()
			}
			elapsed := time.Since(info.start)
			s.metrics.observe(r.Method, route, info.rec.status, elapsed)
			level := slog.LevelInfo
			if info.rec.status >= 500 {
				level = slog.LevelError
			}
			attrs := []slog.Attr{
				slog.String("request_id", info.id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", info.rec.status),
				slog.Int64("bytes", info.rec.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.String("remote", r.RemoteAddr),
			}
			if info.key != nil {
				attrs = append(attrs, slog.String("key_id", info.key.ID))
			}
			if info.err != nil {
				attrs = append(attrs, slog.String("error", info.err.Error()))
			}
			s.log.LogAttrs(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a logged 500 problem. http.ErrAbortHandler
// (a deliberate abort) passes through.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.LogAttrs(r.Context(), slog.LevelError, "panic",
				slog.String("request_id", RequestID(r.Context())),
				slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
			s.fail(w, r, fmt.Errorf("panic: %v", v))
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody rejects bodies over MaxBodyBytes: at once when Content-Length
// says so, else when reading passes the limit.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.fail(w, r, fmt.Errorf("%w: %d bytes declared, at most %d allowed", ErrBodyTooLarge, r.ContentLength, s.cfg.MaxBodyBytes))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// authenticateV1 requires a valid key for every path under /v1, before
// routing: an unknown /v1 path without a key is 401, not 404.
func (s *Server) authenticateV1(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isV1(r.URL.Path) {
			if _, err := s.authenticate(r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate returns the request's key, checking the Authorization
// header once per request.
func (s *Server) authenticate(r *http.Request) (auth.Key, error) {
	info := infoFrom(r.Context())
	if info != nil && info.key != nil {
		return *info.key, nil
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return auth.Key{}, ErrUnauthorized
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return auth.Key{}, fmt.Errorf("%w: authorization header is not \"Bearer <key>\"", auth.ErrUnauthenticated)
	}
	key, err := s.cfg.Keys.Authenticate(strings.TrimSpace(token))
	if err != nil {
		return auth.Key{}, err
	}
	if info != nil {
		info.key = &key
	}
	return key, nil
}
