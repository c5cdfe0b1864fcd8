package frontier

import (
	"container/heap"
	"slices"
	"strings"
	"time"
)

// item is one queue entry held in a host's read-ahead buffer.
type item struct {
	key string // q/ key
	rec record
}

// host is the in-memory politeness and read-ahead state of one host. It is small and bounded:
// the queue itself stays in badger. All fields are guarded by Frontier.mu.
//
// Read-ahead invariant (while not loading): every registered, unclaimed queue entry of the host
// whose key is <= cursor is in buf; entries above cursor are found by the next load, which reads
// badger strictly after cursor. Add/Retry register an entry only after its commit; entries being
// committed are in pending (a load skips them, registration inserts them), entries registered
// while a load runs are in late, and entries finished while a load runs are in finished, so a
// load's snapshot can never resurrect or duplicate an entry.
type host struct {
	name     string
	queued   int           // registered, unclaimed entries (in buf or only in badger)
	inflight int           // claims not yet finished
	busy     int           // requests in progress: claims' (see Claim.req) and other claims' visits
	waiting  int           // Pace calls waiting for a request slot; no new claim meanwhile
	delay    time.Duration // SetHostDelay (robots Crawl-delay); effective is max with Config.HostDelay
	override time.Duration // SetHostDelayOverride (the operator's); when set (>= 0) it is the delay
	backoff  time.Time     // HostBackoff: no request before
	lastEnd  time.Time     // end of the most recent request (Ended, or a claim finished)

	buf      []item // sorted by key
	cursor   string // highest key ever loaded (or kept after a trim); "" = nothing loaded
	loading  bool
	pending  map[string]struct{}
	late     []item
	finished map[string]struct{}
	claimed  map[string]struct{} // keys of claims in flight

	inReady  bool
	readyGen uint64
	heapIdx  int // index in Frontier.timed, -1 when absent
	heapAt   time.Time

	site       uint8 // siteIdle, siteActive or siteDraining (Config.MaxSites, sites.go)
	inSiteWait bool  // in Frontier.siteWait, waiting for a site place
	docs       int   // claims since the host took its site place (Config.MaxInterDocs)

	levels     []int32 // Config.Levels: queued entries per level (levels.go); nil without
	readyLevel int     // Config.Levels: the level whose ready queue holds h (inReady)
}

// insert adds an entry to a host's read-ahead buffer.
func (f *Frontier) insert(h *host, it item) {
	i, found := slices.BinarySearchFunc(h.buf, it.key, func(e item, k string) int {
		return strings.Compare(e.key, k)
	})
	if found {
		return
	}
	h.buf = slices.Insert(h.buf, i, it)
	f.buffered++
}

// take removes entry i of a host's read-ahead buffer and returns it; an empty buffer lets its
// array go, so that a host with nothing buffered costs no more than its counters.
func (f *Frontier) take(h *host, i int) item {
	it := h.buf[i]
	h.buf = slices.Delete(h.buf, i, i+1)
	if len(h.buf) == 0 {
		h.buf = nil
	}
	f.buffered--
	return it
}

// firstDue returns the index of the first buffered entry whose not-before has passed, or -1.
func (h *host) firstDue(now int64) int {
	for i := range h.buf {
		if nb := h.buf[i].rec.NotBefore; nb == 0 || nb <= now {
			return i
		}
	}
	return -1
}

func (h *host) minNotBefore() int64 {
	m := int64(-1)
	for i := range h.buf {
		nb := h.buf[i].rec.NotBefore
		if nb == 0 {
			return 0
		}
		if m < 0 || nb < m {
			m = nb
		}
	}
	return m
}

// readyQueue is a FIFO of hosts that can be claimed now (round robin across hosts). Removal is
// lazy: an entry is valid only while its generation matches the host's.
type readyQueue struct {
	q    []readyEntry
	head int
}

type readyEntry struct {
	h   *host
	gen uint64
}

func (r *readyQueue) push(h *host) {
	h.readyGen++
	h.inReady = true
	r.q = append(r.q, readyEntry{h: h, gen: h.readyGen})
}

// pushFront puts h first in line; an entry of h further back is no longer valid.
func (r *readyQueue) pushFront(h *host) {
	h.readyGen++
	h.inReady = true
	e := readyEntry{h: h, gen: h.readyGen}
	if r.head > 0 {
		r.head--
		r.q[r.head] = e
		return
	}
	r.q = slices.Insert(r.q, 0, e)
}

func (r *readyQueue) pop() *host {
	for r.head < len(r.q) {
		e := r.q[r.head]
		r.q[r.head] = readyEntry{}
		r.head++
		if e.h.inReady && e.gen == e.h.readyGen {
			e.h.inReady = false
			r.compact()
			return e.h
		}
	}
	r.q = r.q[:0]
	r.head = 0
	return nil
}

