// Package status is the vocabulary of what became of a URL: the crawl.log status codes (an
// HTTP status, or one of Heritrix's negative codes for a URL that got no response) and the
// states a URL goes through in the frontier. The fetcher, the frontier, the crawl and the
// reports all use these names, so a code or a state is spelled in one place.
package status

// Heritrix's negative crawl.log codes (org.archive.modules.fetcher.FetchStatusCodes) for URLs
// that got no HTTP response. Only the ones amber writes are listed.
const (
	// Unattempted: the URL was not tried (Heritrix S_UNATTEMPTED).
	Unattempted = 0
	// ConnectFailed: the connection could not be made, or TLS failed (S_CONNECT_FAILED).
	ConnectFailed = -2
	// ConnectBroken: the connection broke, or the response was not HTTP (S_CONNECT_LOST).
	ConnectBroken = -3
	// Timeout: no response within the time limits (S_TIMEOUT).
	Timeout = -4
	// RuntimeError: an unexpected failure in the crawler itself (S_RUNTIME_EXCEPTION).
	RuntimeError = -5
	// DNSFailed: the host name did not resolve (S_DOMAIN_PREREQUISITE_FAILURE).
	DNSFailed = -6
	// InvalidURL: the URL cannot be fetched: unsupported, malformed, or an address the guard
	// refuses (S_UNFETCHABLE_URI).
	InvalidURL = -7
	// RetriesFailed: every attempt failed (S_TOO_MANY_RETRIES).
	RetriesFailed = -8
	// TooManyHops: beyond the hop limit (S_TOO_MANY_LINK_HOPS).
	TooManyHops = -4001
	// OutOfScope: the scope said no (S_OUT_OF_SCOPE).
	OutOfScope = -5000
	// Blocked: a block rule said no (S_BLOCKED_BY_USER).
	Blocked = -5001
	// Killed: the crawl stopped while the URL was being fetched (S_PROCESSING_THREAD_KILLED).
	Killed = -7000
	// Robots: robots.txt disallows the URL (S_ROBOTS_PRECLUDED).
	Robots = -9998
)

// State is where a URL is in the frontier.
type State string

// The states of a URL.
const (
	Queued   State = "queued"   // waiting to be fetched
	Inflight State = "inflight" // claimed by a worker (when the crawl stopped, for a report)
	Done     State = "done"     // finished with a response (any HTTP status)
	Failed   State = "failed"   // finished without a response (network error, retries exhausted)
	Rejected State = "rejected" // never queued: out of scope, blocked by a rule or by robots.txt
)

// Failure reports whether a code is a failure to get a response (a network error, a timeout,
// an unfetchable URL), as opposed to an HTTP status or a decision not to fetch.
func Failure(code int) bool {
	switch code {
	case ConnectFailed, ConnectBroken, Timeout, RuntimeError, DNSFailed, InvalidURL, RetriesFailed, Killed:
		return true
	}
	return false
}

// Disregarded reports whether a code is a decision not to fetch the URL (scope, hops, block
// rules, robots.txt).
func Disregarded(code int) bool {
	switch code {
	case TooManyHops, OutOfScope, Blocked, Robots:
		return true
	}
	return false
}
