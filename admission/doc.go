// Package admission decides whether molgraph takes on a request now, so
// that no client and no kind of request can take the whole service.
//
// Two mechanisms, both in memory and per process:
//
//   - A token bucket per API key (Limits.Rate, Limits.Burst; the buckets are
//     golang.org/x/time/rate limiters). A request that finds its key's bucket
//     empty is refused with ErrRateLimited (HTTP 429 with Retry-After).
//     Quota describes a bucket for the RateLimit and RateLimit-Policy
//     response fields of the IETF httpapi draft
//     (draft-ietf-httpapi-ratelimit-headers).
//   - A cap on the requests of each Class served at once
//     (Limits.InFlight): a request of a full class waits up to Limits.Wait
//     in a bounded line (4 × its cap), then is refused with ErrBusy (HTTP
//     503 with Retry-After). A short wait absorbs bursts without queueing
//     unboundedly behind slow queries. One API key holds at most half of a
//     class's places (KeyShare), so that one client's slow queries leave
//     room for the others.
//
// A refusal is a *Rejection, which says why and when to come back. The
// caps on unfinished jobs live with the jobs (jobs.Options), not here.
//
// A Controller holds no global state: cmd/molgraph builds one from its
// flags and hands it to the HTTP layer.
package admission