func (r *readyQueue) compact() {
	if r.head < 256 || r.head*2 < len(r.q) {
		return
	}
	n := copy(r.q, r.q[r.head:])
	clear(r.q[n:])
	r.q = r.q[:n]
	r.head = 0
}

// hostHeap orders waiting hosts by the time they become claimable.
type hostHeap []*host

func (hh hostHeap) Len() int           { return len(hh) }
func (hh hostHeap) Less(i, j int) bool { return hh[i].heapAt.Before(hh[j].heapAt) }
func (hh hostHeap) Swap(i, j int) {
	hh[i], hh[j] = hh[j], hh[i]
	hh[i].heapIdx = i
	hh[j].heapIdx = j
}

func (hh *hostHeap) Push(x any) {
	h := x.(*host)
	h.heapIdx = len(*hh)
	*hh = append(*hh, h)
}

func (hh *hostHeap) Pop() any {
	old := *hh
	h := old[len(old)-1]
	old[len(old)-1] = nil
	*hh = old[:len(old)-1]
	h.heapIdx = -1
	return h
}

func (hh *hostHeap) set(h *host, at time.Time) {
	h.heapAt = at
	if h.heapIdx >= 0 {
		heap.Fix(hh, h.heapIdx)
		return
	}
	heap.Push(hh, h)
}

func (hh *hostHeap) remove(h *host) {
	if h.heapIdx >= 0 {
		heap.Remove(hh, h.heapIdx)
	}
}

// The methods below need Frontier.mu held.

func (f *Frontier) hostLocked(name string) *host {
	h := f.hosts[name]
	if h == nil {
		h = &host{name: name, heapIdx: -1, override: -1}
		f.hosts[name] = h
	}
	return h
}

func (f *Frontier) hostDelay(h *host) time.Duration {
	if h.override >= 0 {
		return h.override
	}
	return max(h.delay, f.cfg.HostDelay)
}

// canLoad reports whether a load could bring in more entries: some are only in badger and the
// buffer has room.
func (f *Frontier) canLoad(h *host) bool {
	return h.queued > len(h.buf) && len(h.buf) < f.readAhead
}

// eligible reports whether a claim of h could be handed out once h is ready: a slot is free
// for a claim and for its request, no Pace is waiting for a slot, and there is work.
func (f *Frontier) eligible(h *host) bool {
	return !h.loading && h.inflight < f.cfg.HostConcurrency && h.busy < f.cfg.HostConcurrency &&
		h.waiting == 0 && (h.queued > 0 || len(h.buf) > 0) && !h.siteWaiting()
}

// politeAt is the earliest time h may be sent its next request: after its backoff, and after
// its delay since the end of its latest request.
func (f *Frontier) politeAt(h *host) time.Time {
	t := h.backoff
	if !h.lastEnd.IsZero() {
		if e := h.lastEnd.Add(f.hostDelay(h)); e.After(t) {
			t = e
		}
	}
	return t
}

// readyAt is the earliest time an eligible host can be claimed: politeAt, and (when nothing
// more can be loaded) after the earliest not-before of its buffered entries.
func (f *Frontier) readyAt(h *host) time.Time {
	t := f.politeAt(h)
	if len(h.buf) > 0 && !f.canLoad(h) {
		if nb := h.minNotBefore(); nb > 0 {
			if tb := time.Unix(0, nb); tb.After(t) {
				t = tb
			}
		}
	}
	return t
}

// schedule puts h where it belongs after any change: the ready queue, the timed heap, or neither.
func (f *Frontier) schedule(h *host, now time.Time) {
	if f.cfg.MaxSites > 0 {
		f.settleSite(h, now)
	}
	if !f.eligible(h) {
		h.inReady = false
		f.timed.remove(h)
		return
	}
	at := f.readyAt(h)
	if !at.After(now) {
		f.timed.remove(h)
		f.pushReady(h)
		return
	}
	h.inReady = false
	f.timed.set(h, at)
}

func (f *Frontier) promote(now time.Time) {
	for len(f.timed) > 0 && !f.timed[0].heapAt.After(now) {
		h := heap.Pop(&f.timed).(*host)
		f.schedule(h, now)
	}
}

// trim bounds the read-ahead: the highest entries are dropped (they stay in badger) and the
// cursor moves back so that the next load finds them again.
func (f *Frontier) trim(h *host) {
	if h.loading || len(h.buf) <= f.readAhead {
		return
	}
	f.buffered -= len(h.buf) - f.readAhead
	clear(h.buf[f.readAhead:])
	h.buf = h.buf[:f.readAhead]
	h.cursor = h.buf[len(h.buf)-1].key
}

