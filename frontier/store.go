package frontier

import (
	"context"
	"time"
)

// Store is the frontier a crawl runs on: *Frontier keeps it in an embedded badger database
// for one process; another implementation (a Redis one) keeps it where several processes
// share it. Every implementation keeps the promises this package's doc makes for *Frontier
// (durability of committed changes, politeness per host, claims finished exactly once, the
// errors ErrURL, ErrMeta, ErrNoSpace, ErrClosed, ErrDone and ErrClaimFinished) except where
// its own doc says otherwise; frontiertest holds the tests they all pass.
type Store interface {
	Add(u URL) (bool, error)
	AddBatch(us []URL) ([]AddResult, error)
	Reject(u URL, reason string) (bool, error)
	Claim(ctx context.Context) (*Claim, error)
	Done(c *Claim) error
	Failed(c *Claim, status int) error
	Retry(c *Claim, notBefore time.Time) (bool, error)
	RetryStatus(c *Claim, notBefore time.Time, status int) (bool, error)
	Pace(ctx context.Context, cl *Claim, hostName string) error
	Ended(cl *Claim, t time.Time) error
	HostBackoff(host string, t time.Time)
	SetHostDelay(host string, d time.Duration)
	SetHostDelayOverride(host string, d time.Duration)
	SetDelay(d time.Duration)
	// HostDelay returns the delay between two requests to host in force now, the one the
	// store spaces them by: the operator's (SetHostDelayOverride) when set, else the larger
	// of the host's Crawl-delay (SetHostDelay) and the crawl's delay (SetDelay, or the
	// configured one).
	HostDelay(host string) time.Duration

	StoreDigest(digest, uri string, date time.Time) error
	LookupDigest(digest string) (uri string, date time.Time, ok bool, err error)
	StoreHeld(key string) error
	LookupHeld(key string) (bool, error)
	StorePriorDigests(ps []Prior) error
	StorePriorURLs(ps []Prior) error
	PriorDigest(digest string) (uri string, date time.Time, ok bool, err error)
	PriorURL(url string) (p Prior, ok bool, err error)

	Meta(key string) (value []byte, ok bool, err error)
	PutMeta(key string, value []byte) error
	ScanMeta(prefix string, fn func(key string, value []byte) error) error

	Each(fn func(Entry) error) error
	Stats() Stats
	Space() (Space, error)
	Sync() error
	Close() error
}

var _ Store = (*Frontier)(nil)

// Counters is implemented by a Store that several processes share: counters the crawl keeps
// across all of them (its URL and byte limits), each change one atomic step.
type Counters interface {
	// AddCounter adds delta to the counter key (0 when new) and returns its new value.
	AddCounter(key string, delta int64) (int64, error)
}

// NewClaim returns a claim of u for a Store other than *Frontier; ext is that store's own
// state for the claim (its lease, its host), which Ext returns. *Frontier refuses such a
// claim (ErrClaimFinished), as it refuses the claims of another *Frontier.
func NewClaim(u URL, ext any) *Claim { return &Claim{URL: u, ext: ext} }

// Ext returns the ext a claim was made with by NewClaim; nil for a claim of *Frontier.
func (c *Claim) Ext() any { return c.ext }
