package jsq

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/cayleygraph/quad"
)

// token makes s safe as one subject token (letters, digits, '-', '_',
// at most 64 bytes), else a digest of it.
func token(s string) string {
	ok := s != "" && len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if ok {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "h" + hex.EncodeToString(h[:12])
}

// jobToken is the subject token of a job IRI: its last path segment (the
// job id) when that is a clean token, else a digest.
func jobToken(j quad.IRI) string {
	s := string(j)
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i+1 < len(s) {
		if t := token(s[i+1:]); t == s[i+1:] {
			return t
		}
	}
	return token(s)
}

type names struct{ dep string }

func (n names) tasks() string      { return "MG_" + n.dep + "_TASKS" }
func (n names) results() string    { return "MG_" + n.dep + "_RESULTS" }
func (n names) advisories() string { return "MG_" + n.dep + "_ADVISORIES" }
func (n names) workers() string    { return "mg_" + n.dep + "_workers" }
func (n names) cancel() string     { return "mg." + n.dep + ".cancel" }
func (n names) inputs() string     { return "mg_" + n.dep + "_inputs" }

func (n names) taskSubject(kind, engine string, job quad.IRI, key string) string {
	return "mg." + n.dep + ".task." + token(kind) + "." + token(engine) + "." + jobToken(job) + "." + token(key)
}
func (n names) taskFilter(kind, engine string) string {
	return "mg." + n.dep + ".task." + token(kind) + "." + token(engine) + ".>"
}
func (n names) jobTasks(job quad.IRI) string {
	return "mg." + n.dep + ".task.*.*." + jobToken(job) + ".>"
}
func (n names) taskConsumer(kind, engine string) string { return token(kind) + "-" + token(engine) }
func (n names) resultSubject(job quad.IRI, kind, key string) string {
	return "mg." + n.dep + ".result." + jobToken(job) + "." + token(kind) + "." + token(key)
}
func (n names) jobResults(job quad.IRI) string {
	return "mg." + n.dep + ".result." + jobToken(job) + ".>"
}
func (n names) resultConsumer(job quad.IRI) string { return "res-" + jobToken(job) }
func (n names) advisorySubjects() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + n.tasks() + ".>"
}
func msgID(job quad.IRI, kind, key string) string {
	return jobToken(job) + "/" + token(kind) + "/" + token(key)
}

func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("jsq: route %q: %w", s, err)
	}
	return u, nil
}
