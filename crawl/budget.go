package crawl

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/amber-crawler/amber/frontier"
)

// Keys of the crawl's counters: in the frontier's meta store (this process's figures, all
// runs together), and the crawl-wide counters of a shared frontier (frontier.Counters).
const (
	metaFetched     = "crawl/count/fetched"
	metaBytes       = "crawl/count/bytes"
	counterReserved = "reserved" // URLs fetched and claims under way that may become responses
	counterBytes    = "bytes"    // response bytes
)

// budget counts what the crawl fetched, URLs and response bytes over all its runs, against
// the URL and byte limits: a claim is made only with a unit reserved (reserve), which its
// response keeps (counted) or its release gives back (unreserve). Reservations are counted
// even without a URL limit, so that one set while the crawl runs counts the claims under way.
//
// With a shared frontier the limits are the crawl's, across its processes: reservations and
// bytes are counted on the server too (frontier.Counters), and each process keeps its own
// figures (what it fetched) under its name.
type budget struct {
	front      frontier.Store
	ctr        frontier.Counters // the shared frontier's crawl-wide counters; nil with the crawl's own
	process    string            // this process's name with a shared frontier, else ""
	log        *slog.Logger
	limitBytes int64        // Config.LimitBytes
	limitURLs  func() int64 // the URL limit now (Handle.Limit)

	fetched  atomic.Int64 // responses received (all runs)
	bytes    atomic.Int64 // raw response bytes (all runs)
	reserved atomic.Int64 // fetched + claims under way that may become responses
	// sharedBytes is the crawl's response bytes across its processes, as the shared frontier
	// last counted them (addBytes); 0 with the crawl's own frontier.
	sharedBytes atomic.Int64
	hit         atomic.Bool // a limit was reached
}

// newBudget is the budget of a crawl on front, its counters read from front's meta store (an
// error reading them is returned: counting from 0 would lift the limits). A nil limitURLs is
// no URL limit.
func newBudget(front frontier.Store, cfg Config, limitURLs func() int64) (*budget, error) {
	b := &budget{front: front, log: cfg.Logger, limitBytes: cfg.LimitBytes, limitURLs: limitURLs}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.ctr, _ = front.(frontier.Counters) // a shared frontier's
	if cfg.Shared != nil {
		b.process = cfg.Shared.ProcessName()
	}
	for _, n := range []struct {
		key string
		to  *atomic.Int64
	}{{metaFetched, &b.fetched}, {metaBytes, &b.bytes}} {
		v, ok, err := front.Meta(b.key(n.key))
		if err != nil {
			return nil, fmt.Errorf("read counters: %w", err)
		}
		if ok && len(v) == 8 {
			n.to.Store(int64(binary.BigEndian.Uint64(v)))
		}
	}
	b.reserved.Store(b.fetched.Load())
	return b, nil
}

// key is the metadata key of one of this process's counters: key itself with the crawl's own
// frontier, key@PROCESS with a shared one.
func (b *budget) key(key string) string {
	if b.process == "" {
		return key
	}
	return key + "@" + b.process
}

// save writes the counters to the frontier's meta store.
func (b *budget) save() error {
	put := func(key string, n int64) error {
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(n))
		return b.front.PutMeta(key, v[:])
	}
	if err := put(b.key(metaFetched), b.fetched.Load()); err != nil {
		return fmt.Errorf("save counters: %w", err)
	}
	if err := put(b.key(metaBytes), b.bytes.Load()); err != nil {
		return fmt.Errorf("save counters: %w", err)
	}
	return nil
}

// reserve takes one unit of the URL and byte limits for a claim about to be made; false (and
// the limit marked reached) when none is left.
func (b *budget) reserve() bool {
	if b.limitBytes > 0 && b.bytesSoFar() >= b.limitBytes {
		b.hit.Store(true)
		return false
	}
	var limit int64
	if b.limitURLs != nil {
		limit = b.limitURLs()
	}
	if n := b.addReserved(1); limit > 0 && n > limit {
		b.addReserved(-1)
		b.hit.Store(true)
		return false
	}
	return true
}

// unreserve gives back a reservation whose claim got no response.
func (b *budget) unreserve() { b.addReserved(-1) }

// counted counts a response of size bytes, as a URL fetched too when url (a page's own
// response, not a request it made besides); the limit is marked reached when the bytes reach
// the byte limit.
func (b *budget) counted(size int64, url bool) {
	if url {
		b.fetched.Add(1)
	}
	if n := b.addBytes(size); b.limitBytes > 0 && n >= b.limitBytes {
		b.hit.Store(true)
	}
}

// addReserved adds delta to the URL reservations and returns their number: this process's,
// or the crawl's across its processes with a shared frontier. A process killed with
// reservations under way leaves them counted there (at most its workers), so a shared crawl's
// URL limit may stop it up to that many URLs early; a failure to count on the server is
// logged and counted here.
func (b *budget) addReserved(delta int64) int64 {
	local := b.reserved.Add(delta)
	if b.ctr == nil {
		return local
	}
	n, err := b.ctr.AddCounter(counterReserved, delta)
	if err != nil {
		b.log.Warn("count the crawl's URLs on the shared frontier", "err", err)
		return local
	}
	return n
}

// addBytes adds n response bytes to the count and returns the count the byte limit is checked
// against: this process's, or the crawl's with a shared frontier.
func (b *budget) addBytes(n int64) int64 {
	local := b.bytes.Add(n)
	if b.ctr == nil {
		return local
	}
	total, err := b.ctr.AddCounter(counterBytes, n)
	if err != nil {
		b.log.Warn("count the crawl's bytes on the shared frontier", "err", err)
		return max(local, b.sharedBytes.Load())
	}
	b.sharedBytes.Store(total)
	return total
}

// bytesSoFar is the count the byte limit is checked against (see addBytes), as last known.
func (b *budget) bytesSoFar() int64 {
	if b.ctr == nil {
		return b.bytes.Load()
	}
	return max(b.bytes.Load(), b.sharedBytes.Load())
}