// register makes a committed queue entry known to the scheduler.
func (f *Frontier) register(h *host, it item, now time.Time) {
	h.queued++
	f.stats.Queued++
	if f.lv != nil {
		f.lv.count(h, f.lv.level(it.rec.URL.Level), 1)
	}
	switch {
	case h.loading:
		h.late = append(h.late, it)
	case h.cursor != "" && it.key <= h.cursor:
		f.insert(h, it)
		f.trim(h)
	}
	f.schedule(h, now)
}

// merge applies the result of a load that read entries strictly after the cursor.
// ok is false when the load failed (loaded is then empty and says nothing about badger).
func (f *Frontier) merge(h *host, loaded []item, late []item, finished map[string]struct{}, ok bool) {
	for _, it := range loaded {
		if _, ok := h.pending[it.key]; ok {
			continue
		}
		if _, ok := h.claimed[it.key]; ok {
			continue
		}
		if _, ok := finished[it.key]; ok {
			continue
		}
		f.insert(h, it)
	}
	if len(loaded) > 0 {
		h.cursor = loaded[len(loaded)-1].key
	}
	for _, it := range late {
		if it.key > h.cursor {
			continue
		}
		if _, found := slices.BinarySearchFunc(loaded, it.key, func(e item, k string) int {
			return strings.Compare(e.key, k)
		}); found {
			continue
		}
		f.insert(h, it)
	}
	f.trim(h)
	if ok && len(loaded) == 0 && len(late) == 0 && f.canLoad(h) {
		// Nothing after the cursor although entries are counted: rescan from the start once,
		// then trust badger over the counter.
		if len(h.buf) == 0 && h.cursor != "" {
			h.cursor = ""
			return
		}
		excess := h.queued - len(h.buf)
		h.queued -= excess
		f.stats.Queued -= int64(excess)
		if f.lv != nil {
			f.lv.recount(h)
		}
	}
}

// release frees the host slot of a finished claim. A request of the claim still in progress
// (not Ended) is taken to end now, which starts its host's delay clock.
func (f *Frontier) release(c *Claim, now time.Time) {
	h := c.host
	if c.req != nil && c.req != h {
		f.endRequest(c, now, now)
	}
	h.inflight--
	delete(h.claimed, c.key)
	if len(h.claimed) == 0 {
		h.claimed = nil
	}
	if h.loading {
		if h.finished == nil {
			h.finished = make(map[string]struct{})
		}
		h.finished[c.key] = struct{}{}
	}
	delete(f.inflight, c.URL.URL)
	f.stats.InFlight--
	if c.req == h {
		c.req = nil
		h.busy--
		if now.After(h.lastEnd) {
			h.lastEnd = now
		}
	}
	f.schedule(h, now)
	f.broadcast()
}

// claimLocked hands out a due entry of a ready host, or returns a host whose buffer the caller
// must load (marked loading), or neither.
func (f *Frontier) claimLocked(now time.Time) (*Claim, *host) {
	f.promote(now)
	if f.lv != nil {
		return f.claimLevels(now)
	}
	return f.claimFrom(&f.ready, now)
}

// claimFrom is claimLocked from one ready queue.
func (f *Frontier) claimFrom(ready *readyQueue, now time.Time) (*Claim, *host) {
	nowNs := now.UnixNano()
	for {
		h := ready.pop()
		if h == nil {
			return nil, nil
		}
		if !f.eligible(h) || f.readyAt(h).After(now) {
			f.schedule(h, now)
			continue
		}
		if f.cfg.MaxSites > 0 && !f.admitSite(h) {
			f.schedule(h, now) // out of the queues until it has a place
			continue
		}
		i := h.firstDue(nowNs)
		if i < 0 {
			if f.canLoad(h) {
				h.loading = true
				f.schedule(h, now)
				return nil, h
			}
			f.schedule(h, now)
			continue
		}
		it := f.take(h, i)
		h.inflight++
		h.busy++ // the claim's first request may be sent at once
		h.queued--
		if f.lv != nil {
			it.rec.URL.Level = f.lv.level(it.rec.URL.Level)
			f.lv.count(h, it.rec.URL.Level, -1)
		}
		if h.claimed == nil {
			h.claimed = make(map[string]struct{}, f.cfg.HostConcurrency)
		}
		h.claimed[it.key] = struct{}{}
		f.inflight[it.rec.URL.URL] = struct{}{}
		f.stats.Queued--
		f.stats.InFlight++
		if f.cfg.MaxSites > 0 {
			f.claimedSite(h)
		}
		f.schedule(h, now)
		return &Claim{URL: it.rec.URL, f: f, host: h, key: it.key, rec: it.rec, req: h}, nil
	}
}

func (f *Frontier) broadcast() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

func (f *Frontier) wakeChan() chan struct{} {
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	return f.wake
}
